//! NLWeb 0.55 conformance: one test per item of the checklist in
//! `research/nlweb-protocol.md` §8 (items 1–42 and 49–51; the MCP items
//! 43–48 are out of scope, the Lambda serves no `/mcp`).
//!
//! Every test drives the real handler in process with API Gateway events:
//! saved ones from `events/`, or one of them with its query string, headers
//! or body replaced. Where the API docs (docs/content/docs/api.mdx) are more precise than the
//! checklist, the test checks the contract and says so. SSE bodies are read
//! only with the parser in `tests/support/sse.rs`.
//!
//! The tests sit by the checklist's sections: `requests` (items 1–15),
//! `documents` (16–26 and 32), `failures` (27–31), `streaming` (33–42) and
//! `headers` (49–51); the state, request helpers, replies and the corpus are
//! here.

#[path = "../support/mod.rs"]
mod support;
#[path = "../support/state.rs"]
mod test_state;

mod documents;
mod failures;
mod headers;
mod requests;
mod streaming;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use lambda_http::Request;
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{docs_index, repo};
use support::sse::{self, Event};

/// The docs base URL `support::docs::docs_index` builds with.
pub(crate) const BASE: &str = "https://nlweb-ask.example.com/docs";
/// Words in no document.
pub(crate) const NO_MATCH: &str = "zzqxv blorptangle";
pub(crate) const VERSION: &str = "0.55";
pub(crate) const RESPONSE_TYPES: [&str; 4] = ["answer", "elicitation", "promise", "failure"];

// ---------------------------------------------------------------- state

fn index() -> ask_index::Index {
    static INDEX: OnceLock<ask_index::Index> = OnceLock::new();
    INDEX.get_or_init(docs_index).clone()
}

/// An enabled handler over the docs index, defaults from the embedded
/// config, plus `extra` environment variables. The clock stands still.
pub(crate) fn state_with(extra: &[(&str, &str)]) -> State {
    test_state::state(index(), extra)
}

pub(crate) fn state() -> State {
    state_with(&[])
}

// ---------------------------------------------------------------- requests

pub(crate) fn event_json(name: &str) -> Value {
    let text = std::fs::read_to_string(repo().join("events").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn to_request(v: &Value) -> Request {
    lambda_http::request::from_str(&v.to_string()).unwrap_or_else(|e| panic!("{e}: {v}"))
}

/// A saved event, unchanged.
pub(crate) fn saved(name: &str) -> Request {
    to_request(&event_json(name))
}

/// A fresh client address for each crafted request, so that a test's many
/// requests never meet the rate limit (that is item 49's business).
fn next_ip() -> String {
    static N: AtomicU32 = AtomicU32::new(1);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("198.18.{}.{}", (n >> 8) & 0xff, n & 0xff)
}

/// `application/x-www-form-urlencoded`, as API Gateway's `rawQueryString`.
fn form_encode(params: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        let mut out = String::new();
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    out.push(b as char)
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
        out
    };
    params
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// An HTTP API v2 event with these URL parameters and headers, a fresh
/// source IP, and `body` if any.
fn craft(
    template: &str,
    params: &[(&str, &str)],
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Request {
    let mut v = event_json(template);
    v["rawQueryString"] = json!(form_encode(params));
    if params.is_empty() {
        v.as_object_mut().unwrap().remove("queryStringParameters");
    } else {
        let map: serde_json::Map<String, Value> = params
            .iter()
            .map(|(k, val)| (k.to_string(), json!(val)))
            .collect();
        v["queryStringParameters"] = Value::Object(map);
    }
    for (k, val) in headers {
        v["headers"][k.to_ascii_lowercase()] = json!(val);
    }
    let ip = next_ip();
    v["headers"]["x-forwarded-for"] = json!(ip);
    v["requestContext"]["http"]["sourceIp"] = json!(ip);
    if let Some(b) = body {
        v["body"] = json!(b);
        v["isBase64Encoded"] = json!(false);
        v["headers"]["content-length"] = json!(b.len().to_string());
    }
    to_request(&v)
}

/// `GET /ask?params` (from `http-get-json.json`, whose `accept` is
/// `application/json`).
pub(crate) fn get(params: &[(&str, &str)]) -> Request {
    craft("http-get-json.json", params, &[], None)
}

pub(crate) fn get_h(params: &[(&str, &str)], headers: &[(&str, &str)]) -> Request {
    craft("http-get-json.json", params, headers, None)
}

/// `POST /ask` with a JSON body (from `http-post-v055.json`, whose
/// `accept` is `application/json`).
pub(crate) fn post(body: &str) -> Request {
    craft("http-post-v055.json", &[], &[], Some(body))
}

pub(crate) fn post_with(params: &[(&str, &str)], headers: &[(&str, &str)], body: &str) -> Request {
    craft("http-post-v055.json", params, headers, Some(body))
}

/// A 0.55 body.
pub(crate) fn v055(text: &str, prefer: Value) -> String {
    json!({"query": {"text": text}, "prefer": prefer, "meta": {"version": VERSION}}).to_string()
}

// ---------------------------------------------------------------- replies

/// A response, taken apart.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    /// Lower-case names.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    pub(crate) fn is_json(&self) -> bool {
        self.content_type().starts_with("application/json")
    }

    pub(crate) fn is_sse(&self) -> bool {
        self.content_type().starts_with("text/event-stream")
    }

    /// The JSON body; fails unless the reply is JSON.
    pub(crate) fn json(&self) -> Value {
        assert!(
            self.is_json(),
            "expected JSON, got {:?} ({}): {:.300}",
            self.content_type(),
            self.status,
            self.body
        );
        let v: Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:.300}", self.body));
        v
    }

    /// The SSE events; fails unless the reply is an event stream.
    pub(crate) fn events(&self) -> Vec<Event> {
        assert!(
            self.is_sse(),
            "expected SSE, got {:?} ({}): {:.300}",
            self.content_type(),
            self.status,
            self.body
        );
        let all = self.all_events();
        all.into_iter().filter(|e| e.name != "message").collect()
    }

    /// Every event, the unnamed ones of the older format's headers too (a
    /// 0.55 client sees only the named ones: `events`).
    pub(crate) fn all_events(&self) -> Vec<Event> {
        sse::parse(&self.body).unwrap_or_else(|e| panic!("{e}: {:.300}", self.body))
    }

    /// Every JSON document in the reply: the body, or each event's data.
    pub(crate) fn docs(&self) -> Vec<Value> {
        if self.is_json() {
            vec![self.json()]
        } else if self.is_sse() {
            self.events().into_iter().map(|e| e.data).collect()
        } else {
            Vec::new()
        }
    }
}

pub(crate) fn call(state: &State, req: &Request) -> Reply {
    let r = respond(state, req);
    Reply {
        status: r.status().as_u16(),
        headers: r
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    v.to_str().unwrap_or("<binary>").to_string(),
                )
            })
            .collect(),
        body: String::from_utf8(r.body().as_ref().to_vec()).expect("UTF-8 body"),
    }
}

/// A 200 JSON answer document.
pub(crate) fn answer_doc(state: &State, req: &Request) -> Value {
    let r = call(state, req);
    let doc = r.json();
    assert_eq!(r.status, 200, "{doc}");
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    doc
}

pub(crate) fn results(doc: &Value) -> Vec<Value> {
    doc["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array: {doc}"))
        .clone()
}

pub(crate) fn count_summaries(items: &[Value]) -> usize {
    items
        .iter()
        .filter(|i| i["@type"] == "SearchSummary")
        .count()
}

pub(crate) fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}

/// The items of the `result` events, in arrival order.
pub(crate) fn streamed_items(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.name == "result")
        .map(|e| e.data["item"].clone())
        .collect()
}

/// A failure document with this code and status.
pub(crate) fn assert_failure(r: &Reply, status: u16, code: &str) {
    let doc = r.json();
    assert_eq!(r.status, status, "{doc}");
    assert_eq!(doc["_meta"]["response_type"], "failure", "{doc}");
    assert_eq!(doc["_meta"]["version"], VERSION, "{doc}");
    assert_eq!(doc["error"]["code"], code, "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.trim().is_empty()),
        "{doc}"
    );
}

// ---------------------------------------------------------------- corpus

/// The saved events of `/ask`, sorted by name.
fn ask_event_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo().join("events"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    // The checklist is about /ask: leave out the events of /mcp,
    // /sites, /openapi.json, /llms.txt and the pages' Markdown
    // (tests/events/ covers them).
    files.retain(|f| {
        let e = event_json(f);
        let path = e["rawPath"].as_str().or(e["path"].as_str()).unwrap_or("");
        ![
            "/mcp",
            "/mcp/server-card",
            "/.well-known/ai-catalog.json",
            "/.well-known/mcp/catalog.json",
            "/sites",
            "/openapi.json",
            "/llms.txt",
            "/llms-full.txt",
            "/.well-known/oauth-protected-resource",
            "/ask/widget.js",
            "/config",
            "/who",
        ]
        .iter()
        .any(|r| path.ends_with(r))
            && !path.contains("/pages/")
    });
    files
}

/// The crafted requests of the corpus, labelled: the paths the saved
/// events do not reach.
fn crafted_requests() -> Vec<(String, Request)> {
    let mut crafted: Vec<(String, Request)> = Vec::new();
    for mode in ["list", "summarize", "generate"] {
        for streaming in [false, true] {
            crafted.push((
                format!("v055 rate limit mode={mode} streaming={streaming}"),
                post(&v055(
                    "what is the rate limit",
                    json!({"mode": mode, "streaming": streaming}),
                )),
            ));
            crafted.push((
                format!("v055 no-match mode={mode} streaming={streaming}"),
                post(&v055(
                    NO_MATCH,
                    json!({"mode": mode, "streaming": streaming}),
                )),
            ));
            crafted.push((
                format!("GET no-match mode={mode} streaming={streaming}"),
                get(&[
                    ("query", NO_MATCH),
                    ("mode", mode),
                    ("streaming", &streaming.to_string()),
                ]),
            ));
        }
    }
    crafted.extend([
        (
            "GET deploy with SAM, default streaming".to_string(),
            get(&[("query", "deploy with SAM")]),
        ),
        (
            "legacy flat streaming off".to_string(),
            post(r#"{"query":"build the index","streaming":"off","prev":"a,b"}"#),
        ),
        (
            "0.55 body without prefer".to_string(),
            post(r#"{"query":{"text":"build the index"}}"#),
        ),
        (
            "context with @type".to_string(),
            post(
                r#"{"query":{"text":"rate limit"},"context":{"@type":"ConversationalContext","prev":["deploy with SAM"]},"prefer":{"streaming":false}}"#,
            ),
        ),
        (
            "meta.api_version".to_string(),
            post(r#"{"query":{"text":"rate limit"},"meta":{"api_version":"0.55"},"prefer":{"streaming":false}}"#),
        ),
        (
            "unsupported mode, streaming asked".to_string(),
            post(&v055("rate limit", json!({"mode": "recommend", "streaming": true}))),
        ),
        (
            "unsupported format, streaming asked".to_string(),
            post(&v055(
                "rate limit",
                json!({"response_format": "markdown", "streaming": true}),
            )),
        ),
        (
            "empty query.text, streaming asked".to_string(),
            post(&v055("", json!({"streaming": true}))),
        ),
        (
            "query without text".to_string(),
            post(r#"{"query":{"site":"docs"}}"#),
        ),
        (
            "bad streaming value".to_string(),
            get(&[("query", "rate limit"), ("streaming", "maybe")]),
        ),
        ("PUT".to_string(), {
            let mut v = event_json("http-delete.json");
            v["requestContext"]["http"]["method"] = json!("PUT");
            to_request(&v)
        }),
    ]);
    crafted
}

/// A varied set of replies: every saved event, plus crafted requests that
/// reach the paths the saved events do not (no-match in every mode and
/// both formats, streams in every mode, validation failures with streaming
/// asked for, 429s). Labelled for messages.
pub(crate) fn corpus() -> &'static [(String, Reply)] {
    static CORPUS: OnceLock<Vec<(String, Reply)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let st = state();
        let mut out = Vec::new();
        let files = ask_event_files();
        assert!(files.len() >= 25, "{files:?}");
        for f in files {
            let text = test_state::rateable(&st, &event_json(&f).to_string());
            let r = call(&st, &to_request(&serde_json::from_str(&text).unwrap()));
            out.push((f, r));
        }
        for (label, req) in crafted_requests() {
            let r = call(&st, &req);
            out.push((label, r));
        }
        // 429s, JSON and with SSE asked for.
        let tiny = state_with(&[("ASK_RATE_LIMIT_PER_MINUTE", "1")]);
        let sse_req = saved("http-get-sse.json");
        call(&tiny, &sse_req);
        out.push(("429 (SSE asked)".to_string(), call(&tiny, &sse_req)));
        let json_req = saved("http-post-v055.json");
        call(&tiny, &json_req);
        out.push(("429 (JSON)".to_string(), call(&tiny, &json_req)));
        out
    })
}

/// Replies that answer `/ask` with an NLWeb document (not the 404 of an
/// unknown path, not the empty preflight reply).
pub(crate) fn nlweb_replies() -> impl Iterator<Item = &'static (String, Reply)> {
    corpus()
        .iter()
        .filter(|(_, r)| r.status != 404 && r.status != 204)
}

/// Every `_meta` object in every document of the corpus.
pub(crate) fn all_metas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (label, r) in nlweb_replies() {
        for d in r.docs() {
            if d.get("_meta").is_some() {
                out.push((label.clone(), d["_meta"].clone()));
            }
        }
    }
    out
}

/// Every result item in the corpus: JSON `results[]` and streamed items.
pub(crate) fn all_items() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (label, r) in nlweb_replies() {
        if r.is_json() {
            if let Some(items) = r.json()["results"].as_array() {
                out.extend(items.iter().map(|i| (label.clone(), i.clone())));
            }
        } else if r.is_sse() {
            out.extend(
                streamed_items(&r.events())
                    .into_iter()
                    .map(|i| (label.clone(), i)),
            );
        }
    }
    out
}
