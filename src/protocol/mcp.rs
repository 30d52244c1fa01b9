//! What do MCP clients send and get back? JSON-RPC 2.0 messages and the
//! MCP results this endpoint gives (`initialize`, `ping`, `server/discover`,
//! `tools/list`, `tools/call`), as serde types. The `ask` tool's input and
//! output schemas derive from [`AskArguments`] and [`Document`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::request::Mode;
use super::response::{Document, TextType};

/// Revisions negotiated by `initialize` (the handshake), newest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Revisions without a handshake, newest first: every request names its
/// revision in `_meta` and in `MCP-Protocol-Version`.
pub const STATELESS_VERSIONS: [&str; 1] = ["2026-07-28"];

/// Every revision served, newest first (the `supported` list of -32022).
pub const ALL_VERSIONS: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// The version a request without `MCP-Protocol-Version` is taken to speak
/// (the specification's rule since 2025-06-18).
pub const DEFAULT_VERSION: &str = "2025-03-26";

/// Whether a JSON array of messages is allowed: not since 2025-06-18,
/// which removed batching.
pub fn batches_allowed(version: &str) -> bool {
    !matches!(version, "2025-06-18" | "2025-11-25") && !STATELESS_VERSIONS.contains(&version)
}

/// Whether a tool's bad arguments are a result with `isError` (SEP-1303,
/// from 2025-11-25) rather than a -32602 error.
pub fn argument_errors_are_results(version: &str) -> bool {
    matches!(version, "2025-11-25") || STATELESS_VERSIONS.contains(&version)
}

/// The reserved `_meta` keys of 2026-07-28.
pub mod meta {
    /// A request's protocol version (required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// A request's client capabilities (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// A request's client name and version (optional).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
}

/// How long a client may keep `tools/list` and `server/discover` results
/// (`ttlMs`): they change only with a deployment.
pub const LIST_TTL_MS: u64 = 3_600_000;

/// JSON-RPC's version member: always `"2.0"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum JsonRpcVersion {
    /// `2.0`.
    #[default]
    #[serde(rename = "2.0")]
    V2,
}

/// A request id: a string or a number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Id {
    /// A number.
    Number(serde_json::Number),
    /// A string.
    String(String),
}

/// A message from the client: a request (with `id`) or a notification
/// (without).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Message {
    /// `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// Present on requests, absent on notifications.
    #[serde(default)]
    pub id: Option<Id>,
    /// The method.
    pub method: String,
    /// Its parameters.
    #[serde(default)]
    pub params: Option<serde_json::Value>,
}

/// `initialize` parameters (only the version is read).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The version the client asks for.
    #[serde(default)]
    pub protocol_version: Option<String>,
}

/// `tools/call` parameters.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct CallToolParams {
    /// The tool: `ask`.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Option<serde_json::Value>,
}

/// The `ask` tool's arguments.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArguments {
    /// The question, in plain language.
    pub query: String,
    /// `list` (sections only), `summarize` or `generate` (sections and an extractive answer
    /// with numbered citations). Default: the endpoint's default mode.
    #[serde(default)]
    #[schemars(with = "ModeName")]
    pub mode: Option<Mode>,
    /// Earlier questions of the conversation, oldest first, to resolve follow-ups.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub prev: Option<Vec<String>>,
    /// The site to search; see `/sites`. Default: the default site, else every page.
    #[serde(default)]
    #[schemars(with = "String")]
    pub site: Option<String>,
    /// How many sections to return, 1 to 10.
    #[serde(default)]
    #[schemars(with = "u8", range(min = 1, max = 10))]
    pub num_results: Option<u8>,
}

/// A mode's name, for the tool's schema: a plain string enum.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum ModeName {
    List,
    Summarize,
    Generate,
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorObject {
    /// -32700 parse error, -32600 invalid request, -32601 method not found,
    /// -32602 invalid params, -32603 internal error, -32000 rate limited.
    pub code: i32,
    /// What went wrong.
    pub message: String,
    /// More: for -32000, the NLWeb failure document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// Standard JSON-RPC error codes.
pub mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// Not a JSON-RPC message.
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Bad parameters or tool arguments, unknown tool.
    pub const INVALID_PARAMS: i32 = -32602;
    /// A bug.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (revisions up to 2025-11-25; 2026-07-28 uses
    /// -32602 with the URI in `data`).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// Too many requests (server-defined range).
    pub const RATE_LIMITED: i32 = -32000;
    /// Missing, invalid or insufficient credentials (server-defined range).
    pub const UNAUTHORIZED: i32 = -32001;
    /// A batch's request not started: the exchange's deadline had passed
    /// (server-defined range).
    pub const DEADLINE_PASSED: i32 = -32004;
    /// 2026-07-28: a routing header (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`) missing, repeated, or not what the body says.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: a revision this endpoint does not serve; `data` names
    /// the ones it does.
    pub const UNSUPPORTED_VERSION: i32 = -32022;
}

/// The `data` of -32022 (2026-07-28): the revisions served and the one
/// asked for.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct UnsupportedVersion {
    /// Every revision served, newest first.
    pub supported: &'static [&'static str],
    /// The revision the request named.
    pub requested: String,
}

/// A response to one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Response {
    /// Success.
    Result {
        /// `2.0`.
        jsonrpc: JsonRpcVersion,
        /// The request's id.
        id: Id,
        /// The method's result (boxed: it is much larger than an error).
        result: Box<McpResult>,
    },
    /// Failure.
    Error {
        /// `2.0`.
        jsonrpc: JsonRpcVersion,
        /// The request's id, or null when it could not be read.
        id: Option<Id>,
        /// The error.
        error: ErrorObject,
    },
}

impl Response {
    /// A success.
    pub fn result(id: Id, result: McpResult) -> Response {
        Response::Result {
            jsonrpc: JsonRpcVersion::V2,
            id,
            result: Box::new(result),
        }
    }

    /// A failure.
    pub fn error(id: Option<Id>, code: i32, message: impl Into<String>) -> Response {
        Response::Error {
            jsonrpc: JsonRpcVersion::V2,
            id,
            error: ErrorObject {
                code,
                message: message.into(),
                data: None,
            },
        }
    }
}

/// The result of each method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum McpResult {
    /// `initialize`.
    Initialize(InitializeResult),
    /// `server/discover` (2026-07-28).
    Discover(DiscoverResult),
    /// `tools/list`.
    Tools(ToolsList),
    /// `tools/call`.
    CallTool(Box<CallToolResult>),
    /// `resources/list`.
    Resources(ResourcesList),
    /// `resources/read`.
    Read(ReadResult),
    /// `resources/templates/list`.
    Templates(TemplatesList),
    /// `ping`.
    Empty(Empty),
}

/// `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// `initialize`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version agreed.
    pub protocol_version: String,
    /// What the server offers: tools.
    pub capabilities: Capabilities,
    /// Who answers.
    pub server_info: ServerInfo,
    /// How to use it.
    pub instructions: String,
}

/// `server/discover`'s result (2026-07-28): the revisions served without a
/// handshake, what the server offers, and its name in `_meta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// [`STATELESS_VERSIONS`].
    pub supported_versions: Vec<String>,
    /// Tools.
    pub capabilities: Capabilities,
    /// How to use it.
    pub instructions: String,
    /// `resultType`, the cache hints and the server's name.
    #[serde(flatten)]
    pub stamp: Stamp,
}

/// What every 2026-07-28 result carries: `resultType`, the server's name
/// in `_meta`, and on lists `ttlMs` and `cacheScope`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stamp {
    /// Always `complete`: no request here needs more input.
    pub result_type: ResultType,
    /// How long the result may be reused, in ms (lists only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it (lists only): `public`, the same for every caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta,
}

/// A result's `_meta`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultMeta {
    /// The server's name and version.
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    pub server_info: ServerInfo,
}

/// `resultType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The request is answered.
    Complete,
}

/// `cacheScope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheScope {
    /// No caller-specific data: any cache may keep it.
    Public,
    /// For the caller alone (pages read under `ask.auth`).
    Private,
}

/// Server capabilities.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Capabilities {
    /// Tools, whose list never changes.
    pub tools: ToolsCapability,
    /// Resources (the pages), whose list never changes while the index
    /// is loaded; no subscriptions.
    pub resources: ResourcesCapability,
}

/// The resources capability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Always false.
    pub subscribe: bool,
    /// Always false.
    pub list_changed: bool,
}

/// The tools capability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// Always false.
    pub list_changed: bool,
}

/// Name and version of the server (an MCP `Implementation`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerInfo {
    /// `nlweb-ask`.
    pub name: String,
    /// The crate version.
    pub version: String,
    /// A human title (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `tools/list`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolsList {
    /// The tools: `ask`, `search` and `fetch`.
    pub tools: Vec<Tool>,
    /// 2026-07-28's `resultType`, cache hints and server name.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
}

/// A tool's description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// `ask`.
    pub name: String,
    /// A human title.
    pub title: String,
    /// What it answers and when to call it.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: serde_json::Value,
    /// JSON Schema of `structuredContent`.
    pub output_schema: serde_json::Value,
    /// Hints: read-only, idempotent, closed world.
    pub annotations: ToolAnnotations,
}

/// MCP tool annotations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// It changes nothing.
    pub read_only_hint: bool,
    /// The same call gives the same answer (for one index).
    pub idempotent_hint: bool,
    /// It reads only the indexed docs.
    pub open_world_hint: bool,
}

/// A text block of a tool result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TextContent {
    /// `text`.
    #[serde(rename = "type")]
    pub kind: TextType,
    /// The text.
    pub text: String,
}

/// `tools/call`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The answer as text: the summary, then the sources with their URLs.
    pub content: Vec<TextContent>,
    /// `ask`: the NLWeb 0.55 document, as `/ask` answers with
    /// `streaming=false`; `search` and `fetch`: their JSON (absent from
    /// their error results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Structured>,
    /// True when the document is a failure (NO_RESULTS among them).
    pub is_error: bool,
    /// 2026-07-28's `resultType` and server name.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
}

/// The `data` of 2026-07-28's "Resource not found" (-32602).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceNotFound {
    /// The URI asked for.
    pub uri: String,
}

/// A tool result's `structuredContent`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Structured {
    /// `ask`'s document.
    Document(Box<Document>),
    /// `search`'s pages.
    Search(super::pages::SearchResults),
    /// `fetch`'s page.
    Page(super::pages::PageDocument),
}

/// `resources/list`'s result: the pages in the index's order, 100 at a
/// time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesList {
    /// This page of pages.
    pub resources: Vec<super::pages::Resource>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026-07-28's `resultType`, cache hints and server name.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
}

/// `resources/read`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResult {
    /// The page, one text.
    pub contents: Vec<ResourceText>,
    /// 2026-07-28's `resultType`, cache hints and server name.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
}

/// A resource's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceText {
    /// The page's id.
    pub uri: String,
    /// `text/markdown`.
    pub mime_type: String,
    /// The whole page as Markdown (cut as `fetch` cuts it).
    pub text: String,
}

/// `resources/templates/list`'s result: none (every page is listed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplatesList {
    /// Empty.
    pub resource_templates: Vec<serde_json::Value>,
    /// 2026-07-28's `resultType`, cache hints and server name.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<Stamp>,
}

/// Schema settings for tool schemas: everything inline, no `$schema`.
pub fn inline_schema<T: JsonSchema>() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut v = serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.insert("type".into(), "object".into());
        // Optional members say so by not being required, not by a null
        // default.
        if let Some(props) = o.get_mut("properties").and_then(|p| p.as_object_mut()) {
            for p in props.values_mut().filter_map(|p| p.as_object_mut()) {
                if p.get("default").is_some_and(|d| d.is_null()) {
                    p.remove("default");
                }
            }
        }
    }
    strip_formats(&mut v);
    v
}

/// The `format` values JSON Schema 2020-12 defines; schemars' own (`uint`,
/// `uint32`, `double`…) are not among them, and validators warn of them or
/// refuse them.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes every `format` that JSON Schema 2020-12 does not define, at any
/// depth.
fn strip_formats(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            let standard = o
                .get("format")
                .and_then(|f| f.as_str())
                .is_some_and(|f| STANDARD_FORMATS.contains(&f));
            if !standard && o.get("format").is_some_and(|f| f.is_string()) {
                o.remove("format");
            }
            o.values_mut().for_each(strip_formats);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_formats),
        _ => {}
    }
}

/// A tool's `site` argument as an enum of the docs' sites (`names`, with
/// their `descriptions`) and `all`; a schema with no `site` is left as is.
pub fn site_enum(schema: &mut serde_json::Value, names: &[String], descriptions: &[String]) {
    let Some(site) = schema.get_mut("properties").and_then(|p| p.get_mut("site")) else {
        return;
    };
    let listed: Vec<String> = names
        .iter()
        .zip(descriptions.iter().chain(std::iter::repeat(&String::new())))
        .map(|(n, d)| {
            if d.is_empty() {
                n.clone()
            } else {
                format!("{n} ({d})")
            }
        })
        .collect();
    let mut values: Vec<serde_json::Value> = names.iter().map(|n| n.as_str().into()).collect();
    values.push("all".into());
    *site = serde_json::json!({
        "type": "string",
        "enum": values,
        "description": format!(
            "The docs to search: {}; all: every page. Default: the default site (see /sites).",
            listed.join("; ")
        ),
    });
}
