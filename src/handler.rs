//! What HTTP response does a Lambda event get?
//!
//! Routing (on the path without the API Gateway stage), the off switch, CORS,
//! the rate limit, and the one place where a client-caused problem becomes an
//! NLWeb failure document with its status. A panic while answering becomes an
//! `INTERNAL_ERROR` document; the handler never returns `Err` to the runtime.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ask_index::{Analyzer, Index};
use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};

use crate::answer;
use crate::config::Config;
use crate::mcp;
use crate::protocol::Failure;
use crate::protocol::response::{
    Document, Echo, NotFound, ResourceType, ResponseFormat, Site, SitesDocument, WebSiteType,
    WhoContent, WhoDocument, WhoMeta, WhoPage, WhoResource, WhoSite,
};
use crate::protocol::{self, AskRequest, FailureDocument, Mode, RawRequest, wire};
use crate::rate_limit::{ClientKey, RateLimiter};

/// Everything built once per cold start and shared by all requests.
pub struct State {
    /// Validated settings.
    pub config: Config,
    /// The loaded index.
    pub index: Index,
    /// The analyzer (same as at build time).
    pub analyzer: Analyzer,
    /// Per-client token buckets.
    pub limiter: Mutex<RateLimiter>,
    /// Seconds on a monotonic clock (injected so tests control time).
    pub clock: Box<dyn Fn() -> f64 + Send + Sync>,
    /// Base URL for result links: the config's, else the index's.
    pub base_url: String,
    /// The OpenAPI document, generated once.
    pub openapi: serde_json::Value,
    /// Page weights (`ask.boost`) and synonyms (`ask.synonyms`).
    pub rules: ask_index::search::Rules,
    /// The product's name and description, from the docs' root page.
    pub product: (String, String),
    /// Who may ask (`ask.auth`).
    pub auth: crate::auth::Auth,
    /// Token buckets of authenticated callers, by subject.
    pub auth_limiter: Mutex<RateLimiter>,
    /// The MCP `ask` tool, built on the first `tools/list` and kept (its
    /// schemas are the costly part of it; the cold start does not pay).
    pub ask_tool: std::sync::OnceLock<crate::protocol::mcp::Tool>,
    /// The model that writes summaries (`ask.generator`); `None`: the
    /// extractive summarizer. [`State::new`] leaves it `None`:
    /// [`State::with_generator`] sets it.
    pub generator: Option<Box<dyn crate::generate::Generator>>,
    /// What the request parser allows, from the configuration.
    pub limits: crate::protocol::request::Limits,
    counter: AtomicU64,
}

impl State {
    /// State over a loaded index, with the real monotonic clock; its token
    /// checker from the inline key set alone (see [`State::with_auth`]).
    pub fn new(config: Config, index: Index) -> State {
        Self::with_clock(config, index, real_clock())
    }

    /// State over a loaded index with `auth`, the checker built from the
    /// configuration and the key set the cold start fetched
    /// ([`crate::built::auth`]).
    pub fn with_auth(config: Config, index: Index, auth: crate::auth::Auth) -> State {
        Self::assemble(config, index, auth, real_clock())
    }

    /// State with an injected clock; its token checker from the inline key
    /// set (one that does not parse refuses every credential: never open).
    pub fn with_clock(
        config: Config,
        index: Index,
        clock: Box<dyn Fn() -> f64 + Send + Sync>,
    ) -> State {
        let auth = crate::built::auth(&config, None).unwrap_or_else(|_| {
            crate::auth::Auth::without_keys(
                config.auth,
                config.auth_issuer.clone(),
                config.auth_audience.clone(),
                config.auth_scope.clone(),
            )
        });
        Self::assemble(config, index, auth, clock)
    }

    /// The runtime objects the configuration describes, each built here
    /// once: the analyzer, the search rules (synonyms analysed), both
    /// limiters, the OpenAPI document.
    fn assemble(
        config: Config,
        index: Index,
        auth: crate::auth::Auth,
        clock: Box<dyn Fn() -> f64 + Send + Sync>,
    ) -> State {
        let base_url = if config.docs_base_url.is_empty() {
            index.meta.docs_base_url.clone()
        } else {
            config.docs_base_url.clone()
        };
        let analyzer = Analyzer::new();
        let rules = ask_index::search::Rules {
            page_weights: config.boost.page_weights(&index),
            // Validated when the configuration was read.
            synonyms: ask_index::synonyms::Synonyms::new(&config.synonyms, &analyzer)
                .unwrap_or_default(),
            // Set by `with_hybrid` once the model is loaded.
            hybrid: None,
        };
        let product = ask_index::llms::product(&index);
        let limits = crate::built::limits(&config);
        State {
            ask_tool: std::sync::OnceLock::new(),
            rules,
            auth,
            auth_limiter: Mutex::new(RateLimiter::new(
                config.auth_rate_limit_per_minute,
                config.max_tracked_clients,
            )),
            product,
            limiter: Mutex::new(RateLimiter::new(
                config.rate_limit_per_minute,
                config.max_tracked_clients,
            )),
            analyzer,
            config,
            index,
            clock,
            base_url,
            openapi: protocol::openapi::document(),
            generator: None,
            limits,
            counter: AtomicU64::new(0),
        }
    }

    /// This state ranking with the sentence model too (`ask.retriever:
    /// hybrid`; see [`crate::built::hybrid`]).
    pub fn with_hybrid(mut self, hybrid: ask_index::search::Hybrid) -> State {
        self.rules.hybrid = Some(hybrid);
        self
    }

    /// This state with `generator` writing the summaries of
    /// `ask.generator_modes`.
    pub fn with_generator(mut self, generator: Box<dyn crate::generate::Generator>) -> State {
        self.generator = Some(generator);
        self
    }

    /// The answer to a parsed request: NO_RESULTS for a site not served
    /// here, else retrieval with `top_k` sections.
    fn answer(&self, req: &AskRequest, top_k: usize) -> Result<wire::Answer, Failure> {
        if let Some(site) = &req.site
            && !self.serves(site)
        {
            return Err(Failure::UnknownSite {
                site: site.clone(),
                served: self.config.site.clone(),
            });
        }
        let top_k = req.count.unwrap_or(top_k);
        let writer = answer::Writer {
            model: self
                .generator
                .as_deref()
                .filter(|_| self.config.generator_modes.contains(&req.mode)),
            product: &self.product.0,
        };
        answer::answer(
            &self.index,
            &self.analyzer,
            req,
            &self.base_url,
            top_k,
            &self.rules,
            writer,
        )
    }

    /// What the documents of an exchange say about it: the index that
    /// answers, and for a parsed request its format, what was searched and
    /// the echoed language.
    pub fn echo(&self, req: Option<&AskRequest>) -> Echo {
        let mut echo = Echo {
            index_build_id: self.index.meta.build_id.clone(),
            index_built_at: self.index.meta.built_at.clone(),
            rate_limit_per_minute: Some(self.config.rate_limit_per_minute),
            ..Echo::default()
        };
        if let Some(r) = req {
            echo.format = r.format;
            echo.accept_language = r.accept_language.clone();
            echo.decontextualized_query = r.decontextualized_query.clone().or_else(|| {
                r.contextual
                    .then(|| format!("{} (after: {})", r.query, r.prev.join("; ")))
            });
        }
        echo
    }

    /// Whether `site` names what this index serves: `all`, the configured
    /// site name, or the docs base URL (with or without its scheme).
    fn serves(&self, site: &str) -> bool {
        let site = site.trim().trim_end_matches('/');
        let base = self.base_url.as_str();
        let host = base.split_once("://").map_or(base, |(_, rest)| rest);
        site.eq_ignore_ascii_case("all")
            || site.eq_ignore_ascii_case(&self.config.site)
            || site == base
            || site == host
    }

    /// The `/sites` document.
    fn sites(&self) -> SitesDocument {
        let (name, description) = self.product.clone();
        SitesDocument::new(Site {
            site: self.config.site.clone(),
            name,
            description,
            url: self.base_url.clone(),
            pages: self.index.meta.pages,
            sections: self.index.meta.sections,
            build_id: self.index.meta.build_id.clone(),
            built_at: self.index.meta.built_at.clone(),
        })
    }

    fn new_query_id(&self, req: &Request) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let rid = request_id(req).unwrap_or_default();
        let h = ask_index::index::fnv1a64(rid.as_bytes(), n ^ (self.clock)().to_bits());
        format!("{:012x}", h & 0xffff_ffff_ffff)
    }
}

fn request_id(req: &Request) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(c) => c.request_id.clone(),
        RequestContext::ApiGatewayV2(c) => c.request_id.clone(),
        _ => None,
    }
}

/// The client's address from the request context, never from a header the
/// client controls. Behind an ALB the context has none, so the address ALB
/// appended to `X-Forwarded-For` (its last entry) is used.
pub fn source_ip(req: &Request) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(c) => c.identity.source_ip.clone(),
        RequestContext::ApiGatewayV2(c) => c.http.source_ip.clone(),
        RequestContext::Alb(_) => req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(|s| s.trim().to_string()),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

fn real_clock() -> Box<dyn Fn() -> f64 + Send + Sync> {
    let origin = Instant::now();
    Box::new(move || origin.elapsed().as_secs_f64())
}

/// Answers one event. Never panics, never fails.
pub fn respond(state: &State, req: &Request) -> Response<Body> {
    let started = Instant::now();
    match catch_unwind(AssertUnwindSafe(|| route(state, req, started))) {
        Ok(r) => r,
        Err(_) => {
            tracing::error!("panic while answering a request");
            failure_response(&Failure::InternalError, None, &state.echo(None))
        }
    }
}

fn not_found() -> Response<Body> {
    let body = serde_json::to_string(&NotFound::default()).unwrap_or_default();
    Response::builder()
        .status(404)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("valid response")
}

fn json_response(status: u16, doc: &impl serde::Serialize) -> Response<Body> {
    // The protocol types hold nothing that fails to serialize.
    let body = serde_json::to_string(doc).unwrap_or_default();
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        .body(Body::from(body))
        .expect("valid response")
}

/// The one place where a failure becomes a response: its document, its
/// status and the headers it calls for.
fn failure_response(f: &Failure, query_id: Option<&str>, echo: &Echo) -> Response<Body> {
    let mut r = json_response(f.status(), &FailureDocument::new(f, query_id, echo));
    for (name, value) in f.headers() {
        if let Ok(v) = value.parse() {
            r.headers_mut().insert(name, v);
        }
    }
    r
}

fn sse_response(body: String) -> Response<Body> {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from(body))
        .expect("valid response")
}

/// The routes served (docs/content/docs/api.mdx, Requests and Other routes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Ask,
    Mcp,
    OpenApi,
    LlmsTxt,
    Sites,
    Config,
    Who,
    ResourceMetadata,
    Widget,
}

/// The embeddable `<nlweb-ask>` web component (widget/nlweb-ask.js).
pub const WIDGET_JS: &str = include_str!("../widget/nlweb-ask.js");

/// The RFC 9728 protected-resource metadata path.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

impl Route {
    fn of(path: &str) -> Option<Route> {
        match path.trim_end_matches('/') {
            "/ask" => Some(Route::Ask),
            "/mcp" => Some(Route::Mcp),
            "/openapi.json" => Some(Route::OpenApi),
            "/llms.txt" => Some(Route::LlmsTxt),
            "/sites" => Some(Route::Sites),
            "/config" => Some(Route::Config),
            "/who" => Some(Route::Who),
            RESOURCE_METADATA_PATH => Some(Route::ResourceMetadata),
            "/ask/widget.js" => Some(Route::Widget),
            _ => None,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Route::Ask => "/ask",
            Route::Mcp => "/mcp",
            Route::OpenApi => "/openapi.json",
            Route::LlmsTxt => "/llms.txt",
            Route::Sites => "/sites",
            Route::Config => "/config",
            Route::Who => "/who",
            Route::ResourceMetadata => RESOURCE_METADATA_PATH,
            Route::Widget => "/ask/widget.js",
        }
    }

    /// The methods the route takes, as an `Allow` header.
    fn methods(self) -> &'static str {
        match self {
            Route::Ask => "GET, POST, OPTIONS",
            Route::Mcp => "POST, OPTIONS",
            Route::OpenApi
            | Route::LlmsTxt
            | Route::Sites
            | Route::Config
            | Route::Who
            | Route::ResourceMetadata
            | Route::Widget => "GET, OPTIONS",
        }
    }
}

/// The path without the API Gateway stage.
fn path_of(req: &Request) -> &str {
    let path = req.raw_http_path();
    if path.is_empty() {
        req.uri().path()
    } else {
        path
    }
}

fn route(state: &State, req: &Request, started: Instant) -> Response<Body> {
    if !state.config.enabled {
        return not_found();
    }
    if req.headers().contains_key(crate::event::UNREADABLE) {
        let f = Failure::InvalidRequest(
            "the request's Host, X-Forwarded-Proto or query string cannot be read as a URL".into(),
        );
        let mut resp = failure_response(&f, None, &state.echo(None));
        add_cors(state, req, &mut resp);
        return resp;
    }
    let Some(route) = Route::of(path_of(req)) else {
        return not_found();
    };
    // The metadata exists only when tokens are read.
    if route == Route::ResourceMetadata && state.auth.mode() == crate::auth::Mode::Off {
        return not_found();
    }
    let method = req.method().as_str();
    let mut resp = if method == "OPTIONS" {
        Response::builder()
            .status(204)
            .header("access-control-allow-methods", route.methods())
            .header(
                "access-control-allow-headers",
                "content-type, accept, authorization, mcp-protocol-version, mcp-session-id",
            )
            .header("access-control-max-age", "86400")
            .body(Body::Empty)
            .expect("valid response")
    } else if route == Route::Widget && method == "GET" {
        // A static file that every page view loads: no token spent.
        Response::builder()
            .status(200)
            .header("content-type", "text/javascript; charset=utf-8")
            .header("cache-control", "public, max-age=300")
            .body(Body::from(WIDGET_JS))
            .expect("valid response")
    } else if route.methods().split(", ").any(|m| m == method) {
        limited(state, req, route, started)
    } else {
        failure_response(
            &Failure::MethodNotAllowed {
                method: method.to_string(),
                path: route.path(),
                allow: route.methods(),
            },
            None,
            &state.echo(None),
        )
    };
    cap_response(state, route, &mut resp);
    add_cors(state, req, &mut resp);
    if req.headers().contains_key("authorization") {
        private(&mut resp);
    }
    let h = resp.headers_mut();
    if let Ok(v) = format!(
        "build-id={}; built-at={}",
        state.index.meta.build_id, state.index.meta.built_at
    )
    .parse()
    {
        h.insert("x-index", v);
    }
    if !h.contains_key("ratelimit-policy") {
        h.insert(
            "ratelimit-policy",
            format!("\"default\";q={};w=60", state.config.rate_limit_per_minute)
                .parse()
                .expect("header"),
        );
    }
    let total = started.elapsed().as_secs_f64() * 1e3;
    if !h.contains_key("server-timing") {
        h.insert(
            "server-timing",
            format!("total;dur={total:.3}").parse().expect("header"),
        );
    }
    resp
}

/// An answer to a request that carried a token is for that caller alone:
/// no shared cache may keep it.
fn private(resp: &mut Response<Body>) {
    let h = resp.headers_mut();
    let cc = h
        .get("cache-control")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let cc = if cc.is_empty() {
        "private".to_string()
    } else if cc.contains("public") {
        cc.replace("public", "private")
    } else if cc.contains("private") {
        cc.to_string()
    } else {
        format!("private, {cc}")
    };
    if let Ok(v) = cc.parse() {
        h.insert("cache-control", v);
    }
}

/// An answer over `ask.max_response_bytes` is not sent: the failure that
/// says so takes its place (a JSON-RPC error on `/mcp`).
fn cap_response(state: &State, route: Route, resp: &mut Response<Body>) {
    let bytes = resp.body().as_ref().len();
    let limit = state.config.max_response_bytes;
    if bytes <= limit {
        return;
    }
    let f = Failure::AnswerTooLarge { bytes, limit };
    tracing::warn!(bytes, limit, route = route.path(), "answer over the cap");
    let mut failure = match route {
        Route::Mcp => mcp_response(mcp::failure_reply(&f, &state.echo(None))),
        _ => failure_response(&f, None, &state.echo(None)),
    };
    // The tokens it cost are still what they were.
    for name in ["ratelimit", "ratelimit-policy"] {
        if let Some(v) = resp.headers().get(name).cloned() {
            failure.headers_mut().insert(name, v);
        }
    }
    *resp = failure;
}

fn add_cors(state: &State, req: &Request, resp: &mut Response<Body>) {
    let origins = &state.config.cors_allow_origins;
    let h = resp.headers_mut();
    let allow = if origins.iter().any(|o| o == "*") {
        Some("*".to_string())
    } else {
        req.headers()
            .get("origin")
            .and_then(|o| o.to_str().ok())
            .filter(|o| origins.iter().any(|a| a == o))
            .map(str::to_string)
    };
    // With an allow-list, the answer depends on Origin whether or not this
    // one is on it: a shared cache must key on it.
    if !origins.iter().any(|o| o == "*") {
        h.insert("vary", "Origin".parse().expect("header"));
    }
    if let Some(a) = allow
        && let Ok(v) = a.parse()
    {
        h.insert("access-control-allow-origin", v);
    }
    h.insert(
        "access-control-expose-headers",
        "RateLimit, RateLimit-Policy, Retry-After, Server-Timing, ETag, X-Index, WWW-Authenticate"
            .parse()
            .expect("header"),
    );
}

/// Who is calling a route that reveals the docs or the settings (`/ask`,
/// `/mcp`, `/who`, `/config`, `/sites`, `/llms.txt`), or the failure that
/// refuses them. The RFC 9728 metadata, the OpenAPI document and the
/// widget stay public.
fn caller(state: &State, req: &Request, route: Route) -> Result<crate::auth::Caller, Failure> {
    use crate::auth::{Caller, Denied};
    if !matches!(
        route,
        Route::Ask | Route::Mcp | Route::Who | Route::Config | Route::Sites | Route::LlmsTxt
    ) {
        return Ok(Caller::Anonymous);
    }
    let header = req.headers().get("authorization").map(|v| v.as_bytes());
    let resource_metadata = format!("{}{RESOURCE_METADATA_PATH}", api_base_url(state, req));
    state.auth.check(header).map_err(|d| match d {
        Denied::NoCredentials => Failure::Unauthorized {
            error: None,
            description: "this endpoint needs a bearer token (Authorization: Bearer <token>)",
            resource_metadata,
        },
        Denied::Invalid(error, description) => Failure::Unauthorized {
            error: Some(error),
            description,
            resource_metadata,
        },
        Denied::InsufficientScope => Failure::Forbidden {
            scope: state.auth.scope().to_string(),
            resource_metadata,
        },
    })
}

/// The protected-resource metadata document (RFC 9728).
fn resource_metadata(
    state: &State,
    req: &Request,
) -> crate::protocol::response::ProtectedResourceMetadata {
    crate::protocol::response::ProtectedResourceMetadata {
        resource: api_base_url(state, req),
        authorization_servers: state.auth.issuer().map(|i| vec![i.to_string()]),
        scopes_supported: (!state.auth.scope().is_empty())
            .then(|| vec![state.auth.scope().to_string()]),
        bearer_methods_supported: vec!["header".into()],
        resource_signing_alg_values_supported: vec!["RS256".into(), "ES256".into()],
        resource_name: state.product.0.clone(),
    }
}

/// Spends a token of the client's bucket, then answers the route (or 429).
/// An authenticated caller spends from its subject's own bucket; a refused
/// credential still costs the address a token.
fn limited(state: &State, req: &Request, route: Route, started: Instant) -> Response<Body> {
    let ip_key = ClientKey::from_ip(source_ip(req).as_deref());
    let who = caller(state, req, route);
    let (key, limiter, policy) = match &who {
        Ok(crate::auth::Caller::Subject(sub)) => (
            ClientKey::from_subject(sub),
            &state.auth_limiter,
            format!(
                "\"subject\";q={};w=60",
                state.config.auth_rate_limit_per_minute
            ),
        ),
        _ => (
            ip_key,
            &state.limiter,
            format!("\"default\";q={};w=60", state.config.rate_limit_per_minute),
        ),
    };
    if let Err(f) = who {
        let decision = {
            let mut l = limiter.lock().unwrap_or_else(|p| p.into_inner());
            l.check(key, (state.clock)())
        };
        let f = if decision.allowed {
            f
        } else {
            Failure::RateLimited {
                retry_after_secs: decision.retry_after_secs,
            }
        };
        return match route {
            Route::Mcp => mcp_response(mcp::failure_reply(&f, &state.echo(None))),
            _ => failure_response(&f, None, &state.echo(None)),
        };
    }
    // An /ask request is parsed once, before the limiter: a 304 costs no
    // token, and the answer (or its failure) reuses the parse.
    let asked = (route == Route::Ask).then(|| AskedFor::read(state, req));
    if let Some(resp) = asked
        .as_ref()
        .and_then(|a| not_modified(state, req, key, limiter, a))
    {
        return resp;
    }
    let decision = {
        let mut limiter = limiter.lock().unwrap_or_else(|p| p.into_inner());
        limiter.check(key, (state.clock)())
    };
    let mut ratelimit = format!(
        "\"default\";r={};t={}",
        decision.remaining, decision.reset_secs
    );
    let mut resp = if !decision.allowed {
        let f = Failure::RateLimited {
            retry_after_secs: decision.retry_after_secs,
        };
        match route {
            Route::Mcp => mcp_response(mcp::failure_reply(&f, &state.echo(None))),
            _ => failure_response(&f, None, &state.echo(None)),
        }
    } else {
        match route {
            Route::Ask => {
                let asked = asked.unwrap_or_else(|| AskedFor::read(state, req));
                answer_request(state, req, started, asked)
            }
            Route::Mcp => {
                let r = mcp_request(state, req, key, limiter);
                // A batch spent a token a request: report what is left.
                let after = {
                    let l = limiter.lock().unwrap_or_else(|p| p.into_inner());
                    l.peek(key, (state.clock)())
                };
                ratelimit = format!("\"default\";r={};t={}", after.remaining, after.reset_secs);
                r
            }
            Route::OpenApi => {
                let mut r = json_response(200, &state.openapi);
                r.headers_mut()
                    .insert("cache-control", "no-cache".parse().expect("header"));
                r
            }
            Route::LlmsTxt => Response::builder()
                .status(200)
                .header("content-type", "text/plain; charset=utf-8")
                .header("cache-control", "no-cache")
                .body(Body::from(ask_index::llms::llms_txt(
                    &state.index,
                    &state.base_url,
                    &api_base_url(state, req),
                )))
                .expect("valid response"),
            Route::Sites => json_response(200, &state.sites()),
            Route::Config => json_response(200, &config_document(state, req)),
            Route::Who => who_request(state, req),
            Route::ResourceMetadata => json_response(200, &resource_metadata(state, req)),
            // Answered before the limiter (see route).
            Route::Widget => not_found(),
        }
    };
    resp.headers_mut()
        .insert("ratelimit", ratelimit.parse().expect("header"));
    if let Ok(p) = policy.parse() {
        resp.headers_mut().insert("ratelimit-policy", p);
    }
    resp
}

/// The raw `/ask` request: URL parameters, `Accept`, body.
fn raw_request(req: &Request) -> RawRequest<'_> {
    let params: Vec<(String, String)> = req
        .query_string_parameters_ref()
        .map(|q| {
            q.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    RawRequest {
        params,
        accept: req.headers().get("accept").and_then(|v| v.to_str().ok()),
        body: req.body().as_ref(),
    }
}

/// The strong validator of a GET answer: a hash of the index build, this
/// binary's version and the normalised request. A GET answer is a pure
/// function of these (its generated `query_id` is derived from the same
/// hash), so equal tags mean equal bytes.
fn etag_hash(state: &State, parsed: &AskRequest) -> u64 {
    // The rate limit's text is in the answer (its older in-band headers).
    let key = format!(
        "{}\n{}\n{}\n{parsed:?}",
        state.index.meta.build_id,
        env!("CARGO_PKG_VERSION"),
        state.config.rate_limit_per_minute
    );
    ask_index::index::fnv1a64(key.as_bytes(), 0x6574_6167)
}

fn etag(hash: u64) -> String {
    format!("\"{hash:016x}\"")
}

/// `Cache-Control` of a GET answer.
fn get_cache_control(state: &State) -> Option<String> {
    (state.config.cache_max_age > 0)
        .then(|| format!("public, max-age={}", state.config.cache_max_age))
}

/// A GET whose `If-None-Match` names the current answer: 304, no body, no
/// token spent (the RateLimit headers report the bucket as it is).
fn not_modified(
    state: &State,
    req: &Request,
    key: ClientKey,
    limiter: &Mutex<RateLimiter>,
    asked: &AskedFor,
) -> Option<Response<Body>> {
    let tag = etag(asked.hash?);
    let inm = req.headers().get("if-none-match")?.to_str().ok()?;
    let matches = inm
        .split(',')
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == tag || t == "*");
    if !matches {
        return None;
    }
    let decision = {
        let limiter = limiter.lock().unwrap_or_else(|p| p.into_inner());
        limiter.peek(key, (state.clock)())
    };
    let cache = get_cache_control(state).unwrap_or_else(|| "no-store".into());
    Some(
        Response::builder()
            .status(304)
            .header("etag", tag)
            .header("cache-control", cache)
            .header(
                "ratelimit",
                format!(
                    "\"default\";r={};t={}",
                    decision.remaining, decision.reset_secs
                ),
            )
            .body(Body::Empty)
            .expect("valid response"),
    )
}

/// Where the API is, for self-links (llms.txt, the RFC 9728 metadata and
/// `WWW-Authenticate`, `/config`, `/who`): `ask.public_base_url`, else the
/// domain and stage API Gateway writes in the request context; never the
/// client's `Host` or `X-Forwarded-Proto`. Empty (relative links) when there
/// is neither, as behind an ALB.
fn api_base_url(state: &State, req: &Request) -> String {
    if !state.config.public_base_url.is_empty() {
        return state.config.public_base_url.clone();
    }
    let (domain, stage) = match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV1(c)) => (c.domain_name.as_deref(), c.stage.as_deref()),
        Some(RequestContext::ApiGatewayV2(c)) => (c.domain_name.as_deref(), c.stage.as_deref()),
        _ => (None, None),
    };
    let host_like = |d: &&str| {
        !d.is_empty()
            && d.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
    };
    let Some(domain) = domain.filter(host_like) else {
        return String::new();
    };
    // Behind a custom domain the stage is not in the path (a base-path
    // mapping): only API Gateway's own domain takes it.
    let stage = stage
        .filter(|_| domain.contains(".execute-api."))
        .filter(|s| !s.is_empty() && *s != "$default")
        .filter(|s| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(|s| format!("/{s}"))
        .unwrap_or_default();
    format!("https://{domain}{stage}")
}

fn mcp_response(reply: mcp::Reply) -> Response<Body> {
    let mut builder = Response::builder()
        .status(reply.status)
        .header("cache-control", "no-store");
    if reply.body.is_some() {
        builder = builder.header("content-type", "application/json");
    }
    for (name, value) in &reply.headers {
        // A value that is not a valid header is left out, never a panic.
        if let Ok(v) = lambda_http::http::HeaderValue::from_str(value) {
            builder = builder.header(*name, v);
        }
    }
    builder
        .body(reply.body.map(Body::from).unwrap_or(Body::Empty))
        .unwrap_or_else(|_| not_found())
}

/// `/mcp`: the body limit, then the JSON-RPC exchange, whose batches spend
/// a token a request from the caller's bucket.
fn mcp_request(
    state: &State,
    req: &Request,
    key: ClientKey,
    limiter: &Mutex<RateLimiter>,
) -> Response<Body> {
    let body = req.body().as_ref();
    if body.len() > state.config.max_body_bytes {
        let f = Failure::PayloadTooLarge {
            bytes: body.len(),
            limit: state.config.max_body_bytes,
        };
        return mcp_response(mcp::failure_reply(&f, &state.echo(None)));
    }
    let version = req
        .headers()
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    let asker = Asking {
        state,
        req,
        key,
        limiter,
    };
    mcp_response(mcp::handle(&asker, version, body))
}

/// The `ask` tool's view of the endpoint, and the caller's bucket.
struct Asking<'a> {
    state: &'a State,
    req: &'a Request,
    key: ClientKey,
    limiter: &'a Mutex<RateLimiter>,
}

impl mcp::Asker for Asking<'_> {
    fn product(&self) -> String {
        self.state.product.0.clone()
    }

    fn tool(&self) -> crate::protocol::mcp::Tool {
        self.state
            .ask_tool
            .get_or_init(|| mcp::ask_tool(&self.state.product.0))
            .clone()
    }

    fn spend(&self, extra: u32) -> Result<(), Failure> {
        if extra == 0 {
            return Ok(());
        }
        let decision = {
            let mut l = self.limiter.lock().unwrap_or_else(|p| p.into_inner());
            if u64::from(extra) + 1 > u64::from(l.quota()) {
                return Err(Failure::InvalidRequest(format!(
                    "this batch costs {} tokens, more than the {} a minute this endpoint allows: send fewer requests a batch",
                    extra + 1,
                    l.quota()
                )));
            }
            l.check_n(self.key, (self.state.clock)(), extra)
        };
        if decision.allowed {
            Ok(())
        } else {
            Err(Failure::RateLimited {
                retry_after_secs: decision.retry_after_secs,
            })
        }
    }

    fn ask(&self, params: Vec<(String, String)>, num_results: Option<usize>) -> Document {
        let raw = RawRequest {
            params,
            accept: None,
            body: &[],
        };
        let parsed = match protocol::parse(&raw, &self.state.limits) {
            Ok(p) => p,
            Err(f) => {
                return Document::Failure(FailureDocument::new(&f, None, &self.state.echo(None)));
            }
        };
        let query_id = parsed
            .query_id
            .clone()
            .unwrap_or_else(|| self.state.new_query_id(self.req));
        let top_k = num_results.unwrap_or(self.state.config.top_k);
        let echo = self.state.echo(Some(&parsed));
        mcp::document(&self.state.answer(&parsed, top_k), &query_id, &echo)
    }
}

/// An `/ask` request as parsed, and for a GET its answer's hash (the ETag
/// and the generated `query_id` come from it).
struct AskedFor {
    parsed: Result<AskRequest, Failure>,
    hash: Option<u64>,
}

impl AskedFor {
    fn read(state: &State, req: &Request) -> AskedFor {
        let parsed = protocol::parse(&raw_request(req), &state.limits);
        let hash = match &parsed {
            Ok(p) if req.method().as_str() == "GET" => Some(etag_hash(state, p)),
            _ => None,
        };
        AskedFor { parsed, hash }
    }
}

fn answer_request(
    state: &State,
    req: &Request,
    started: Instant,
    asked: AskedFor,
) -> Response<Body> {
    let hash = asked.hash;
    let parsed = match asked.parsed {
        Ok(p) => p,
        Err(f) => {
            tracing::info!(
                code = f.code().as_str(),
                status = f.status(),
                "rejected request"
            );
            return failure_response(&f, None, &state.echo(None));
        }
    };
    let echo = state.echo(Some(&parsed));
    let query_id = match (&parsed.query_id, hash) {
        (Some(q), _) => q.clone(),
        // A GET answer is the same every time: so is its id.
        (None, Some(h)) => format!("{:012x}", h & 0xffff_ffff_ffff),
        (None, None) => state.new_query_id(req),
    };
    let t = Instant::now();
    let result = state.answer(&parsed, state.config.top_k);
    let search_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut resp = match (&result, parsed.streaming) {
        (Ok(a), false) => json_response(200, &wire::answer_document(a, &query_id, &echo)),
        (Ok(a), true) => sse_response(wire::answer_stream(a, &query_id, &echo)),
        (Err(f), false) => failure_response(f, Some(&query_id), &echo),
        (Err(f), true) => sse_response(wire::failure_stream(f, &query_id, &echo)),
    };
    if let Some(h) = hash
        && resp.status() == 200
    {
        let headers = resp.headers_mut();
        if let Ok(v) = etag(h).parse() {
            headers.insert("etag", v);
        }
        if let Some(cc) = get_cache_control(state).and_then(|c| c.parse().ok()) {
            headers.insert("cache-control", cc);
        }
    }
    let total = started.elapsed().as_secs_f64() * 1e3;
    tracing::info!(
        query_id = %query_id,
        mode = parsed.mode.as_str(),
        streaming = parsed.streaming,
        results = result.as_ref().map(|a| a.items.len()).unwrap_or(0),
        search_ms,
        total_ms = total,
        "answered"
    );
    resp.headers_mut().insert(
        "server-timing",
        format!("search;dur={search_ms:.3}, total;dur={total:.3}")
            .parse()
            .expect("header"),
    );
    resp
}

/// `GET /config`: the public settings (see
/// [`crate::protocol::settings::ConfigDocument`]).
fn config_document(state: &State, req: &Request) -> crate::protocol::settings::ConfigDocument {
    use crate::protocol::settings::{ConfigAuth, ConfigEndpoints, ConfigLimits, ConfigRateLimit};
    let c = &state.config;
    let api = api_base_url(state, req);
    let at = |path: &str| format!("{api}{path}");
    let auth = state.auth.mode();
    let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    crate::protocol::settings::ConfigDocument {
        nlweb_gateway: api
            .split_once("://")
            .map_or(api.as_str(), |(_, rest)| rest)
            .to_string(),
        protocol_version: protocol::response::Version::V055,
        site: c.site.clone(),
        modes: vec![Mode::List, Mode::Summarize, Mode::Generate],
        default_mode: c.default_mode,
        response_formats: vec![
            ResponseFormat::ConversationalSearch,
            ResponseFormat::ChatgptApp,
        ],
        default_streaming: c.default_streaming,
        limits: ConfigLimits {
            max_query_chars: small(c.max_query_chars),
            max_body_bytes: small(c.max_body_bytes),
            max_prev: small(c.max_prev),
            default_results: small(c.top_k),
            max_results: small(protocol::request::MAX_RESULTS),
        },
        rate_limit: ConfigRateLimit {
            per_minute: c.rate_limit_per_minute,
            per_minute_authenticated: c.auth_rate_limit_per_minute,
            window_seconds: 60,
        },
        auth: ConfigAuth {
            mode: auth.as_str().to_string(),
            scope: (auth != crate::auth::Mode::Off && !state.auth.scope().is_empty())
                .then(|| state.auth.scope().to_string()),
            resource_metadata: (auth != crate::auth::Mode::Off).then(|| at(RESOURCE_METADATA_PATH)),
        },
        generator: match c.generator {
            crate::config::GeneratorConfig::Extractive => "extractive",
            crate::config::GeneratorConfig::Bedrock(_) => "bedrock",
        }
        .to_string(),
        endpoints: ConfigEndpoints {
            ask: at("/ask"),
            who: at("/who"),
            mcp: at("/mcp"),
            sites: at("/sites"),
            llms_txt: at("/llms.txt"),
            openapi: at("/openapi.json"),
        },
    }
}

/// `GET /who?query=…`: whether this site answers the question, by the same
/// retrieval and confidence rule as `/ask`, with its best page. Only the
/// question is read (`query`, `q` or `text`): like the reference, `/who`
/// asks about the site as a whole, so `site` and `prev` are ignored; the
/// answer is JSON whatever `streaming` says.
fn who_request(state: &State, req: &Request) -> Response<Body> {
    let params: Vec<(String, String)> = raw_request(req)
        .params
        .into_iter()
        .filter(|(k, _)| matches!(k.as_str(), "query" | "q" | "text"))
        .chain([
            ("mode".to_string(), "list".to_string()),
            ("streaming".to_string(), "false".to_string()),
        ])
        .collect();
    let raw = RawRequest {
        params,
        accept: None,
        body: &[],
    };
    let parsed = match protocol::parse(&raw, &state.limits) {
        Ok(p) => p,
        Err(f) => return failure_response(&f, None, &state.echo(None)),
    };
    let query_id = state.new_query_id(req);
    // The same number of sections as an /ask answer, so that the confidence
    // is the same as that answer's.
    let answer = state.answer(&parsed, state.config.top_k).ok();
    let confidence = answer.as_ref().and_then(|a| a.confidence.clone());
    let relevant = confidence.as_ref().is_some_and(|c| c.answered);
    let score = confidence.map_or(0.0, |c| c.coverage);
    let best_page = answer
        .as_ref()
        .and_then(|a| a.items.first())
        .map(|a| WhoPage {
            name: a.name.clone(),
            url: a.url.clone(),
            score: a.score,
            description: a.description.clone(),
        });
    let (name, description) = state.product.clone();
    tracing::info!(query_id = %query_id, relevant, score, "who");
    json_response(
        200,
        &WhoDocument {
            meta: WhoMeta {
                response_type: protocol::response::ResponseType::Answer,
                version: protocol::response::Version::V055,
                conversation_id: query_id,
            },
            query: parsed.query.clone(),
            relevant,
            score,
            content: vec![WhoContent {
                kind: ResourceType::Resource,
                resource: WhoResource {
                    uri: format!("{}/ask", api_base_url(state, req)),
                    mime_type: "application/ld+json".into(),
                    data: WhoSite {
                        kind: WebSiteType::WebSite,
                        site: state.config.site.clone(),
                        name,
                        description,
                        url: state.base_url.clone(),
                        score,
                        relevant,
                        best_page,
                    },
                },
            }],
        },
    )
}
