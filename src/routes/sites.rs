//! `/sites`: the site this index serves.

use axum::extract::State as Ctx;
use axum::response::Response;

use crate::reply;
use crate::state::State;

/// GET `/sites`.
pub async fn handle(Ctx(state): Ctx<State>) -> Response {
    reply::json(200, &state.sites())
}
