//! Caching: a GET answer's ETag and 304, a shared cache's keys, the server card's revalidation.

use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use serde_json::Value;

use crate::support::docs::{docs_index, repo};
use crate::{body_text, event, header, state, support, test_state};

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
