//! `POST /ask/feedback`: a reader's rating of an answer (`up` or `down`,
//! with an optional comment), written as an analytics line tied to the
//! answer's `query_id` (`crate::analytics`). 204, or 400 with the failure
//! document when the body is not a JSON rating.

use axum::body::to_bytes;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;

use crate::analytics::Client;
use crate::protocol::Failure;
use crate::protocol::analytics::FeedbackRequest;
use crate::reply;
use crate::state::{State, request_id};

/// The route's path.
pub const PATH: &str = crate::protocol::analytics::FEEDBACK_PATH;

/// POST `/ask/feedback`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    // JSON only: another type is a "simple" request, which a page on any
    // origin could send without a preflight, past the CORS allow-list.
    let json = parts
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        let f =
            Failure::InvalidRequest("a rating is sent with Content-Type: application/json".into());
        return reply::failure(&f, None, &state.echo(None));
    }
    // The body limit layer has read it already: a copy in memory.
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    match FeedbackRequest::parse(&body) {
        Ok(rating) => {
            state
                .analytics
                .feedback(&Client::of(&parts.headers), request_id(&parts), &rating);
            reply::no_content()
        }
        Err(why) => reply::failure(&Failure::InvalidRequest(why), None, &state.echo(None)),
    }
}
