//! One module per route, each answering only its own request; what every
//! route needs (the off switch, CORS, preflights, panics, authentication,
//! the rate limit, revalidation, the body limit, the response cap,
//! `X-Index`, `Server-Timing`) is a layer in `crate::layers`, applied
//! once by `crate::app`. The layers read what they need to know of a
//! route from [`ROUTES`].

use lambda_http::http::request::Parts;

use crate::state::State;

pub mod ask;
pub mod config;
pub mod discovery;
pub mod feedback;
pub mod llms;
pub mod mcp;
pub mod metadata;
pub mod openapi;
pub mod sites;
pub mod who;
pub mod widget;

/// The RFC 9728 protected-resource metadata path.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The strong validator of a request's answer, if it has one (the
/// function may leave what it read in the request's extensions for the
/// route).
pub type ValidatorFn = fn(&State, &mut Parts, &[u8]) -> Option<u64>;

/// What the layers know of a route.
pub struct Route {
    /// Its path, without the API Gateway stage.
    pub path: &'static str,
    /// The methods it takes, as an `Allow` header (preflights and 405s).
    pub methods: &'static str,
    /// It reveals the docs or the settings: `ask.auth` applies.
    pub guarded: bool,
    /// A request spends a token (the widget's script does not).
    pub charged: bool,
    /// Its GET answers carry an `ETag`, and a revalidation that names the
    /// current one gets 304 with no token spent.
    pub validator: Option<ValidatorFn>,
    /// The `Cache-Control` of its validated answers, whatever
    /// `ask.cache_max_age` says (`None`: that setting's).
    pub cache: Option<&'static str>,
    /// Any origin may read it (`Access-Control-Allow-Origin: *` whatever
    /// `ask.cors_allow_origins` says): the discovery documents, which the
    /// Server Card extension requires to be.
    pub any_origin: bool,
}

/// The routes served (docs/content/docs/api.mdx, Requests and Other routes).
pub const ROUTES: &[Route] = &[
    Route {
        path: "/ask",
        methods: "GET, POST, OPTIONS",
        guarded: true,
        charged: true,
        validator: Some(ask::validator as ValidatorFn),
        cache: None,
        any_origin: false,
    },
    Route {
        path: feedback::PATH,
        methods: "POST, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/mcp",
        methods: "POST, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/who",
        methods: "GET, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/sites",
        methods: "GET, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/config",
        methods: "GET, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/llms.txt",
        methods: "GET, OPTIONS",
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: "/openapi.json",
        methods: "GET, OPTIONS",
        guarded: false,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: RESOURCE_METADATA_PATH,
        methods: "GET, OPTIONS",
        guarded: false,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
    },
    Route {
        path: discovery::CARD_PATH,
        methods: "GET, OPTIONS",
        guarded: false,
        charged: true,
        validator: Some(discovery::card_validator as ValidatorFn),
        cache: Some(discovery::CACHE),
        any_origin: true,
    },
    Route {
        path: discovery::CATALOG_PATH,
        methods: "GET, OPTIONS",
        guarded: false,
        charged: true,
        validator: Some(discovery::catalog_validator as ValidatorFn),
        cache: Some(discovery::CACHE),
        any_origin: true,
    },
    Route {
        path: discovery::MCP_CATALOG_PATH,
        methods: "GET, OPTIONS",
        guarded: false,
        charged: true,
        validator: Some(discovery::catalog_validator as ValidatorFn),
        cache: Some(discovery::CACHE),
        any_origin: true,
    },
    Route {
        path: "/ask/widget.js",
        methods: "GET, OPTIONS",
        guarded: false,
        charged: false,
        validator: None,
        cache: None,
        any_origin: false,
    },
];

/// The route at `path` (stage and trailing slash already gone).
pub fn of(path: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.path == path)
}
