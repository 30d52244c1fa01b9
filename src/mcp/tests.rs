use super::server::*;
use super::stateless_tests::{headers, modern};
use super::*;
use crate::protocol::FailureDocument;
use crate::protocol::mcp::*;
use crate::protocol::response::{Document, Echo};

pub(super) struct Fake;
impl Asker for Fake {
    fn product(&self) -> String {
        "Widget".into()
    }
    fn tools(&self) -> Vec<Tool> {
        vec![
            ask_tool("Widget"),
            pages::search_tool("Widget"),
            pages::fetch_tool("Widget"),
        ]
    }
    fn past_deadline(&self) -> bool {
        false
    }
    fn spend(&self, extra: u32) -> Result<(), crate::protocol::Failure> {
        // A purse of 5 tokens, one of them spent by the POST.
        if extra <= 4 {
            Ok(())
        } else {
            Err(crate::protocol::Failure::RateLimited {
                retry_after_secs: 7,
            })
        }
    }
    async fn ask(&self, params: Vec<(String, String)>, _: Option<usize>) -> Document {
        assert!(params.contains(&("streaming".into(), "false".into())));
        let f = crate::protocol::Failure::NoResults {
            query: params[0].1.clone(),
        };
        Document::Failure(FailureDocument::new(&f, Some("q"), &Echo::default()))
    }
    async fn search(
        &self,
        args: crate::protocol::pages::SearchArguments,
    ) -> Result<crate::protocol::pages::SearchResults, FailureDocument> {
        if args.query == "nothing" {
            let f = crate::protocol::Failure::NoResults { query: args.query };
            return Err(FailureDocument::new(&f, None, &Echo::default()));
        }
        Ok(crate::protocol::pages::SearchResults {
            results: vec![crate::protocol::pages::SearchResult {
                id: "docs://a".into(),
                title: "A".into(),
                url: "https://d.example/a".into(),
                text: format!("about {}", args.query),
            }],
        })
    }
    fn page(&self, id: &str, copies: usize) -> Option<crate::protocol::pages::PageDocument> {
        assert!(copies == 1 || copies == 2);
        (id == "docs://a").then(|| crate::protocol::pages::PageDocument {
            id: id.into(),
            title: "A".into(),
            text: "# A\n\n## Install\n\n```sh\nnpm i a\n```\n".into(),
            url: "https://d.example/a".into(),
            metadata: crate::protocol::pages::PageMetadata {
                site: "d".into(),
                headings: "Install".into(),
                build_id: "b".into(),
                path: "a.mdx".into(),
                truncated: "false".into(),
            },
        })
    }
    fn page_count(&self) -> usize {
        250
    }
    fn resources(&self, range: std::ops::Range<usize>) -> Vec<crate::protocol::pages::Resource> {
        range
            .map(|i| crate::protocol::pages::Resource {
                uri: format!("docs://p{i}"),
                name: format!("p{i}"),
                title: format!("P{i}"),
                description: None,
                mime_type: "text/markdown".into(),
            })
            .collect()
    }
    fn private(&self) -> bool {
        false
    }
}

pub(super) fn post(version: Option<&str>, body: &str) -> (u16, serde_json::Value) {
    send(
        &Headers {
            version,
            ..Headers::default()
        },
        body,
    )
}

pub(super) fn send(headers: &Headers<'_>, body: &str) -> (u16, serde_json::Value) {
    let r = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(handle(&Fake, headers, body.as_bytes()));
    let v = r
        .body
        .map(|b| serde_json::from_str(&b).unwrap())
        .unwrap_or(serde_json::Value::Null);
    (r.status, v)
}

#[test]
fn json_rpc_edges_table() {
    let cases: &[(Option<&str>, &str, u16, Option<i32>)] = &[
        (None, "{not json", 400, Some(-32700)),
        (
            None,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            200,
            Some(-32600),
        ),
        (None, r#"{"jsonrpc":"2.0","id":1}"#, 200, Some(-32600)),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#,
            200,
            Some(-32601),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
            200,
            Some(-32602),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}"#,
            200,
            Some(-32602),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"x","num_results":11}}}"#,
            200,
            Some(-32602),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"x","mode":"recommend"}}}"#,
            200,
            Some(-32602),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            202,
            None,
        ),
        (None, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, 202, None),
        (
            None,
            r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
            200,
            None,
        ),
        (
            Some("1999-01-01"),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            400,
            Some(-32022),
        ),
        (
            Some("2025-11-25"),
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            400,
            Some(-32600),
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
            200,
            Some(-32601),
        ),
        (
            Some("2025-06-18"),
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            400,
            Some(-32600),
        ),
        (Some("2025-03-26"), "[]", 400, Some(-32600)),
    ];
    for (version, body, status, code) in cases {
        let (s, v) = post(*version, body);
        assert_eq!(s, *status, "{body}: {v}");
        assert_eq!(
            v["error"]["code"].as_i64().map(|c| c as i32),
            *code,
            "{body}: {v}"
        );
    }
}

#[test]
fn batches_answer_requests_only_in_versions_that_have_them() {
    let (s, v) = post(
        Some("2025-03-26"),
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#,
    );
    assert_eq!(s, 200);
    let ids: Vec<i64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn a_batch_costs_a_token_a_request_and_holds_at_most_ten() {
    let batch = |n: usize| {
        let m: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#))
            .chain([r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into()])
            .collect();
        format!("[{}]", m.join(","))
    };
    // 5 requests and a notification: 5 tokens, the purse holds them.
    let (s, v) = post(Some("2025-03-26"), &batch(5));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v.as_array().unwrap().len(), 5);
    // 6 requests: one more than the purse, nothing is done.
    let (s, v) = post(Some("2025-03-26"), &batch(6));
    assert_eq!(s, 429, "{v}");
    assert_eq!(v["error"]["code"], code::RATE_LIMITED);
    // 11 messages: refused whatever the purse.
    let (s, v) = post(Some("2025-03-26"), &batch(10));
    assert_eq!(s, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 10")
    );
}

/// An asker whose deadline passes once it has answered two calls.
struct Slow(std::sync::atomic::AtomicUsize);
impl Asker for Slow {
    fn product(&self) -> String {
        "Widget".into()
    }
    fn tools(&self) -> Vec<Tool> {
        Fake.tools()
    }
    fn spend(&self, _: u32) -> Result<(), crate::protocol::Failure> {
        Ok(())
    }
    fn past_deadline(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst) >= 2
    }
    async fn ask(&self, params: Vec<(String, String)>, _: Option<usize>) -> Document {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Fake.ask(params, None).await
    }
    async fn search(
        &self,
        args: crate::protocol::pages::SearchArguments,
    ) -> Result<crate::protocol::pages::SearchResults, FailureDocument> {
        Fake.search(args).await
    }
    fn page(&self, id: &str, copies: usize) -> Option<crate::protocol::pages::PageDocument> {
        Fake.page(id, copies)
    }
    fn page_count(&self) -> usize {
        Fake.page_count()
    }
    fn resources(&self, range: std::ops::Range<usize>) -> Vec<crate::protocol::pages::Resource> {
        Fake.resources(range)
    }
    fn private(&self) -> bool {
        false
    }
}

#[test]
fn a_batch_starts_no_call_past_its_deadline() {
    let calls: Vec<String> = (0..5)
        .map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"ask","arguments":{{"query":"q{i}"}}}}}}"#
            )
        })
        .collect();
    let slow = Slow(Default::default());
    let headers = Headers {
        version: Some("2025-03-26"),
        ..Headers::default()
    };
    let body = format!("[{}]", calls.join(","));
    let reply = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(handle(&slow, &headers, body.as_bytes()));
    let v: serde_json::Value = serde_json::from_str(reply.body.as_deref().unwrap()).unwrap();
    let replies = v.as_array().unwrap();
    assert_eq!(replies.len(), 5, "{v}");
    assert_eq!(slow.0.load(std::sync::atomic::Ordering::SeqCst), 2);
    for (i, r) in replies.iter().enumerate() {
        assert_eq!(r["id"], i, "{r}");
        if i < 2 {
            assert!(r.get("result").is_some(), "{r}");
        } else {
            assert_eq!(r["error"]["code"], code::DEADLINE_PASSED, "{r}");
        }
    }
}

#[test]
fn initialize_negotiates_the_version() {
    for (asked, agreed) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let (_, v) = post(
            None,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{asked}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
            ),
        );
        assert_eq!(v["result"]["protocolVersion"], agreed, "{v}");
        assert_eq!(v["result"]["capabilities"]["tools"]["listChanged"], false);
    }
}

#[test]
fn the_ask_tool_schema_has_a_string_query_and_a_failure_is_a_result() {
    let (_, v) = post(None, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tool = &v["result"]["tools"][0];
    assert_eq!(tool["name"], "ask");
    assert!(
        tool["description"]
            .as_str()
            .unwrap()
            .contains("Widget's documentation")
    );
    let input = &tool["inputSchema"];
    assert_eq!(input["type"], "object");
    assert_eq!(input["properties"]["query"]["type"], "string");
    assert_eq!(input["required"][0], "query");
    assert_eq!(input["required"].as_array().unwrap().len(), 1);
    assert_eq!(input["properties"]["num_results"]["maximum"], 10);
    assert_eq!(tool["outputSchema"]["type"], "object");
    let (_, v) = post(
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"zz"}}}"#,
    );
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"],
        "NO_RESULTS"
    );
    assert!(
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("NO_RESULTS: ")
    );
}

#[test]
fn bad_arguments_are_a_tool_error_in_2026_07_28_too() {
    let call = modern(
        "tools/call",
        r#""name":"ask","arguments":{"query":"x","num_results":11}"#,
    );
    let (s, v) = send(&headers("tools/call", Some("ask")), &call);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"],
        "INVALID_QUERY"
    );
}

#[test]
fn bad_arguments_are_a_tool_error_from_2025_11_25_and_a_protocol_error_before() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"x","num_results":11}}}"#;
    let (s, v) = post(Some("2025-11-25"), body);
    assert_eq!(s, 200);
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["error"]["code"],
        "INVALID_QUERY"
    );
    let (_, v) = post(Some("2025-06-18"), body);
    assert_eq!(v["error"]["code"], -32602, "{v}");
}

#[test]
fn the_tool_schemas_use_only_formats_json_schema_defines() {
    fn formats(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(f) = o.get("format").and_then(|f| f.as_str()) {
                    out.push(f.to_string());
                }
                o.values().for_each(|v| formats(v, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| formats(v, out)),
            _ => {}
        }
    }
    let tool = ask_tool("Widget");
    let mut found = Vec::new();
    formats(&tool.output_schema, &mut found);
    formats(&tool.input_schema, &mut found);
    let raw = serde_json::to_value(schemars::schema_for!(Document)).unwrap();
    let mut before = Vec::new();
    formats(&raw, &mut before);
    // The derived schema has schemars' own formats; the tool's has none
    // of them.
    assert!(before.iter().any(|f| f.starts_with("uint")), "{before:?}");
    assert!(
        found
            .iter()
            .all(|f| STANDARD_FORMATS_FOR_TEST.contains(&f.as_str())),
        "{found:?}"
    );
    assert_eq!(tool.output_schema["type"], "object");
}

const STANDARD_FORMATS_FOR_TEST: [&str; 3] = ["uri", "date-time", "email"];
