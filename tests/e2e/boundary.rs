//! The trust boundary probed from outside, and no token or question in the log at TRACE.

use serde_json::Value;

use crate::{get, post_raw, serve_docs, serve_docs_logging};

/// The trust boundary, probed as an outsider would against the release
/// binary on loopback: who may call `/mcp` (Origin, and Host on a local
/// run), which content types a POST may have, and which ratings count.
#[test]
fn the_trust_boundary_holds_against_the_binary() {
    let (_emu, _ask, port) = serve_docs(
        "boundary",
        &[
            ("ASK_RATE_LIMIT_PER_MINUTE", "1000"),
            ("ASK_MCP_ALLOW_ORIGINS", "https://docs.example.com"),
        ],
    );
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let json = ("content-type", "application/json");
    let versioned = ("mcp-protocol-version", "2025-06-18");
    // A program (no Origin) is served; a page on another origin is not; a
    // page the team names is, and may read the answer.
    let r = post_raw(port, "/mcp", &[json, versioned], list);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = post_raw(
        port,
        "/mcp",
        &[json, versioned, ("origin", "http://evil.example")],
        list,
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(v.get("result").is_none());
    let r = post_raw(
        port,
        "/mcp",
        &[json, versioned, ("origin", "https://docs.example.com")],
        list,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // DNS rebinding: a name that resolves to this machine, from a page on
    // it, and without a page.
    for headers in [
        vec![
            json,
            versioned,
            ("host", "evil.example.com"),
            ("origin", "http://evil.example.com"),
        ],
        vec![json, versioned, ("host", "evil.example.com")],
    ] {
        let r = post_raw(port, "/mcp", &headers, list);
        assert_eq!(r.status, 403, "{headers:?}: {}", r.text());
    }
    // A POST that is not JSON, which a page could send with no preflight.
    for path in ["/ask", "/mcp", "/ask/feedback"] {
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            let r = post_raw(port, path, &[("content-type", ct), versioned], list);
            assert_eq!(r.status, 415, "{path} {ct}: {}", r.text());
            let v: Value = serde_json::from_slice(&r.body).unwrap();
            if path == "/mcp" {
                assert_eq!(v["error"]["code"], -32600, "{v}");
            } else {
                assert_eq!(v["error"]["code"], "UNSUPPORTED_MEDIA_TYPE", "{v}");
            }
        }
    }
    // Ratings: an answer's own id counts once per rating, within its
    // window; a forged id, another deployment's and a client's own do not.
    let answer = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let a: Value = serde_json::from_slice(&answer.body).unwrap();
    let id = a["query_id"].as_str().unwrap().to_string();
    let again = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let b: Value = serde_json::from_slice(&again.body).unwrap();
    assert_ne!(b["query_id"], a["query_id"], "one id per answer");
    let rate = |id: &str, rating: &str| {
        let body = serde_json::json!({"query_id": id, "rating": rating}).to_string();
        post_raw(port, "/ask/feedback", &[json], &body)
    };
    assert_eq!(rate(&id, "down").status, 204);
    assert_eq!(rate(&id, "down").status, 204, "a repeat is answered alike");
    let mut forged = id.clone();
    forged.pop();
    forged.push(if id.ends_with('0') { '1' } else { '0' });
    assert_eq!(rate(&forged, "down").status, 400);
    let mine = get(
        port,
        "/ask?query=rate+limit&streaming=false&query_id=mine-1",
        &[],
    );
    let m: Value = serde_json::from_slice(&mine.body).unwrap();
    assert_eq!(m["query_id"], "mine-1", "a client's id is echoed");
    assert_eq!(rate("mine-1", "down").status, 400, "and never rated");
}

/// Whatever the log level, no bearer token and (without
/// `ask.log_queries`) no question reaches the log: the binary at TRACE,
/// asked with a token, its whole output read.
#[test]
fn no_token_or_question_in_the_log_at_trace() {
    let log = std::env::temp_dir().join(format!("ask-e2e-trace-{}.log", std::process::id()));
    let (_emu, ask, port) = serve_docs_logging(
        "trace",
        &[("AWS_LAMBDA_LOG_LEVEL", "trace"), ("RUST_LOG", "trace")],
        Some(&log),
    );
    let token = "eyJhbGciOiJub25lIn0.c2VjcmV0LXRva2VuLTQ3MTE.sig";
    let question = "zebrafish marmalade quasar";
    let r = get(
        port,
        &format!("/ask?query={}&streaming=false", question.replace(' ', "+")),
        &[("authorization", &format!("Bearer {token}"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let body = serde_json::json!({"query": question}).to_string();
    let r = post_raw(
        port,
        "/ask",
        &[
            ("content-type", "application/json"),
            ("authorization", &format!("Bearer {token}")),
        ],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    drop(ask);
    let text = std::fs::read_to_string(&log).unwrap();
    // The log is there, at TRACE: the function's own debug lines show.
    assert!(text.contains("answered"), "{text}");
    for secret in [token, "c2VjcmV0LXRva2VuLTQ3MTE", question, "zebrafish"] {
        assert!(
            !text.contains(secret),
            "{secret:?} in the log at TRACE:\n{text}"
        );
    }
}
