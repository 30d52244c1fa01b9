//! Fuzzing the whole handler: structure-aware mutations of the saved events
//! (methods, paths, bodies as text or base64 bytes, invalid UTF-8, deep JSON
//! nesting, huge numbers, duplicate keys, NUL bytes, query strings, headers)
//! through `lambda_http`'s event parsing and `app::respond` (the service, replayed).
//!
//! Every case must give a status of the docs' failure table (api.mdx, Failures) (never 500: a caught
//! panic answers INTERNAL_ERROR, so a 500 here is a bug), and a JSON body
//! that parses. `FUZZ_CASES` sets the number of cases (10,000 by default;
//! `scripts/fuzz.sh` runs 1,000,000).

mod support;
#[path = "support/state.rs"]
mod test_state;

use std::sync::OnceLock;

use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};
use serde_json::{Value, json};
use support::docs::{docs_index, events_env, repo};

/// The statuses the docs' failure table (api.mdx, Failures) allows.
const STATUSES: &[u16] = &[200, 202, 204, 304, 400, 401, 403, 404, 405, 413, 415, 429];

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let mut env = events_env();
        // High enough that the limiter does not hide the paths behind it.
        env.push(("ASK_RATE_LIMIT_PER_MINUTE", "100000000".into()));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        test_state::state(docs_index(), &env)
    })
}

fn events() -> &'static Vec<Value> {
    static EVENTS: OnceLock<Vec<Value>> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let mut names: Vec<_> = std::fs::read_dir(repo().join("events"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
            .collect()
    })
}

/// Pieces that bodies and values are made of: JSON syntax, NLWeb members,
/// the edge cases the issue names.
const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"query\"",
    "\"q\"",
    "\"prev\"",
    "\"mode\"",
    "\"streaming\"",
    "\"prefer\"",
    "\"meta\"",
    "\"context\"",
    "\"text\"",
    "\"site\"",
    "\"response_format\"",
    "\"max_results\"",
    "\"start_num\"",
    "\"jsonrpc\"",
    "\"2.0\"",
    "\"method\"",
    "\"tools/call\"",
    "\"initialize\"",
    "\"params\"",
    "\"arguments\"",
    "\"id\"",
    "\"how do I deploy\"",
    "true",
    "false",
    "null",
    "0",
    "-1",
    "1e999999",
    "-0",
    "1.5",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "\"\\u0000\"",
    "\\u0000",
    "\"\\ud800\"",
    "\"list\"",
    "\"summarize\"",
    "\"generate\"",
    "\"chatgpt_app\"",
    " ",
    "\n",
    "\u{0}",
    "é",
    "\u{202e}",
    "\"a\\\"b\"",
];

const METHODS: &[&str] = &["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "HEAD"];
const PATHS: &[&str] = &[
    "/ask",
    "/ask/",
    "/mcp",
    "/sites",
    "/llms.txt",
    "/openapi.json",
    "/.well-known/oauth-protected-resource",
    "/",
    "/ASK",
    "/ask/../mcp",
    "/prod/ask",
    "/who",
    "/config",
    "/ask/widget.js",
    "/mcp/server-card",
    "/.well-known/ai-catalog.json",
    "/.well-known/mcp/catalog.json",
];
const HEADERS: &[&str] = &[
    "content-type",
    "accept",
    "authorization",
    "if-none-match",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "origin",
    "x-forwarded-for",
    "content-encoding",
    "accept-language",
    "host",
    "mcp-session-id",
    "x-forwarded-proto",
    "user-agent",
    "cookie",
    "content-length",
    "access-control-request-method",
    "access-control-request-headers",
];

/// base64url without padding, as JWT segments are written.
fn b64(bytes: Vec<u8>) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c.iter().fold(0u32, |n, b| (n << 8) | u32::from(*b)) << (8 * (3 - c.len()));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A header value: printable text, any text (control characters, NUL,
/// every plane), a huge one, or a bearer token whose segments decode to
/// anything (a JWT header with control characters, bad JSON, bad base64).
fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[ -~]{0,60}",
        2 => any::<String>(),
        1 => (0usize..40_000, any::<char>()).prop_map(|(n, c)| c.to_string().repeat(n)),
        2 => (
            prop::collection::vec(any::<u8>(), 0..80),
            prop::collection::vec(any::<u8>(), 0..80),
            prop::collection::vec(any::<u8>(), 0..40),
            prop_oneof![Just("Bearer "), Just("bearer  "), Just("Basic "), Just("")],
        )
            .prop_map(move |(h, c, sig, scheme)| format!("{scheme}{}.{}.{}", b64(h), b64(c), b64(sig))),
        2 => (any::<String>(), prop_oneof![Just("RS256"), Just("ES256"), Just("none"), Just("HS256")])
            .prop_map(move |(kid, alg)| {
                let header = serde_json::json!({"alg": alg, "typ": "JWT", "kid": kid}).to_string();
                format!("Bearer {}.e30.c2ln", b64(header.into_bytes()))
            }),
    ]
}

#[derive(Debug, Clone)]
enum Body {
    Keep,
    Bytes(Vec<u8>),
    Pieces(Vec<usize>),
    Deep(usize, bool),
    DuplicateKeys(String, String),
}

#[derive(Debug, Clone)]
struct Plan {
    event: usize,
    method: Option<usize>,
    path: Option<Result<usize, String>>,
    body: Body,
    query: Option<Vec<(String, String)>>,
    raw_query: Option<String>,
    headers: Vec<(usize, String)>,
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(0..PIECES.len(), 0..12)
            .prop_map(|v| v.iter().map(|i| PIECES[*i]).collect::<String>()),
        "[ -~]{0,40}",
    ]
}

fn plan() -> impl Strategy<Value = Plan> {
    let body = prop_oneof![
        Just(Body::Keep),
        prop::collection::vec(any::<u8>(), 0..400).prop_map(Body::Bytes),
        prop::collection::vec(0..PIECES.len(), 0..40).prop_map(Body::Pieces),
        (1usize..5000, any::<bool>()).prop_map(|(n, arr)| Body::Deep(n, arr)),
        (text(), text()).prop_map(|(a, b)| Body::DuplicateKeys(a, b)),
    ];
    (
        0..events().len(),
        prop::option::of(0..METHODS.len()),
        prop::option::weighted(
            0.3,
            prop_oneof![(0..PATHS.len()).prop_map(Ok), "[ -~]{0,30}".prop_map(Err)],
        ),
        body,
        prop::option::weighted(0.4, prop::collection::vec((text(), text()), 0..6)),
        prop::option::weighted(0.3, text()),
        prop::collection::vec((0..HEADERS.len(), header_value()), 0..4),
    )
        .prop_map(
            |(event, method, path, body, query, raw_query, headers)| Plan {
                event,
                method,
                path,
                body,
                query,
                raw_query,
                headers,
            },
        )
}

/// The mutated event.
fn apply(p: &Plan) -> Value {
    let mut e = events()[p.event].clone();
    let v2 = e["requestContext"]["http"].is_object();
    if let Some(m) = p.method {
        let m = METHODS[m];
        if v2 {
            e["requestContext"]["http"]["method"] = json!(m);
        } else {
            e["httpMethod"] = json!(m);
            if e["requestContext"]["httpMethod"].is_string() {
                e["requestContext"]["httpMethod"] = json!(m);
            }
        }
    }
    if let Some(path) = &p.path {
        let path = match path {
            Ok(i) => PATHS[*i].to_string(),
            Err(s) => format!("/{s}"),
        };
        if v2 {
            e["rawPath"] = json!(path);
            e["requestContext"]["http"]["path"] = json!(path);
        } else {
            e["path"] = json!(path);
        }
    }
    let body = match &p.body {
        Body::Keep => None,
        Body::Bytes(b) => Some(b.clone()),
        Body::Pieces(v) => Some(
            v.iter()
                .map(|i| PIECES[*i])
                .collect::<String>()
                .into_bytes(),
        ),
        Body::Deep(n, arr) => {
            let (open, close) = if *arr { ("[", "]") } else { ("{\"a\":", "}") };
            Some(format!("{}1{}", open.repeat(*n), close.repeat(*n)).into_bytes())
        }
        Body::DuplicateKeys(a, b) => Some(
            format!(
                "{{\"query\":{},\"query\":{},\"prev\":[{}],\"prev\":{}}}",
                json!(a),
                json!(b),
                json!(a),
                json!(b)
            )
            .into_bytes(),
        ),
    };
    if let Some(b) = body {
        match String::from_utf8(b.clone()) {
            Ok(s) if b.len() % 2 == 0 => {
                e["body"] = json!(s);
                e["isBase64Encoded"] = json!(false);
            }
            _ => {
                e["body"] = json!(support::encoding::base64(&b, false));
                e["isBase64Encoded"] = json!(true);
            }
        }
    }
    if let Some(q) = &p.query {
        let map: serde_json::Map<String, Value> =
            q.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        e["queryStringParameters"] = Value::Object(map.clone());
        if e.get("multiValueQueryStringParameters").is_some() {
            let multi: serde_json::Map<String, Value> =
                map.into_iter().map(|(k, v)| (k, json!([v]))).collect();
            e["multiValueQueryStringParameters"] = Value::Object(multi);
        }
    }
    if let (Some(r), true) = (&p.raw_query, v2) {
        e["rawQueryString"] = json!(r);
    }
    for (h, v) in &p.headers {
        if !e["headers"].is_object() {
            e["headers"] = json!({});
        }
        e["headers"][HEADERS[*h]] = json!(v);
        if e["multiValueHeaders"].is_object() {
            e["multiValueHeaders"][HEADERS[*h]] = json!([v]);
        }
    }
    e
}

/// How many cases ended in each status (for the report).
static SEEN: std::sync::Mutex<std::collections::BTreeMap<u16, u64>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Runs one case; `Err` says what broke.
fn check(p: &Plan) -> Result<(), String> {
    let event = apply(p).to_string();
    // The path main.rs serves: lambda_http's event types, made readable
    // (nlweb_ask::event), then the handler. An event that is not one of
    // the types is API Gateway's to send, not a client's.
    let req = match std::panic::catch_unwind(|| nlweb_ask::event::request_from_str(&event)) {
        Ok(Ok(req)) => req,
        Ok(Err(_)) => return Ok(()),
        Err(_) => return Err(format!("the event conversion panicked for {event}")),
    };
    let resp = respond(state(), &req);
    let status = resp.status().as_u16();
    *SEEN.lock().unwrap().entry(status).or_default() += 1;
    if !STATUSES.contains(&status) {
        return Err(format!("status {status} for {event}"));
    }
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // A response to HEAD has no content (RFC 9110, 9.3.2): the router
    // sends the headers of the 405 alone.
    if req.method() == "HEAD" {
        if !resp.body().as_ref().is_empty() {
            return Err(format!("a HEAD response with content for {event}"));
        }
    } else if ct == "application/json"
        && serde_json::from_slice::<Value>(resp.body().as_ref()).is_err()
    {
        return Err(format!("a JSON response that does not parse for {event}"));
    }
    Ok(())
}

#[test]
fn the_handler_answers_every_mutated_event_within_the_design_statuses() {
    let n = cases();
    let mut runner = TestRunner::new(RunnerConfig {
        cases: n,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let started = std::time::Instant::now();
    let result = runner.run(&plan(), |p| {
        check(&p).map_err(proptest::test_runner::TestCaseError::fail)
    });
    result.unwrap();
    eprintln!(
        "fuzz: {n} cases over {} saved events in {:.1} s, 0 panics, 0 statuses outside {STATUSES:?}; by status: {:?}",
        events().len(),
        started.elapsed().as_secs_f64(),
        SEEN.lock().unwrap()
    );
}

#[test]
fn the_check_can_fail() {
    // A 500 is what a caught panic answers: the check must call it a failure.
    assert!(!STATUSES.contains(&500));
    // And the mutations reach the deep paths: a deep body is parsed.
    let p = Plan {
        event: events()
            .iter()
            .position(|e| e["body"].as_str().is_some_and(|b| b.contains("query")))
            .unwrap(),
        method: Some(1),
        path: Some(Ok(0)),
        body: Body::Deep(4000, true),
        query: None,
        raw_query: None,
        headers: vec![],
    };
    assert!(check(&p).is_ok());
    let e = apply(&p);
    let req = nlweb_ask::event::request_from_str(&e.to_string()).unwrap();
    let r = respond(state(), &req);
    assert_eq!(
        r.status(),
        400,
        "{}",
        String::from_utf8_lossy(r.body().as_ref())
    );
}

#[test]
fn a_host_lambda_http_cannot_parse_is_a_400_not_a_panic() {
    let mut e: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("events/alb-get-json.json")).unwrap(),
    )
    .unwrap();
    e["headers"]["host"] = json!("exa mple.com");
    let text = e.to_string();
    // lambda_http alone panics on it...
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let raw = std::panic::catch_unwind(|| lambda_http::request::from_str(&text).map(|_| ()));
    std::panic::set_hook(hook);
    assert!(raw.is_err(), "lambda_http now reads it: the guard may go");
    // ...the guarded path answers 400.
    let req = nlweb_ask::event::request_from_str(&text).unwrap();
    let r = respond(state(), &req);
    assert_eq!(r.status(), 400);
    let doc: Value = serde_json::from_slice(r.body().as_ref()).unwrap();
    assert_eq!(doc["error"]["code"], "INVALID_REQUEST");
}

/// Headers that no event can carry (JSON strings are text): raw bytes,
/// invalid UTF-8 and obs-text included, on every route, through the
/// handler itself. 0 panics, 0 statuses outside the table.
#[test]
fn raw_header_bytes_never_panic_the_handler() {
    use lambda_http::http::{HeaderName, HeaderValue};
    let n = cases();
    let mut runner = TestRunner::new(RunnerConfig {
        cases: n,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let strategy = (
        0..PATHS.len(),
        0..METHODS.len(),
        prop::collection::vec(
            (0..HEADERS.len(), prop::collection::vec(any::<u8>(), 0..200)),
            1..5,
        ),
    );
    runner
        .run(&strategy, |(path, method, headers)| {
            let mut req = lambda_http::http::Request::builder()
                .method(METHODS[method])
                .uri(format!("https://api.example.com{}", PATHS[path]));
            for (h, bytes) in &headers {
                // What HTTP itself cannot carry (CR, LF, NUL) never reaches
                // a Lambda; every other byte can.
                if let Ok(v) = HeaderValue::from_bytes(bytes) {
                    req = req.header(HeaderName::from_static(HEADERS[*h]), v);
                }
            }
            let req = req.body(lambda_http::Body::Empty).unwrap();
            let status = respond(state(), &req).status().as_u16();
            prop_assert!(
                STATUSES.contains(&status),
                "status {status} for {headers:?}"
            );
            Ok(())
        })
        .unwrap();
    eprintln!("fuzz: {n} requests with raw header bytes, 0 panics");
}
