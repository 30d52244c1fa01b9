//! An SSE reader for tests, written apart from the writer in `src/answer.rs`:
//! it follows the WHATWG event-stream rules (fields per line, events end at
//! a blank line, `:` comments ignored) and checks NLWeb 0.55 event order.

#![allow(dead_code)]

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Event {
    pub name: String,
    pub id: Option<String>,
    pub data: Value,
}

pub fn parse(text: &str) -> Result<Vec<Event>, String> {
    let mut out = Vec::new();
    let mut name = String::from("message");
    let mut id = None;
    let mut data: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if !data.is_empty() {
                if data.len() != 1 {
                    return Err(format!("event {name} has {} data lines", data.len()));
                }
                let v: Value =
                    serde_json::from_str(&data[0]).map_err(|e| format!("data is not JSON: {e}"))?;
                out.push(Event {
                    name: std::mem::replace(&mut name, "message".into()),
                    id: id.take(),
                    data: v,
                });
                data.clear();
            }
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => name = value.to_string(),
            "id" => id = Some(value.to_string()),
            "data" => data.push(value.to_string()),
            _ => {}
        }
    }
    if !data.is_empty() {
        return Err("stream ends inside an event (no blank line)".into());
    }
    Ok(out)
}

/// The older in-band headers of a stream: its unnamed events ("message"),
/// which must all come right after `start` and be legacy header messages.
pub fn legacy_headers(events: &[Event]) -> Result<Vec<&Event>, String> {
    let unnamed: Vec<&Event> = events.iter().filter(|e| e.name == "message").collect();
    for (i, e) in unnamed.iter().enumerate() {
        if !std::ptr::eq(*e, &events[i + 1]) {
            return Err("an unnamed event that does not follow start".into());
        }
        let t = e.data["message_type"].as_str().unwrap_or("");
        if !["api_version", "data_freshness", "rate_limits"].contains(&t) || e.id.is_some() {
            return Err(format!("unnamed event {}", e.data));
        }
    }
    Ok(unnamed)
}

/// start first, results with unique indexes, exactly one complete, last;
/// the unnamed legacy header events (see [`legacy_headers`]) aside.
pub fn check_answer_stream(events: &[Event]) -> Result<(), String> {
    legacy_headers(events)?;
    let named: Vec<Event> = events
        .iter()
        .filter(|e| e.name != "message")
        .cloned()
        .collect();
    let events = &named[..];
    let first = events.first().ok_or("empty stream")?;
    if first.name != "start" {
        return Err(format!("first event is {}", first.name));
    }
    for k in ["response_type", "version"] {
        if !first.data["_meta"][k].is_string() {
            return Err(format!("start has no _meta.{k}"));
        }
    }
    let last = events.last().unwrap();
    if last.name != "complete" {
        return Err(format!("last event is {}", last.name));
    }
    if events.iter().filter(|e| e.name == "complete").count() != 1 {
        return Err("more than one complete".into());
    }
    if !last.data["_meta"]["version"].is_string()
        || !last.data["_meta"]["response_type"].is_string()
    {
        return Err("complete has no full _meta".into());
    }
    let mut seen = Vec::new();
    for e in events {
        if e.name == "result" {
            let i = e.data["index"].as_u64().ok_or("result without index")?;
            if seen.contains(&i) {
                return Err(format!("index {i} repeated"));
            }
            seen.push(i);
            if !e.data["item"]["@type"].is_string() {
                return Err("item without @type".into());
            }
        }
        if e.data["message_type"].as_str() != Some(e.name.as_str()) {
            return Err(format!("{} without matching message_type", e.name));
        }
        if e.id.is_none() {
            return Err(format!("{} without id", e.name));
        }
    }
    Ok(())
}
