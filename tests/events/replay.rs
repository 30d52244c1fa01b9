//! Every saved event replayed through the handler and checked against `events/README.md`.

use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use serde_json::Value;

use crate::support::docs::repo;
use crate::support::event_table::expectations;
use crate::support::sse;
use crate::{body_text, event, header, state, test_state};

/// A saved event as a reader would send it to `state` (its rating names
/// an id `state` issued).
fn event_for(state: &nlweb_ask::state::State, name: &str) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events").join(name)).unwrap();
    lambda_http::request::from_str(&test_state::rateable(state, &text))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
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
        check_body(&file, status, &kind, code.as_deref(), &resp);
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

/// The body of one saved event's response, as its row's kind says.
fn check_body(file: &str, status: u16, kind: &str, code: Option<&str>, resp: &Response<Body>) {
    let ct = header(resp, "content-type").unwrap_or("");
    match kind {
        "SSE" => {
            assert_eq!(ct, "text/event-stream", "{file}");
            assert_eq!(header(resp, "cache-control"), Some("no-cache"), "{file}");
            let events = sse::parse(&body_text(resp)).unwrap_or_else(|e| panic!("{file}: {e}"));
            sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        "JSON" => check_json(file, status, code, ct, resp),
        "JSON-RPC" => check_json_rpc(file, code, ct, resp),
        "JSON (chatgpt_app)" => {
            assert_eq!(ct, "application/json", "{file}");
            let doc: nlweb_ask::protocol::response::ChatAnswerDocument =
                serde_json::from_str(&body_text(resp)).unwrap();
            assert!(!doc.content[0].text.is_empty(), "{file}");
            assert!(!doc.structured_data.is_empty(), "{file}");
        }
        "JSON (sites)" => {
            assert_eq!(ct, "application/json", "{file}");
            let doc: nlweb_ask::protocol::response::SitesDocument =
                serde_json::from_str(&body_text(resp)).unwrap();
            assert_eq!(doc.sites, vec!["docs".to_string()], "{file}");
            assert!(doc.details[0].pages > 0 && doc.details[0].sections > 0);
        }
        "JSON (config)" => {
            assert_eq!(ct, "application/json", "{file}");
            let doc: nlweb_ask::protocol::settings::ConfigDocument =
                serde_json::from_str(&body_text(resp)).unwrap();
            assert_eq!(doc.site, "docs", "{file}");
            assert_eq!(doc.auth.mode, "optional", "{file}");
            assert_eq!(doc.rate_limit.per_minute, 20, "{file}");
            assert!(doc.endpoints.ask.ends_with("/ask"), "{file}");
        }
        "JSON (who)" => check_who(file, ct, resp),
        "JavaScript" => {
            assert_eq!(ct, "text/javascript; charset=utf-8", "{file}");
            assert!(
                body_text(resp).contains("customElements.define(\"nlweb-ask\""),
                "{file}"
            );
            assert_eq!(header(resp, "cache-control"), Some("public, max-age=300"));
        }
        "JSON (OAuth metadata)" => {
            assert_eq!(ct, "application/json", "{file}");
            let doc: Value = serde_json::from_str(&body_text(resp)).unwrap();
            assert!(
                doc["resource"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("https://"))
            );
            assert_eq!(doc["authorization_servers"][0], "https://auth.example.com/");
            assert_eq!(doc["scopes_supported"][0], "docs:read");
        }
        "JSON (server card)" => check_server_card(file, ct, resp),
        "JSON (AI Catalog)" => check_ai_catalog(file, ct, resp),
        "JSON (OpenAPI)" => {
            assert_eq!(ct, "application/json", "{file}");
            let doc: Value = serde_json::from_str(&body_text(resp)).unwrap();
            assert_eq!(doc["openapi"], "3.1.0", "{file}");
        }
        "text/plain" => {
            assert_eq!(ct, "text/plain; charset=utf-8", "{file}");
            assert!(body_text(resp).starts_with("# "), "{file}");
        }
        "text/markdown" => {
            assert_eq!(ct, "text/markdown; charset=utf-8", "{file}");
            assert!(body_text(resp).starts_with("# "), "{file}");
            assert!(header(resp, "etag").is_some(), "{file}");
        }
        _ => assert!(resp.body().is_empty(), "{file}"),
    }
}

/// A `JSON` row: the 404 body, a failure with its code, or an answer.
fn check_json(file: &str, status: u16, code: Option<&str>, ct: &str, resp: &Response<Body>) {
    assert_eq!(ct, "application/json", "{file}");
    let doc: Value = serde_json::from_str(&body_text(resp)).unwrap();
    if status == 404 {
        assert_eq!(doc, serde_json::json!({"message": "Not Found"}), "{file}");
        return;
    }
    assert!(doc.get("meta").is_none(), "{file}: top-level meta");
    assert_eq!(doc["_meta"]["version"], "0.55", "{file}");
    match code {
        Some(code) => {
            assert_eq!(doc["_meta"]["response_type"], "failure", "{file}");
            if status == 401 || status == 403 {
                let challenge = header(resp, "www-authenticate").unwrap_or("");
                assert!(
                    challenge.starts_with("Bearer resource_metadata=\"https://")
                        && challenge.contains("/.well-known/oauth-protected-resource\""),
                    "{file}: {challenge}"
                );
            }
            assert_eq!(doc["error"]["code"], code, "{file}");
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

/// A `JSON-RPC` row: a JSON-RPC error, a tool's error, or a result.
fn check_json_rpc(file: &str, code: Option<&str>, ct: &str, resp: &Response<Body>) {
    assert_eq!(ct, "application/json", "{file}");
    let msg: Value = serde_json::from_str(&body_text(resp)).unwrap();
    assert_eq!(msg["jsonrpc"], "2.0", "{file}");
    match code {
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
                    r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "nlweb-ask",
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
                // The tool's JSON, also as its one text item.
                let text = msg["result"]["content"][0]["text"].as_str().unwrap_or("");
                if file.contains("search") {
                    let s: nlweb_ask::protocol::pages::SearchResults =
                        serde_json::from_value(doc.clone()).unwrap();
                    assert!(!s.results.is_empty(), "{file}");
                    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *doc, "{file}");
                } else if file.contains("fetch") {
                    let p: nlweb_ask::protocol::pages::PageDocument =
                        serde_json::from_value(doc.clone()).unwrap();
                    assert!(p.text.starts_with("# "), "{file}");
                    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *doc, "{file}");
                } else {
                    let doc: nlweb_ask::protocol::Document =
                        serde_json::from_value(doc.clone()).unwrap();
                    assert!(matches!(doc, nlweb_ask::protocol::Document::Answer(_)));
                }
            }
            if file.contains("resources-list") {
                let r = &msg["result"]["resources"];
                assert!(r.as_array().is_some_and(|r| !r.is_empty()), "{file}");
                assert_eq!(r[0]["mimeType"], "text/markdown", "{file}");
            }
        }
    }
}

/// A `JSON (who)` row: the two /who events, one the docs answer, one not.
fn check_who(file: &str, ct: &str, resp: &Response<Body>) {
    assert_eq!(ct, "application/json", "{file}");
    let doc: nlweb_ask::protocol::response::WhoDocument =
        serde_json::from_str(&body_text(resp)).unwrap();
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

/// A `JSON (server card)` row.
fn check_server_card(file: &str, ct: &str, resp: &Response<Body>) {
    assert_eq!(ct, "application/mcp-server-card+json", "{file}");
    assert_eq!(header(resp, "access-control-allow-origin"), Some("*"));
    assert_eq!(header(resp, "cache-control"), Some("public, max-age=3600"));
    assert!(header(resp, "etag").is_some(), "{file}");
    let doc: Value = serde_json::from_str(&body_text(resp)).unwrap();
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

/// A `JSON (AI Catalog)` row.
fn check_ai_catalog(file: &str, ct: &str, resp: &Response<Body>) {
    assert_eq!(ct, "application/ai-catalog+json", "{file}");
    assert_eq!(header(resp, "cache-control"), Some("public, max-age=3600"));
    assert_eq!(header(resp, "access-control-allow-origin"), Some("*"));
    let doc: Value = serde_json::from_str(&body_text(resp)).unwrap();
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

#[test]
fn disabled_answers_404_on_every_event() {
    let state = state(false);
    for (file, ..) in expectations() {
        let resp = respond(&state, &event(&file));
        assert_eq!(resp.status().as_u16(), 404, "{file}");
        assert_eq!(body_text(&resp), r#"{"message":"Not Found"}"#, "{file}");
    }
}
