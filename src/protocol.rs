//! What did the client ask for? NLWeb 0.55 request parsing.
//!
//! Three shapes are accepted (DESIGN §2): URL parameters (GET), a flat
//! "legacy" JSON object, and the 0.55 object with `query`, `context`,
//! `prefer` and `meta`. The body wins over URL parameters. Every way a
//! request can be wrong ends in a [`Failure`] with its NLWeb code and HTTP
//! status; nothing here panics on client input.

use serde_json::{Map, Value};

use crate::config::{Config, Mode};

/// An NLWeb failure: code, message, HTTP status.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// `INVALID_QUERY`, `NO_RESULTS`, …
    pub code: &'static str,
    /// What went wrong and what to do.
    pub message: String,
    /// HTTP status.
    pub status: u16,
}

impl Failure {
    /// A failure with its status from DESIGN §3.
    pub fn new(code: &'static str, message: impl Into<String>) -> Failure {
        let status = match code {
            "INVALID_QUERY" | "INVALID_REQUEST" => 400,
            "PAYLOAD_TOO_LARGE" => 413,
            "METHOD_NOT_ALLOWED" => 405,
            "RATE_LIMITED" => 429,
            "INTERNAL_ERROR" => 500,
            _ => 200,
        };
        Failure {
            code,
            message: message.into(),
            status,
        }
    }
}

/// A parsed, validated `/ask` request.
#[derive(Clone, Debug, PartialEq)]
pub struct AskRequest {
    /// The question.
    pub query: String,
    /// Earlier questions, oldest first.
    pub prev: Vec<String>,
    /// A client-supplied standalone version of the question.
    pub decontextualized_query: Option<String>,
    /// Response mode.
    pub mode: Mode,
    /// SSE or JSON.
    pub streaming: bool,
    /// Echoed `query_id`, if the client sent one.
    pub query_id: Option<String>,
    /// `query.site` / `site`, accepted and echoed in logs (one site here).
    pub site: Option<String>,
}

/// The HTTP facts parsing needs, already taken out of the event.
#[derive(Clone, Debug, Default)]
pub struct RawRequest<'a> {
    /// Decoded URL query parameters, in order.
    pub params: Vec<(String, String)>,
    /// `Accept` header.
    pub accept: Option<&'a str>,
    /// The body (already base64-decoded).
    pub body: &'a [u8],
}

/// Formats that we serve.
const FORMATS: &[&str] = &["conversational_search", "conv_search"];

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `false`, `"false"`, `"False"`, `"0"`, `"no"`, `"off"` are false; true,
/// `"true"`, `"1"`, `"yes"`, `"on"` true; anything else is a bad value.
fn parse_streaming(v: &Value) -> Result<bool, Failure> {
    let bad = || {
        Failure::new(
            "INVALID_QUERY",
            format!("streaming must be true or false, got {v}"),
        )
    };
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) => match n.as_i64() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(bad()),
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "false" | "0" | "no" | "off" => Ok(false),
            "true" | "1" | "yes" | "on" => Ok(true),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

/// One mode or a comma list (`"list, summarize"`): the richest it names.
fn parse_mode(v: &Value) -> Result<Mode, Failure> {
    let Some(s) = as_text(v) else {
        return Err(Failure::new(
            "INVALID_QUERY",
            format!("mode must be a string, got {v}"),
        ));
    };
    let mut best: Option<Mode> = None;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match Mode::parse(part) {
            Some(m) => best = Some(best.map_or(m, |b| b.max(m))),
            None => {
                return Err(Failure::new(
                    "UNSUPPORTED_MODE",
                    format!("mode {part:?} is not served here; use list, summarize or generate"),
                ));
            }
        }
    }
    best.ok_or_else(|| {
        Failure::new(
            "UNSUPPORTED_MODE",
            "mode is empty; use list, summarize or generate",
        )
    })
}

/// `prev` as an array of strings or a comma string (`"a,b"`, `"[a,b]"`).
fn parse_prev(v: &Value, max: usize) -> Result<Vec<String>, Failure> {
    let list: Vec<String> = match v {
        Value::Array(items) => items
            .iter()
            .map(|i| {
                as_text(i)
                    .ok_or_else(|| Failure::new("INVALID_QUERY", "prev entries must be strings"))
            })
            .collect::<Result<_, _>>()?,
        Value::String(s) => {
            let t = s.trim();
            if t.starts_with('[')
                && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(t)
            {
                return parse_prev(&Value::Array(items), max);
            }
            t.trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|p| p.trim().to_string())
                .collect()
        }
        Value::Null => Vec::new(),
        _ => {
            return Err(Failure::new(
                "INVALID_QUERY",
                "prev must be an array of strings",
            ));
        }
    };
    let mut list: Vec<String> = list.into_iter().filter(|p| !p.trim().is_empty()).collect();
    if list.len() > max {
        // Keep the most recent ones.
        list.drain(..list.len() - max);
    }
    Ok(list)
}

/// Parses and validates a request.
pub fn parse(raw: &RawRequest, cfg: &Config) -> Result<AskRequest, Failure> {
    if raw.body.len() > cfg.max_body_bytes {
        return Err(Failure::new(
            "PAYLOAD_TOO_LARGE",
            format!(
                "request body is {} bytes; the limit is {} bytes",
                raw.body.len(),
                cfg.max_body_bytes
            ),
        ));
    }
    // URL parameters first; a JSON body then overrides them.
    let mut flat: Map<String, Value> = Map::new();
    for (k, v) in &raw.params {
        flat.entry(k.clone())
            .or_insert_with(|| Value::String(v.clone()));
    }
    let mut prefer: Option<Map<String, Value>> = None;
    let mut context_prev: Option<Value> = None;
    let body = std::str::from_utf8(raw.body)
        .map_err(|_| Failure::new("INVALID_REQUEST", "request body is not UTF-8 JSON"))?;
    if !body.trim().is_empty() {
        let v: Value = serde_json::from_str(body).map_err(|e| {
            Failure::new("INVALID_REQUEST", format!("request body is not JSON: {e}"))
        })?;
        let Value::Object(obj) = v else {
            return Err(Failure::new(
                "INVALID_REQUEST",
                "request body must be a JSON object",
            ));
        };
        for (k, v) in obj {
            match (k.as_str(), v) {
                ("query", Value::Object(q)) => {
                    // NLWeb 0.55: query.text, query.site, other filters ignored.
                    match q.get("text") {
                        Some(t) => {
                            flat.insert("query".into(), t.clone());
                        }
                        None => {
                            flat.insert("query".into(), Value::Null);
                        }
                    }
                    if let Some(s) = q.get("site") {
                        flat.insert("site".into(), s.clone());
                    }
                    if let Some(d) = q.get("decontextualized_query") {
                        flat.insert("decontextualized_query".into(), d.clone());
                    }
                }
                ("prefer", Value::Object(p)) => prefer = Some(p),
                ("context", Value::Object(c)) => context_prev = c.get("prev").cloned(),
                ("meta", _) | ("context", _) | ("prefer", _) => {}
                (k, v) => {
                    flat.insert(k.to_string(), v);
                }
            }
        }
    }

    let get = |k: &str| flat.get(k).filter(|v| !v.is_null());
    let query_value = get("query").or_else(|| get("q")).or_else(|| get("text"));
    let query = match query_value {
        None => {
            return Err(Failure::new(
                "INVALID_QUERY",
                "query is missing: send ?query=… or {\"query\":{\"text\":…}}",
            ));
        }
        Some(v) => {
            as_text(v).ok_or_else(|| Failure::new("INVALID_QUERY", "query must be a string"))?
        }
    };
    let query = query.trim().to_string();
    if query.is_empty() {
        return Err(Failure::new("INVALID_QUERY", "query is empty"));
    }
    let chars = query.chars().count();
    if chars > cfg.max_query_chars {
        return Err(Failure::new(
            "INVALID_QUERY",
            format!(
                "query is {chars} characters; the limit is {}",
                cfg.max_query_chars
            ),
        ));
    }

    if let Some(fmt) = prefer
        .as_ref()
        .and_then(|p| p.get("response_format"))
        .filter(|v| !v.is_null())
    {
        let f = as_text(fmt).unwrap_or_default();
        if !FORMATS.contains(&f.trim()) {
            return Err(Failure::new(
                "UNSUPPORTED_FORMAT",
                format!("response_format {f:?} is not served here; use conversational_search"),
            ));
        }
    }

    let mode = match prefer
        .as_ref()
        .and_then(|p| p.get("mode"))
        .filter(|v| !v.is_null())
        .or_else(|| get("mode"))
        .or_else(|| get("generate_mode"))
    {
        Some(v) => parse_mode(v)?,
        None => cfg.default_mode,
    };

    let accept_sse = raw
        .accept
        .is_some_and(|a| a.to_ascii_lowercase().contains("text/event-stream"));
    let streaming = match prefer
        .as_ref()
        .and_then(|p| p.get("streaming"))
        .filter(|v| !v.is_null())
    {
        Some(v) => parse_streaming(v)?,
        None => match get("streaming") {
            Some(v) => parse_streaming(v)?,
            None => accept_sse || cfg.default_streaming,
        },
    };

    let prev = match context_prev.as_ref().or_else(|| get("prev")) {
        Some(v) => parse_prev(v, cfg.max_prev)?,
        None => Vec::new(),
    };
    for p in &prev {
        if p.chars().count() > cfg.max_query_chars {
            return Err(Failure::new(
                "INVALID_QUERY",
                format!("a prev entry is over {} characters", cfg.max_query_chars),
            ));
        }
    }
    let decontextualized_query = get("decontextualized_query")
        .and_then(as_text)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(d) = &decontextualized_query
        && d.chars().count() > cfg.max_query_chars
    {
        return Err(Failure::new(
            "INVALID_QUERY",
            "decontextualized_query is over the query limit",
        ));
    }
    let query_id = get("query_id")
        .and_then(as_text)
        .map(|s| {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
                .take(64)
                .collect::<String>()
        })
        .filter(|s| !s.is_empty());
    let site = get("site").and_then(|v| match v {
        Value::Array(a) => a.first().and_then(as_text),
        v => as_text(v),
    });
    Ok(AskRequest {
        query,
        prev,
        decontextualized_query,
        mode,
        streaming,
        query_id,
        site,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::EMBEDDED_CONFIG;

    fn cfg() -> Config {
        Config::load(EMBEDDED_CONFIG, &|_| None).unwrap()
    }

    fn req(
        params: &[(&str, &str)],
        accept: Option<&'static str>,
        body: &'static str,
    ) -> Result<AskRequest, Failure> {
        let raw = RawRequest {
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            accept,
            body: body.as_bytes(),
        };
        parse(&raw, &cfg())
    }

    #[test]
    fn request_shapes_table() {
        // (params, accept, body, query, mode, streaming, prev)
        type Case = (
            &'static [(&'static str, &'static str)],
            Option<&'static str>,
            &'static str,
            &'static str,
            Mode,
            bool,
            &'static [&'static str],
        );
        let cases: &[Case] = &[
            (
                &[("query", "rate limit")],
                None,
                "",
                "rate limit",
                Mode::Generate,
                true,
                &[],
            ),
            (
                &[("q", "x"), ("streaming", "false")],
                None,
                "",
                "x",
                Mode::Generate,
                false,
                &[],
            ),
            (
                &[("text", "x"), ("streaming", "False"), ("mode", "list")],
                None,
                "",
                "x",
                Mode::List,
                false,
                &[],
            ),
            (
                &[
                    ("query", "x"),
                    ("streaming", "0"),
                    ("generate_mode", "summarize"),
                ],
                None,
                "",
                "x",
                Mode::Summarize,
                false,
                &[],
            ),
            (
                &[
                    ("query", "x"),
                    ("mode", "list"),
                    ("generate_mode", "summarize"),
                ],
                None,
                "",
                "x",
                Mode::List,
                true,
                &[],
            ),
            (
                &[("query", "x"), ("streaming", "off")],
                Some("text/event-stream"),
                "",
                "x",
                Mode::Generate,
                false,
                &[],
            ),
            (
                &[("query", "x"), ("prev", "a,b")],
                None,
                "",
                "x",
                Mode::Generate,
                true,
                &["a", "b"],
            ),
            (
                &[("query", "url")],
                None,
                r#"{"query":"body","streaming":false,"prev":["p"]}"#,
                "body",
                Mode::Generate,
                false,
                &["p"],
            ),
            (
                &[],
                None,
                r#"{"query":"x","streaming":false}"#,
                "x",
                Mode::Generate,
                false,
                &[],
            ),
            (
                &[],
                None,
                r#"{"query":{"text":"x","itemType":"TechArticle"},"context":{"prev":["a"]},"prefer":{"streaming":false,"mode":"list, summarize","response_format":"conversational_search"},"meta":{"version":"0.55"}}"#,
                "x",
                Mode::Summarize,
                false,
                &["a"],
            ),
            (
                &[],
                None,
                r#"{"query":{"text":"x"},"context":{"@type":"ConversationalContext"}}"#,
                "x",
                Mode::Generate,
                true,
                &[],
            ),
            (
                &[("streaming", "true")],
                None,
                r#"{"query":{"text":"x"},"prefer":{"streaming":false}}"#,
                "x",
                Mode::Generate,
                false,
                &[],
            ),
            (
                &[],
                Some("text/event-stream"),
                r#"{"query":{"text":"x"}}"#,
                "x",
                Mode::Generate,
                true,
                &[],
            ),
            (
                &[],
                None,
                r#"{"query":{"text":"x"},"meta":{"api_version":"0.55"},"prefer":{"mode":"none"}}"#,
                "x",
                Mode::List,
                true,
                &[],
            ),
        ];
        for (params, accept, body, q, mode, streaming, prev) in cases {
            let r =
                req(params, *accept, body).unwrap_or_else(|f| panic!("{params:?} {body}: {f:?}"));
            assert_eq!(r.query, *q, "{params:?} {body}");
            assert_eq!(r.mode, *mode, "{params:?} {body}");
            assert_eq!(r.streaming, *streaming, "{params:?} {body}");
            assert_eq!(
                r.prev,
                prev.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "{params:?} {body}"
            );
        }
    }

    #[test]
    fn failures_table() {
        let long = "x".repeat(501);
        type Case<'a> = (Vec<(&'a str, &'a str)>, String, &'a str, u16);
        let cases: Vec<Case> = vec![
            (vec![], String::new(), "INVALID_QUERY", 400),
            (vec![("query", "   ")], String::new(), "INVALID_QUERY", 400),
            (
                vec![("query", long.as_str())],
                String::new(),
                "INVALID_QUERY",
                400,
            ),
            (vec![], "not json{".into(), "INVALID_REQUEST", 400),
            (vec![], "[1,2]".into(), "INVALID_REQUEST", 400),
            (
                vec![],
                r#"{"query":{"site":"x"}}"#.into(),
                "INVALID_QUERY",
                400,
            ),
            (
                vec![],
                r#"{"query":{"text":""}}"#.into(),
                "INVALID_QUERY",
                400,
            ),
            (
                vec![],
                r#"{"query":{"text":["x"]}}"#.into(),
                "INVALID_QUERY",
                400,
            ),
            (
                vec![("query", "x"), ("streaming", "maybe")],
                String::new(),
                "INVALID_QUERY",
                400,
            ),
            (
                vec![],
                r#"{"query":{"text":"x"},"prefer":{"mode":"recommend"}}"#.into(),
                "UNSUPPORTED_MODE",
                200,
            ),
            (
                vec![],
                r#"{"query":{"text":"x"},"prefer":{"response_format":"chatgpt_app"}}"#.into(),
                "UNSUPPORTED_FORMAT",
                200,
            ),
            (
                vec![("query", "x")],
                format!("{{\"pad\":\"{}\"}}", "y".repeat(70_000)),
                "PAYLOAD_TOO_LARGE",
                413,
            ),
        ];
        for (params, body, code, status) in cases {
            let raw = RawRequest {
                params: params
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                accept: None,
                body: body.as_bytes(),
            };
            let f = parse(&raw, &cfg()).expect_err(&format!("{params:?} {body:.60}"));
            assert_eq!(
                (f.code, f.status),
                (code, status),
                "{params:?} {body:.60}: {}",
                f.message
            );
        }
    }

    #[test]
    fn exactly_500_characters_is_accepted() {
        let q = "é".repeat(500);
        let raw = RawRequest {
            params: vec![("query".into(), q)],
            ..RawRequest::default()
        };
        assert!(parse(&raw, &cfg()).is_ok());
    }
}
