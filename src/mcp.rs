//! What does `/mcp` answer? MCP over Streamable HTTP, stateless, with JSON
//! responses: `initialize` (version negotiation), `ping`, `tools/list` and
//! `tools/call` of the one `ask` tool, which runs the `/ask` pipeline and
//! returns its NLWeb document as `structuredContent`. Notifications and
//! client responses are accepted with 202 and no body.

use crate::protocol::mcp::{
    AskArguments, CallToolParams, CallToolResult, Capabilities, DEFAULT_VERSION, Empty,
    ErrorObject, InitializeParams, InitializeResult, JsonRpcVersion, McpResult, Message,
    PROTOCOL_VERSIONS, Response, ServerInfo, TextContent, Tool, ToolAnnotations, ToolsCapability,
    ToolsList, batches_allowed, code, inline_schema,
};
use crate::protocol::response::{Document, Echo, TextType};
use crate::protocol::{FailureDocument, ResultItem, wire};

/// Most messages in one batch (where the protocol version has batches).
pub const MAX_BATCH: usize = 10;

/// What the `ask` tool needs from the endpoint: the product's name, the
/// tool (built once per cold start), a way to run the `/ask` pipeline, and
/// the rate limit's purse for the work a batch asks for.
pub trait Asker {
    /// The documented product, for the tool's description.
    fn product(&self) -> String;
    /// The `ask` tool as `tools/list` gives it ([`ask_tool`], built once).
    fn tool(&self) -> Tool;
    /// Spends `extra` more tokens of the caller's bucket (the request has
    /// spent one already); `Err` with the failure when fewer are left.
    fn spend(&self, extra: u32) -> Result<(), crate::protocol::Failure>;
    /// Runs `/ask` on these URL parameters with at most `num_results`
    /// sections, and gives its document.
    fn ask(
        &self,
        params: Vec<(String, String)>,
        num_results: Option<usize>,
    ) -> impl std::future::Future<Output = Document> + Send;
}

/// The HTTP reply to one POST.
#[derive(Debug, PartialEq)]
pub struct Reply {
    /// 200, 202, or the status of a failure.
    pub status: u16,
    /// The JSON body, if any.
    pub body: Option<String>,
    /// Headers the failure calls for (`Retry-After` with 429).
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn json(status: u16, v: &impl serde::Serialize) -> Reply {
        Reply {
            status,
            body: Some(serde_json::to_string(v).unwrap_or_default()),
            headers: Vec::new(),
        }
    }

    /// A message refused before any method ran: 400 with a JSON-RPC error
    /// whose id is null.
    fn rejected(code: i32, message: impl Into<String>) -> Reply {
        Reply::json(400, &Response::error(None, code, message))
    }

    fn accepted() -> Reply {
        Reply {
            status: 202,
            body: None,
            headers: Vec::new(),
        }
    }
}

/// A failure that stops the exchange before any message is read (rate
/// limit, body limit) as a JSON-RPC error with the NLWeb document in
/// `data`, at the failure's HTTP status.
pub fn failure_reply(f: &crate::protocol::Failure, echo: &Echo) -> Reply {
    use crate::protocol::FailureCode;
    let rpc_code = match f.code() {
        FailureCode::RateLimited => code::RATE_LIMITED,
        FailureCode::Unauthorized | FailureCode::Forbidden => code::UNAUTHORIZED,
        FailureCode::InternalError => code::INTERNAL_ERROR,
        _ => code::INVALID_REQUEST,
    };
    let error = ErrorObject {
        code: rpc_code,
        message: f.to_string(),
        data: serde_json::to_value(FailureDocument::new(f, None, echo)).ok(),
    };
    let mut reply = Reply::json(
        f.status(),
        &Response::Error {
            jsonrpc: JsonRpcVersion::V2,
            id: None,
            error,
        },
    );
    reply.headers = f.headers();
    reply
}

/// The `ask` tool.
pub fn ask_tool(product: &str) -> Tool {
    Tool {
        name: "ask".into(),
        title: format!("Ask the {product} docs"),
        description: format!(
            "Ask a natural-language question about {product}'s documentation and get the \
             best-matching documentation sections (title, URL, text) and, in summarize or \
             generate mode, a short extractive answer whose sentences cite those sections as [n]. \
             Call it whenever you need facts, configuration, commands or how-tos about {product}: \
             quote the returned text and link the URLs rather than answering from memory. \
             A question the docs do not cover returns NO_RESULTS (isError true)."
        ),
        input_schema: inline_schema::<AskArguments>(),
        output_schema: inline_schema::<Document>(),
        annotations: ToolAnnotations {
            read_only_hint: true,
            idempotent_hint: true,
            open_world_hint: false,
        },
    }
}

/// Answers a POST to `/mcp`. `version` is the `MCP-Protocol-Version`
/// header.
pub async fn handle(asker: &(impl Asker + Sync), version: Option<&str>, body: &[u8]) -> Reply {
    let version = version.map(str::trim).unwrap_or(DEFAULT_VERSION);
    if !PROTOCOL_VERSIONS.contains(&version) {
        return Reply::rejected(
            code::INVALID_REQUEST,
            format!(
                "MCP-Protocol-Version {version:?} is not supported; use one of {}",
                PROTOCOL_VERSIONS.join(", ")
            ),
        );
    }
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Reply::rejected(code::PARSE_ERROR, format!("body is not JSON: {e}"));
        }
    };
    match value {
        serde_json::Value::Array(batch) => {
            if !batches_allowed(version) {
                return Reply::rejected(
                    code::INVALID_REQUEST,
                    format!(
                        "protocol version {version} has no batches: send one message per request"
                    ),
                );
            }
            if batch.is_empty() {
                return Reply::rejected(code::INVALID_REQUEST, "empty batch");
            }
            if batch.len() > MAX_BATCH {
                return Reply::rejected(
                    code::INVALID_REQUEST,
                    format!(
                        "a batch holds at most {MAX_BATCH} messages; this one has {}",
                        batch.len()
                    ),
                );
            }
            // Every request of the batch is one unit of work: one token each
            // (the POST itself paid for the first).
            let requests = batch
                .iter()
                .filter(|m| m.get("method").is_some() && m.get("id").is_some())
                .count() as u32;
            if let Err(f) = asker.spend(requests.saturating_sub(1)) {
                return failure_reply(&f, &Echo::default());
            }
            let mut replies: Vec<Response> = Vec::with_capacity(batch.len());
            for m in batch {
                replies.extend(one(asker, m).await);
            }
            if replies.is_empty() {
                Reply::accepted()
            } else {
                Reply::json(200, &replies)
            }
        }
        single => match one(asker, single).await {
            Some(r @ Response::Error { id: None, .. }) => Reply::json(400, &r),
            Some(r) => Reply::json(200, &r),
            None => Reply::accepted(),
        },
    }
}

/// One message: a response for a request, `None` for a notification or a
/// client's response.
async fn one(asker: &(impl Asker + Sync), value: serde_json::Value) -> Option<Response> {
    let is_client_response = value.get("method").is_none()
        && (value.get("result").is_some() || value.get("error").is_some());
    if is_client_response {
        return None;
    }
    let id_of = |v: &serde_json::Value| {
        v.get("id")
            .and_then(|i| serde_json::from_value(i.clone()).ok())
    };
    let message: Message = match serde_json::from_value(value.clone()) {
        Ok(m) => m,
        Err(e) => {
            return Some(Response::error(
                id_of(&value),
                code::INVALID_REQUEST,
                format!("not a JSON-RPC 2.0 message: {e}"),
            ));
        }
    };
    let id = message.id.clone()?;
    Some(match method(asker, &message).await {
        Ok(result) => Response::result(id, result),
        Err((code, text)) => Response::error(Some(id), code, text),
    })
}

fn params<T: serde::de::DeserializeOwned + Default>(m: &Message) -> Result<T, (i32, String)> {
    match &m.params {
        None | Some(serde_json::Value::Null) => Ok(T::default()),
        Some(p) => serde_json::from_value(p.clone())
            .map_err(|e| (code::INVALID_PARAMS, format!("{} params: {e}", m.method))),
    }
}

async fn method(asker: &(impl Asker + Sync), m: &Message) -> Result<McpResult, (i32, String)> {
    match m.method.as_str() {
        "initialize" => {
            let p: InitializeParams = params(m)?;
            let asked = p.protocol_version.unwrap_or_default();
            let agreed = PROTOCOL_VERSIONS
                .iter()
                .find(|v| **v == asked)
                .unwrap_or(&PROTOCOL_VERSIONS[0]);
            let product = asker.product();
            Ok(McpResult::Initialize(InitializeResult {
                protocol_version: agreed.to_string(),
                capabilities: Capabilities {
                    tools: ToolsCapability {
                        list_changed: false,
                    },
                },
                server_info: ServerInfo {
                    name: "nlweb-ask".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                },
                instructions: format!(
                    "Answers questions about {product} from its documentation. Call the `ask` \
                     tool with the user's question; cite the URLs it returns."
                ),
            }))
        }
        "ping" => Ok(McpResult::Empty(Empty {})),
        "tools/list" => Ok(McpResult::Tools(ToolsList {
            tools: vec![asker.tool()],
        })),
        "tools/call" => {
            let p: CallToolParams = match &m.params {
                Some(p) => serde_json::from_value(p.clone())
                    .map_err(|e| (code::INVALID_PARAMS, format!("tools/call params: {e}")))?,
                None => return Err((code::INVALID_PARAMS, "tools/call needs params".into())),
            };
            if p.name != "ask" {
                return Err((
                    code::INVALID_PARAMS,
                    format!("unknown tool {:?}; the one tool is `ask`", p.name),
                ));
            }
            let args: AskArguments =
                serde_json::from_value(p.arguments.unwrap_or(serde_json::Value::Null))
                    .map_err(|e| (code::INVALID_PARAMS, format!("ask arguments: {e}")))?;
            if args.num_results.is_some_and(|n| !(1..=10).contains(&n)) {
                return Err((
                    code::INVALID_PARAMS,
                    "ask arguments: num_results is between 1 and 10".into(),
                ));
            }
            Ok(McpResult::CallTool(Box::new(call_ask(asker, args).await)))
        }
        other => Err((
            code::METHOD_NOT_FOUND,
            format!(
                "method {other:?} is not served; use initialize, ping, tools/list or tools/call"
            ),
        )),
    }
}

/// Runs `ask` through the `/ask` pipeline, as the URL parameters of a
/// GET with `streaming=false`.
async fn call_ask(asker: &(impl Asker + Sync), args: AskArguments) -> CallToolResult {
    let mut params = vec![
        ("query".to_string(), args.query),
        ("streaming".to_string(), "false".to_string()),
    ];
    if let Some(mode) = args.mode {
        params.push(("mode".into(), mode.as_str().into()));
    }
    if let Some(site) = args.site {
        params.push(("site".into(), site));
    }
    if let Some(prev) = args.prev.filter(|p| !p.is_empty()) {
        // A JSON array string keeps entries that contain commas whole.
        params.push((
            "prev".into(),
            serde_json::to_string(&prev).unwrap_or_default(),
        ));
    }
    let doc = asker.ask(params, args.num_results.map(usize::from)).await;
    let (text, is_error) = match &doc {
        Document::Answer(a) => (answer_text(&a.results), false),
        Document::ChatAnswer(a) => (answer_text(&a.structured_data), false),
        Document::Failure(f) => (failure_text(f), true),
    };
    CallToolResult {
        content: vec![TextContent {
            kind: TextType::Text,
            text,
        }],
        structured_content: doc,
        is_error,
    }
}

/// The summary (if any), then the sources, numbered as the summary cites
/// them.
fn answer_text(results: &[ResultItem]) -> String {
    let mut out = String::new();
    for item in results {
        if let ResultItem::Summary(s) = item {
            out.push_str(&s.text);
            out.push_str("\n\nSources:\n");
        }
    }
    let articles = results.iter().filter_map(|i| match i {
        ResultItem::Article(a) => Some(a),
        ResultItem::Summary(_) => None,
    });
    for (n, a) in articles.enumerate() {
        out.push_str(&format!("[{}] {} — {}\n", n + 1, a.name, a.url));
    }
    out
}

fn failure_text(f: &FailureDocument) -> String {
    format!("{}: {}", f.error.code.as_str(), f.error.message)
}

/// The answer document of `/ask` for a finished answer or failure.
pub fn document(
    result: &Result<wire::Answer, crate::protocol::Failure>,
    query_id: &str,
    echo: &Echo,
) -> Document {
    match result {
        Ok(a) => wire::answer_document(a, query_id, echo),
        Err(f) => Document::Failure(FailureDocument::new(f, Some(query_id), echo)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;
    impl Asker for Fake {
        fn product(&self) -> String {
            "Widget".into()
        }
        fn tool(&self) -> Tool {
            ask_tool("Widget")
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
    }

    fn post(version: Option<&str>, body: &str) -> (u16, serde_json::Value) {
        let r = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(handle(&Fake, version, body.as_bytes()));
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
                r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
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
                Some(-32600),
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

    #[test]
    fn initialize_negotiates_the_version() {
        for (asked, agreed) in [
            ("2025-06-18", "2025-06-18"),
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2024-11-05"),
            ("2025-11-25", "2025-06-18"),
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
}
