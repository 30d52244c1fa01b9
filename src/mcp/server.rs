//! What every part of `/mcp` shares: the [`Asker`] (the endpoint as the
//! server sees it), the HTTP reply, the failure that ends an exchange,
//! the `ask` tool, the server's name and instructions, and 2026-07-28's
//! result stamps.

use crate::protocol::FailureDocument;
use crate::protocol::mcp::{
    AskArguments, CacheScope, ErrorObject, JsonRpcVersion, LIST_TTL_MS, Response, ResultMeta,
    ResultType, ServerInfo, Stamp, Tool, ToolAnnotations, code, inline_schema,
};
use crate::protocol::pages::{PageDocument, Resource, SearchArguments, SearchResults};
use crate::protocol::response::{Document, Echo};

/// Most messages in one batch (where the protocol version has batches).
pub const MAX_BATCH: usize = 10;

/// What the `ask` tool needs from the endpoint: the product's name, the
/// tool (built once per cold start), a way to run the `/ask` pipeline, and
/// the rate limit's purse for the work a batch asks for.
pub trait Asker {
    /// The documented product, for the tool's description.
    fn product(&self) -> String;
    /// The tools as `tools/list` gives them (`ask`, `search`, `fetch`;
    /// built once).
    fn tools(&self) -> Vec<Tool>;
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
    /// Runs `search`: the `/ask` pipeline's retrieval, its sections
    /// gathered into pages, best first.
    fn search(
        &self,
        args: SearchArguments,
    ) -> impl std::future::Future<Output = Result<SearchResults, FailureDocument>> + Send;
    /// The page an id names, its Markdown within the response cap shared
    /// by `copies` copies of it (`fetch` sends two, `resources/read` one).
    fn page(&self, id: &str, copies: usize) -> Option<PageDocument>;
    /// How many pages the index has.
    fn page_count(&self) -> usize;
    /// Pages `range` (index order) as resources.
    fn resources(&self, range: std::ops::Range<usize>) -> Vec<Resource>;
    /// Whether what pages say is for the caller alone (`ask.auth` on):
    /// the `cacheScope` of resource results.
    fn private(&self) -> bool;
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
    pub(super) fn json(status: u16, v: &impl serde::Serialize) -> Reply {
        Reply {
            status,
            body: Some(serde_json::to_string(v).unwrap_or_default()),
            headers: Vec::new(),
        }
    }

    /// A message refused before any method ran: 400 with a JSON-RPC error
    /// whose id is null.
    pub(super) fn rejected(code: i32, message: impl Into<String>) -> Reply {
        Reply::json(400, &Response::error(None, code, message))
    }

    pub(super) fn accepted() -> Reply {
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

pub(super) fn instructions(product: &str) -> String {
    format!(
        "Answers questions about {product} from its documentation. Call the `ask` tool with \
         the user's question; cite the URLs it returns. To read the docs themselves, `search` \
         finds pages and `fetch` returns one whole, as Markdown; each page is also a resource."
    )
}

/// What a 2026-07-28 result carries; a cacheable one (`cache`: who may
/// reuse it) adds the cache hints.
pub(super) fn stamp(asker: &impl Asker, cache: Option<CacheScope>) -> Stamp {
    Stamp {
        result_type: ResultType::Complete,
        ttl_ms: cache.map(|_| LIST_TTL_MS),
        cache_scope: cache,
        meta: ResultMeta {
            server_info: server_info(&asker.product()),
        },
    }
}

/// Who may reuse what pages say: the caller alone while tokens decide who
/// reads (`ask.auth` on), else anyone.
pub(super) fn pages_scope(asker: &impl Asker) -> CacheScope {
    if asker.private() {
        CacheScope::Private
    } else {
        CacheScope::Public
    }
}
