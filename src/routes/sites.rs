//! `/sites`: the sites this index serves.

use axum::extract::State as Ctx;
use axum::response::Response;

use crate::protocol::openapi::{Parts, get_protected, json};
use crate::reply;
use crate::state::State;
use serde_json::Value;

/// GET `/sites`.
pub async fn handle(Ctx(state): Ctx<State>) -> Response {
    reply::json(200, &state.sites_document())
}

/// The OpenAPI path item.
pub fn fragment(p: &Parts) -> Value {
    get_protected(
        p,
        "sites",
        "The sites this index serves: each one's name, description, page count and whether it is the default",
        json("Sites", p.sites.clone(), &[]),
        vec![],
        vec![],
    )
}
