//! `POST /ask/feedback`: a reader's rating of an answer (`up` or `down`,
//! with an optional comment), written as an analytics line tied to the
//! answer's `query_id` (`crate::analytics`). Only an id this deployment
//! issued, within a day, counts, once per id and rating
//! (`crate::query_id`). 204, or 400 with the failure document when the
//! body is not a JSON rating or its id cannot be rated.

pub mod openapi;

use axum::body::to_bytes;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;

use crate::analytics::Client;
use crate::protocol::Failure;
use crate::protocol::analytics::FeedbackRequest;
use crate::query_id::{self, Unrated};
use crate::reply;
use crate::state::{State, request_id};

/// The route's path.
pub const PATH: &str = crate::protocol::analytics::FEEDBACK_PATH;

/// POST `/ask/feedback`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    // JSON only (the admit layer refuses another type with 415).
    let (parts, body) = req.into_parts();
    // The body limit layer has read it already: a copy in memory.
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let rating = match FeedbackRequest::parse(&body) {
        Ok(r) => r,
        Err(why) => return reply::failure(&Failure::InvalidRequest(why), None, &state.echo(None)),
    };
    match state.query_ids.verify(&rating.query_id, query_id::now()) {
        Ok(_) => {}
        Err(why) => {
            let f = Failure::InvalidRequest(match why {
                Unrated::NotIssued => "this query_id was not issued by this endpoint: rate an answer by the query_id it came with (an id the client chose cannot be rated)".into(),
                Unrated::Expired => format!(
                    "this answer is over {} hours old: it can no longer be rated",
                    query_id::RATING_WINDOW_SECS / 3600
                ),
            });
            return reply::failure(&f, None, &state.echo(None));
        }
    }
    // Once per answer and rating: a repeat is answered the same, and not
    // counted again.
    if state.ratings.first(&rating.query_id, rating.rating) {
        state
            .analytics
            .feedback(&Client::of(&parts.headers), request_id(&parts), &rating);
    }
    reply::no_content()
}
