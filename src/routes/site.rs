//! The site's other routes: `/sites`, `/llms.txt`, `/openapi.json`,
//! `/config`, the RFC 9728 metadata and the widget's script.

use axum::body::Body;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

use super::RESOURCE_METADATA_PATH;
use crate::protocol::response::ResponseFormat;
use crate::protocol::{self, Mode};
use crate::reply;
use crate::state::{State, api_base_url};

/// The embeddable `<nlweb-ask>` web component (widget/nlweb-ask.js).
pub const WIDGET_JS: &str = include_str!("../../widget/nlweb-ask.js");

/// GET `/sites`.
pub async fn sites(Ctx(state): Ctx<State>) -> Response {
    reply::json(200, &state.sites())
}

/// GET `/openapi.json`.
pub async fn openapi(Ctx(state): Ctx<State>) -> Response {
    let mut r = reply::json(200, &state.openapi);
    r.headers_mut()
        .insert("cache-control", "no-cache".parse().expect("header"));
    r
}

/// GET `/llms.txt`.
pub async fn llms_txt(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    Response::builder()
        .status(200)
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "no-cache")
        .body(Body::from(ask_index::llms::llms_txt(
            &state.index,
            &state.base_url,
            &api_base_url(&state, &parts),
        )))
        .expect("valid response")
}

/// GET `/config`.
pub async fn config(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    reply::json(200, &config_document(&state, &parts))
}

/// GET the RFC 9728 metadata (served only when `ask.auth` is on).
pub async fn metadata(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    reply::json(200, &resource_metadata(&state, &parts))
}

/// GET `/ask/widget.js`: a static file that every page view loads.
pub async fn widget() -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/javascript; charset=utf-8")
        .header("cache-control", "public, max-age=300")
        .body(Body::from(WIDGET_JS))
        .expect("valid response")
}

/// `GET /config`: the public settings (see
/// [`crate::protocol::settings::ConfigDocument`]).
fn config_document(state: &State, req: &Parts) -> crate::protocol::settings::ConfigDocument {
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

/// The protected-resource metadata document (RFC 9728).
fn resource_metadata(
    state: &State,
    req: &Parts,
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
