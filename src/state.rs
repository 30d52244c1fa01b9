//! What every request shares: the settings, the index, and the runtime
//! objects built from them once per cold start ([`State`]); and what a
//! request says about where it came from (its id, the client's address,
//! the API's public address).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use ask_index::search::Retriever;
use ask_index::{Analyzer, Index};
use lambda_http::RequestExt;
use lambda_http::http::request::Parts;
use lambda_http::request::RequestContext;

use crate::answer;
use crate::config::Config;
use crate::protocol::Failure;
use crate::protocol::response::{Echo, Site, SitesDocument};
use crate::protocol::{AskRequest, wire};
use crate::rate_limit::RateLimiter;

/// Everything built once per cold start and shared by all requests: a
/// cheap handle ([`Clone`] copies a pointer) to the [`Shared`] parts, so the
/// router and each request hold the same state.
#[derive(Clone)]
pub struct State(Arc<Shared>);

impl std::ops::Deref for State {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What a [`State`] holds.
pub struct Shared {
    /// Validated settings.
    pub config: Config,
    /// The loaded index.
    pub index: Index,
    /// Per-client token buckets.
    pub limiter: Mutex<RateLimiter>,
    /// Seconds on a monotonic clock (injected so tests control time).
    pub clock: Box<dyn Fn() -> f64 + Send + Sync>,
    /// Base URL for result links: the config's, else the index's.
    pub base_url: String,
    /// What retrieves from the index: its analyzer, and the team's page
    /// weights (`ask.boost`), synonyms (`ask.synonyms`) and sentence model.
    pub retriever: Retriever,
    /// The product's name and description, from the docs' root page.
    pub product: (String, String),
    /// Who may ask (`ask.auth`).
    pub auth: crate::auth::Auth,
    /// Token buckets of authenticated callers, by subject.
    pub auth_limiter: Mutex<RateLimiter>,
    /// The MCP tools, built on the first `tools/list` and kept (their
    /// schemas are the costly part of them; the cold start does not pay).
    pub tools: std::sync::OnceLock<Vec<crate::protocol::mcp::Tool>>,
    /// The model that writes summaries (`ask.generator`); `None`: the
    /// extractive summarizer. [`State::new`] leaves it `None`:
    /// [`State::with_generator`] sets it.
    pub generator: Option<Box<dyn crate::generate::Generator>>,
    /// What the request parser allows, from the configuration.
    pub limits: crate::protocol::request::Limits,
    /// The analytics lines (`crate::analytics`).
    pub analytics: crate::analytics::Analytics,
    /// The `query_id`s this deployment issues and verifies.
    pub query_ids: crate::query_id::QueryIds,
    /// The ratings this environment has counted.
    pub ratings: crate::query_id::Ratings,
    /// The docs' sites (`ask.sites`; none: the index is one site).
    pub sites: crate::sites::Sites,
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
            page_weights: crate::built::boosts(&config).page_weights(&index),
            // Validated when the configuration was read.
            synonyms: ask_index::synonyms::Synonyms::new(&config.synonyms, &analyzer)
                .unwrap_or_default(),
            // Set by `with_hybrid` once the model is loaded.
            hybrid: None,
        };
        let product = ask_index::llms::product(&index);
        // The cold start refuses settings that do not name the index's
        // sites (`crate::sites::Sites::check`); a test's state reads the
        // index's own.
        let sites = crate::sites::Sites::new(&config, &index)
            .unwrap_or_else(|_| crate::sites::Sites::of_index(&index));
        let limits = crate::built::limits(&config);
        let config_log_queries = config.log_queries;
        State(Arc::new(Shared {
            tools: std::sync::OnceLock::new(),
            retriever: Retriever { analyzer, rules },
            auth,
            auth_limiter: Mutex::new(RateLimiter::new(
                config.auth_rate_limit_per_minute,
                crate::config::MAX_TRACKED_CLIENTS,
            )),
            product,
            limiter: Mutex::new(RateLimiter::new(
                config.rate_limit_per_minute,
                crate::config::MAX_TRACKED_CLIENTS,
            )),
            config,
            index,
            clock,
            base_url,
            generator: None,
            limits,
            analytics: crate::analytics::Analytics::new(config_log_queries),
            query_ids: crate::query_id::QueryIds::new(None),
            ratings: crate::query_id::Ratings::default(),
            sites,
        }))
    }

    /// The parts, while this handle is the only one (the builders below
    /// run before the state is shared).
    fn parts(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0).expect("a state is completed before it is shared")
    }

    /// This state ranking with the sentence model too (`ask.retriever:
    /// hybrid`; see [`crate::built::hybrid`]).
    pub fn with_hybrid(mut self, hybrid: ask_index::search::Hybrid) -> State {
        self.parts().retriever.rules.hybrid = Some(hybrid);
        self
    }

    /// This state keeping its analytics lines in memory
    /// ([`crate::analytics::Analytics::lines`]), for tests.
    pub fn with_analytics_in_memory(mut self) -> State {
        let log_queries = self.config.log_queries;
        self.parts().analytics = crate::analytics::Analytics::in_memory(log_queries);
        self
    }

    /// This state issuing `query_id`s under `secret`
    /// (`ASK_QUERY_ID_SECRET`; see `crate::query_id`).
    pub fn with_query_id_secret(mut self, secret: Option<&str>) -> State {
        self.parts().query_ids = crate::query_id::QueryIds::new(secret);
        self
    }

    /// This state with `generator` writing the summaries of
    /// `ask.generator_modes`.
    pub fn with_generator(mut self, generator: Box<dyn crate::generate::Generator>) -> State {
        self.parts().generator = Some(generator);
        self
    }
}

impl Shared {
    /// The answer to a parsed request: NO_RESULTS for a site not served
    /// here, else retrieval with `top_k` sections, then the summary.
    /// The deadline bounds the model's call (`crate::exchange::Deadline`).
    pub async fn answer(
        &self,
        req: &AskRequest,
        top_k: usize,
        deadline: Instant,
    ) -> Result<wire::Answer, Failure> {
        let found = self.find(req, top_k)?;
        Ok(self.summarize(found, req, deadline).await)
    }

    /// Retrieval alone: the items, before any summary is written.
    pub fn find(&self, req: &AskRequest, top_k: usize) -> Result<answer::Found, Failure> {
        let asked = self.asked(req.site.as_deref())?;
        let top_k = req.count.unwrap_or(top_k);
        answer::find(self.docs_for(&asked), req, top_k)
    }

    /// What a request's `site` asks ([`crate::sites::Sites::asked`]), or
    /// the failure that lists the sites served.
    pub fn asked(&self, site: Option<&str>) -> Result<crate::sites::Asked, Failure> {
        self.sites
            .asked(site, |name| self.is_whole(name))
            .map_err(|unknown| Failure::UnknownSite {
                site: unknown.join(","),
                served: self.site_names(),
            })
    }

    /// The names a request may send as `site` (besides `all`).
    pub fn site_names(&self) -> Vec<String> {
        if self.sites.names.is_empty() {
            vec![self.config.site.clone()]
        } else {
            self.sites.names.clone()
        }
    }

    /// The answer with its summary, in the modes that have one.
    pub async fn summarize(
        &self,
        found: answer::Found,
        req: &AskRequest,
        deadline: Instant,
    ) -> wire::Answer {
        let writer = answer::Writer {
            deadline: Some(deadline),
            ..self.writer(req)
        };
        answer::summarize(self.docs(), found, writer).await
    }

    /// What an answer is made from, over every page.
    pub fn docs(&self) -> answer::Docs<'_> {
        self.docs_for(&crate::sites::Asked::All)
    }

    /// What an answer is made from, over the pages `asked`.
    pub fn docs_for(&self, asked: &crate::sites::Asked) -> answer::Docs<'_> {
        answer::Docs {
            index: &self.index,
            retriever: &self.retriever,
            base_url: &self.base_url,
            sites: &self.sites,
            scope: asked.scope(),
        }
    }

    /// Who may write the summary of `req`'s answer.
    pub fn writer(&self, req: &AskRequest) -> answer::Writer<'_> {
        answer::Writer {
            model: self
                .generator
                .as_deref()
                .filter(|_| self.config.generator_modes.contains(&req.mode)),
            product: &self.product.0,
            summary: crate::summary::PARAMS,
            deadline: None,
        }
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

    /// Whether `site` names the whole index: `all`, the configured site
    /// name, or the docs base URL (with or without its scheme).
    pub fn is_whole(&self, site: &str) -> bool {
        let site = site.trim().trim_end_matches('/');
        let base = self.base_url.as_str();
        let host = base.split_once("://").map_or(base, |(_, rest)| rest);
        site.eq_ignore_ascii_case("all")
            || site.eq_ignore_ascii_case(&self.config.site)
            || site == base
            || site == host
    }

    /// The `/sites` document.
    pub fn sites_document(&self) -> SitesDocument {
        let (name, description) = self.product.clone();
        let site = |site: String, description: String, (pages, sections), default| Site {
            site,
            name: name.clone(),
            description,
            url: self.base_url.clone(),
            pages,
            sections,
            build_id: self.index.meta.build_id.clone(),
            built_at: self.index.meta.built_at.clone(),
            default,
        };
        let s = &self.sites;
        if s.names.is_empty() {
            let counts = (self.index.meta.pages, self.index.meta.sections);
            return SitesDocument::new(vec![site(
                self.config.site.clone(),
                description,
                counts,
                false,
            )]);
        }
        SitesDocument::new(
            (0..s.names.len())
                .map(|i| {
                    site(
                        s.names[i].clone(),
                        s.descriptions.get(i).cloned().unwrap_or_default(),
                        s.counts.get(i).copied().unwrap_or_default(),
                        s.default & (1 << i) != 0,
                    )
                })
                .collect(),
        )
    }

    /// A new `query_id` for an answer (`crate::query_id`).
    pub fn new_query_id(&self) -> String {
        self.query_ids.issue(crate::query_id::now())
    }
}

fn real_clock() -> Box<dyn Fn() -> f64 + Send + Sync> {
    let origin = Instant::now();
    Box::new(move || origin.elapsed().as_secs_f64())
}

/// API Gateway's id of the request.
pub fn request_id(req: &Parts) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(c) => c.request_id.clone(),
        RequestContext::ApiGatewayV2(c) => c.request_id.clone(),
        _ => None,
    }
}

/// The client's address from the request context, never from a header the
/// client controls. Behind an ALB the context has none, so the address ALB
/// appended to `X-Forwarded-For` (its last entry) is used.
pub fn source_ip(req: &Parts) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(c) => c.identity.source_ip.clone(),
        RequestContext::ApiGatewayV2(c) => c.http.source_ip.clone(),
        RequestContext::Alb(_) => req
            .headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(|s| s.trim().to_string()),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Where the API is, for self-links (llms.txt, the RFC 9728 metadata and
/// `WWW-Authenticate`, `/config`, `/who`): `ask.public_base_url`, else the
/// domain and stage API Gateway writes in the request context; never the
/// client's `Host` or `X-Forwarded-Proto`. Empty (relative links) when there
/// is neither, as behind an ALB.
pub fn api_base_url(state: &State, req: &Parts) -> String {
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
