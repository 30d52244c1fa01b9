//! Reading exports: the analytics lines of a log, whatever wraps them.

use serde::Deserialize;

/// The members of an analytics line the report reads.
#[derive(Debug, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub(super) enum Line {
    Query(Query),
    Feedback(Feedback),
    Throttled(Throttled),
}

#[derive(Debug, Deserialize)]
pub(super) struct Aws {
    #[serde(rename = "Timestamp")]
    pub(super) timestamp: u64,
}

#[derive(Debug, Deserialize)]
pub(super) struct Query {
    #[serde(rename = "_aws")]
    pub(super) aws: Aws,
    pub(super) client: String,
    #[serde(default)]
    pub(super) route: String,
    #[serde(default)]
    pub(super) client_name: Option<String>,
    pub(super) query_id: String,
    #[serde(default)]
    pub(super) client_query_id: bool,
    #[serde(default)]
    pub(super) start_num: usize,
    pub(super) answered: bool,
    #[serde(default)]
    pub(super) failure: Option<String>,
    #[serde(default)]
    pub(super) top_urls: Vec<String>,
    #[serde(default)]
    pub(super) question: Option<String>,
    #[serde(default)]
    pub(super) missing: Option<Vec<String>>,
    #[serde(default)]
    pub(super) site: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Feedback {
    #[serde(rename = "_aws")]
    pub(super) aws: Aws,
    pub(super) query_id: String,
    pub(super) rating: String,
    #[serde(default)]
    pub(super) comment: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Throttled {
    #[serde(rename = "_aws")]
    pub(super) aws: Aws,
}

/// The analytics lines found in an export, and what else it held.
#[derive(Debug, Default)]
pub struct Read {
    pub(super) lines: Vec<Line>,
    /// Log lines that are not analytics lines (the function's other logs,
    /// Lambda's platform lines, blank lines).
    pub other: usize,
    /// Lines that claim to be analytics lines (`_aws` and `event`) but do
    /// not parse as one: cut, or from another writer.
    pub malformed: usize,
}

/// Whether text that does not parse looks like an analytics line (its
/// `_aws` member, or the same escaped inside a wrapper's `message`).
fn claims_to_be(text: &str) -> bool {
    text.contains("\"_aws\"") || text.contains("\\\"_aws\\\"")
}

/// The first JSON object in `text` (after any prefix), if one parses.
fn object_in(text: &str) -> Option<serde_json::Value> {
    let start = text.find('{')?;
    serde_json::from_str::<serde_json::Value>(text[start..].trim_end())
        .ok()
        .filter(|v| v.is_object())
}

impl Read {
    /// Every record of an export: a whole `aws logs filter-log-events`
    /// document (`{"events": [{"message": …}]}`), or lines, each an
    /// analytics line, or an object whose `message` holds one (`sam logs
    /// --output json`, CloudWatch exports), or any other log line.
    pub fn from_text(text: &str) -> Read {
        let mut read = Read::default();
        // JSON documents one after another (one `filter-log-events`
        // document or several, pretty-printed or not; or JSON lines): each
        // an export's `events`, or a record.
        let values: Result<Vec<serde_json::Value>, _> = serde_json::Deserializer::from_str(text)
            .into_iter()
            .collect();
        if let Ok(values) = values {
            for v in values {
                match v.get("events") {
                    Some(serde_json::Value::Array(events)) => {
                        for e in events {
                            read.record(e.clone());
                        }
                    }
                    _ => read.record(v),
                }
            }
            return read;
        }
        // Else a log's lines, each a record after any prefix, or not.
        for line in text.lines() {
            match object_in(line) {
                Some(v) => read.record(v),
                None if claims_to_be(line) => read.malformed += 1,
                None => read.other += 1,
            }
        }
        read
    }

    /// Adds what another export held.
    pub fn add(&mut self, other: Read) {
        self.lines.extend(other.lines);
        self.other += other.other;
        self.malformed += other.malformed;
    }

    fn record(&mut self, v: serde_json::Value) {
        let v = match v.get("message") {
            Some(serde_json::Value::String(m)) => match object_in(m) {
                Some(inner) => inner,
                None if claims_to_be(m) => {
                    self.malformed += 1;
                    return;
                }
                None => {
                    self.other += 1;
                    return;
                }
            },
            Some(inner @ serde_json::Value::Object(_)) => inner.clone(),
            _ => v,
        };
        if v.get("_aws").is_none() || v.get("event").is_none() {
            if v.get("_aws").is_some() {
                self.malformed += 1;
            } else {
                self.other += 1;
            }
            return;
        }
        match serde_json::from_value::<Line>(v) {
            Ok(line) => self.lines.push(line),
            Err(_) => self.malformed += 1,
        }
    }
}
