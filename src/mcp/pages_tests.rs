//! `search`, `fetch` and the resources, in both regimes.

use super::stateless_tests::{headers, modern};
use super::tests::{post, send};
use super::*;
use crate::protocol::mcp::*;

/// A tool call at `version` (a handshake revision) and its result.
fn call(version: &str, name: &str, arguments: &str) -> serde_json::Value {
    let (s, v) = post(
        Some(version),
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        ),
    );
    assert_eq!(s, 200, "{v}");
    v
}

#[test]
fn search_and_fetch_answer_in_the_connector_shapes_in_every_revision() {
    for version in HANDSHAKE_VERSIONS {
        let (_, v) = post(
            Some(version),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        );
        let names: Vec<&str> = v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["ask", "search", "fetch"], "{version}");
        let search = &v["result"]["tools"][1];
        assert_eq!(
            search["inputSchema"]["required"],
            serde_json::Value::from(vec!["query"])
        );
        assert_eq!(search["annotations"]["readOnlyHint"], true);

        // One text item whose JSON is the structuredContent.
        let r = &call(version, "search", r#"{"query":"install"}"#)["result"];
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(r["content"].as_array().unwrap().len(), 1);
        let text: serde_json::Value =
            serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"]);
        let hit = &text["results"][0];
        assert_eq!(
            (
                hit["id"].as_str(),
                hit["title"].as_str(),
                hit["url"].as_str()
            ),
            (Some("docs://a"), Some("A"), Some("https://d.example/a"))
        );

        let r = &call(version, "fetch", r#"{"id":"docs://a"}"#)["result"];
        let page: serde_json::Value =
            serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(page, r["structuredContent"]);
        for member in ["id", "title", "text", "url", "metadata"] {
            assert!(page.get(member).is_some(), "{version}: {member}");
        }
        assert!(
            page["text"]
                .as_str()
                .unwrap()
                .contains("```sh\nnpm i a\n```")
        );

        // An unknown id, or a search with nothing, is a tool error result.
        for (name, args) in [
            ("fetch", r#"{"id":"docs://nope"}"#),
            ("search", r#"{"query":"nothing"}"#),
        ] {
            let v = call(version, name, args);
            assert_eq!(v["result"]["isError"], true, "{version} {name}: {v}");
            assert!(v["result"].get("structuredContent").is_none());
        }
        // Missing arguments: a result from 2025-11-25, -32602 before.
        let v = call(version, "fetch", "{}");
        if version == "2025-11-25" {
            assert_eq!(v["result"]["isError"], true, "{v}");
        } else {
            assert_eq!(v["error"]["code"], -32602, "{version}: {v}");
        }
    }
}

#[test]
fn resources_list_in_pages_and_read_as_markdown() {
    let mut cursor: Option<String> = None;
    let mut uris = Vec::new();
    loop {
        let params = cursor
            .as_ref()
            .map(|c| format!(r#","params":{{"cursor":"{c}"}}"#))
            .unwrap_or_default();
        let (s, v) = post(
            Some("2025-06-18"),
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/list"{params}}}"#),
        );
        assert_eq!(s, 200, "{v}");
        let r = &v["result"];
        for res in r["resources"].as_array().unwrap() {
            assert_eq!(res["mimeType"], "text/markdown");
            uris.push(res["uri"].as_str().unwrap().to_string());
        }
        match r.get("nextCursor").and_then(|c| c.as_str()) {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(uris.len(), 250);
    assert_eq!(uris[0], "docs://p0");
    assert_eq!(uris[249], "docs://p249");
    let (_, v) = post(
        Some("2025-06-18"),
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":"x"}}"#,
    );
    assert_eq!(v["error"]["code"], -32602);

    let (_, v) = post(
        Some("2025-06-18"),
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://a"}}"#,
    );
    let c = &v["result"]["contents"][0];
    assert_eq!(
        (c["uri"].as_str(), c["mimeType"].as_str()),
        (Some("docs://a"), Some("text/markdown"))
    );
    assert!(c["text"].as_str().unwrap().starts_with("# A"));
    // Not found: -32002 in a handshake revision.
    let (_, v) = post(
        Some("2025-06-18"),
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"docs://nope"}}"#,
    );
    assert_eq!(v["error"]["code"], -32002, "{v}");
    let (_, v) = post(
        Some("2025-11-25"),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let resources: ResourcesCapability =
        serde_json::from_value(v["result"]["capabilities"]["resources"].clone()).unwrap();
    assert_eq!(
        resources,
        ResourcesCapability {
            subscribe: false,
            list_changed: false
        }
    );
}

#[test]
fn revision_2026_07_28_resources_carry_cache_hints_and_its_not_found() {
    let (s, v) = send(
        &headers("resources/list", None),
        &modern("resources/list", ""),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["result"]["ttlMs"], LIST_TTL_MS);
    assert_eq!(v["result"]["cacheScope"], "public");
    assert_eq!(v["result"]["nextCursor"], "100");
    let (s, v) = send(
        &headers("resources/read", Some("docs://a")),
        &modern("resources/read", r#""uri":"docs://a""#),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["result"]["cacheScope"], "public");
    assert!(v["result"]["ttlMs"].is_u64());
    assert_eq!(v["result"]["contents"][0]["mimeType"], "text/markdown");
    // Not found: -32602 with the URI in data.
    let (s, v) = send(
        &headers("resources/read", Some("docs://nope")),
        &modern("resources/read", r#""uri":"docs://nope""#),
    );
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["data"]["uri"], "docs://nope");
    // Mcp-Name is the URI read.
    let (s, v) = send(
        &headers("resources/read", Some("docs://b")),
        &modern("resources/read", r#""uri":"docs://a""#),
    );
    assert_eq!(s, 400, "{v}");
    // tools/call of search in 2026-07-28.
    let (s, v) = send(
        &headers("tools/call", Some("search")),
        &modern("tools/call", r#""name":"search","arguments":{"query":"x"}"#),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["results"][0]["id"],
        "docs://a"
    );
}
