//! Cross-cutting: rate limits, CORS and header metadata, checklist items 49–51.

use serde_json::json;

use crate::support::sse;
use crate::{
    VERSION, answer_doc, assert_failure, call, corpus, event_json, get_h, results, saved, state,
    state_with, to_request,
};

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
