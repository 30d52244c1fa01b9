//! What does `/mcp` answer? MCP over Streamable HTTP, stateless, with JSON
//! responses, in two regimes on the one endpoint:
//! - revisions 2024-11-05 to 2025-11-25: `initialize` (version
//!   negotiation), `ping`, `tools/list` and `tools/call`, batches where the
//!   revision has them; notifications and client responses get 202;
//! - revision 2026-07-28, chosen by its `MCP-Protocol-Version` header (or
//!   by a body that carries its `_meta`): no handshake, `server/discover`,
//!   each request's `_meta` checked against the `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` headers, `resultType` and cache hints on
//!   results, and what it removed (`initialize`, `ping`, batches) refused
//!   as it says.
//!
//! The one `ask` tool runs the `/ask` pipeline and returns its NLWeb
//! document as `structuredContent`, and the same as text.

use crate::protocol::mcp::{
    ALL_VERSIONS, AskArguments, CacheScope, CallToolParams, CallToolResult, Capabilities,
    DEFAULT_VERSION, DiscoverResult, Empty, ErrorObject, HANDSHAKE_VERSIONS, Id, InitializeParams,
    InitializeResult, JsonRpcVersion, LIST_TTL_MS, McpResult, Message, Response, ResultMeta,
    ResultType, STATELESS_VERSIONS, ServerInfo, Stamp, TextContent, Tool, ToolAnnotations,
    ToolsCapability, ToolsList, UnsupportedVersion, argument_errors_are_results, batches_allowed,
    code, inline_schema, meta,
};
use crate::protocol::response::{Document, Echo, TextType};
use crate::protocol::{Failure, FailureDocument, ResultItem, wire};

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
    /// The exchange's deadline has passed: a batch starts no more calls
    /// (each call's model gets only what is left of it).
    fn past_deadline(&self) -> bool;
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
        _ if matches!(f, crate::protocol::Failure::OriginNotAllowed(_)) => code::INVALID_REQUEST,
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

/// The routing headers of one POST (header names are case-insensitive).
#[derive(Clone, Debug, Default)]
pub struct Headers<'a> {
    /// `MCP-Protocol-Version`.
    pub version: Option<&'a str>,
    /// `Mcp-Method` (2026-07-28).
    pub method: Option<&'a str>,
    /// `Mcp-Name` (2026-07-28), as sent: maybe `=?base64?…?=`.
    pub name: Option<&'a str>,
    /// A routing header sent more than once: its name.
    pub repeated: Option<&'static str>,
}

/// The server's name, version, title and description (`initialize`,
/// `server/discover`, and the server card's title and version).
pub fn server_info(product: &str) -> ServerInfo {
    ServerInfo {
        name: "nlweb-ask".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        title: Some(format!("Ask the {product} docs")),
        description: Some(format!(
            "Answers questions about {product} from its documentation."
        )),
    }
}

fn instructions(product: &str) -> String {
    format!(
        "Answers questions about {product} from its documentation. Call the `ask` tool with \
         the user's question; cite the URLs it returns."
    )
}

/// What a 2026-07-28 result carries; `list` adds the cache hints.
fn stamp(asker: &impl Asker, list: bool) -> Stamp {
    Stamp {
        result_type: ResultType::Complete,
        ttl_ms: list.then_some(LIST_TTL_MS),
        cache_scope: list.then_some(CacheScope::Public),
        meta: ResultMeta {
            server_info: server_info(&asker.product()),
        },
    }
}

/// Answers a POST to `/mcp`. A `MCP-Protocol-Version` that is not a
/// handshake revision is served as 2026-07-28 would (as the official SDKs
/// route it); so is a request whose body carries 2026-07-28's `_meta`.
pub async fn handle(asker: &(impl Asker + Sync), headers: &Headers<'_>, body: &[u8]) -> Reply {
    let version = headers.version.map(str::trim);
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Reply::rejected(code::PARSE_ERROR, format!("body is not JSON: {e}"));
        }
    };
    match version {
        Some(v) if !HANDSHAKE_VERSIONS.contains(&v) => stateless(asker, headers, v, value).await,
        _ if carries_stateless_meta(&value) => {
            stateless(asker, headers, version.unwrap_or(""), value).await
        }
        _ => handshake(asker, version.unwrap_or(DEFAULT_VERSION), value).await,
    }
}

/// A request (not `initialize`) whose `params._meta` names a protocol
/// version: a 2026-07-28 request, whatever its headers say.
fn carries_stateless_meta(value: &serde_json::Value) -> bool {
    value.get("method").and_then(|m| m.as_str()) != Some("initialize")
        && value
            .pointer("/params/_meta")
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .is_some()
}

/// The handshake revisions (2024-11-05 to 2025-11-25) at `version`.
async fn handshake(asker: &(impl Asker + Sync), version: &str, value: serde_json::Value) -> Reply {
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
                let request = m.get("method").is_some() && m.get("id").is_some();
                if request && asker.past_deadline() {
                    replies.push(Response::error(
                        id_of(&m),
                        code::DEADLINE_PASSED,
                        "not started: the batch ran out of time before this request; send it again",
                    ));
                    continue;
                }
                replies.extend(one(asker, version, m).await);
            }
            if replies.is_empty() {
                Reply::accepted()
            } else {
                Reply::json(200, &replies)
            }
        }
        single => match one(asker, version, single).await {
            Some(r @ Response::Error { id: None, .. }) => Reply::json(400, &r),
            Some(r) => Reply::json(200, &r),
            None => Reply::accepted(),
        },
    }
}

/// One message of a handshake revision: a response for a request, `None`
/// for a notification or a client's response.
async fn one(
    asker: &(impl Asker + Sync),
    version: &str,
    value: serde_json::Value,
) -> Option<Response> {
    let is_client_response = value.get("method").is_none()
        && (value.get("result").is_some() || value.get("error").is_some());
    if is_client_response {
        return None;
    }
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
    Some(match handshake_method(asker, version, &message).await {
        Ok(result) => Response::result(id, result),
        Err((code, text)) => Response::error(Some(id), code, text),
    })
}

fn id_of(v: &serde_json::Value) -> Option<Id> {
    v.get("id")
        .and_then(|i| serde_json::from_value(i.clone()).ok())
}

fn params<T: serde::de::DeserializeOwned + Default>(m: &Message) -> Result<T, (i32, String)> {
    match &m.params {
        None | Some(serde_json::Value::Null) => Ok(T::default()),
        Some(p) => serde_json::from_value(p.clone())
            .map_err(|e| (code::INVALID_PARAMS, format!("{} params: {e}", m.method))),
    }
}

async fn handshake_method(
    asker: &(impl Asker + Sync),
    version: &str,
    m: &Message,
) -> Result<McpResult, (i32, String)> {
    match m.method.as_str() {
        "initialize" => {
            let p: InitializeParams = params(m)?;
            let asked = p.protocol_version.unwrap_or_default();
            // The version asked for if it is served, else the newest.
            let agreed = HANDSHAKE_VERSIONS
                .iter()
                .find(|v| **v == asked)
                .unwrap_or(&HANDSHAKE_VERSIONS[0]);
            let product = asker.product();
            Ok(McpResult::Initialize(InitializeResult {
                protocol_version: agreed.to_string(),
                capabilities: capabilities(),
                server_info: server_info(&product),
                instructions: instructions(&product),
            }))
        }
        "ping" => Ok(McpResult::Empty(Empty {})),
        "tools/list" => Ok(McpResult::Tools(ToolsList {
            tools: vec![asker.tool()],
            stamp: None,
        })),
        "tools/call" => tools_call(asker, version, m)
            .await
            .map(|r| McpResult::CallTool(Box::new(r))),
        other => Err((
            code::METHOD_NOT_FOUND,
            format!(
                "method {other:?} is not served; use initialize, ping, tools/list or tools/call"
            ),
        )),
    }
}

fn capabilities() -> Capabilities {
    Capabilities {
        tools: ToolsCapability {
            list_changed: false,
        },
    }
}

/// `tools/call` of `ask` at `version`: an unknown tool is -32602; bad
/// arguments are too, or from 2025-11-25 a result with `isError` and the
/// INVALID_QUERY document.
async fn tools_call(
    asker: &(impl Asker + Sync),
    version: &str,
    m: &Message,
) -> Result<CallToolResult, (i32, String)> {
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
    let args = serde_json::from_value::<AskArguments>(p.arguments.unwrap_or_default())
        .map_err(|e| format!("ask arguments: {e}"))
        .and_then(|a| match a.num_results {
            Some(n) if !(1..=10).contains(&n) => {
                Err("ask arguments: num_results is between 1 and 10".to_string())
            }
            _ => Ok(a),
        });
    match args {
        Ok(args) => Ok(call_ask(asker, args).await),
        Err(text) if argument_errors_are_results(version) => {
            let doc = Document::Failure(FailureDocument::new(
                &Failure::InvalidQuery(text),
                None,
                &Echo::default(),
            ));
            Ok(tool_result(doc))
        }
        Err(text) => Err((code::INVALID_PARAMS, text)),
    }
}

/// Revision 2026-07-28 (`version` is the `MCP-Protocol-Version` header,
/// empty when absent): one request or notification a POST, checked in the
/// order its SDKs check it (`_meta`, then the headers, then the version),
/// then `server/discover`, `tools/list` or `tools/call`.
async fn stateless(
    asker: &(impl Asker + Sync),
    headers: &Headers<'_>,
    version: &str,
    value: serde_json::Value,
) -> Reply {
    let served = STATELESS_VERSIONS.contains(&version);
    let is_object = value.is_object();
    let has_id = value.get("id").is_some();
    if is_object && !has_id {
        // A notification: nothing to answer, unless it cannot be one.
        let valid = value.get("jsonrpc").and_then(|v| v.as_str()) == Some("2.0")
            && value.get("method").is_some_and(|m| m.is_string());
        return if !valid {
            Reply::rejected(code::INVALID_REQUEST, SINGLE_MESSAGE)
        } else if !served {
            unsupported(None, version)
        } else {
            Reply::accepted()
        };
    }
    let message: Option<Message> = serde_json::from_value(value).ok();
    let Some(m) = message.filter(|m| {
        m.id.is_some() && matches!(m.params, None | Some(serde_json::Value::Object(_)))
    }) else {
        return Reply::rejected(code::INVALID_REQUEST, SINGLE_MESSAGE);
    };
    let id = m.id.clone();
    let refuse = |code: i32, text: String| stateless_error(id.clone(), code, text, None);
    if let Some(name) = headers.repeated {
        return refuse(
            code::HEADER_MISMATCH,
            format!("{name} header appears more than once"),
        );
    }
    // Rung 1: the envelope.
    let envelope = m.params.as_ref().and_then(|p| p.get("_meta"));
    let missing: Vec<&str> = [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|k| envelope.and_then(|e| e.get(k)).is_none())
        .collect();
    if !missing.is_empty() {
        if !served && envelope.is_none() {
            // Neither a handshake nor a 2026-07-28 request: say which
            // revisions are served.
            return unsupported(id, version);
        }
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta is missing the required key(s) {} (protocol 2026-07-28)",
                missing.join(", ")
            ),
        );
    }
    let envelope = envelope.cloned().unwrap_or_default();
    // A version that is not a string matches no header: rung 2 says so.
    let asked = envelope[meta::PROTOCOL_VERSION].as_str();
    // Rung 2: the headers say what the body says.
    let Some(asked) = asked.filter(|a| headers.version.map(str::trim) == Some(*a)) else {
        return refuse(
            code::HEADER_MISMATCH,
            "MCP-Protocol-Version header does not match the request's _meta protocol version"
                .into(),
        );
    };
    if headers.method != Some(m.method.as_str()) {
        return refuse(
            code::HEADER_MISMATCH,
            "Mcp-Method header does not match the request body's method".into(),
        );
    }
    if m.method == "tools/call" {
        let name = m
            .params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str());
        if name.is_some() && headers.name.and_then(decode_header) != name.map(str::to_string) {
            return refuse(
                code::HEADER_MISMATCH,
                "Mcp-Name header does not match the request body's name".into(),
            );
        }
    }
    // Rung 3: the revision; then the request's own parameters.
    if !STATELESS_VERSIONS.contains(&asked) {
        return unsupported(id, asked);
    }
    if !envelope[meta::CLIENT_CAPABILITIES].is_object() {
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta[{:?}] is not an object",
                meta::CLIENT_CAPABILITIES
            ),
        );
    }
    // clientInfo is optional; when sent it names the client.
    if let Some(info) = envelope.get(meta::CLIENT_INFO)
        && !(info["name"].is_string() && info["version"].is_string())
    {
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta[{:?}] needs a string name and version",
                meta::CLIENT_INFO
            ),
        );
    }
    let id = id.unwrap_or(Id::Number(0.into()));
    let result = match m.method.as_str() {
        "server/discover" => Ok(McpResult::Discover(DiscoverResult {
            supported_versions: STATELESS_VERSIONS.iter().map(|v| v.to_string()).collect(),
            capabilities: capabilities(),
            instructions: instructions(&asker.product()),
            stamp: stamp(asker, true),
        })),
        "tools/list" => Ok(McpResult::Tools(ToolsList {
            tools: vec![asker.tool()],
            stamp: Some(stamp(asker, true)),
        })),
        "tools/call" => tools_call(asker, asked, &m).await.map(|mut r| {
            r.stamp = Some(stamp(asker, false));
            McpResult::CallTool(Box::new(r))
        }),
        other => {
            return stateless_error(
                Some(id),
                code::METHOD_NOT_FOUND,
                format!(
                    "method {other:?} is not served in protocol {asked}; use server/discover, \
                     tools/list or tools/call"
                ),
                Some(serde_json::Value::String(other.to_string())),
            );
        }
    };
    match result {
        Ok(r) => Reply::json(200, &Response::result(id, r)),
        Err((code, text)) => stateless_error(Some(id), code, text, None),
    }
}

/// What 2026-07-28 answers a body that is not one request or notification.
const SINGLE_MESSAGE: &str = "protocol 2026-07-28: the body must be a single JSON-RPC request or \
                              notification object";

/// A 2026-07-28 error at the status its transport gives the code: 404 for
/// a method not found, 200 for an internal error, else 400.
fn stateless_error(
    id: Option<Id>,
    code: i32,
    message: String,
    data: Option<serde_json::Value>,
) -> Reply {
    let status = match code {
        code::METHOD_NOT_FOUND => 404,
        code::INTERNAL_ERROR => 200,
        _ => 400,
    };
    Reply::json(
        status,
        &Response::Error {
            jsonrpc: JsonRpcVersion::V2,
            id,
            error: ErrorObject {
                code,
                message,
                data,
            },
        },
    )
}

/// -32022: the revision asked for is not served; `data` names those that
/// are, handshake ones included, so that a client can fall back.
fn unsupported(id: Option<Id>, requested: &str) -> Reply {
    stateless_error(
        id,
        code::UNSUPPORTED_VERSION,
        format!(
            "protocol version {requested:?} is not supported; use one of {}",
            ALL_VERSIONS.join(", ")
        ),
        serde_json::to_value(UnsupportedVersion {
            supported: &ALL_VERSIONS,
            requested: requested.to_string(),
        })
        .ok(),
    )
}

/// A routing header's value: as sent, or decoded from `=?base64?…?=`
/// (2026-07-28's encoding of values that are not plain ASCII); `None` when
/// that encoding is malformed.
fn decode_header(v: &str) -> Option<String> {
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(v.to_string()),
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
    tool_result(asker.ask(params, args.num_results.map(usize::from)).await)
}

/// The tool's result for a document: the document as text and as
/// `structuredContent`, `isError` when it is a failure.
fn tool_result(doc: Document) -> CallToolResult {
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
        stamp: None,
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
    }

    fn post(version: Option<&str>, body: &str) -> (u16, serde_json::Value) {
        send(
            &Headers {
                version,
                ..Headers::default()
            },
            body,
        )
    }

    fn send(headers: &Headers<'_>, body: &str) -> (u16, serde_json::Value) {
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
        fn tool(&self) -> Tool {
            ask_tool("Widget")
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

    /// A 2026-07-28 request: headers and `_meta` that agree.
    fn modern(method: &str, params: &str) -> String {
        let envelope = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;
        let params = if params.is_empty() {
            format!("{{{envelope}}}")
        } else {
            format!("{{{params},{envelope}}}")
        };
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{params}}}"#)
    }

    fn headers<'a>(method: &'a str, name: Option<&'a str>) -> Headers<'a> {
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
        // Two faults: the earlier rung answers.
        let future = modern("tools/list", "").replace("2026-07-28", "2099-01-01");
        let cases_2 = vec![
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
        for (what, h, body, status, code) in cases.into_iter().chain(cases_2) {
            let (s, v) = send(&h, &body);
            assert_eq!(
                (s, v["error"]["code"].as_i64()),
                (status, Some(code)),
                "{what}: {v}"
            );
        }
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
}
