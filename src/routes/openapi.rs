//! `/openapi.json`: the OpenAPI 3.1 document, generated once per cold start.

use axum::response::Response;

use crate::protocol::openapi::{Parts, get_only, json, obj, s};
use crate::reply;
use serde_json::Value;

/// The document, generated once per cold start (`crate::app::router`
/// makes it before the first request).
pub static DOCUMENT: std::sync::LazyLock<serde_json::Value> =
    std::sync::LazyLock::new(super::openapi_document);

/// GET `/openapi.json`.
pub async fn handle() -> Response {
    let mut r = reply::json(200, &*DOCUMENT);
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
