//! Does any request cost far more than the token it spends? The requests an
//! attacker would send to the public, anonymous endpoint: JSON-RPC batches
//! of work, client text that analyses into many words, credentials crafted
//! to break a response header; and what keeps answers and caches honest
//! (response cap, `Vary`, `Cache-Control: private`, self-links that no
//! header can move).

#[path = "support/auth.rs"]
mod auth;
mod support;
#[path = "support/state.rs"]
mod test_state;

use lambda_http::{Body, Request, Response};
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{docs_index, events_env, repo};
use support::process::rss_kib;

fn state(extra: &[(&str, &str)]) -> State {
    let env = events_env();
    let mut vars: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    vars.extend_from_slice(extra);
    test_state::state(docs_index(), &vars)
}

fn event(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(repo().join("events").join(name)).unwrap())
        .unwrap()
}

fn request(v: &Value) -> Request {
    nlweb_ask::event::request_from_str(&v.to_string()).unwrap()
}

/// A POST /mcp of `body` from `ip` (HTTP API v2), speaking `version`.
fn mcp(s: &State, ip: &str, version: &str, body: &str) -> Response<Body> {
    let mut v = event("http-post-mcp-tools-list.json");
    v["body"] = json!(body);
    v["headers"]["content-length"] = json!(body.len().to_string());
    v["headers"]["mcp-protocol-version"] = json!(version);
    v["requestContext"]["http"]["sourceIp"] = json!(ip);
    respond(s, &request(&v))
}

fn header<'a>(r: &'a Response<Body>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

fn json_of(r: &Response<Body>) -> Value {
    serde_json::from_slice(r.body().as_ref()).unwrap_or(Value::Null)
}

/// Tokens left, from the `RateLimit` header (`"default";r=N;t=S`).
fn remaining(r: &Response<Body>) -> u32 {
    let h = header(r, "ratelimit");
    h.split(';')
        .find_map(|p| p.strip_prefix("r="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no RateLimit: {h:?}"))
}

fn batch(n: usize, message: &str) -> String {
    let m: Vec<String> = (0..n)
        .map(|i| message.replace("\"id\":1", &format!("\"id\":{i}")))
        .collect();
    format!("[{}]", m.join(","))
}

const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
const TOOLS_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"how do I configure the rate limit"}}}"#;

#[test]
fn a_batch_of_300_tools_list_is_refused_in_a_few_bytes() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    let body = batch(300, TOOLS_LIST);
    let r = mcp(&s, "203.0.113.101", "2025-03-26", &body);
    assert_eq!(r.status(), 400);
    let v = json_of(&r);
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(
        r.body().as_ref().len() < 1000,
        "{} bytes",
        r.body().as_ref().len()
    );
    // Ten is the most a batch holds, and each one is a token.
    let r = mcp(&s, "203.0.113.102", "2025-03-26", &batch(10, TOOLS_LIST));
    assert_eq!(r.status(), 200);
    assert_eq!(json_of(&r).as_array().unwrap().len(), 10);
    assert_eq!(remaining(&r), 990);
}

#[test]
fn each_tools_call_in_a_batch_spends_a_token() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "20")]);
    let r = mcp(&s, "203.0.113.103", "2025-03-26", &batch(200, TOOLS_CALL));
    assert_eq!(r.status(), 400, "{}", json_of(&r));
    let r = mcp(&s, "203.0.113.104", "2025-03-26", &batch(8, TOOLS_CALL));
    assert_eq!(r.status(), 200, "{}", json_of(&r));
    let answers = json_of(&r);
    assert_eq!(answers.as_array().unwrap().len(), 8);
    assert_eq!(remaining(&r), 12);
    // A second batch of 8 leaves 4; a third would need 8: refused whole,
    // nothing retrieved, Retry-After given.
    let r = mcp(&s, "203.0.113.104", "2025-03-26", &batch(8, TOOLS_CALL));
    assert_eq!(r.status(), 200);
    let r = mcp(&s, "203.0.113.104", "2025-03-26", &batch(8, TOOLS_CALL));
    assert_eq!(r.status(), 429, "{}", json_of(&r));
    assert_eq!(json_of(&r)["error"]["code"], -32000);
    assert!(header(&r, "retry-after").parse::<u32>().unwrap() >= 1);
    assert_eq!(
        json_of(&r)["error"]["data"]["error"]["code"],
        "RATE_LIMITED"
    );
    // A batch that costs more than a whole bucket can never be paid for:
    // 400, not a 429 whose Retry-After would never come true.
    let small = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "5")]);
    let r = mcp(&small, "203.0.113.108", "2025-03-26", &batch(8, TOOLS_LIST));
    assert_eq!(r.status(), 400, "{}", json_of(&r));
    assert!(
        json_of(&r)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("costs 8 tokens")
    );
    // Versions without batches still refuse them.
    let r = mcp(&s, "203.0.113.105", "2025-06-18", &batch(2, TOOLS_LIST));
    assert_eq!(r.status(), 400);
}

/// No response is larger than `ask.max_response_bytes`: over it, the
/// failure that says so is sent instead (a JSON-RPC error on /mcp).
#[test]
fn an_answer_over_the_cap_is_a_failure_not_a_huge_body() {
    let s = state(&[
        ("ASK_RATE_LIMIT_PER_MINUTE", "1000"),
        ("ASK_MAX_RESPONSE_BYTES", "65536"),
        ("ASK_MCP_ALLOW_ORIGINS", "https://docs.example.com"),
    ]);
    let mut v = event("http-post-mcp-tools-list.json");
    let body = batch(10, TOOLS_LIST);
    v["body"] = json!(body);
    v["headers"]["content-length"] = json!(body.len().to_string());
    v["headers"]["origin"] = json!("https://docs.example.com");
    v["headers"]["mcp-protocol-version"] = json!("2025-03-26");
    v["requestContext"]["http"]["sourceIp"] = json!("203.0.113.106");
    let r = respond(&s, &request(&v));
    assert_eq!(r.status(), 500);
    // The failure that replaces the answer is readable by the page that
    // may call /mcp (CORS) and reports what the batch cost.
    assert_eq!(
        r.headers()
            .get("access-control-allow-origin")
            .map(|v| v.to_str().unwrap()),
        Some("https://docs.example.com")
    );
    assert!(r.headers().contains_key("ratelimit"));
    let v = json_of(&r);
    assert_eq!(v["error"]["code"], -32603, "{v}");
    assert_eq!(v["error"]["data"]["error"]["code"], "INTERNAL_ERROR");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over this endpoint's cap of 65536 bytes")
    );
    // One tools/list is under it.
    let r = mcp(&s, "203.0.113.107", "2025-03-26", TOOLS_LIST);
    assert_eq!(r.status(), 200);
    assert!(r.body().as_ref().len() <= 65536);
}

/// Client text that analyses into many words (U+FDFA transliterates into
/// five): over four times the character limit once transliterated, it is
/// refused before any analysis.
#[test]
fn text_that_transliterates_into_many_words_is_refused() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    let heavy: String = std::iter::repeat_n('\u{FDFA}', 480).collect();
    for body in [
        json!({"query": {"text": heavy}}),
        json!({"query": {"text": "rate limit"}, "context": {"prev": [heavy]}}),
    ] {
        let mut v = event("http-post-v055.json");
        let body = body.to_string();
        v["headers"]["content-length"] = json!(body.len().to_string());
        v["body"] = json!(body);
        let r = respond(&s, &request(&v));
        assert_eq!(r.status(), 400, "{}", json_of(&r));
        let message = json_of(&r)["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains("once transliterated"), "{message}");
    }
    // A long question in a script that transliterates into a few letters a
    // character is served.
    let chinese: String = "如何配置速率限制".repeat(40);
    let mut v = event("http-post-v055.json");
    let body = json!({"query": {"text": chinese}, "prefer": {"streaming": false}}).to_string();
    v["headers"]["content-length"] = json!(body.len().to_string());
    v["body"] = json!(body);
    let r = respond(&s, &request(&v));
    // (Served: an answer or NO_RESULTS, never INVALID_QUERY.)
    assert_eq!(r.status(), 200, "{}", json_of(&r));
}

/// The heaviest text that is served (just under the transliteration
/// limit), every member at its limit, nothing repeated: the query-time
/// analysis cache stays under its byte bound and the process's memory
/// stays where it was.
#[test]
fn memory_stays_flat_under_10000_adversarial_requests() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "100000000")]);
    let t = event("http-post-v055.json");
    let ask = |i: usize| {
        // 60 of U+FDFA (300 words), then distinct words that fill the
        // cache: just under the transliteration limit.
        let run = |salt: usize| {
            let mut q: String = std::iter::repeat_n('\u{FDFA}', 60).collect();
            for w in 0..18 {
                q.push_str(&format!(" w{i}x{salt}y{w}"));
            }
            q
        };
        let body = json!({
            "query": {"text": run(0), "site": "docs"},
            "context": {"prev": (1..=10).map(run).collect::<Vec<_>>()},
            "prefer": {"streaming": false, "mode": "summarize"},
        })
        .to_string();
        let mut v = t.clone();
        v["headers"]["content-length"] = json!(body.len().to_string());
        v["body"] = json!(body);
        v["requestContext"]["http"]["sourceIp"] = json!(format!("198.18.{}.{}", i / 250, i % 250));
        let r = respond(&s, &request(&v));
        assert!([200].contains(&r.status().as_u16()), "{}", json_of(&r));
    };
    // Warm up: the index, the allocator's pools, a full cache.
    for i in 0..500 {
        ask(i);
    }
    let before = rss_kib();
    for i in 500..10_500 {
        ask(i);
        assert!(ask_index::analyzer::chunk_cache_bytes() <= 1 << 21);
    }
    let after = rss_kib();
    eprintln!(
        "abuse: 10,000 adversarial /ask bodies; RSS {before} KiB before, {after} KiB after ({:+} KiB)",
        after as i64 - before as i64
    );
    assert!(
        after.saturating_sub(before) < 8 * 1024,
        "RSS grew {} KiB",
        after - before
    );
}

/// A bearer token whose header segment decodes to a control character:
/// 401 with a fixed description, never a 500 from a header builder.
#[test]
fn a_crafted_bearer_token_is_a_401_on_every_route() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    // {"alg": "\u0007"}: the library's message quotes the control
    // character, which made the old WWW-Authenticate builder panic (500);
    // {"alg":"RS256","kid":"\u0007\n"}; a header segment of raw bytes.
    let crafted = [
        "Bearer eyJhbGciOiAiXHUwMDA3In0.e30.c2ln",
        "Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6IgcKIn0.e30.c2ln",
        "Bearer Bwo.Bwo.Bwo",
        "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOjF9.c2ln",
    ];
    for token in crafted {
        for (name, path) in [
            ("http-post-mcp-tools-list.json", "/mcp"),
            ("http-get-json.json", "/ask"),
            ("http-get-who.json", "/who"),
        ] {
            let mut v = event(name);
            v["headers"]["authorization"] = json!(token);
            let r = respond(&s, &request(&v));
            assert_eq!(r.status(), 401, "{path} {token}: {}", json_of(&r));
            let challenge = header(&r, "www-authenticate");
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
            assert!(!challenge.chars().any(|c| c.is_control()), "{challenge}");
        }
    }
}

#[test]
fn refused_tokens_get_one_fixed_description_per_case() {
    let key = auth::rsa_key("abuse-rsa");
    let jwks = auth::jwks(&[&key]);
    let s = test_state::state(
        docs_index(),
        &[
            ("ASK_AUTH", "optional"),
            ("ASK_AUTH_JWKS", &jwks),
            ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
            ("ASK_AUTH_AUDIENCE", "https://nlweb-ask.example.com"),
        ],
    );
    let stranger = auth::rsa_key("abuse-rsa");
    let mut expired = auth::claims("a");
    expired["exp"] = json!(auth::now() - 3600);
    let mut audience = auth::claims("a");
    audience["aud"] = json!("https://another-api.example.com");
    let mut issuer = auth::claims("a");
    issuer["iss"] = json!("https://elsewhere.example.com/");
    for (token, says) in [
        (auth::token(&key, &expired), "the token has expired"),
        (
            auth::token(&key, &audience),
            "the token is for another audience (aud)",
        ),
        (
            auth::token(&key, &issuer),
            "the token's issuer (iss) is not the one this endpoint trusts",
        ),
        (
            auth::token(&stranger, &auth::claims("a")),
            "the token's signature does not check out",
        ),
        (
            "not-a-jwt".to_string(),
            "the token is not a well-formed JWT",
        ),
    ] {
        let mut v = event("http-get-json.json");
        v["headers"]["authorization"] = json!(format!("Bearer {token}"));
        let r = respond(&s, &request(&v));
        assert_eq!(r.status(), 401);
        assert_eq!(json_of(&r)["error"]["message"], says);
        assert!(
            header(&r, "www-authenticate").contains(&format!("error_description=\"{says}\"")),
            "{}",
            header(&r, "www-authenticate")
        );
    }
}

#[test]
fn auth_cannot_be_configured_open() {
    let jwks = std::fs::read_to_string(repo().join("tests/data/auth/jwks.json")).unwrap();
    let load = test_state::load;
    for (pairs, says) in [
        (
            vec![("ASK_AUTH", "required"), ("ASK_AUTH_JWKS", jwks.as_str())],
            "auth_issuer or auth_audience is not set",
        ),
        (
            vec![
                ("ASK_AUTH", "optional"),
                ("ASK_AUTH_JWKS", jwks.as_str()),
                ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
            ],
            "auth_issuer or auth_audience is not set",
        ),
        (
            vec![
                ("ASK_AUTH", "required"),
                ("ASK_AUTH_JWKS_URL", "http://auth.example.com/jwks.json"),
                ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
                ("ASK_AUTH_AUDIENCE", "https://nlweb-ask.example.com"),
            ],
            "not an https URL",
        ),
        (
            vec![
                ("ASK_AUTH", "required"),
                (
                    "ASK_AUTH_JWKS_URL",
                    "http://localhost:@attacker.example/jwks.json",
                ),
                ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
                ("ASK_AUTH_AUDIENCE", "https://nlweb-ask.example.com"),
            ],
            "not an https URL",
        ),
        (
            vec![("ASK_PUBLIC_BASE_URL", "api.example.com/prod")],
            "not an http(s) URL",
        ),
    ] {
        let e = load(&pairs).unwrap_err().to_string();
        assert!(e.contains(says), "{pairs:?}: {e}");
    }
}

/// With `required`, every route that shows the docs or the settings needs
/// a token; the RFC 9728 metadata, the OpenAPI document and the widget
/// stay public.
#[test]
fn required_auth_covers_every_route_that_reveals_content() {
    let s = state(&[("ASK_AUTH", "required")]);
    for (name, status) in [
        ("http-get-json.json", 401),
        ("http-post-mcp-tools-list.json", 401),
        ("http-get-sites.json", 401),
        ("http-get-llms-txt.json", 401),
        ("http-get-who.json", 401),
        ("http-get-config.json", 401),
        ("http-get-oauth-metadata.json", 200),
        ("http-get-openapi.json", 200),
        ("http-get-widget.json", 200),
    ] {
        let r = respond(&s, &request(&event(name)));
        assert_eq!(r.status(), status, "{name}");
    }
}

#[test]
fn vary_origin_on_every_response_when_origins_are_listed() {
    let s = state(&[("ASK_CORS_ALLOW_ORIGINS", "https://docs.example.com")]);
    for origin in [
        None,
        Some("https://docs.example.com"),
        Some("https://evil.example"),
    ] {
        for name in [
            "http-get-json.json",
            "http-get-sites.json",
            "http-get-no-results.json",
        ] {
            let mut v = event(name);
            if let Some(o) = origin {
                v["headers"]["origin"] = json!(o);
            }
            let r = respond(&s, &request(&v));
            // An answer also varies by Accept (JSON or SSE).
            let vary = if name == "http-get-sites.json" {
                "Origin"
            } else {
                "Accept, Origin"
            };
            assert_eq!(header(&r, "vary"), vary, "{name} {origin:?}");
            let allowed = header(&r, "access-control-allow-origin");
            assert_eq!(
                allowed,
                origin.filter(|o| !o.contains("evil")).unwrap_or("")
            );
        }
    }
    // With `*` the answer does not depend on Origin.
    let s = state(&[]);
    let r = respond(&s, &request(&event("http-get-json.json")));
    assert_eq!(header(&r, "vary"), "Accept");
}

#[test]
fn an_answer_to_a_request_with_a_token_is_private() {
    let s = state(&[("ASK_CACHE_MAX_AGE", "300")]);
    let mut v = event("http-get-json.json");
    let r = respond(&s, &request(&v));
    assert_eq!(header(&r, "cache-control"), "public, max-age=300");
    // Refused or not, a request that carried a token gets a private answer.
    v["headers"]["authorization"] = json!("Bearer not.a.token");
    v["requestContext"]["http"]["sourceIp"] = json!("203.0.113.150");
    let r = respond(&s, &request(&v));
    assert!(
        header(&r, "cache-control").contains("private"),
        "{}",
        header(&r, "cache-control")
    );
    assert!(!header(&r, "cache-control").contains("public"));
}

/// Self-links come from `ask.public_base_url`, else from the request
/// context API Gateway writes: a client's Host or X-Forwarded-Proto moves
/// none of them.
#[test]
fn self_links_ignore_host_and_forwarded_proto() {
    let hostile = |v: &mut Value| {
        v["headers"]["host"] = json!("evil.example");
        v["headers"]["x-forwarded-proto"] = json!("javascript");
    };
    let s = state(&[]);
    let mut v = event("http-get-llms-txt.json");
    hostile(&mut v);
    let r = respond(&s, &request(&v));
    let text = String::from_utf8(r.body().as_ref().to_vec()).unwrap();
    assert!(
        !text.contains("evil.example") && !text.contains("javascript:"),
        "{text}"
    );
    assert!(text.contains("https://f7m2xw4p1c.execute-api.us-east-1.amazonaws.com/ask"));
    let s = state(&[("ASK_PUBLIC_BASE_URL", "https://docs-api.example.com/v1/")]);
    let mut v = event("http-get-auth-expired.json");
    hostile(&mut v);
    let r = respond(&s, &request(&v));
    assert!(
        header(&r, "www-authenticate").starts_with(
            "Bearer resource_metadata=\"https://docs-api.example.com/v1/.well-known/oauth-protected-resource\""
        ),
        "{}",
        header(&r, "www-authenticate")
    );
    let mut v = event("http-get-oauth-metadata.json");
    hostile(&mut v);
    let r = respond(&s, &request(&v));
    assert_eq!(json_of(&r)["resource"], "https://docs-api.example.com/v1");
}
