//! `/config`: the public settings an agent needs to call the endpoint.

use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

use crate::protocol::openapi::{self as oa, get_protected, json};
use crate::protocol::paths::RESOURCE_METADATA_PATH;
use crate::protocol::response::ResponseFormat;
use crate::protocol::{self, Mode};
use crate::reply;
use crate::state::{State, api_base_url};
use serde_json::Value;

/// GET `/config`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    reply::json(200, &config_document(&state, &parts))
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
        sites: state.sites.names.clone(),
        default_site: state.sites.names_in(state.sites.default).into_iter().next(),
        modes: vec![Mode::List, Mode::Summarize, Mode::Generate],
        default_mode: c.default_mode,
        response_formats: vec![
            ResponseFormat::ConversationalSearch,
            ResponseFormat::ChatgptApp,
        ],
        default_streaming: c.default_streaming,
        limits: ConfigLimits {
            max_query_chars: small(c.max_query_chars),
            max_body_bytes: small(crate::config::MAX_BODY_BYTES),
            max_prev: small(crate::config::MAX_PREV),
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
            crate::config::Generator::Extractive => "extractive",
            crate::config::Generator::Bedrock => "bedrock",
        }
        .to_string(),
        endpoints: ConfigEndpoints {
            ask: at(crate::protocol::paths::NLWEB_ASK_PATH),
            who: at(crate::protocol::paths::WHO_PATH),
            mcp: at(crate::protocol::paths::MCP_PATH),
            sites: at(crate::protocol::paths::SITES_PATH),
            llms_txt: at(crate::protocol::paths::LLMS_PATH),
            openapi: at(crate::protocol::paths::OPENAPI_PATH),
        },
    }
}

/// The OpenAPI path item.
pub fn fragment(p: &oa::Parts) -> Value {
    get_protected(
        p,
        "config",
        "The public settings an agent may read: protocol version, the sites, modes, formats, limits, rate limit, auth, the endpoints",
        json("Settings", p.config.clone(), &[]),
        vec![],
        vec![],
    )
}
