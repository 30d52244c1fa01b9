//! The rate limit: the address API Gateway saw, /ask and /mcp in one bucket, a panic survived.

use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::Value;

use crate::support::docs::{docs_index, repo};
use crate::{body_text, event, header, state, test_state};

#[test]
fn the_21st_request_in_a_minute_is_rate_limited() {
    let state = state(true);
    for i in 0..20 {
        let r = respond(&state, &event("http-get-json.json"));
        assert_eq!(r.status().as_u16(), 200, "request {i}");
        assert_eq!(
            header(&r, "ratelimit").unwrap(),
            format!("\"default\";r={};t={}", 19 - i, (i + 1) * 3)
        );
    }
    let r = respond(&state, &event("http-get-json.json"));
    assert_eq!(r.status().as_u16(), 429);
    assert_eq!(header(&r, "retry-after"), Some("3"));
    assert_eq!(
        header(&r, "ratelimit-policy"),
        Some("\"default\";q=20;w=60")
    );
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(doc["error"]["code"], "RATE_LIMITED");
}

/// `http-get-json.json` sent from `ip` (its `sourceIp`, and the address API
/// Gateway appends to `X-Forwarded-For`).
fn event_from(ip: &str) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["requestContext"]["http"]["sourceIp"] = Value::from(ip);
    v["headers"]["x-forwarded-for"] = Value::from(ip);
    lambda_http::request::from_str(&v.to_string()).unwrap()
}

/// Spends every token of `ip`'s bucket.
fn empty_bucket(state: &State, ip: &str) {
    for i in 0..20 {
        let r = respond(state, &event_from(ip));
        assert_eq!(r.status().as_u16(), 200, "{ip}: request {i}");
    }
    assert_eq!(
        respond(state, &event_from(ip)).status().as_u16(),
        429,
        "{ip}"
    );
}

#[test]
fn a_forged_x_forwarded_for_does_not_choose_the_bucket() {
    // http-get-spoofed-xff.json comes from 203.0.113.45 and claims, in
    // X-Forwarded-For, to be 198.51.100.250.
    let real = "203.0.113.45";
    let forged = "198.51.100.250";
    let spoofed = || event("http-get-spoofed-xff.json");

    // The real address's bucket is empty and the forged one's full: the
    // request is refused, so it was not counted against the forged address.
    let state = state(true);
    empty_bucket(&state, real);
    let r = respond(&state, &spoofed());
    assert_eq!(r.status().as_u16(), 429, "{}", body_text(&r));

    // The reverse: the forged address's bucket is empty and the real one's
    // full: the request is answered, so it was not counted against the
    // forged address either.
    let state = self::state(true);
    empty_bucket(&state, forged);
    let r = respond(&state, &spoofed());
    assert_eq!(r.status().as_u16(), 200, "{}", body_text(&r));
    assert_eq!(header(&r, "ratelimit"), Some("\"default\";r=19;t=3"));
}

#[test]
fn mcp_shares_the_rate_limit_and_the_body_limit() {
    let state = state(true);
    // /ask and /mcp spend the same bucket: 19 /ask requests and one MCP
    // call from the same address empty it.
    let ip = "203.0.113.66"; // http-post-mcp-tools-call.json's address
    for _ in 0..19 {
        assert_eq!(respond(&state, &event_from(ip)).status().as_u16(), 200);
    }
    let r = respond(&state, &event("http-post-mcp-tools-call.json"));
    assert_eq!(r.status().as_u16(), 200, "{}", body_text(&r));
    let r = respond(&state, &event("http-post-mcp-tools-call.json"));
    assert_eq!(r.status().as_u16(), 429);
    assert!(header(&r, "retry-after").is_some());
    let msg: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(msg["error"]["code"], -32000, "{msg}");
    assert_eq!(
        msg["error"]["data"]["error"]["code"], "RATE_LIMITED",
        "{msg}"
    );

    // A body over 64 KiB is refused before it is read.
    let text =
        std::fs::read_to_string(repo().join("events/http-post-mcp-tools-list.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(70_000)
    );
    v["headers"]["content-length"] = Value::from(body.len().to_string());
    v["body"] = Value::from(body);
    let r = respond(
        &state,
        &lambda_http::request::from_str(&v.to_string()).unwrap(),
    );
    assert_eq!(r.status().as_u16(), 413);
    let msg: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(msg["error"]["code"], -32600, "{msg}");
    assert_eq!(msg["error"]["data"]["error"]["code"], "PAYLOAD_TOO_LARGE");
}

#[test]
fn a_panic_while_answering_is_an_internal_error_and_the_next_request_is_served() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let config = test_state::config(&[]);
    // The injected clock panics once, inside the rate limiter's critical
    // section: the worst place, since it also poisons the limiter's lock.
    let first = AtomicBool::new(true);
    let state = State::with_clock(
        config,
        docs_index(),
        Box::new(move || {
            if first.swap(false, Ordering::SeqCst) {
                panic!("injected failure");
            }
            0.0
        }),
    );
    let r = respond(&state, &event("http-get-json.json"));
    assert_eq!(r.status().as_u16(), 500);
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(doc["_meta"]["response_type"], "failure");
    assert_eq!(doc["error"]["code"], "INTERNAL_ERROR");
    let r = respond(&state, &event("http-get-json.json"));
    assert_eq!(r.status().as_u16(), 200, "{}", body_text(&r));
}
