//! Revision 2026-07-28: discovery, the order of its checks and its codes.

use super::tests::{post, send};
use super::*;
use crate::protocol::mcp::*;

/// A 2026-07-28 request: headers and `_meta` that agree.
pub(super) fn modern(method: &str, params: &str) -> String {
    let envelope = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;
    let params = if params.is_empty() {
        format!("{{{envelope}}}")
    } else {
        format!("{{{params},{envelope}}}")
    };
    format!(r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{params}}}"#)
}

pub(super) fn headers<'a>(method: &'a str, name: Option<&'a str>) -> Headers<'a> {
    Headers {
        version: Some("2026-07-28"),
        method: Some(method),
        name,
        repeated: None,
    }
}

#[test]
fn revision_2026_07_28_discovers_lists_and_calls_without_a_handshake() {
    let (s, v) = send(
        &headers("server/discover", None),
        &modern("server/discover", ""),
    );
    assert_eq!(s, 200, "{v}");
    let r = &v["result"];
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        r["supportedVersions"],
        serde_json::Value::from(vec!["2026-07-28"])
    );
    assert_eq!(r["capabilities"]["tools"]["listChanged"], false);
    assert_eq!(r["ttlMs"], LIST_TTL_MS);
    assert_eq!(r["cacheScope"], "public");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "nlweb-ask"
    );
    assert!(r.get("serverInfo").is_none() && r.get("protocolVersion").is_none());

    let (s, v) = send(&headers("tools/list", None), &modern("tools/list", ""));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["ttlMs"], LIST_TTL_MS);
    assert_eq!(v["result"]["cacheScope"], "public");
    assert_eq!(v["result"]["tools"][0]["name"], "ask");
    // The handshake revisions' list carries none of it.
    let (_, old) = post(
        Some("2025-11-25"),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert!(old["result"].get("resultType").is_none(), "{old}");
    assert!(old["result"].get("ttlMs").is_none(), "{old}");

    let call = modern("tools/call", r#""name":"ask","arguments":{"query":"zz"}"#);
    let (s, v) = send(&headers("tools/call", Some("ask")), &call);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["id"], 9);
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["isError"], true);
    assert!(v["result"].get("ttlMs").is_none(), "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"],
        "NO_RESULTS"
    );
    // A name sent in the header's base64 form is the same name.
    let (s, v) = send(&headers("tools/call", Some("=?base64?YXNr?=")), &call);
    assert_eq!(s, 200, "{v}");
}

/// Sends each case (what, headers, body, status, code) and checks the
/// status and the JSON-RPC error code it is refused with.
fn refused(cases: Vec<(&str, Headers<'_>, String, u16, i64)>) {
    for (what, h, body, status, code) in cases {
        let (s, v) = send(&h, &body);
        assert_eq!(
            (s, v["error"]["code"].as_i64()),
            (status, Some(code)),
            "{what}: {v}"
        );
    }
}

#[test]
fn revision_2026_07_28_refuses_in_its_order_with_its_codes() {
    let call = modern("tools/call", r#""name":"ask","arguments":{"query":"zz"}"#);
    let no_meta = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}"#;
    let other = |v: &'static str| Headers {
        version: Some(v),
        ..headers("tools/list", None)
    };
    let repeated = Headers {
        repeated: Some("mcp-method"),
        ..headers("tools/list", None)
    };
    let bare = Headers::default();
    let cases: Vec<(&str, Headers, String, u16, i64)> = vec![
        (
            "no _meta",
            headers("tools/list", None),
            no_meta.into(),
            400,
            -32602,
        ),
        (
            "version header differs",
            other("2026-07-29"),
            modern("tools/list", ""),
            400,
            -32020,
        ),
        (
            "no headers, 2026 _meta",
            bare.clone(),
            modern("tools/list", ""),
            400,
            -32020,
        ),
        (
            "Mcp-Method differs",
            headers("tools/call", None),
            modern("tools/list", ""),
            400,
            -32020,
        ),
        (
            "no Mcp-Name",
            headers("tools/call", None),
            call.clone(),
            400,
            -32020,
        ),
        (
            "Mcp-Name differs",
            headers("tools/call", Some("asks")),
            call.clone(),
            400,
            -32020,
        ),
        (
            "repeated header",
            repeated,
            modern("tools/list", ""),
            400,
            -32020,
        ),
        (
            "ping is gone",
            headers("ping", None),
            modern("ping", ""),
            404,
            -32601,
        ),
        (
            "initialize is gone",
            headers("initialize", None),
            modern("initialize", ""),
            404,
            -32601,
        ),
        (
            "a batch",
            headers("tools/list", None),
            format!("[{}]", modern("tools/list", "")),
            400,
            -32600,
        ),
        (
            "unknown tool",
            headers("tools/call", Some("nope")),
            modern("tools/call", r#""name":"nope""#),
            400,
            -32602,
        ),
    ];
    refused(cases);
}

#[test]
fn revision_2026_07_28_answers_two_faults_at_the_earlier_rung() {
    let call = modern("tools/call", r#""name":"ask","arguments":{"query":"zz"}"#);
    let no_meta = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}"#;
    // Two faults: the earlier rung answers.
    let future = modern("tools/list", "").replace("2026-07-28", "2099-01-01");
    let cases_2: Vec<(&str, Headers, String, u16, i64)> = vec![
        (
            "no _meta, and Mcp-Method differs: _meta first",
            headers("tools/call", None),
            no_meta.to_string(),
            400,
            -32602,
        ),
        (
            "a version not served, and Mcp-Method differs: headers first",
            Headers {
                version: Some("2099-01-01"),
                method: Some("tools/call"),
                ..Headers::default()
            },
            future.clone(),
            400,
            -32020,
        ),
        (
            "a repeated header, and no _meta: the repeat first",
            Headers {
                repeated: Some("mcp-protocol-version"),
                ..headers("tools/list", None)
            },
            no_meta.to_string(),
            400,
            -32020,
        ),
        (
            "a version that is not a string: no header matches it",
            headers("tools/list", None),
            modern("tools/list", "").replace(r#""2026-07-28""#, "20260728"),
            400,
            -32020,
        ),
        (
            "clientCapabilities not an object: after the version",
            headers("tools/list", None),
            modern("tools/list", "").replace(
                r#""io.modelcontextprotocol/clientCapabilities":{}"#,
                r#""io.modelcontextprotocol/clientCapabilities":[]"#,
            ),
            400,
            -32602,
        ),
        (
            "clientInfo without a version",
            headers("tools/list", None),
            modern("tools/list", "").replace(r#","version":"1""#, ""),
            400,
            -32602,
        ),
        (
            "Mcp-Name in a malformed base64 form",
            headers("tools/call", Some("=?base64?!!?=")),
            call.clone(),
            400,
            -32020,
        ),
    ];
    refused(cases_2);
}

#[test]
fn revision_2026_07_28_names_the_revisions_it_serves() {
    let other = |v: &'static str| Headers {
        version: Some(v),
        ..headers("tools/list", None)
    };
    let future = modern("tools/list", "").replace("2026-07-28", "2099-01-01");
    // A version it does not serve: -32022 naming every one it does.
    let (s, v) = send(&other("2099-01-01"), &future);
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["error"]["code"], -32022);
    assert_eq!(v["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(v["error"]["data"]["supported"][0], "2026-07-28");
    assert!(
        v["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&"2025-11-25".into())
    );
    // Notifications: 202, unless the revision is not served.
    let note = r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#;
    assert_eq!(send(&headers("notifications/cancelled", None), note).0, 202);
    let (s, v) = send(&other("2099-01-01"), note);
    assert_eq!((s, v["error"]["code"].as_i64()), (400, Some(-32022)));
}
