//! `/mcp`: the JSON-RPC exchange of `crate::mcp`, whose `ask` tool runs
//! the `/ask` parser and retrieval, and whose batches spend a token a
//! request from the caller's bucket.

pub mod openapi;

use axum::body::to_bytes;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

use crate::analytics::{Client, Query};
use crate::answer;
use crate::exchange::{self, Meter};
use crate::mcp;
use crate::pages;
use crate::protocol::mcp::meta::CLIENT_INFO as META_CLIENT_INFO;
use crate::protocol::pages::{
    PageDocument, Resource, SearchArguments, SearchResult, SearchResults,
};
use crate::protocol::response::Document;
use crate::protocol::{self, AskRequest, Failure, FailureDocument, RawRequest};
use crate::reply;
use crate::state::{State, request_id};

/// POST `/mcp`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    // The body limit layer has read it already: this is a copy in memory.
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let headers = mcp::Headers {
        // Sent but unreadable (not visible ASCII) is no revision served, not
        // an absent header (which means 2025-03-26).
        version: parts
            .headers
            .get("mcp-protocol-version")
            .map(|v| v.to_str().unwrap_or("")),
        method: header("mcp-method"),
        name: header("mcp-name"),
        repeated: ["mcp-protocol-version", "mcp-method", "mcp-name"]
            .into_iter()
            .find(|n| parts.headers.get_all(*n).iter().count() > 1),
    };
    let asker = Asking {
        state: &state,
        parts: &parts,
        meter: parts.extensions.get::<Meter>().copied(),
        body: &body,
        client: std::sync::OnceLock::new(),
    };
    reply::mcp(mcp::handle(&asker, &headers, &body).await)
}

/// The `ask` tool's view of the endpoint, and the caller's bucket.
struct Asking<'a> {
    state: &'a State,
    parts: &'a Parts,
    meter: Option<Meter>,
    body: &'a [u8],
    /// [`Asking::client`], read from the body once (a batch calls it for
    /// each of its calls).
    client: std::sync::OnceLock<Client>,
}

impl Asking<'_> {
    /// The MCP client's `clientInfo.name`, which a 2026-07-28 request
    /// carries in its `_meta` (a handshake revision sends it with
    /// `initialize` alone).
    fn client(&self) -> Client {
        self.client
            .get_or_init(|| {
                let body: Option<serde_json::Value> = serde_json::from_slice(self.body).ok();
                let name = body.as_ref().and_then(|b| {
                    b.pointer(&format!(
                        "/params/_meta/{}/name",
                        META_CLIENT_INFO.replace('/', "~1")
                    ))
                });
                Client::mcp(name.and_then(|n| n.as_str()))
            })
            .clone()
    }
}

impl Asking<'_> {
    /// A tool call's arguments as `/ask`'s URL parameters, parsed as `/ask`
    /// parses them.
    fn parse(&self, params: Vec<(String, String)>) -> Result<AskRequest, Failure> {
        let raw = RawRequest {
            params,
            accept: None,
            body: &[],
        };
        protocol::parse(&raw, &self.state.limits)
    }

    /// The failure document of a request that did not parse.
    fn unparsed(&self, f: &Failure) -> FailureDocument {
        FailureDocument::new(f, None, &self.state.echo(None))
    }

    /// The analytics line of a question asked through a tool.
    fn record(
        &self,
        parsed: &AskRequest,
        query_id: &str,
        client_query_id: bool,
        result: Result<&crate::protocol::Answer, &Failure>,
        started: std::time::Instant,
    ) {
        self.state.analytics.query(&Query {
            route: crate::protocol::paths::MCP_PATH,
            client: self.client(),
            request_id: request_id(self.parts),
            query_id,
            client_query_id,
            request: parsed,
            result,
            latency_ms: started.elapsed().as_secs_f64() * 1e3,
            cold_start: exchange::cold_start(self.parts),
        });
    }
}

impl mcp::Asker for Asking<'_> {
    fn product(&self) -> String {
        self.state.product.0.clone()
    }

    fn tools(&self) -> Vec<crate::protocol::mcp::Tool> {
        self.state
            .tools
            .get_or_init(|| {
                let product = &self.state.product.0;
                let mut tools = vec![
                    mcp::ask_tool(product),
                    mcp::pages::search_tool(product),
                    mcp::pages::fetch_tool(product),
                ];
                // With `ask.sites`, `site` names one of them (or all).
                if !self.state.sites.names.is_empty() {
                    for t in &mut tools {
                        crate::protocol::mcp::site_enum(
                            &mut t.input_schema,
                            &self.state.sites.names,
                            &self.state.sites.descriptions,
                        );
                    }
                }
                tools
            })
            .clone()
    }

    fn spend(&self, extra: u32) -> Result<(), Failure> {
        match self.meter {
            Some(m) => m.spend(self.state, extra).inspect_err(|f| {
                if matches!(f, Failure::RateLimited { .. }) {
                    self.state
                        .analytics
                        .throttled(crate::protocol::paths::MCP_PATH);
                }
            }),
            // The rate limit layer gives every charged route its meter;
            // without one, no more work is done for free.
            None => Err(Failure::InternalError),
        }
    }

    fn past_deadline(&self) -> bool {
        std::time::Instant::now() >= exchange::deadline(self.parts)
    }

    async fn ask(&self, params: Vec<(String, String)>, num_results: Option<usize>) -> Document {
        let parsed = match self.parse(params) {
            Ok(p) => p,
            Err(f) => return Document::Failure(self.unparsed(&f)),
        };
        let client_query_id = parsed.query_id.is_some();
        let query_id = parsed
            .query_id
            .clone()
            .unwrap_or_else(|| self.state.new_query_id());
        let top_k = num_results.unwrap_or(self.state.config.top_k);
        let echo = self.state.echo(Some(&parsed));
        let started = exchange::started(self.parts);
        let result = self
            .state
            .answer(&parsed, top_k, exchange::deadline(self.parts))
            .await;
        self.record(
            &parsed,
            &query_id,
            client_query_id,
            result.as_ref(),
            started,
        );
        mcp::document(&result, &query_id, &echo)
    }

    async fn search(&self, args: SearchArguments) -> Result<SearchResults, FailureDocument> {
        let mut params = vec![
            ("query".to_string(), args.query),
            ("mode".to_string(), "list".to_string()),
            ("streaming".to_string(), "false".to_string()),
        ];
        if let Some(site) = args.site {
            params.push(("site".into(), site));
        }
        let state = self.state;
        let parsed = self.parse(params).map_err(|f| self.unparsed(&f))?;
        let query_id = state.new_query_id();
        let started = exchange::started(self.parts);
        let found = state.find(&parsed, SEARCH_SECTIONS);
        self.record(
            &parsed,
            &query_id,
            false,
            found.as_ref().map(|f| &f.answer),
            started,
        );
        let found =
            found.map_err(|f| FailureDocument::new(&f, None, &state.echo(Some(&parsed))))?;
        // Links filled for the sites searched (`find` checked them).
        let asked = state
            .asked(parsed.site.as_deref())
            .unwrap_or(crate::sites::Asked::All);
        let docs = state.docs_for(&asked);
        let mut results: Vec<SearchResult> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        for (section, item) in found.sections().zip(&found.answer.items) {
            let page = state.index.section_page(section);
            if seen.contains(&page) {
                continue;
            }
            seen.push(page);
            results.push(SearchResult {
                id: pages::id(&state.index, page),
                title: state.index.page(page).title.to_string(),
                url: answer::page_url(docs, page),
                text: item.description.clone(),
            });
        }
        Ok(SearchResults { results })
    }

    fn page(&self, id: &str, copies: usize) -> Option<PageDocument> {
        let state = self.state;
        let page = pages::find(&state.index, id)?;
        Some(pages::document(
            &state.index,
            page,
            &state.config.site,
            answer::page_url(state.docs(), page),
            pages::budget(state.config.max_response_bytes, copies),
        ))
    }

    fn page_count(&self) -> usize {
        self.state.index.page_count()
    }

    fn resources(&self, range: std::ops::Range<usize>) -> Vec<Resource> {
        range
            .map(|p| pages::resource(&self.state.index, p as u32))
            .collect()
    }

    fn private(&self) -> bool {
        self.state.auth.mode() != crate::auth::Mode::Off
    }
}

/// Sections `search` reads: `/ask`'s most (at most two a page, so 5 to 10
/// pages). Each costs a snippet; 20 cost 3.3 times an `/ask` list answer
/// (BENCHMARKS.md, "Cost per token").
const SEARCH_SECTIONS: usize = 10;
