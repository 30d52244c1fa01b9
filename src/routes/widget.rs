//! `/ask/widget.js`: the embeddable `<nlweb-ask>` web component.

use crate::protocol::openapi::{Parts, get_route, text};
use axum::body::Body;
use axum::response::Response;
use serde_json::Value;

/// The embeddable `<nlweb-ask>` web component (widget/nlweb-ask.js).
pub const WIDGET_JS: &str = include_str!("../../widget/nlweb-ask.js");

/// GET `/ask/widget.js`: a static file that every page view loads.
pub async fn handle() -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/javascript; charset=utf-8")
        .header("cache-control", "public, max-age=300")
        .body(Body::from(WIDGET_JS))
        .expect("valid response")
}

/// The OpenAPI path item.
pub fn fragment(p: &Parts) -> Value {
    get_route(
        p,
        "The <nlweb-ask> web component for docs sites (an ES module; no rate-limit token spent)",
        text("JavaScript", "text/javascript"),
        false,
    )
}
