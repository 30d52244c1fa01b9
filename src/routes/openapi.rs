//! `/openapi.json`: the OpenAPI 3.1 document, generated once per cold start.

use axum::extract::State as Ctx;
use axum::response::Response;

use crate::protocol::openapi::{Parts, get_only, json, obj, s};
use crate::reply;
use crate::state::State;
use serde_json::Value;

/// GET `/openapi.json`.
pub async fn handle(Ctx(state): Ctx<State>) -> Response {
    let mut r = reply::json(200, &state.openapi);
    r.headers_mut()
        .insert("cache-control", "no-cache".parse().expect("header"));
    r
}

/// The OpenAPI path item.
pub fn fragment(p: &Parts) -> Value {
    get_only(
        p,
        "This document",
        json("OpenAPI 3.1", obj(&[("type", s("object"))]), &[]),
    )
}
