//! NLWeb 0.55 conformance: one test per item of the checklist in
//! `research/nlweb-protocol.md` §8 (items 1–42 and 49–51; the MCP items
//! 43–48 are out of scope, the Lambda serves no `/mcp`).
//!
//! Every test drives the real handler in process with API Gateway events:
//! saved ones from `events/`, or one of them with its query string, headers
//! or body replaced. Where the API docs (docs/content/docs/api.mdx) are more precise than the
//! checklist, the test checks the contract and says so. SSE bodies are read
//! only with the parser in `tests/support/sse.rs`.

mod support;
#[path = "support/state.rs"]
mod test_state;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use lambda_http::Request;
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{docs_index, repo};
use support::sse::{self, Event};

/// The docs base URL `support::docs::docs_index` builds with.
const BASE: &str = "https://nlweb-ask.example.com/docs";
/// Words in no document.
const NO_MATCH: &str = "zzqxv blorptangle";
const VERSION: &str = "0.55";
const RESPONSE_TYPES: [&str; 4] = ["answer", "elicitation", "promise", "failure"];

// ---------------------------------------------------------------- state

fn index() -> ask_index::Index {
    static INDEX: OnceLock<ask_index::Index> = OnceLock::new();
    INDEX.get_or_init(docs_index).clone()
}

/// An enabled handler over the docs index, defaults from the embedded
/// config, plus `extra` environment variables. The clock stands still.
fn state_with(extra: &[(&str, &str)]) -> State {
    test_state::state(index(), extra)
}

fn state() -> State {
    state_with(&[])
}

// ---------------------------------------------------------------- requests

fn event_json(name: &str) -> Value {
    let text = std::fs::read_to_string(repo().join("events").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn to_request(v: &Value) -> Request {
    lambda_http::request::from_str(&v.to_string()).unwrap_or_else(|e| panic!("{e}: {v}"))
}

/// A saved event, unchanged.
fn saved(name: &str) -> Request {
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
fn get(params: &[(&str, &str)]) -> Request {
    craft("http-get-json.json", params, &[], None)
}

fn get_h(params: &[(&str, &str)], headers: &[(&str, &str)]) -> Request {
    craft("http-get-json.json", params, headers, None)
}

/// `POST /ask` with a JSON body (from `http-post-v055.json`, whose
/// `accept` is `application/json`).
fn post(body: &str) -> Request {
    craft("http-post-v055.json", &[], &[], Some(body))
}

fn post_with(params: &[(&str, &str)], headers: &[(&str, &str)], body: &str) -> Request {
    craft("http-post-v055.json", params, headers, Some(body))
}

/// A 0.55 body.
fn v055(text: &str, prefer: Value) -> String {
    json!({"query": {"text": text}, "prefer": prefer, "meta": {"version": VERSION}}).to_string()
}

// ---------------------------------------------------------------- replies

/// A response, taken apart.
#[derive(Debug, Clone)]
struct Reply {
    status: u16,
    /// Lower-case names.
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    fn is_json(&self) -> bool {
        self.content_type().starts_with("application/json")
    }

    fn is_sse(&self) -> bool {
        self.content_type().starts_with("text/event-stream")
    }

    /// The JSON body; fails unless the reply is JSON.
    fn json(&self) -> Value {
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
    fn events(&self) -> Vec<Event> {
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
    fn all_events(&self) -> Vec<Event> {
        sse::parse(&self.body).unwrap_or_else(|e| panic!("{e}: {:.300}", self.body))
    }

    /// Every JSON document in the reply: the body, or each event's data.
    fn docs(&self) -> Vec<Value> {
        if self.is_json() {
            vec![self.json()]
        } else if self.is_sse() {
            self.events().into_iter().map(|e| e.data).collect()
        } else {
            Vec::new()
        }
    }
}

fn call(state: &State, req: &Request) -> Reply {
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
fn answer_doc(state: &State, req: &Request) -> Value {
    let r = call(state, req);
    let doc = r.json();
    assert_eq!(r.status, 200, "{doc}");
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    doc
}

fn results(doc: &Value) -> Vec<Value> {
    doc["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results array: {doc}"))
        .clone()
}

fn count_summaries(items: &[Value]) -> usize {
    items
        .iter()
        .filter(|i| i["@type"] == "SearchSummary")
        .count()
}

fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}

/// The items of the `result` events, in arrival order.
fn streamed_items(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.name == "result")
        .map(|e| e.data["item"].clone())
        .collect()
}

/// A failure document with this code and status.
fn assert_failure(r: &Reply, status: u16, code: &str) {
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

/// A varied set of replies: every saved event, plus crafted requests that
/// reach the paths the saved events do not (no-match in every mode and
/// both formats, streams in every mode, validation failures with streaming
/// asked for, 429s). Labelled for messages.
fn corpus() -> &'static [(String, Reply)] {
    static CORPUS: OnceLock<Vec<(String, Reply)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let st = state();
        let mut out = Vec::new();
        let mut files: Vec<String> = std::fs::read_dir(repo().join("events"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".json"))
            .collect();
        files.sort();
        // The checklist is about /ask: leave out the events of /mcp,
        // /sites, /openapi.json and /llms.txt (tests/events.rs covers them).
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
                "/.well-known/oauth-protected-resource",
                "/ask/widget.js",
                "/config",
                "/who",
            ]
                .iter()
                .any(|r| path.ends_with(r))
        });
        assert!(files.len() >= 25, "{files:?}");
        for f in files {
            let text = test_state::rateable(&st, &event_json(&f).to_string());
            let r = call(&st, &to_request(&serde_json::from_str(&text).unwrap()));
            out.push((f, r));
        }
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
                    post(&v055(NO_MATCH, json!({"mode": mode, "streaming": streaming}))),
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
            (
                "PUT".to_string(),
                {
                    let mut v = event_json("http-delete.json");
                    v["requestContext"]["http"]["method"] = json!("PUT");
                    to_request(&v)
                },
            ),
        ]);
        for (label, req) in crafted {
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
fn nlweb_replies() -> impl Iterator<Item = &'static (String, Reply)> {
    corpus()
        .iter()
        .filter(|(_, r)| r.status != 404 && r.status != 204)
}

/// Every `_meta` object in every document of the corpus.
fn all_metas() -> Vec<(String, Value)> {
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
fn all_items() -> Vec<(String, Value)> {
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

// ======================================================= request handling

#[test]
fn item_01_post_prefer_streaming_false_gives_json_object() {
    let st = state();
    // The checklist's literal body: "x" matches nothing, which is an
    // application-level failure: still a JSON object, HTTP 200.
    let r = call(
        &st,
        &post(r#"{"query":{"text":"x"},"prefer":{"streaming":false}}"#),
    );
    assert_eq!(r.content_type(), "application/json");
    assert_eq!(r.status, 200, "{}", r.body);
    let doc = r.json();
    assert!(doc.is_object(), "{doc}");
    assert_eq!(doc["_meta"]["version"], VERSION);
    assert!(
        RESPONSE_TYPES.contains(&doc["_meta"]["response_type"].as_str().unwrap_or("")),
        "{doc}"
    );
    // The same shape with a question the docs answer.
    let r = call(
        &st,
        &post(r#"{"query":{"text":"rate limit"},"prefer":{"streaming":false}}"#),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/json");
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    assert!(!results(&doc).is_empty());
}

#[test]
fn item_02_missing_or_empty_query_text_is_400_failure() {
    let st = state();
    let bodies = [
        r#"{"query":{}}"#,
        r#"{"query":{"site":"docs","itemType":"TechArticle"}}"#,
        r#"{"query":{"text":""}}"#,
        r#"{"query":{"text":"   "}}"#,
        r#"{"query":{"text":null}}"#,
        r#"{"prefer":{"streaming":false}}"#,
        r#"{}"#,
        // Streaming asked for: validation still fails before any stream.
        r#"{"query":{"text":""},"prefer":{"streaming":true}}"#,
        r#"{"query":{},"prefer":{"streaming":true}}"#,
    ];
    for body in bodies {
        let r = call(&st, &post(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        let doc = r.json();
        assert_eq!(doc["_meta"]["response_type"], "failure", "{body}");
        assert!(doc["error"]["code"].is_string(), "{body}: {doc}");
        assert_eq!(doc["error"]["code"], "INVALID_QUERY", "{body}");
        assert!(doc["error"]["message"].is_string(), "{body}");
        assert!(doc.get("results").is_none(), "{body}: {doc}");
    }
    for file in ["http-get-missing-query.json", "http-get-empty-query.json"] {
        assert_failure(&call(&st, &saved(file)), 400, "INVALID_QUERY");
    }
}

#[test]
fn item_03_unknown_query_filters_are_accepted_and_ignored() {
    let st = state();
    let plain = answer_doc(
        &st,
        &post(r#"{"query":{"text":"deploy with SAM"},"prefer":{"streaming":false,"mode":"list"}}"#),
    );
    let filtered = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM","itemType":"TechArticle","location":"Paris","price":{"max":10},"inLanguage":["en"]},"prefer":{"streaming":false,"mode":"list"}}"#,
        ),
    );
    assert!(!results(&plain).is_empty());
    assert_eq!(results(&filtered), results(&plain));
    // The saved event with query.site and query.itemType.
    let doc = answer_doc(&st, &saved("rest-post-v055.json"));
    assert!(!results(&doc).is_empty());
}

#[test]
fn item_04_context_prev_array_is_accepted_and_used() {
    let st = state();
    let q = "and how do I configure it?";
    let without = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": q}, "prefer": {"streaming": false, "mode": "list"}})
                .to_string(),
        ),
    );
    let with = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": q}, "context": {"prev": ["what is the rate limit?", "how do I deploy with SAM"]},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    let with = results(&with);
    assert!(!with.is_empty());
    assert_ne!(with, results(&without), "context.prev had no effect");
    // An empty array is fine too.
    let empty = answer_doc(
        &st,
        &post(&json!({"query": {"text": q}, "context": {"prev": []}, "prefer": {"streaming": false, "mode": "list"}}).to_string()),
    );
    assert_eq!(results(&empty), results(&without));
}

#[test]
fn item_05_context_without_type_is_conversational_context() {
    let st = state();
    let prev = json!(["what is the rate limit?"]);
    let typed = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": "how do I change it"}, "context": {"@type": "ConversationalContext", "prev": prev},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    let untyped = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": "how do I change it"}, "context": {"prev": prev},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    assert!(!results(&typed).is_empty());
    assert_eq!(results(&untyped), results(&typed));
    for context in [
        json!({}),
        json!({"text": "I am deploying to AWS"}),
        json!({"memory": ["likes SAM"]}),
    ] {
        let doc = answer_doc(
            &st,
            &post(
                &json!({"query": {"text": "deploy with SAM"}, "context": context, "prefer": {"streaming": false}})
                    .to_string(),
            ),
        );
        assert!(!results(&doc).is_empty(), "{context}");
    }
}

#[test]
fn item_06_prefer_streaming_true_gives_event_stream() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        let r = call(
            &st,
            &post(&v055(
                "deploy with SAM",
                json!({"streaming": true, "mode": mode}),
            )),
        );
        assert_eq!(r.status, 200, "{mode}");
        assert_eq!(r.content_type(), "text/event-stream", "{mode}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{mode}");
        let events = r.events();
        sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert!(!streamed_items(&events).is_empty(), "{mode}");
    }
    // Even with `Accept: application/json` (the template's header).
    let r = call(&st, &post(&v055("rate limit", json!({"streaming": true}))));
    assert_eq!(r.content_type(), "text/event-stream");
}

#[test]
fn item_07_streaming_omitted_applies_the_default_consistently() {
    // The documented default (api.mdx, Streaming and mode; config `default_streaming`) is true.
    let omitted = |st: &State| -> Vec<Reply> {
        vec![
            call(st, &post(r#"{"query":{"text":"build the index"}}"#)),
            call(
                st,
                &post(r#"{"query":{"text":"build the index"},"prefer":{"mode":"list"}}"#),
            ),
            call(st, &post(r#"{"query":"build the index","mode":"list"}"#)),
            call(st, &get(&[("query", "build the index")])),
            call(
                st,
                &get(&[("query", "build the index"), ("mode", "summarize")]),
            ),
        ]
    };
    let st = state();
    for r in omitted(&st) {
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.content_type(), "text/event-stream", "{}", r.body);
        sse::check_answer_stream(&r.events()).unwrap();
    }
    // Configured the other way, the same requests all answer JSON.
    let st = state_with(&[("ASK_DEFAULT_STREAMING", "false")]);
    for r in omitted(&st) {
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.content_type(), "application/json", "{:.200}", r.body);
        assert_eq!(r.json()["_meta"]["response_type"], "answer");
    }
}

/// api.mdx (Streaming and mode) orders the streaming decision: explicit `prefer.streaming`,
/// explicit `streaming`, then `Accept: text/event-stream`, then the default.
/// The checklist's wording (SSE Accept beats `streaming=false`) follows the
/// reference server; the contract makes an explicit `false` win.
#[test]
fn item_08_accept_event_stream_gives_sse_unless_streaming_is_explicitly_false() {
    let sse_accept = [("accept", "text/event-stream")];
    // With the default turned off, only the Accept header can ask for SSE.
    let st = state_with(&[("ASK_DEFAULT_STREAMING", "false")]);
    let r = call(&st, &get(&[("query", "build the index")]));
    assert_eq!(r.content_type(), "application/json", "control");
    for req in [
        get_h(&[("query", "build the index")], &sse_accept),
        post_with(&[], &sse_accept, r#"{"query":{"text":"build the index"}}"#),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":"build the index","mode":"list"}"#,
        ),
        get_h(
            &[("query", "build the index")],
            &[("accept", "application/json, text/event-stream;q=0.9")],
        ),
    ] {
        let r = call(&st, &req);
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type(), "text/event-stream", "{:.200}", r.body);
        sse::check_answer_stream(&r.events()).unwrap();
    }
    // The saved events that ask for SSE only through Accept.
    let st = state();
    for file in ["http-get-sse.json", "rest-get-sse.json"] {
        let r = call(&st, &saved(file));
        assert_eq!(r.content_type(), "text/event-stream", "{file}");
    }
    // An explicit false still wins over the header (api.mdx, Streaming and mode).
    for req in [
        get_h(
            &[("query", "build the index"), ("streaming", "false")],
            &sse_accept,
        ),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":{"text":"build the index"},"prefer":{"streaming":false}}"#,
        ),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":"build the index","streaming":false}"#,
        ),
    ] {
        let r = call(&st, &req);
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type(), "application/json", "{:.200}", r.body);
    }
}

#[test]
fn item_09_get_with_streaming_false_gives_json() {
    let st = state();
    let r = call(&st, &get(&[("query", "x"), ("streaming", "false")]));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.content_type(), "application/json");
    assert!(r.json()["_meta"].is_object());
    let r = call(&st, &saved("http-get-json.json"));
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/json");
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer");
    assert!(!results(&doc).is_empty());
    // Control: the same GET without the parameter streams (default true).
    let r = call(&st, &get(&[("query", "how do I build the index")]));
    assert_eq!(r.content_type(), "text/event-stream");
}

#[test]
fn item_10_false_zero_and_json_false_disable_streaming() {
    let st = state();
    let q = "build the index";
    // URL parameter strings.
    for v in ["0", "false", "False", "FALSE", "no", "off"] {
        let r = call(&st, &get(&[("query", q), ("streaming", v)]));
        assert_eq!(r.status, 200, "streaming={v}");
        assert_eq!(r.content_type(), "application/json", "streaming={v}");
    }
    // Flat (legacy) body: strings and the JSON boolean false (the
    // reference server's quirk streams on a JSON false; we must not).
    for v in [
        json!(false),
        json!("false"),
        json!("False"),
        json!("0"),
        json!(0),
    ] {
        let body = json!({"query": q, "streaming": v}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.status, 200, "{body}");
        assert_eq!(r.content_type(), "application/json", "{body}");
        assert_eq!(r.json()["_meta"]["response_type"], "answer", "{body}");
    }
    let r = call(&st, &saved("http-post-legacy.json"));
    assert_eq!(r.content_type(), "application/json");
    // 0.55 body.
    for v in [json!(false), json!("false")] {
        let body = json!({"query": {"text": q}, "prefer": {"streaming": v}}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.content_type(), "application/json", "{body}");
    }
    // Controls: true values stream.
    for v in [json!(true), json!("true"), json!("1")] {
        let body = json!({"query": q, "streaming": v}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.content_type(), "text/event-stream", "{body}");
    }
}

#[test]
fn item_11_legacy_prev_comma_string_is_two_queries() {
    let st = state();
    let q = "and how do I configure it?";
    let (a, b) = ("what is the rate limit", "how do I deploy with SAM");
    let list = |prev: Value| -> Vec<Value> {
        results(&answer_doc(
            &st,
            &post(
                &json!({"query": q, "prev": prev, "mode": "list", "streaming": false}).to_string(),
            ),
        ))
    };
    let two = list(json!([a, b]));
    let one = list(json!([format!("{a},{b}")]));
    let none = list(json!([]));
    assert_ne!(two, none, "prev had no effect");
    // Two entries weigh differently from one combined entry; the test
    // needs them to be told apart.
    assert_ne!(two, one, "cannot tell one entry from two");
    // The comma string, in a flat body and as a URL parameter, is the array.
    assert_eq!(list(json!(format!("{a},{b}"))), two);
    assert_eq!(list(json!(format!("[{a},{b}]"))), two);
    let via_get = results(&answer_doc(
        &st,
        &get(&[
            ("query", q),
            ("prev", &format!("{a},{b}")),
            ("mode", "list"),
            ("streaming", "false"),
        ]),
    ));
    assert_eq!(via_get, two);
}

#[test]
fn item_12_mode_and_generate_mode_are_honoured_mode_wins() {
    let st = state();
    let summaries = |params: &[(&str, &str)]| -> usize {
        let mut p = vec![("query", "rate limit"), ("streaming", "false")];
        p.extend_from_slice(params);
        count_summaries(&results(&answer_doc(&st, &get(&p))))
    };
    assert_eq!(summaries(&[("mode", "list")]), 0);
    assert_eq!(summaries(&[("mode", "summarize")]), 1);
    assert_eq!(summaries(&[("generate_mode", "list")]), 0);
    assert_eq!(summaries(&[("generate_mode", "summarize")]), 1);
    assert_eq!(summaries(&[("generate_mode", "generate")]), 1);
    assert_eq!(
        summaries(&[("mode", "list"), ("generate_mode", "summarize")]),
        0
    );
    assert_eq!(
        summaries(&[("mode", "summarize"), ("generate_mode", "list")]),
        1
    );
    // The same in a flat body.
    let flat = |body: Value| count_summaries(&results(&answer_doc(&st, &post(&body.to_string()))));
    assert_eq!(
        flat(
            json!({"query": "rate limit", "streaming": false, "mode": "list", "generate_mode": "summarize"})
        ),
        0
    );
    assert_eq!(
        flat(json!({"query": "rate limit", "streaming": false, "generate_mode": "summarize"})),
        1
    );
    let r = call(&st, &saved("http-get-alias-q.json"));
    assert_eq!(count_summaries(&results(&r.json())), 0);
}

#[test]
fn item_13_body_fields_override_url_parameters() {
    let st = state();
    // Saved: the URL has a no-match query, summarize and streaming=true;
    // the flat body a real query, list and "false".
    let doc = answer_doc(&st, &saved("http-post-body-overrides-query.json"));
    let items = results(&doc);
    assert!(!items.is_empty());
    assert_eq!(count_summaries(&items), 0);
    // Crafted, one field at a time.
    let url = [
        ("query", NO_MATCH),
        ("mode", "summarize"),
        ("streaming", "true"),
    ];
    let r = call(
        &st,
        &post_with(
            &url,
            &[],
            r#"{"query":"deploy with SAM","streaming":false}"#,
        ),
    );
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer", "body query lost");
    assert_eq!(
        count_summaries(&results(&doc)),
        1,
        "URL mode applies when the body has none"
    );
    let r = call(
        &st,
        &post_with(
            &[
                ("query", "deploy with SAM"),
                ("mode", "list"),
                ("streaming", "false"),
            ],
            &[],
            r#"{"query":{"text":"rate limit"},"prefer":{"mode":"summarize","streaming":true}}"#,
        ),
    );
    let events = r.events();
    let items = streamed_items(&events);
    assert_eq!(count_summaries(&items), 1);
    let plain = results(&answer_doc(
        &st,
        &post(&v055(
            "rate limit",
            json!({"mode": "list", "streaming": false}),
        )),
    ));
    assert_eq!(
        items[..items.len() - 1].to_vec(),
        plain,
        "the body's query was not the one answered"
    );
}

#[test]
fn item_14_meta_version_or_absent_meta_gives_0_55() {
    let st = state();
    for body in [
        r#"{"query":{"text":"rate limit"},"meta":{"version":"0.55"},"prefer":{"streaming":false}}"#,
        r#"{"query":{"text":"rate limit"},"prefer":{"streaming":false}}"#,
        r#"{"query":{"text":"rate limit"},"meta":{},"prefer":{"streaming":false}}"#,
        r#"{"query":"rate limit","streaming":false}"#,
    ] {
        let doc = answer_doc(&st, &post(body));
        assert_eq!(doc["_meta"]["version"], VERSION, "{body}");
    }
    // Streams and failures carry it too.
    for body in [
        r#"{"query":{"text":"rate limit"},"prefer":{"streaming":true}}"#,
        r#"{"query":{"text":"rate limit"},"meta":{"version":"0.55"},"prefer":{"streaming":true}}"#,
    ] {
        let events = call(&st, &post(body)).events();
        assert_eq!(events[0].data["_meta"]["version"], VERSION);
        assert_eq!(events.last().unwrap().data["_meta"]["version"], VERSION);
    }
    let r = call(&st, &post(r#"{"query":{"text":""}}"#));
    assert_eq!(r.json()["_meta"]["version"], VERSION);
}

#[test]
fn item_15_meta_api_version_is_a_synonym() {
    let st = state();
    let with_version = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM"},"meta":{"version":"0.55"},"prefer":{"streaming":false}}"#,
        ),
    );
    let with_api_version = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM"},"meta":{"api_version":"0.55"},"prefer":{"streaming":false}}"#,
        ),
    );
    assert_eq!(with_api_version["_meta"], with_version["_meta"]);
    assert_eq!(with_api_version["_meta"]["version"], VERSION);
    assert_eq!(results(&with_api_version), results(&with_version));
}

// ======================================================= non-streaming response

#[test]
fn item_16_top_level_is_an_object_with_meta() {
    let mut json_seen = 0;
    for (label, r) in corpus() {
        if r.status == 404 {
            // Only an unknown path; api.mdx (its opening): API Gateway's own body.
            assert_eq!(label, "http-get-other-path.json");
            assert_eq!(r.json(), json!({"message": "Not Found"}));
            continue;
        }
        if r.status == 204 {
            // A preflight, and a rating (POST /ask/feedback, no body).
            assert!(
                ["http-options-preflight.json", "http-post-ask-feedback.json"]
                    .contains(&label.as_str()),
                "{label}"
            );
            assert!(r.body.is_empty());
            continue;
        }
        if r.status == 304 {
            assert_eq!(label, "http-get-if-none-match.json");
            assert!(r.body.is_empty());
            continue;
        }
        assert!(r.is_json() || r.is_sse(), "{label}: {}", r.content_type());
        if r.is_json() {
            json_seen += 1;
            let doc = r.json();
            assert!(doc.is_object(), "{label}");
            assert!(doc["_meta"].is_object(), "{label}: {doc}");
        } else {
            let events = r.events();
            assert!(events.iter().all(|e| e.data.is_object()), "{label}");
            assert!(events[0].data["_meta"].is_object(), "{label}");
            assert!(events.last().unwrap().data["_meta"].is_object(), "{label}");
        }
    }
    assert!(json_seen >= 30, "{json_seen}");
}

#[test]
fn item_17_no_top_level_meta_key() {
    let mut docs = 0;
    for (label, r) in corpus() {
        for d in r.docs() {
            docs += 1;
            assert!(d.get("meta").is_none(), "{label}: {d}");
        }
    }
    assert!(docs >= 60, "{docs}");
}

#[test]
fn item_18_response_type_is_one_of_four_lower_case() {
    let metas = all_metas();
    assert!(metas.len() >= 60);
    let mut seen: Vec<String> = Vec::new();
    for (label, m) in &metas {
        let t = m["response_type"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {m}"));
        assert!(RESPONSE_TYPES.contains(&t), "{label}: {t:?}");
        if !seen.contains(&t.to_string()) {
            seen.push(t.to_string());
        }
    }
    seen.sort();
    assert_eq!(seen, ["answer", "failure"]);
}

#[test]
fn item_19_meta_version_is_a_string() {
    for (label, m) in all_metas() {
        assert!(m["version"].is_string(), "{label}: {m}");
        assert_eq!(m["version"], VERSION, "{label}");
    }
}

#[test]
fn item_20_answers_contain_a_results_array() {
    let mut answers = 0;
    for (label, r) in nlweb_replies() {
        if !r.is_json() {
            continue;
        }
        let doc = r.json();
        if doc["_meta"]["response_format"] == "chatgpt_app" {
            // The other answer format: the items are `structuredData`.
            assert!(doc["structuredData"].is_array(), "{label}: {doc}");
            continue;
        }
        if doc["_meta"]["response_type"] == "answer" {
            answers += 1;
            let items = doc["results"]
                .as_array()
                .unwrap_or_else(|| panic!("{label}: {doc}"));
            assert!(!items.is_empty(), "{label}");
            assert_eq!(r.status, 200, "{label}");
        } else {
            assert!(
                doc.get("results").is_none(),
                "{label}: a failure with results"
            );
        }
    }
    assert!(answers >= 15, "{answers}");
}

#[test]
fn item_21_every_result_has_a_string_type() {
    let items = all_items();
    assert!(items.len() >= 50, "{}", items.len());
    for (label, item) in items {
        let t = item["@type"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(
            ["TechArticle", "SearchSummary"].contains(&t),
            "{label}: {t}"
        );
        assert_eq!(item["@context"], "https://schema.org", "{label}");
        assert_eq!(item["schema_object"]["@type"], t, "{label}");
    }
}

#[test]
fn item_22_document_items_have_url_and_name() {
    let mut n = 0;
    for (label, item) in all_items() {
        if item["@type"] == "SearchSummary" {
            continue;
        }
        n += 1;
        let url = item["url"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(url.starts_with(&format!("{BASE}/")), "{label}: {url}");
        let name = item["name"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(!name.trim().is_empty(), "{label}");
        assert_eq!(item["schema_object"]["url"], url, "{label}");
        assert_eq!(item["schema_object"]["name"], name, "{label}");
    }
    assert!(n >= 40, "{n}");
}

#[test]
fn item_23_grounding_when_present_is_an_object() {
    let mut grounded = 0;
    for (label, item) in all_items() {
        let Some(g) = item.get("grounding") else {
            continue;
        };
        grounded += 1;
        assert!(g.is_object(), "{label}: {g}");
        let urls = g["source_urls"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: {g}"));
        assert_eq!(urls, &vec![item["url"].clone()], "{label}");
    }
    assert!(grounded >= 40, "{grounded}");
}

#[test]
fn item_24_summarize_gives_exactly_one_search_summary_with_text() {
    let st = state();
    for prefer in [
        json!({"mode": "summarize", "streaming": false}),
        json!({"mode": "list, summarize", "streaming": false}),
        // api.mdx, Answer documents: generate answers with the summary too.
        json!({"mode": "generate", "streaming": false}),
    ] {
        let items = results(&answer_doc(
            &st,
            &post(&v055("how do I deploy with SAM", prefer.clone())),
        ));
        assert_eq!(count_summaries(&items), 1, "{prefer}");
        let s = &items[0];
        assert_eq!(s["@type"], "SearchSummary", "{prefer}: summary not first");
        let text = s["text"].as_str().unwrap_or("");
        assert!(!text.trim().is_empty(), "{prefer}");
        assert!(items.len() >= 2, "{prefer}: no sources");
    }
    let items = results(&answer_doc(&st, &saved("http-post-summarize.json")));
    assert_eq!(count_summaries(&items), 1);
}

#[test]
fn item_25_list_mode_gives_no_search_summary() {
    let st = state();
    for req in [
        post(&v055(
            "how do I deploy with SAM",
            json!({"mode": "list", "streaming": false}),
        )),
        get(&[
            ("query", "deploy with SAM"),
            ("mode", "list"),
            ("streaming", "false"),
        ]),
        saved("http-post-v055.json"),
    ] {
        let items = results(&answer_doc(&st, &req));
        assert!(!items.is_empty());
        assert_eq!(count_summaries(&items), 0, "{items:?}");
        assert!(items.iter().all(|i| i["@type"] == "TechArticle"));
    }
    let r = call(
        &st,
        &post(&v055(
            "how do I deploy with SAM",
            json!({"mode": "list", "streaming": true}),
        )),
    );
    assert_eq!(count_summaries(&streamed_items(&r.events())), 0);
}

#[test]
fn item_26_response_format_names_the_format_used() {
    let mut present = 0;
    for (label, m) in all_metas() {
        if let Some(f) = m.get("response_format") {
            present += 1;
            // chatgpt_app only where the request asked for it.
            let asked = if label.contains("chatgpt") || label.contains("reference") {
                f.as_str().unwrap_or("")
            } else {
                "conversational_search"
            };
            assert_eq!(f, asked, "{label}");
        }
    }
    // api.mdx (Answer documents) names it in every answer document and in `start` (not in
    // `complete`, whose example `_meta` has none).
    for (label, r) in nlweb_replies() {
        let first = r.docs().into_iter().next();
        if let Some(d) = first.filter(|d| d["_meta"]["response_type"] == "answer") {
            let want = if label.contains("chatgpt") {
                "chatgpt_app"
            } else {
                "conversational_search"
            };
            assert_eq!(d["_meta"]["response_format"], want, "{label}: {d}");
        }
    }
    assert!(present >= 20, "{present}");
    // Asked by either accepted name, the same format is named back.
    let st = state();
    for fmt in ["conversational_search", "conv_search"] {
        let doc = answer_doc(
            &st,
            &post(&v055(
                "rate limit",
                json!({"response_format": fmt, "streaming": false}),
            )),
        );
        assert_eq!(
            doc["_meta"]["response_format"], "conversational_search",
            "{fmt}"
        );
    }
    assert_failure(
        &call(&st, &saved("http-post-unsupported-format.json")),
        200,
        "UNSUPPORTED_FORMAT",
    );
}

#[test]
fn item_27_failures_have_string_code_and_message() {
    let mut codes: Vec<(String, u16)> = Vec::new();
    let mut check = |label: &str, status: u16, d: &Value| {
        let code = d["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {d}"));
        assert!(
            !code.is_empty() && code.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
            "{label}: {code}"
        );
        let msg = d["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {d}"));
        assert!(!msg.trim().is_empty(), "{label}");
        if !codes.iter().any(|(c, _)| c == code) {
            codes.push((code.to_string(), status));
        }
    };
    for (label, r) in nlweb_replies() {
        for d in r.docs() {
            if d["_meta"]["response_type"] == "failure" && d.get("error").is_some() {
                check(label, r.status, &d);
            }
            if d["message_type"] == "error" {
                assert_eq!(d["_meta"]["response_type"], "failure", "{label}");
            }
        }
    }
    codes.sort();
    // Every code of api.mdx's Failures but INTERNAL_ERROR (a bug), with its status
    // (a NO_RESULTS in a stream comes with the stream's 200).
    let expected = [
        ("INVALID_QUERY", 400),
        ("INVALID_REQUEST", 400),
        ("METHOD_NOT_ALLOWED", 405),
        ("NO_RESULTS", 200),
        ("PAYLOAD_TOO_LARGE", 413),
        ("RATE_LIMITED", 429),
        ("UNSUPPORTED_FORMAT", 200),
        ("UNSUPPORTED_MEDIA_TYPE", 415),
        ("UNSUPPORTED_MODE", 200),
    ];
    assert_eq!(
        codes,
        expected
            .iter()
            .map(|(c, s)| (c.to_string(), *s))
            .collect::<Vec<_>>()
    );
}

#[test]
fn item_28_no_match_is_200_no_results_in_every_mode() {
    let st = state();
    let mut docs = Vec::new();
    for mode in ["list", "summarize", "generate"] {
        for req in [
            post(&v055(NO_MATCH, json!({"mode": mode, "streaming": false}))),
            get(&[("query", NO_MATCH), ("mode", mode), ("streaming", "false")]),
            post(&json!({"query": NO_MATCH, "mode": mode, "streaming": false}).to_string()),
        ] {
            let r = call(&st, &req);
            assert_eq!(r.status, 200, "{mode}: {}", r.body);
            assert_failure(&r, 200, "NO_RESULTS");
            docs.push(r.json());
        }
    }
    // Consistent: the same document shape every time (query_id aside).
    let shape = |d: &Value| {
        let mut d = d.clone();
        d.as_object_mut().unwrap().remove("query_id");
        d
    };
    let first = shape(&docs[0]);
    assert!(first.get("results").is_none());
    for d in &docs {
        assert_eq!(shape(d), first);
    }
    assert_failure(
        &call(&st, &saved("http-get-no-results.json")),
        200,
        "NO_RESULTS",
    );
}

#[test]
fn item_29_no_202_because_no_promise() {
    let corpus = corpus();
    assert!(corpus.len() >= 50, "{}", corpus.len());
    for (label, r) in corpus {
        assert_ne!(r.status, 202, "{label}");
        for d in r.docs() {
            assert_ne!(d["_meta"]["response_type"], "promise", "{label}");
        }
    }
}

/// Item 30 asks that a promise carry a token. This endpoint never sends a
/// promise (`protocol::response::ResponseType` has no such value), so what
/// is checked is that none is ever sent, in `_meta` or as a member.
#[test]
fn item_30_promise_never_sent() {
    let mut docs = 0;
    for (label, r) in nlweb_replies() {
        for d in r.docs() {
            docs += 1;
            assert_ne!(d["_meta"]["response_type"], "promise", "{label}");
            assert!(d.get("promise").is_none(), "{label}: {d}");
        }
    }
    assert!(docs > 100, "{docs}");
}

/// Item 31 asks that an elicitation be well formed. None is ever sent
/// (`ResponseType` has no `elicitation`); that is what is checked.
#[test]
fn item_31_elicitation_never_sent() {
    let mut docs = 0;
    for (label, r) in nlweb_replies() {
        for d in r.docs() {
            docs += 1;
            assert_ne!(d["_meta"]["response_type"], "elicitation", "{label}");
            assert!(d.get("elicitation").is_none(), "{label}: {d}");
        }
    }
    assert!(docs > 100, "{docs}");
}

/// A protocol value written as JSON text and read back, as a client sees it.
fn rewritten(v: &impl serde::Serialize) -> Value {
    serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
}

/// Every document of every reply reads back into the protocol types
/// (which refuse unknown members) and writes out as the same JSON: the
/// types are the whole wire format.
#[test]
fn every_document_is_a_protocol_type() {
    use nlweb_ask::protocol::{Document, StreamEvent};
    let mut checked = 0;
    for (label, r) in nlweb_replies() {
        if r.is_json() {
            let v = r.json();
            let doc: Document =
                serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{label}: {e}: {v}"));
            let failure = matches!(doc, Document::Failure(_));
            assert_eq!(failure, v["_meta"]["response_type"] == "failure", "{label}");
            assert_eq!(rewritten(&doc), v, "{label}");
            checked += 1;
        } else if r.is_sse() {
            for e in r.events() {
                let ev: StreamEvent = serde_json::from_value(e.data.clone())
                    .unwrap_or_else(|err| panic!("{label}: {err}: {}", e.data));
                assert_eq!(ev.name(), e.name, "{label}");
                assert_eq!(rewritten(&ev), e.data, "{label}");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn item_32_session_context_when_returned_is_an_object() {
    let mut seen = 0;
    for (label, m) in all_metas() {
        if let Some(sc) = m.get("session_context") {
            seen += 1;
            assert!(sc.is_object(), "{label}: {sc}");
        }
    }
    // api.mdx, Server-Sent Events: every stream's complete carries it.
    assert!(seen >= 10, "{seen}");
}

// ======================================================= streaming response

/// Streams of answers over the three modes and the request shapes.
fn answer_streams(st: &State) -> Vec<(String, Vec<Event>, String)> {
    let mut out = Vec::new();
    for mode in ["list", "summarize", "generate"] {
        let r = call(
            st,
            &post(&v055(
                "how do I build the index",
                json!({"mode": mode, "streaming": true}),
            )),
        );
        assert_eq!(r.status, 200);
        out.push((format!("v055 {mode}"), r.events(), r.body.clone()));
        let r = call(st, &get(&[("query", "rate limit"), ("mode", mode)]));
        out.push((format!("GET {mode}"), r.events(), r.body.clone()));
    }
    for file in [
        "http-get-sse.json",
        "rest-get-sse.json",
        "http-post-generate-sse.json",
        "functionurl-post-v055-sse.json",
    ] {
        let r = call(st, &saved(file));
        out.push((file.to_string(), r.events(), r.body.clone()));
    }
    out
}

#[test]
fn item_33_first_event_is_start_with_meta() {
    for (label, events, _) in answer_streams(&state()) {
        let start = &events[0];
        assert_eq!(start.name, "start", "{label}");
        assert_eq!(start.data["_meta"]["response_type"], "answer", "{label}");
        assert_eq!(start.data["_meta"]["version"], VERSION, "{label}");
        assert_eq!(start.data["_meta"]["streaming"], true, "{label}");
        assert_eq!(
            names(&events).iter().filter(|n| **n == "start").count(),
            1,
            "{label}"
        );
    }
}

#[test]
fn item_34_items_are_result_events_with_index_and_item() {
    for (label, events, _) in answer_streams(&state()) {
        let results: Vec<&Event> = events.iter().filter(|e| e.name == "result").collect();
        assert!(!results.is_empty(), "{label}");
        for e in &results {
            assert!(e.data["index"].is_u64(), "{label}: {}", e.data);
            assert!(e.data["item"].is_object(), "{label}");
            assert!(e.data["item"]["@type"].is_string(), "{label}");
        }
        // Only the three answer event names occur.
        for n in names(&events) {
            assert!(["start", "result", "complete"].contains(&n), "{label}: {n}");
        }
        assert_eq!(events.len(), results.len() + 2, "{label}");
    }
}

#[test]
fn item_35_result_indexes_are_unique() {
    for (label, events, _) in answer_streams(&state()) {
        let mut idx: Vec<u64> = events
            .iter()
            .filter(|e| e.name == "result")
            .map(|e| e.data["index"].as_u64().unwrap())
            .collect();
        let n = idx.len();
        idx.sort_unstable();
        idx.dedup();
        assert_eq!(idx.len(), n, "{label}: repeated index");
        // api.mdx, Server-Sent Events: `index` counts events in arrival order.
        assert_eq!(idx, (0..n as u64).collect::<Vec<_>>(), "{label}");
        sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{label}: {e}"));
    }
}

#[test]
fn item_36_exactly_one_complete_and_it_is_last() {
    for (label, events, raw) in answer_streams(&state()) {
        assert_eq!(
            names(&events).iter().filter(|n| **n == "complete").count(),
            1,
            "{label}"
        );
        assert_eq!(events.last().unwrap().name, "complete", "{label}");
        // Nothing at all follows it on the wire.
        let at = raw.find("event: complete\n").expect("complete on the wire");
        let tail = &raw[at..];
        let end = tail.find("\n\n").expect("complete ends with a blank line");
        assert_eq!(&tail[end + 2..], "", "{label}: bytes after complete");
    }
}

#[test]
fn item_37_complete_carries_full_meta_and_session_context() {
    for (label, events, _) in answer_streams(&state()) {
        let c = &events.last().unwrap().data;
        assert_eq!(c["_meta"]["response_type"], "answer", "{label}");
        assert_eq!(c["_meta"]["version"], VERSION, "{label}");
        assert!(c["_meta"]["session_context"].is_object(), "{label}: {c}");
        assert_eq!(
            c["total_items"].as_u64(),
            Some(streamed_items(&events).len() as u64),
            "{label}"
        );
    }
}

#[test]
fn item_38_each_data_is_one_line_of_json_and_events_end_with_a_blank_line() {
    let st = state();
    let mut bodies: Vec<(String, String)> = answer_streams(&st)
        .into_iter()
        .map(|(l, _, raw)| (l, raw))
        .collect();
    let r = call(&st, &post(&v055(NO_MATCH, json!({"streaming": true}))));
    bodies.push(("no-match".into(), r.body));
    for (label, raw) in bodies {
        assert!(!raw.contains('\r'), "{label}");
        assert!(
            raw.ends_with("\n\n"),
            "{label}: no blank line after the last event"
        );
        let blocks: Vec<&str> = raw[..raw.len() - 2].split("\n\n").collect();
        assert!(blocks.len() >= 3, "{label}");
        for block in blocks {
            assert!(!block.is_empty(), "{label}: an empty event block");
            let mut data_lines = 0;
            for line in block.split('\n') {
                if let Some(d) = line.strip_prefix("data: ") {
                    data_lines += 1;
                    let v: Value =
                        serde_json::from_str(d).unwrap_or_else(|e| panic!("{label}: {e}: {d}"));
                    assert!(v.is_object(), "{label}");
                } else {
                    assert!(
                        line.starts_with("event: ") || line.starts_with("id: "),
                        "{label}: unexpected line {line:?}"
                    );
                }
            }
            assert_eq!(data_lines, 1, "{label}: {block}");
        }
    }
}

#[test]
fn item_39_streamed_items_equal_the_json_results() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        for q in ["how do I build the index", "rate limit"] {
            let json_items = results(&answer_doc(
                &st,
                &post(&v055(q, json!({"mode": mode, "streaming": false}))),
            ));
            let r = call(
                &st,
                &post(&v055(q, json!({"mode": mode, "streaming": true}))),
            );
            let streamed = streamed_items(&r.events());
            // api.mdx, Answer documents: same items; the summary is first in JSON and
            // last in the stream.
            let mut expected = json_items.clone();
            if mode != "list" {
                assert_eq!(expected[0]["@type"], "SearchSummary", "{mode} {q}");
                let s = expected.remove(0);
                expected.push(s);
            }
            assert_eq!(streamed, expected, "{mode} {q}");
            // GET gives the same.
            let g = call(
                &st,
                &get(&[("query", q), ("mode", mode), ("streaming", "true")]),
            );
            assert_eq!(streamed_items(&g.events()), expected, "GET {mode} {q}");
        }
    }
}

#[test]
fn item_40_comment_lines_are_ignored_by_a_conforming_client() {
    let st = state();
    let r = call(
        &st,
        &post(&v055(
            "deploy with SAM",
            json!({"mode": "summarize", "streaming": true}),
        )),
    );
    let plain = r.all_events();
    // What a proxy or a keepalive would add: comment lines between and
    // inside events.
    let mut with_comments = String::from(": keepalive\n\n");
    for block in r.body.trim_end_matches('\n').split("\n\n") {
        with_comments.push_str(": ping\n");
        with_comments.push_str(block);
        with_comments.push_str("\n\n: keepalive\n\n");
    }
    assert!(with_comments.matches(": keepalive").count() > plain.len());
    let read = sse::parse(&with_comments).unwrap();
    assert_eq!(read.len(), plain.len());
    for (a, b) in read.iter().zip(&plain) {
        assert_eq!((&a.name, &a.id, &a.data), (&b.name, &b.id, &b.data));
    }
    sse::check_answer_stream(&read).unwrap();
}

#[test]
fn item_41_failure_after_start_still_ends_with_complete_marking_failure() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        for r in [
            call(
                &st,
                &post(&v055(NO_MATCH, json!({"mode": mode, "streaming": true}))),
            ),
            call(&st, &get(&[("query", NO_MATCH), ("mode", mode)])),
        ] {
            assert_eq!(r.status, 200, "{mode}");
            let events = r.events();
            assert_eq!(names(&events), ["start", "error", "complete"], "{mode}");
            let err = &events[1].data;
            assert_eq!(err["_meta"]["response_type"], "failure", "{mode}");
            assert_eq!(err["error"]["code"], "NO_RESULTS", "{mode}");
            assert!(err["error"]["message"].is_string(), "{mode}");
            let c = &events[2].data;
            assert_eq!(c["_meta"]["response_type"], "failure", "{mode}: {c}");
            assert_eq!(c["_meta"]["version"], VERSION, "{mode}");
            assert!(c["_meta"]["session_context"].is_object(), "{mode}");
            // The shared checker's ordering rules hold for a failed stream.
            sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{mode}: {e}"));
        }
    }
}

#[test]
fn item_42_summary_is_delivered_as_a_result_event() {
    let st = state();
    for (mode, label, r) in [
        (
            "summarize",
            "v055",
            call(
                &st,
                &post(&v055(
                    "how do I deploy with SAM",
                    json!({"mode": "summarize", "streaming": true}),
                )),
            ),
        ),
        (
            "summarize",
            "saved",
            call(&st, &saved("functionurl-post-v055-sse.json")),
        ),
        (
            "generate",
            "saved",
            call(&st, &saved("http-post-generate-sse.json")),
        ),
    ] {
        let events = r.events();
        assert!(
            events.iter().all(|e| e.name != "message"),
            "{mode} {label}: an unnamed event"
        );
        let summaries: Vec<&Event> = events
            .iter()
            .filter(|e| e.data["item"]["@type"] == "SearchSummary")
            .collect();
        assert_eq!(summaries.len(), 1, "{mode} {label}");
        assert_eq!(summaries[0].name, "result", "{mode} {label}");
        assert!(
            summaries[0].data["item"]["text"]
                .as_str()
                .is_some_and(|t| !t.trim().is_empty()),
            "{mode} {label}"
        );
        // api.mdx, Answer documents: the answer follows its sources (last result).
        let results: Vec<&Event> = events.iter().filter(|e| e.name == "result").collect();
        assert_eq!(
            results.last().unwrap().data["item"]["@type"],
            "SearchSummary",
            "{mode} {label}"
        );
        // No summary anywhere else in the stream.
        assert!(
            events.iter().all(|e| e.data.get("summary").is_none()),
            "{mode} {label}"
        );
    }
}

// ======================================================= cross-cutting

#[test]
fn item_49_rate_limited_request_is_429_with_retry_after() {
    let st = state_with(&[("ASK_RATE_LIMIT_PER_MINUTE", "2")]);
    let req = saved("http-get-json.json");
    for i in 0..2 {
        let r = call(&st, &req);
        assert_eq!(r.status, 200, "request {i}");
        assert_eq!(r.header("ratelimit-policy"), Some("\"default\";q=2;w=60"));
    }
    let r = call(&st, &req);
    assert_eq!(r.status, 429, "{}", r.body);
    let retry: u64 = r
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("Retry-After in seconds");
    // 2 a minute: one token every 30 s, and the bucket is empty.
    assert_eq!(retry, 30);
    assert_failure(&r, 429, "RATE_LIMITED");
    assert_eq!(r.header("ratelimit"), Some("\"default\";r=0;t=60"));
    // Another address has its own bucket.
    let r = call(
        &st,
        &get_h(
            &[("query", "rate limit")],
            &[("accept", "text/event-stream")],
        ),
    );
    assert_eq!(r.status, 200);
    // Asking for SSE from the limited address does not dodge the limit,
    // and the refusal is still a JSON failure document.
    let mut v = event_json("http-get-sse.json");
    v["requestContext"]["http"]["sourceIp"] = json!("203.0.113.11");
    let r = call(&st, &to_request(&v));
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    assert_failure(&r, 429, "RATE_LIMITED");
}

#[test]
fn item_50_options_and_responses_carry_cors_allow_origin() {
    let st = state();
    let r = call(&st, &saved("http-options-preflight.json"));
    // 2xx; api.mdx (Headers) fixes 204.
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let methods = r.header("access-control-allow-methods").unwrap_or("");
    for m in ["GET", "POST", "OPTIONS"] {
        assert!(methods.contains(m), "{methods}");
    }
    assert!(
        r.header("access-control-allow-headers")
            .unwrap_or("")
            .to_ascii_lowercase()
            .contains("content-type")
    );
    assert!(r.body.is_empty());
    let mut n = 0;
    for (label, r) in corpus() {
        assert!(
            r.header("access-control-allow-credentials").is_none(),
            "{label}"
        );
        if r.status == 404 {
            continue;
        }
        n += 1;
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("*"),
            "{label}"
        );
        let expose = r
            .header("access-control-expose-headers")
            .unwrap_or("")
            .to_ascii_lowercase();
        for h in ["ratelimit", "ratelimit-policy", "retry-after"] {
            assert!(
                expose.split(',').any(|x| x.trim() == h),
                "{label}: {expose}"
            );
        }
    }
    assert!(n >= 50, "{n}");
}

#[test]
fn item_51_no_nlweb_header_metadata_is_required_in_http_headers() {
    // The legacy in-band "headers" (REF-LEG docs/nlweb-headers.md).
    let legacy = [
        "license",
        "data-retention",
        "cache-policy",
        "ui-component",
        "usage-terms",
        "rate-limits",
        "data-freshness",
        "api-version",
    ];
    for (label, r) in corpus() {
        for (k, _) in &r.headers {
            let k = k.replace('_', "-");
            let bare = k
                .trim_start_matches("x-")
                .trim_start_matches("nlweb-")
                .to_string();
            assert!(!legacy.contains(&bare.as_str()), "{label}: header {k}");
            assert!(
                !k.contains("license") && !k.contains("retention"),
                "{label}: {k}"
            );
        }
        // In band, only for clients of the older format: unnamed events
        // right after `start` (a 0.55 client listens for the named events)
        // and typed `{"message": …}` members of a JSON answer; the named
        // events are the 0.55 ones.
        if r.is_sse() {
            let events = r.all_events();
            sse::legacy_headers(&events).unwrap_or_else(|e| panic!("{label}: {e}"));
            for e in &events {
                assert!(
                    ["start", "result", "complete", "error", "message"].contains(&e.name.as_str()),
                    "{label}: {}",
                    e.name
                );
            }
        }
        for d in r.docs() {
            for k in ["license", "data_retention"] {
                assert!(d.get(k).is_none(), "{label}: {k}");
            }
            if r.is_json() && d.get("api_version").is_some() {
                assert_eq!(d["api_version"], "0.55", "{label}");
                for k in ["data_freshness", "rate_limits"] {
                    assert!(d[k]["message"].is_string(), "{label}: {k}");
                }
            }
        }
    }
    // And without any of them the answer is conformant.
    let st = state();
    let doc = answer_doc(&st, &saved("http-get-json.json"));
    assert_eq!(doc["_meta"]["version"], VERSION);
    assert_eq!(doc["_meta"]["response_format"], "conversational_search");
    assert!(!results(&doc).is_empty());
    let r = call(&st, &saved("http-get-sse.json"));
    sse::check_answer_stream(&r.events()).unwrap();
}
