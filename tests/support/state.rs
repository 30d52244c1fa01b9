//! An enabled handler for the root crate's tests: the embedded config with
//! `ASK_ENABLED=true`, an `ASK_INDEX` that is never read (the index is
//! handed over), the given variables on top, and a clock that stands still.
//! (Included with `#[path]`: build-index's tests share tests/support but
//! not this crate.)

#![allow(dead_code)]

use nlweb_ask::config::{Config, EMBEDDED_CONFIG};
use nlweb_ask::state::State;

/// The configuration those variables give; later pairs win.
pub fn config(extra: &[(&str, &str)]) -> Config {
    let extra: Vec<(String, String)> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env = move |k: &str| {
        extra
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .or_else(|| match k {
                "ASK_ENABLED" => Some("true".into()),
                "ASK_INDEX" => Some("unused-in-tests.idx".into()),
                _ => None,
            })
    };
    nlweb_ask::config::load_yaml(EMBEDDED_CONFIG, &env).unwrap()
}

/// The configuration of exactly these variables (no defaults added), or
/// the error that refuses it.
pub fn load(pairs: &[(&str, &str)]) -> Result<Config, nlweb_ask::config::ConfigError> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    nlweb_ask::config::load_yaml(EMBEDDED_CONFIG, &move |k| {
        pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    })
}

/// A handler over `index` with that configuration, its analytics lines
/// kept in memory (`state.analytics.lines()`), not printed.
pub fn state(index: ask_index::Index, extra: &[(&str, &str)]) -> State {
    State::with_clock(config(extra), index, Box::new(|| 0.0)).with_analytics_in_memory()
}

/// The `query_id` that `events/http-post-ask-feedback.json` rates: one
/// in the form the function issues, which no test state verifies (ids are
/// signed under each deployment's secret and expire after a day).
pub const SAVED_RATED_ID: &str = "6b14e396.3e4e3b1a47a64bac.f5e0132294e671a534518f0f4fec26ac";

/// A saved event's text as a reader would send it to `state`: its rating
/// names an id `state` issued (the same length: `content-length` holds).
pub fn rateable(state: &State, text: &str) -> String {
    text.replace(SAVED_RATED_ID, &state.new_query_id())
}

/// The saved event `events/<name>` (HTTP API v2) sent to `path_and_query`
/// instead: its path, raw query and decoded parameters (the tests' values
/// are plain ASCII, `+` the one encoding used).
pub fn event_at(name: &str, path_and_query: &str) -> serde_json::Value {
    use serde_json::{Value, json};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("events")
        .join(name);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    v["rawPath"] = json!(path);
    v["requestContext"]["http"]["path"] = json!(path);
    v["rawQueryString"] = json!(query);
    let params: serde_json::Map<String, Value> = query
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), json!(v.replace('+', " "))))
        .collect();
    if let Some(event) = v.as_object_mut() {
        event.remove("queryStringParameters");
        if !params.is_empty() {
            event.insert("queryStringParameters".into(), Value::Object(params));
        }
    }
    v
}
