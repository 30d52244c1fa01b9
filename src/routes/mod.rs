//! One module per route, each answering only its own request; what every
//! route needs (the off switch, CORS, preflights, panics, authentication,
//! the rate limit, revalidation, the body limit, the response cap,
//! `X-Index`, `Server-Timing`, the content type, `/mcp`'s `Origin`) is a
//! layer in `crate::layers`, applied once by `crate::app`. [`ROUTES`] is
//! the one list: the router is built from it, and the layers read what
//! they need to know of a route from it (a request whose route is not in
//! it is refused, never served without the guards).

use axum::routing::{MethodRouter, get, post};
use lambda_http::http::request::Parts;

use crate::protocol::openapi::Fragment;
use crate::state::State;

pub mod ask;
pub mod config;
pub mod discovery;
pub mod feedback;
pub mod llms;
pub mod mcp;
pub mod metadata;
pub mod openapi;
pub mod pages;
pub mod sites;
pub mod who;
pub mod widget;

pub use crate::protocol::paths::{
    CONFIG_PATH, LLMS_FULL_PATH, LLMS_PATH, MCP_PATH, NLWEB_ASK_PATH, OPENAPI_PATH, PAGES_PATH,
    RESOURCE_METADATA_PATH, SITES_PATH, WHO_PATH, WIDGET_PATH,
};

/// The validator of a GET's answer, if it has one (the function may leave
/// what it read in the request's extensions for the route, which then
/// does not read it again).
pub type ValidatorFn = fn(&State, &mut Parts) -> Option<u64>;

/// What the router and the layers know of a route.
pub struct Route {
    /// Its path, without the API Gateway stage.
    pub path: &'static str,
    /// The methods it takes, as an `Allow` header (preflights and 405s).
    pub methods: &'static str,
    /// Its handlers, one a method.
    pub serve: fn() -> MethodRouter<State>,
    /// Its OpenAPI path item (`/openapi.json` is these, in this order).
    pub openapi: Fragment,
    /// Served only when this says so of the state (`None`: always).
    pub when: Option<fn(&State) -> bool>,
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
    /// The request headers besides `Origin` that change its answers'
    /// bytes (`Vary`; `/ask`'s `Accept` chooses JSON or SSE).
    pub vary: Option<&'static str>,
    /// A request that carries `Origin` must come from one of
    /// `ask.mcp_allow_origins` (the MCP transport's DNS-rebinding rule).
    pub checks_origin: bool,
}

/// A public GET route with no validator: what most routes are.
const fn plain(path: &'static str, serve: fn() -> MethodRouter<State>, openapi: Fragment) -> Route {
    Route {
        path,
        methods: "GET, OPTIONS",
        serve,
        openapi,
        when: None,
        guarded: true,
        charged: true,
        validator: None,
        cache: None,
        any_origin: false,
        vary: None,
        checks_origin: false,
    }
}

/// A discovery document: public, validated, cached, open to any origin.
const fn discovery(
    path: &'static str,
    serve: fn() -> MethodRouter<State>,
    openapi: Fragment,
    validator: ValidatorFn,
) -> Route {
    Route {
        guarded: false,
        validator: Some(validator),
        cache: Some(discovery::CACHE),
        any_origin: true,
        ..plain(path, serve, openapi)
    }
}

/// The routes served (docs/content/docs/api.mdx, Requests and Other
/// routes): the router is built from this list and nothing else.
pub const ROUTES: &[Route] = &[
    Route {
        methods: "GET, POST, OPTIONS",
        validator: Some(ask::validator as ValidatorFn),
        vary: Some("Accept"),
        ..plain(
            NLWEB_ASK_PATH,
            || get(ask::handle).post(ask::handle),
            ask::openapi::fragment,
        )
    },
    Route {
        methods: "POST, OPTIONS",
        ..plain(
            feedback::PATH,
            || post(feedback::handle),
            feedback::openapi::fragment,
        )
    },
    Route {
        methods: "POST, OPTIONS",
        checks_origin: true,
        ..plain(MCP_PATH, || post(mcp::handle), mcp::openapi::fragment)
    },
    plain(WHO_PATH, || get(who::handle), who::fragment),
    plain(SITES_PATH, || get(sites::handle), sites::fragment),
    plain(CONFIG_PATH, || get(config::handle), config::fragment),
    plain(LLMS_PATH, || get(llms::handle), llms::fragment),
    Route {
        validator: Some(pages::full_validator as ValidatorFn),
        ..plain(LLMS_FULL_PATH, || get(pages::full), pages::full_fragment)
    },
    Route {
        validator: Some(pages::validator as ValidatorFn),
        ..plain(PAGES_PATH, || get(pages::handle), pages::fragment)
    },
    Route {
        guarded: false,
        ..plain(OPENAPI_PATH, || get(openapi::handle), openapi::fragment)
    },
    // The metadata exists only when tokens are read.
    Route {
        guarded: false,
        when: Some(|s: &State| s.auth.mode() != crate::auth::Mode::Off),
        ..plain(
            RESOURCE_METADATA_PATH,
            || get(metadata::handle),
            metadata::fragment,
        )
    },
    discovery(
        discovery::CARD_PATH,
        || get(discovery::card_handle),
        discovery::card_fragment,
        discovery::card_validator,
    ),
    discovery(
        discovery::CATALOG_PATH,
        || get(discovery::catalog_handle),
        discovery::catalog_fragment,
        discovery::catalog_validator,
    ),
    discovery(
        discovery::MCP_CATALOG_PATH,
        || get(discovery::catalog_handle),
        discovery::mcp_catalog_fragment,
        discovery::catalog_validator,
    ),
    Route {
        guarded: false,
        charged: false,
        ..plain(WIDGET_PATH, || get(widget::handle), widget::fragment)
    },
];

/// The route at `path` (stage and trailing slash already gone): the one
/// whose path it is, or whose pattern (`/pages/{*page}`) it matches.
pub fn of(path: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.path == path).or_else(|| {
        ROUTES.iter().find(|r| {
            r.path
                .split_once("{*")
                .is_some_and(|(prefix, _)| path.len() > prefix.len() && path.starts_with(prefix))
        })
    })
}

/// The OpenAPI document of every route in [`ROUTES`] (the RFC 9728
/// metadata among them, which is served only while `ask.auth` is on).
pub fn openapi_document() -> serde_json::Value {
    crate::protocol::openapi::document(ROUTES.iter().map(|r| (r.path, r.openapi)))
}

/// The routes `state` serves: [`ROUTES`], less those whose `when` says no.
pub fn served(state: &State) -> impl Iterator<Item = &'static Route> + '_ {
    ROUTES
        .iter()
        .filter(move |r| r.when.is_none_or(|when| when(state)))
}
