//! The RFC 9728 protected-resource metadata (only when `ask.auth` is on).

use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

use crate::protocol::openapi::{self as oa, get_only, json};
use crate::reply;
use crate::state::{State, api_base_url};
use serde_json::Value;

/// GET the RFC 9728 metadata (served only when `ask.auth` is on).
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    reply::json(200, &resource_metadata(&state, &parts))
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

/// The OpenAPI path item.
pub fn fragment(p: &oa::Parts) -> Value {
    get_only(
        p,
        "RFC 9728 protected-resource metadata: the issuer and scope of the tokens /ask and /mcp take (404 while ask.auth is off)",
        json(
            "Protected-resource metadata",
            p.resource_metadata.clone(),
            &[],
        ),
    )
}
