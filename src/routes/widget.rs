//! `/ask/widget.js`: the embeddable `<nlweb-ask>` web component.

use axum::body::Body;
use axum::response::Response;

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
