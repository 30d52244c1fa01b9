//! How a document becomes an HTTP response: JSON with its status, an SSE
//! body, the bare 404 of the off switch, and the one place where a
//! [`Failure`] becomes a response (an NLWeb failure document, or on `/mcp`
//! a JSON-RPC error) with the status and headers it calls for.

use axum::body::Body;
use axum::response::Response;
use lambda_http::http::HeaderValue;

use crate::mcp;
use crate::protocol::response::{Echo, NotFound};
use crate::protocol::{Failure, FailureDocument};

/// The `/mcp` path: its failures are JSON-RPC errors.
pub use crate::protocol::paths::MCP_PATH;

/// The 404 of an unknown path and of every path when `ask.enabled` is
/// false.
pub fn not_found() -> Response {
    let body = serde_json::to_string(&NotFound::default()).unwrap_or_default();
    Response::builder()
        .status(404)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("valid response")
}

/// `doc` as JSON with `status`, never cached.
pub fn json(status: u16, doc: &impl serde::Serialize) -> Response {
    // The protocol types hold nothing that fails to serialize.
    let body = serde_json::to_string(doc).unwrap_or_default();
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        .body(Body::from(body))
        .expect("valid response")
}

/// 204 with no body, never cached.
pub fn no_content() -> Response {
    Response::builder()
        .status(204)
        .header("cache-control", "no-store")
        .body(Body::empty())
        .expect("valid response")
}

/// A whole SSE body, sent at once (the buffered transport).
pub fn sse(body: String) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from(body))
        .expect("valid response")
}

/// A failure as its document, its status and the headers it calls for.
pub fn failure(f: &Failure, query_id: Option<&str>, echo: &Echo) -> Response {
    let mut r = json(f.status(), &FailureDocument::new(f, query_id, echo));
    for (name, value) in f.headers() {
        if let Ok(v) = value.parse() {
            r.headers_mut().insert(name, v);
        }
    }
    r
}

/// A failure of a request to `path`: on `/mcp` a JSON-RPC error, else the
/// NLWeb failure document.
pub fn failure_at(path: &str, f: &Failure, echo: &Echo) -> Response {
    if path == MCP_PATH {
        self::mcp(mcp::failure_reply(f, echo))
    } else {
        failure(f, None, echo)
    }
}

/// The HTTP response of an `/mcp` exchange.
pub fn mcp(reply: mcp::Reply) -> Response {
    let mut builder = Response::builder()
        .status(reply.status)
        .header("cache-control", "no-store");
    if reply.body.is_some() {
        builder = builder.header("content-type", "application/json");
    }
    for (name, value) in &reply.headers {
        // A value that is not a valid header is left out, never a panic.
        if let Ok(v) = HeaderValue::from_str(value) {
            builder = builder.header(*name, v);
        }
    }
    builder
        .body(reply.body.map(Body::from).unwrap_or_else(Body::empty))
        .unwrap_or_else(|_| not_found())
}
