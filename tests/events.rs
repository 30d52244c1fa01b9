//! Replays every saved event in `events/` through the real handler, with the
//! index of this project's own docs, and checks each response against the
//! table in `events/README.md` (status, content type, failure code). SSE
//! bodies are read with the parser in `tests/support/sse.rs`, written apart
//! from the writer.

mod support;
#[path = "support/state.rs"]
mod test_state;

use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::Value;
use support::docs::{docs_index, repo};
use support::event_table::expectations;
use support::sse;

fn state(enabled: bool) -> State {
    let extra = support::docs::events_env();
    let mut env: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let enabled = enabled.to_string();
    env.push(("ASK_ENABLED", &enabled));
    test_state::state(docs_index(), &env)
}

fn event(name: &str) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events").join(name)).unwrap();
    lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A saved event as a reader would send it to `state` (its rating names
/// an id `state` issued).
fn event_for(state: &nlweb_ask::state::State, name: &str) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events").join(name)).unwrap();
    lambda_http::request::from_str(&test_state::rateable(state, &text))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn header<'a>(r: &'a Response<Body>, name: &str) -> Option<&'a str> {
    r.headers().get(name).and_then(|v| v.to_str().ok())
}

fn body_text(r: &Response<Body>) -> String {
    String::from_utf8(r.body().as_ref().to_vec()).unwrap()
}

#[test]
fn every_event_in_the_folder_is_in_the_table() {
    let listed: Vec<String> = expectations().into_iter().map(|r| r.0).collect();
    for e in std::fs::read_dir(repo().join("events")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".json") {
            assert!(
                listed.contains(&name),
                "{name} has no row in events/README.md"
            );
        }
    }
    assert!(listed.len() >= 25);
}

#[test]
fn replays_every_saved_event() {
    let state = state(true);
    for (file, status, kind, code) in expectations() {
        let resp = respond(&state, &event_for(&state, &file));
        assert_eq!(
            resp.status().as_u16(),
            status,
            "{file}: {}",
            body_text(&resp)
        );
        let ct = header(&resp, "content-type").unwrap_or("");
        match kind.as_str() {
            "SSE" => {
                assert_eq!(ct, "text/event-stream", "{file}");
                assert_eq!(header(&resp, "cache-control"), Some("no-cache"), "{file}");
                let events =
                    sse::parse(&body_text(&resp)).unwrap_or_else(|e| panic!("{file}: {e}"));
                sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{file}: {e}"));
            }
            "JSON" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                if status == 404 {
                    assert_eq!(doc, serde_json::json!({"message": "Not Found"}), "{file}");
                    continue;
                }
                assert!(doc.get("meta").is_none(), "{file}: top-level meta");
                assert_eq!(doc["_meta"]["version"], "0.55", "{file}");
                match &code {
                    Some(code) => {
                        assert_eq!(doc["_meta"]["response_type"], "failure", "{file}");
                        if status == 401 || status == 403 {
                            let challenge = header(&resp, "www-authenticate").unwrap_or("");
                            assert!(
                                challenge.starts_with("Bearer resource_metadata=\"https://")
                                    && challenge
                                        .contains("/.well-known/oauth-protected-resource\""),
                                "{file}: {challenge}"
                            );
                        }
                        assert_eq!(doc["error"]["code"], code.as_str(), "{file}");
                        assert!(
                            doc["error"]["message"]
                                .as_str()
                                .is_some_and(|m| !m.is_empty())
                        );
                    }
                    None => {
                        assert_eq!(doc["_meta"]["response_type"], "answer", "{file}: {doc}");
                        let results = doc["results"].as_array().unwrap();
                        assert!(!results.is_empty(), "{file}");
                        for item in results {
                            assert!(item["@type"].is_string(), "{file}");
                            assert!(item["schema_object"].is_object(), "{file}");
                        }
                    }
                }
            }
            "JSON-RPC" => {
                assert_eq!(ct, "application/json", "{file}");
                let msg: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(msg["jsonrpc"], "2.0", "{file}");
                match code.as_deref() {
                    Some(c) if c.starts_with('-') => {
                        assert_eq!(msg["error"]["code"].to_string(), c, "{file}: {msg}");
                    }
                    Some(c) => {
                        assert_eq!(msg["result"]["isError"], true, "{file}: {msg}");
                        let doc = &msg["result"]["structuredContent"];
                        assert_eq!(doc["error"]["code"], c, "{file}: {msg}");
                    }
                    None => {
                        assert!(msg["result"].is_object(), "{file}: {msg}");
                        if file.contains("2026") || file.contains("discover") {
                            let r = &msg["result"];
                            assert_eq!(r["resultType"], "complete", "{file}");
                            assert_eq!(
                                r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
                                "nlweb-ask",
                                "{file}"
                            );
                        }
                        if file.contains("discover") {
                            let r = &msg["result"];
                            assert_eq!(r["supportedVersions"], serde_json::json!(["2026-07-28"]));
                            assert!(r["capabilities"]["tools"].is_object(), "{file}");
                            assert_eq!(r["ttlMs"], 3_600_000, "{file}");
                            assert_eq!(r["cacheScope"], "public", "{file}");
                        }
                        if let Some(doc) = msg["result"].get("structuredContent") {
                            assert_eq!(msg["result"]["isError"], false, "{file}");
                            let doc: nlweb_ask::protocol::Document =
                                serde_json::from_value(doc.clone()).unwrap();
                            assert!(matches!(doc, nlweb_ask::protocol::Document::Answer(_)));
                        }
                    }
                }
            }
            "JSON (chatgpt_app)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: nlweb_ask::protocol::response::ChatAnswerDocument =
                    serde_json::from_str(&body_text(&resp)).unwrap();
                assert!(!doc.content[0].text.is_empty(), "{file}");
                assert!(!doc.structured_data.is_empty(), "{file}");
            }
            "JSON (sites)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: nlweb_ask::protocol::response::SitesDocument =
                    serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(doc.sites, vec!["docs".to_string()], "{file}");
                assert!(doc.details[0].pages > 0 && doc.details[0].sections > 0);
            }
            "JSON (config)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: nlweb_ask::protocol::settings::ConfigDocument =
                    serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(doc.site, "docs", "{file}");
                assert_eq!(doc.auth.mode, "optional", "{file}");
                assert_eq!(doc.rate_limit.per_minute, 20, "{file}");
                assert!(doc.endpoints.ask.ends_with("/ask"), "{file}");
            }
            "JSON (who)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: nlweb_ask::protocol::response::WhoDocument =
                    serde_json::from_str(&body_text(&resp)).unwrap();
                let site = &doc.content[0].resource.data;
                assert_eq!(site.relevant, doc.relevant, "{file}");
                assert_eq!(site.site, "docs", "{file}");
                // The two /who events: one the docs answer, one they do not.
                assert_eq!(
                    doc.relevant,
                    !file.contains("irrelevant"),
                    "{file}: {doc:?}"
                );
                assert!(!doc.relevant || site.best_page.is_some(), "{file}");
            }
            "JavaScript" => {
                assert_eq!(ct, "text/javascript; charset=utf-8", "{file}");
                assert!(
                    body_text(&resp).contains("customElements.define(\"nlweb-ask\""),
                    "{file}"
                );
                assert_eq!(header(&resp, "cache-control"), Some("public, max-age=300"));
            }
            "JSON (OAuth metadata)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                assert!(
                    doc["resource"]
                        .as_str()
                        .is_some_and(|r| r.starts_with("https://"))
                );
                assert_eq!(doc["authorization_servers"][0], "https://auth.example.com/");
                assert_eq!(doc["scopes_supported"][0], "docs:read");
            }
            "JSON (server card)" => {
                assert_eq!(ct, "application/mcp-server-card+json", "{file}");
                assert_eq!(header(&resp, "access-control-allow-origin"), Some("*"));
                assert_eq!(header(&resp, "cache-control"), Some("public, max-age=3600"));
                assert!(header(&resp, "etag").is_some(), "{file}");
                let doc: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(
                    doc["$schema"],
                    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
                );
                for key in ["name", "version", "description"] {
                    assert!(doc[key].is_string(), "{file}: {key}");
                }
                let remote = &doc["remotes"][0];
                assert_eq!(remote["type"], "streamable-http", "{file}");
                assert!(
                    remote["url"].as_str().is_some_and(|u| u.ends_with("/mcp")),
                    "{file}: {doc}"
                );
                assert_eq!(remote["supportedProtocolVersions"][0], "2026-07-28");
            }
            "JSON (AI Catalog)" => {
                assert_eq!(ct, "application/ai-catalog+json", "{file}");
                assert_eq!(header(&resp, "cache-control"), Some("public, max-age=3600"));
                assert_eq!(header(&resp, "access-control-allow-origin"), Some("*"));
                let doc: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(doc["specVersion"], "1.0", "{file}");
                let entry = &doc["entries"][0];
                assert_eq!(entry["type"], "application/mcp-server-card+json");
                assert!(
                    entry["url"]
                        .as_str()
                        .is_some_and(|u| u.ends_with("/mcp/server-card")),
                    "{file}: {doc}"
                );
            }
            "JSON (OpenAPI)" => {
                assert_eq!(ct, "application/json", "{file}");
                let doc: Value = serde_json::from_str(&body_text(&resp)).unwrap();
                assert_eq!(doc["openapi"], "3.1.0", "{file}");
            }
            "text/plain" => {
                assert_eq!(ct, "text/plain; charset=utf-8", "{file}");
                assert!(body_text(&resp).starts_with("# "), "{file}");
            }
            _ => assert!(resp.body().is_empty(), "{file}"),
        }
        if status != 404 {
            assert!(header(&resp, "ratelimit-policy").is_some(), "{file}");
            // /mcp is read only by the pages ask.mcp_allow_origins names
            // (none here); every other route by any page under `*`.
            let saved: Value = serde_json::from_str(
                &std::fs::read_to_string(repo().join("events").join(&file)).unwrap(),
            )
            .unwrap();
            let path = saved["rawPath"]
                .as_str()
                .or(saved["path"].as_str())
                .unwrap_or("");
            assert_eq!(
                header(&resp, "access-control-allow-origin"),
                (!path.ends_with("/mcp")).then_some("*"),
                "{file}"
            );
            assert!(header(&resp, "server-timing").is_some(), "{file}");
        }
    }
}

#[test]
fn disabled_answers_404_on_every_event() {
    let state = state(false);
    for (file, ..) in expectations() {
        let resp = respond(&state, &event(&file));
        assert_eq!(resp.status().as_u16(), 404, "{file}");
        assert_eq!(body_text(&resp), r#"{"message":"Not Found"}"#, "{file}");
    }
}

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
fn streamed_items_equal_the_json_results() {
    let state = state(true);
    let json = respond(&state, &event("http-post-summarize.json"));
    let doc: Value = serde_json::from_str(&body_text(&json)).unwrap();
    let results = doc["results"].as_array().unwrap().clone();
    assert_eq!(results[0]["@type"], "SearchSummary");
    assert_eq!(
        results
            .iter()
            .filter(|r| r["@type"] == "SearchSummary")
            .count(),
        1
    );
    let text = results[0]["text"].as_str().unwrap();
    assert!(!text.is_empty());
    // The same request, streamed.
    let mut req = event("http-post-summarize.json");
    let body = String::from_utf8(req.body().as_ref().to_vec())
        .unwrap()
        .replace("\"streaming\":false", "\"streaming\":true");
    *req.body_mut() = Body::from(body);
    let resp = respond(&state, &req);
    let events = sse::parse(&body_text(&resp)).unwrap();
    let items: Vec<Value> = events
        .iter()
        .filter(|e| e.name == "result")
        .map(|e| e.data["item"].clone())
        .collect();
    // Same items; the summary comes last in the stream.
    let mut expected = results[1..].to_vec();
    expected.push(results[0].clone());
    assert_eq!(items, expected);
}

#[test]
fn a_follow_up_question_uses_the_previous_one() {
    let state = state(true);
    let ask = |body: &str| -> Value {
        let mut req = event("http-post-v055.json");
        *req.body_mut() = Body::from(body.to_string());
        let r = respond(&state, &req);
        serde_json::from_str(&body_text(&r)).unwrap()
    };
    let follow = ask(
        r#"{"query":{"text":"and how do I configure it?"},"context":{"prev":["what is the rate limit?"]},"prefer":{"streaming":false,"mode":"list"}}"#,
    );
    let top = follow["results"][0]["url"].as_str().unwrap().to_string();
    assert!(
        top.contains("rate-limit") || top.contains("configuration"),
        "{top}"
    );
    let text = follow["results"][0]["text"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(
        text.contains("rate_limit_per_minute") || text.contains("rate limit"),
        "{text}"
    );
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
fn a_get_answer_is_cacheable_and_its_etag_gives_304_without_a_token() {
    let state = state(true);
    let first = respond(&state, &event("http-get-json.json"));
    let tag = header(&first, "etag").unwrap().to_string();
    // Weak: each answer carries its own query_id.
    assert!(tag.starts_with("W/\"") && tag.ends_with('"'), "{tag}");
    assert_eq!(header(&first, "ratelimit"), Some("\"default\";r=19;t=3"));
    assert!(header(&first, "x-index").unwrap().starts_with("build-id="));
    // The same GET gives the same answer, with its own query_id.
    let again = respond(&state, &event("http-get-json.json"));
    let without_id = |r: &Response<Body>| {
        let mut v: Value = serde_json::from_str(&body_text(r)).unwrap();
        let id = v["query_id"].take();
        (v, id)
    };
    let ((a, id_a), (b, id_b)) = (without_id(&first), without_id(&again));
    assert_eq!(a, b);
    assert_ne!(id_a, id_b, "one query_id per answer");
    assert_eq!(header(&again, "etag"), Some(tag.as_str()));
    assert_eq!(header(&again, "ratelimit"), Some("\"default\";r=18;t=6"));

    let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["headers"]["if-none-match"] = Value::from(format!("W/\"nope\", {tag}"));
    let conditional = |v: &Value| lambda_http::request::from_str(&v.to_string()).unwrap();
    let r = respond(&state, &conditional(&v));
    assert_eq!(r.status().as_u16(), 304);
    assert!(r.body().is_empty());
    assert_eq!(header(&r, "etag"), Some(tag.as_str()));
    // No token spent: the bucket still has 18.
    assert_eq!(header(&r, "ratelimit"), Some("\"default\";r=18;t=6"));
    assert_eq!(header(&r, "cache-control"), Some("no-store"));

    // Another question is another tag: 200.
    v["rawQueryString"] = Value::from("query=deploy&streaming=false");
    v["queryStringParameters"]["query"] = Value::from("deploy");
    let r = respond(&state, &conditional(&v));
    assert_eq!(r.status().as_u16(), 200);
    assert_ne!(header(&r, "etag"), Some(tag.as_str()));

    // With ask.cache_max_age, GET answers may be cached; POSTs may not.
    let cached = test_state::state(docs_index(), &[("ASK_CACHE_MAX_AGE", "300")]);
    let r = respond(&cached, &event("http-get-json.json"));
    assert_eq!(header(&r, "cache-control"), Some("public, max-age=300"));
    let r = respond(&cached, &event("http-post-v055.json"));
    assert_eq!(header(&r, "cache-control"), Some("no-store"));
    assert!(header(&r, "etag").is_none());
}

/// A shared cache as RFC 9111 keys it: the URL, and the value of each
/// request header the response's `Vary` names. It stores what
/// `Cache-Control: public` allows and serves a stored response to a
/// request with the same key.
#[derive(Default)]
struct SharedCache {
    stored: Vec<Entry>,
}

/// A stored response: its URL, the varied request headers and their
/// values, its content type and body.
type Entry = (String, Vec<(String, String)>, String, String);

impl SharedCache {
    fn get(&mut self, state: &nlweb_ask::state::State, v: &Value) -> (bool, String, String) {
        let url = v["rawQueryString"].as_str().unwrap().to_string();
        let header = |name: &str| {
            v["headers"][name.to_ascii_lowercase()]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        for (u, varied, ct, body) in &self.stored {
            if *u == url && varied.iter().all(|(n, val)| header(n) == *val) {
                return (true, ct.clone(), body.clone());
            }
        }
        let r = respond(
            state,
            &lambda_http::request::from_str(&v.to_string()).unwrap(),
        );
        let ct = self::header(&r, "content-type").unwrap_or("").to_string();
        let body = body_text(&r);
        if self::header(&r, "cache-control").is_some_and(|c| c.contains("public")) {
            let varied = self::header(&r, "vary")
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(|n| (n.to_string(), header(n)))
                .collect();
            self.stored.push((url, varied, ct.clone(), body.clone()));
        }
        (false, ct, body)
    }
}

#[test]
fn a_shared_cache_keeps_the_json_and_the_stream_apart() {
    let cached = test_state::state(
        docs_index(),
        &[
            ("ASK_CACHE_MAX_AGE", "300"),
            ("ASK_DEFAULT_STREAMING", "false"),
        ],
    );
    let mut cache = SharedCache::default();
    // One URL that names no `streaming`: the Accept header decides.
    let text = std::fs::read_to_string(repo().join("events/http-get-sse.json")).unwrap();
    let sse_get: Value = serde_json::from_str(&text).unwrap();
    let mut json_get = sse_get.clone();
    json_get["headers"]["accept"] = "application/json".into();
    let (hit, ct, _) = cache.get(&cached, &json_get);
    assert!(!hit);
    assert!(ct.starts_with("application/json"), "{ct}");
    // The same URL asking for the stream is not served the JSON...
    let (hit, ct, body) = cache.get(&cached, &sse_get);
    assert!(!hit, "the JSON answer served for Accept: text/event-stream");
    assert_eq!(ct, "text/event-stream");
    assert!(
        body.starts_with("event: start") || body.contains("event: start"),
        "{body}"
    );
    assert_eq!(cache.stored.len(), 2, "one entry an Accept");
    // ...and each is served again from its own entry.
    let (hit, ct, _) = cache.get(&cached, &json_get);
    assert!(hit && ct.starts_with("application/json"));
    let (hit, ct, _) = cache.get(&cached, &sse_get);
    assert!(hit && ct == "text/event-stream");
}

/// A GET's question is in its URL, the one thing a cache keys on: a GET
/// with a body is refused, whatever the body says.
#[test]
fn a_get_with_a_body_is_refused() {
    let state = state(true);
    let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["body"] = r#"{"query":"something else"}"#.into();
    let r = respond(
        &state,
        &lambda_http::request::from_str(&v.to_string()).unwrap(),
    );
    assert_eq!(r.status().as_u16(), 400, "{}", body_text(&r));
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(doc["error"]["code"], "INVALID_REQUEST");
}

#[test]
fn the_server_card_revalidates_for_free_and_is_open_to_every_origin() {
    let state = state(true);
    let first = respond(&state, &event("http-get-mcp-server-card.json"));
    assert_eq!(first.status().as_u16(), 200);
    let tag = header(&first, "etag").unwrap().to_string();
    assert_eq!(header(&first, "ratelimit"), Some("\"default\";r=19;t=3"));
    let text =
        std::fs::read_to_string(repo().join("events/http-get-mcp-server-card.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["headers"]["if-none-match"] = Value::from(tag.clone());
    let conditional = |v: &Value| lambda_http::request::from_str(&v.to_string()).unwrap();
    let r = respond(&state, &conditional(&v));
    assert_eq!(r.status().as_u16(), 304);
    assert!(r.body().is_empty());
    assert_eq!(header(&r, "etag"), Some(tag.as_str()));
    assert_eq!(header(&r, "cache-control"), Some("public, max-age=3600"));
    // No token spent: the bucket still has 19.
    assert_eq!(header(&r, "ratelimit"), Some("\"default\";r=19;t=3"));

    // Under an allow-list of origins, the card is still open to all; /ask
    // is not.
    let listed = test_state::state(
        docs_index(),
        &[
            ("ASK_ENABLED", "true"),
            ("ASK_CORS_ALLOW_ORIGINS", "https://docs.example.com"),
        ],
    );
    v["headers"]["origin"] = Value::from("https://elsewhere.example");
    v["headers"]
        .as_object_mut()
        .unwrap()
        .remove("if-none-match");
    let r = respond(&listed, &conditional(&v));
    assert_eq!(header(&r, "access-control-allow-origin"), Some("*"));
    let mut ask: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap(),
    )
    .unwrap();
    ask["headers"]["origin"] = Value::from("https://elsewhere.example");
    let r = respond(&listed, &conditional(&ask));
    assert_eq!(header(&r, "access-control-allow-origin"), None);

    // With ask.auth required, the card says a bearer token is needed, and
    // is itself public.
    let mut env = support::docs::events_env();
    env.retain(|(k, _)| *k != "ASK_AUTH");
    env.push(("ASK_AUTH", "required".into()));
    env.push(("ASK_ENABLED", "true".into()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let guarded = test_state::state(docs_index(), &env);
    let r = respond(&guarded, &event("http-get-mcp-server-card.json"));
    assert_eq!(r.status().as_u16(), 200, "{}", body_text(&r));
    let card: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(card["remotes"][0]["headers"][0]["name"], "Authorization");
    assert_eq!(card["remotes"][0]["headers"][0]["isSecret"], true);
    // The anonymous card has none.
    let card: Value = serde_json::from_str(&body_text(&first)).unwrap();
    assert!(card["remotes"][0].get("headers").is_none(), "{card}");
}

/// The saved not-answered event under the default retriever (hybrid):
/// the confidence carries the meaning's similarity beside the words'
/// coverage, and the summary says plainly that the docs do not answer,
/// then quotes the closest passage, cited.
#[test]
fn the_not_answered_event_under_hybrid_retrieval() {
    let Some(model) = support::docs::model_dir("the_not_answered_event_under_hybrid_retrieval")
    else {
        return;
    };
    let extra = support::docs::events_env();
    let mut env: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let dir = model.to_str().unwrap().to_string();
    env.push(("ASK_RETRIEVER", "hybrid"));
    env.push(("ASK_MODEL_DIR", &dir));
    let config = test_state::config(&env);
    let index = support::docs::docs_index_with_vectors(&model);
    let hybrid = nlweb_ask::built::hybrid(&config, &index, nlweb_ask::built::start_model(&config))
        .unwrap()
        .expect("hybrid");
    let state = State::with_clock(config, index, Box::new(|| 0.0)).with_hybrid(hybrid);
    let r = respond(&state, &event("http-get-not-answered.json"));
    assert_eq!(r.status(), 200);
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    let conf = &doc["_meta"]["answer_confidence"];
    assert_eq!(conf["answered"], false, "{doc}");
    let similarity = conf["similarity"]
        .as_f64()
        .expect("similarity under hybrid");
    assert!((-1.0..=1.0).contains(&similarity), "{conf}");
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("The documentation does not seem to answer this question"),
        "{summary}"
    );
    assert!(
        summary.contains("The closest passage:") && summary.contains("[1]"),
        "{summary}"
    );
}

#[test]
fn a_question_the_docs_do_not_answer_is_said_plainly() {
    let state = state(true);
    let ask = |q: &str| {
        let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["rawQueryString"] = Value::from(format!(
            "query={}&mode=summarize&streaming=false",
            q.replace(' ', "+")
        ));
        v["queryStringParameters"] =
            serde_json::json!({"query": q, "mode": "summarize", "streaming": "false"});
        let r = respond(
            &state,
            &lambda_http::request::from_str(&v.to_string()).unwrap(),
        );
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc
    };
    let doc = ask("deploy the index bucket to azure with terraform");
    let conf = &doc["_meta"]["answer_confidence"];
    assert_eq!(conf["answered"], false, "{doc}");
    assert!(
        conf["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "terraform"),
        "{conf}"
    );
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("The documentation does not seem to answer this question"),
        "{summary}"
    );
    // Then the closest passage, cited.
    let cited = doc["results"][0]["citations"][0]["index"].as_u64().unwrap();
    assert!(summary.contains(&format!("[{cited}]")), "{summary}");

    let doc = ask("how do I configure the rate limit");
    assert_eq!(doc["_meta"]["answer_confidence"]["answered"], true, "{doc}");
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        !summary.starts_with("The documentation does not seem"),
        "{summary}"
    );
}

#[test]
fn a_typo_is_corrected_and_the_answer_says_what_was_searched() {
    let state = state(true);
    let r = respond(&state, &event("http-get-typo.json"));
    assert_eq!(r.status(), 200);
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(
        doc["_meta"]["query_corrections"],
        serde_json::json!([{"from": "chnage", "to": "change"}, {"from": "minuet", "to": "minute"}]),
        "{doc}"
    );
    assert_eq!(
        doc["_meta"]["decontextualized_query"],
        "how do i change the rate limt per minute"
    );
    // The same first result as the question spelled right.
    let text = std::fs::read_to_string(repo().join("events/http-get-typo.json")).unwrap();
    let fixed = text.replace("chnage", "change").replace("minuet", "minute");
    let right = respond(&state, &lambda_http::request::from_str(&fixed).unwrap());
    let right: Value = serde_json::from_str(&body_text(&right)).unwrap();
    assert!(right["_meta"].get("query_corrections").is_none(), "{right}");
    assert_eq!(doc["results"][0]["url"], right["results"][0]["url"]);
}

#[test]
fn ask_synonyms_search_the_docs_word() {
    let top = |synonyms: Option<&str>| {
        let extra: Vec<(&str, &str)> = synonyms.map(|v| ("ASK_SYNONYMS", v)).into_iter().collect();
        let state = test_state::state(docs_index(), &extra);
        let q = "pagination";
        let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["rawQueryString"] = Value::from(format!("query={q}&streaming=false&mode=list"));
        v["queryStringParameters"] =
            serde_json::json!({"query": q, "streaming": "false", "mode": "list"});
        let r = respond(
            &state,
            &lambda_http::request::from_str(&v.to_string()).unwrap(),
        );
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc["results"][0]["url"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| doc["error"]["code"].to_string())
    };
    // The docs say start_num, never "pagination".
    assert_eq!(top(None), r#""NO_RESULTS""#);
    let with = top(Some(r#"[["pagination", "start_num"]]"#));
    assert!(with.contains("/api#"), "{with}");
}

#[test]
fn ask_boost_weighs_pages_down() {
    let top = |boost: Option<&str>| {
        let extra: Vec<(&str, &str)> = boost.map(|v| ("ASK_BOOST", v)).into_iter().collect();
        let state = test_state::state(docs_index(), &extra);
        let r = respond(&state, &event("http-get-json.json"));
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc["results"][1]["url"].as_str().unwrap().to_string()
    };
    let first = top(None);
    assert!(first.contains("/building-the-index"), "{first}");
    // The page that ranked first, weighed down, no longer does.
    let boosted = top(Some(r#"{"building-the-index.mdx": 0.01}"#));
    assert!(!boosted.contains("/building-the-index"), "{boosted}");
}
