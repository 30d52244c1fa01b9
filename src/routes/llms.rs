//! `/llms.txt`: the docs' pages for language models, and where to ask.

use axum::body::Body;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;

use crate::protocol::openapi::{Parts, get_protected, text};
use crate::state::{State, api_base_url};
use serde_json::Value;

/// GET `/llms.txt`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
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

/// The OpenAPI path item.
pub fn fragment(p: &Parts) -> Value {
    get_protected(
        p,
        "llmsTxt",
        "The docs' page list and these endpoints, in the llms.txt format, from the index",
        text("llms.txt", "text/plain"),
        vec![],
        vec![],
    )
}
