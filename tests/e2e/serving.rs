//! Serving `/ask` over the emulator: the index from S3, a disabled function, and a loopback load.

use serde_json::Value;

use crate::support::{docs, moto, sse};
use crate::{ask, emulator, get, post, serve_docs};

#[test]
fn serves_ask_over_http_with_the_index_from_s3() {
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-e2e");
    s3.put("ask-e2e", "index/docs.idx", &docs::docs_index_bytes());
    let (_emu, port) = emulator();
    let mut env = s3.env();
    env.extend([
        ("ASK_ENABLED", "true".to_string()),
        ("ASK_INDEX", "s3://ask-e2e/index/docs.idx".to_string()),
        ("ASK_RATE_LIMIT_PER_MINUTE", "6".to_string()),
    ]);
    let _ask = ask(port, &env);

    // GET, JSON, default mode generate: the SearchSummary comes first.
    let r = get(
        port,
        "/ask?query=how+do+I+configure+the+rate+limit&streaming=false",
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("ratelimit-policy"), Some("\"default\";q=6;w=60"));
    assert!(
        r.header("server-timing")
            .is_some_and(|v| v.contains("search;dur="))
    );
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["_meta"]["response_type"], "answer");
    assert_eq!(doc["results"][0]["@type"], "SearchSummary");
    assert!(
        doc["results"][1]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://nlweb-ask.example.com/docs/")
    );

    // GET, SSE by Accept.
    let r = get(
        port,
        "/ask?query=deploy+with+sam",
        &[("accept", "text/event-stream")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = sse::parse(&r.text()).unwrap();
    sse::check_answer_stream(&events).unwrap();

    // 0.55 POST, summarize.
    let body = br#"{"query":{"text":"what happens when the index checksum is wrong"},"prefer":{"streaming":false,"mode":"summarize"},"meta":{"version":"0.55"}}"#;
    let r = post(port, body);
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    let summary = &doc["results"][0];
    assert_eq!(summary["@type"], "SearchSummary");
    assert!(!summary["citations"].as_array().unwrap().is_empty());

    // (OPTIONS is answered by cargo-lambda's own CORS layer before it
    // reaches the function; the preflight is tested in tests/events/.)

    // The bucket holds 6; three were used. The 4th to 6th pass, the 7th is 429.
    for _ in 0..3 {
        assert_eq!(get(port, "/ask?q=index&streaming=false", &[]).status, 200);
    }
    let r = get(port, "/ask?q=index&streaming=false", &[]);
    assert_eq!(r.status, 429, "{}", r.text());
    let retry: u32 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=10).contains(&retry));
    assert!(
        r.header("ratelimit")
            .unwrap()
            .starts_with("\"default\";r=0;")
    );
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "RATE_LIMITED");
}

#[test]
fn disabled_function_answers_404_over_http() {
    let (_emu, port) = emulator();
    let _ask = ask(port, &[("ASK_ENABLED", "false".to_string())]);
    for path in ["/ask?query=x", "/", "/anything"] {
        let r = get(port, path, &[]);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.text(), r#"{"message":"Not Found"}"#);
    }
}

/// A bounded loopback load test of the release binary under the emulator:
/// 2,000 GET /ask from 8 client threads (questions varied, no cache), the
/// limiter set out of the way. Every answer must be a 200; the figures are
/// printed, not asserted (a timing assertion would be flaky).
#[test]
fn load_on_loopback_gets_only_answers() {
    let (_emu, _ask, port) = serve_docs("load", &[("ASK_RATE_LIMIT_PER_MINUTE", "10000000")]);
    let questions = [
        "how+do+I+configure+the+rate+limit",
        "deploy+with+sam",
        "what+is+the+index+format",
        "stream+answers+with+server-sent+events",
        "typo+tolerance",
        "mcp+server+tools",
        "cold+start+error",
        "build+the+index+from+mdx",
    ];
    let started = std::time::Instant::now();
    let results: Vec<(u16, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let q = questions[t];
                scope.spawn(move || {
                    (0..250)
                        .map(|i| {
                            let t0 = std::time::Instant::now();
                            let r = get(
                                port,
                                &format!("/ask?query={q}+{i}&streaming=false&mode=list"),
                                &[],
                            );
                            (r.status, t0.elapsed().as_secs_f64() * 1e3)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let secs = started.elapsed().as_secs_f64();
    let mut ms: Vec<f64> = results.iter().map(|r| r.1).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    let bad: Vec<u16> = results.iter().map(|r| r.0).filter(|s| *s != 200).collect();
    println!(
        "load: {} requests, 8 clients, {:.1} s, {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms, {} not 200",
        results.len(),
        secs,
        results.len() as f64 / secs,
        pct(0.5),
        pct(0.99),
        bad.len()
    );
    assert_eq!(results.len(), 2000);
    assert!(bad.is_empty(), "{bad:?}");
}
