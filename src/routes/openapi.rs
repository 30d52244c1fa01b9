//! `/openapi.json`: the OpenAPI 3.1 document, generated once per cold start.

use axum::Extension;
use axum::response::Response;

use crate::protocol::openapi::{Parts, get_only, json, obj, s};
use crate::reply;
use serde_json::Value;

/// The document (`super::openapi_document`), made once per cold start by
/// `crate::app`, which hands it to this route as a request extension.
#[derive(Clone)]
pub struct Document(pub std::sync::Arc<Value>);

/// GET `/openapi.json`.
pub async fn handle(Extension(Document(doc)): Extension<Document>) -> Response {
    let mut r = reply::json(200, &*doc);
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
