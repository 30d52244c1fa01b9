//! Replays every saved event in `events/` through the real handler, with the
//! index of this project's own docs, and checks each response against the
//! table in `events/README.md` (status, content type, failure code). SSE
//! bodies are read with the parser in `tests/support/sse.rs`, written apart
//! from the writer.

#[path = "../support/mod.rs"]
mod support;
#[path = "../support/state.rs"]
mod test_state;

mod answers;
mod caching;
mod rate_limit;
mod replay;

use lambda_http::{Body, Response};
use nlweb_ask::state::State;
use support::docs::{docs_index, repo};

pub(crate) fn state(enabled: bool) -> State {
    let extra = support::docs::events_env();
    let mut env: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let enabled = enabled.to_string();
    env.push(("ASK_ENABLED", &enabled));
    test_state::state(docs_index(), &env)
}

pub(crate) fn event(name: &str) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events").join(name)).unwrap();
    lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(crate) fn header<'a>(r: &'a Response<Body>, name: &str) -> Option<&'a str> {
    r.headers().get(name).and_then(|v| v.to_str().ok())
}

pub(crate) fn body_text(r: &Response<Body>) -> String {
    String::from_utf8(r.body().as_ref().to_vec()).unwrap()
}
