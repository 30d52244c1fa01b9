//! `/ask`: the NLWeb question, answered as JSON or SSE.

pub mod openapi;

use std::time::Instant;

use axum::body::to_bytes;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::RequestExt;
use lambda_http::http::request::Parts;
use tracing::Instrument;

use crate::analytics::{Client, Query};
use crate::config::Transport;
use crate::exchange;
use crate::protocol::response::Echo;
use crate::protocol::{self, AskRequest, Failure, RawRequest, wire};
use crate::reply;
use crate::state::{State, request_id};

/// GET or POST `/ask`.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    // A GET was parsed by its validator (the revalidation layer).
    let parsed = match parts.extensions.remove::<Parsed>() {
        Some(Parsed(p)) => Ok(p),
        None => {
            // The body limit layer has read it already: a copy in memory.
            let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
            protocol::parse(&raw_request(&parts, &body), &state.limits)
        }
    };
    answer(&state, &parts, parsed).await
}

/// The validator of a GET answer: a hash of the index build, this
/// binary's version and the normalised request. A GET answer is a pure
/// function of these but for its `query_id` (one issued per answer), so
/// its `ETag` is weak: equal tags mean the same answer. `None` for a POST
/// or a request that does not parse.
/// The parsed request stays in the extensions for the route.
pub fn validator(state: &State, parts: &mut Parts) -> Option<u64> {
    // A GET has no body (the admit layer refuses one).
    let parsed = protocol::parse(&raw_request(parts, &[]), &state.limits).ok()?;
    let hash = etag_hash(state, &parsed);
    parts.extensions.insert(Parsed(parsed));
    Some(hash)
}

/// A GET request as its validator parsed it.
#[derive(Clone)]
struct Parsed(AskRequest);

fn etag_hash(state: &State, parsed: &AskRequest) -> u64 {
    // The rate limit's text is in the answer (its older in-band headers).
    // And the transport: a streamed answer's events name its writer
    // differently.
    let key = format!(
        "{}\n{}\n{}\n{:?}\n{parsed:?}",
        state.index.meta.build_id,
        env!("CARGO_PKG_VERSION"),
        state.config.rate_limit_per_minute,
        state.config.transport
    );
    ask_index::index::fnv1a64(key.as_bytes(), 0x6574_6167)
}

/// The raw `/ask` request: URL parameters, `Accept`, body.
fn raw_request<'a>(parts: &'a Parts, body: &'a [u8]) -> RawRequest<'a> {
    let params: Vec<(String, String)> = parts
        .query_string_parameters_ref()
        .map(|q| {
            q.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    RawRequest {
        params,
        accept: parts.headers.get("accept").and_then(|v| v.to_str().ok()),
        body,
    }
}

async fn answer(state: &State, parts: &Parts, parsed: Result<AskRequest, Failure>) -> Response {
    let started = exchange::started(parts);
    let parsed = match parsed {
        Ok(p) => p,
        Err(f) => {
            tracing::info!(
                code = f.code().as_str(),
                status = f.status(),
                "rejected request"
            );
            return reply::failure(&f, None, &state.echo(None));
        }
    };
    let echo = state.echo(Some(&parsed));
    // The client's own id is echoed (and never rated); else one issued
    // for this answer alone.
    let client_query_id = parsed.query_id.is_some();
    let query_id = parsed
        .query_id
        .clone()
        .unwrap_or_else(|| state.new_query_id());
    if parsed.streaming && state.config.transport == Transport::Streaming {
        return stream(
            state.clone(),
            parts,
            parsed,
            (query_id, client_query_id),
            echo,
            started,
        );
    }
    let t = Instant::now();
    let result = state
        .answer(&parsed, state.config.top_k, exchange::deadline(parts))
        .await;
    let search_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut resp = match (&result, parsed.streaming) {
        (Ok(a), false) => reply::json(200, &wire::answer_document(a, &query_id, &echo)),
        (Ok(a), true) => reply::sse(wire::answer_stream(a, &query_id, &echo)),
        (Err(f), false) => reply::failure(f, Some(&query_id), &echo),
        (Err(f), true) => reply::sse(wire::failure_stream(f, &query_id, &echo)),
    };
    tracing::info!(
        query_id = %query_id,
        mode = parsed.mode.as_str(),
        streaming = parsed.streaming,
        results = result.as_ref().map(|a| a.items.len()).unwrap_or(0),
        search_ms,
        total_ms = started.elapsed().as_secs_f64() * 1e3,
        "answered"
    );
    record(
        state,
        parts,
        &parsed,
        (&query_id, client_query_id),
        result.as_ref(),
        started,
    );
    // The timing layer adds the total.
    if let Ok(v) = format!("search;dur={search_ms:.3}").parse() {
        resp.headers_mut().insert("server-timing", v);
    }
    resp
}

/// An SSE answer sent as it is written (`ask.transport: streaming`):
/// `start` and a `result` per section as soon as retrieval is done, then
/// the summary's `result` when it is written (by the model, whose text is
/// checked whole before it is sent), then `complete`.
fn stream(
    state: State,
    parts: &Parts,
    parsed: AskRequest,
    (query_id, client_query_id): (String, bool),
    echo: Echo,
    started: Instant,
) -> Response {
    use futures_util::StreamExt;
    let t = Instant::now();
    let found = match state.find(&parsed, state.config.top_k) {
        Ok(f) => f,
        Err(f) => {
            record(
                &state,
                parts,
                &parsed,
                (&query_id, client_query_id),
                Err(&f),
                started,
            );
            return reply::sse(wire::failure_stream(&f, &query_id, &echo));
        }
    };
    record(
        &state,
        parts,
        &parsed,
        (&query_id, client_query_id),
        Ok(&found.answer),
        started,
    );
    let search_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut so_far = found.answer.clone();
    so_far.generator = found.writer(state.writer(&parsed));
    let head = wire::stream_head(&so_far, &query_id, &echo);
    tracing::info!(
        query_id = %query_id,
        mode = parsed.mode.as_str(),
        streaming = true,
        results = so_far.items.len(),
        search_ms,
        total_ms = started.elapsed().as_secs_f64() * 1e3,
        "answered, the summary to follow"
    );
    let sent = so_far.items.len();
    let deadline = exchange::deadline(parts);
    let tail = async move {
        use futures_util::FutureExt;
        let t = Instant::now();
        // The body is polled after the response has left the layers: its
        // own panic guard, and the request's span for its logs.
        let written = std::panic::AssertUnwindSafe(state.summarize(found, &parsed, deadline))
            .catch_unwind()
            .await;
        let tail = match written {
            Ok(answer) => {
                tracing::info!(
                    query_id = %query_id,
                    generator = answer.generator.as_ref().map_or("", |g| g.name.as_str()),
                    fallback = ?answer.generator.as_ref().and_then(|g| g.fallback),
                    summary_ms = t.elapsed().as_secs_f64() * 1e3,
                    "streamed the summary"
                );
                wire::stream_tail(&answer, &query_id, &echo, answer.generator.as_ref())
            }
            Err(_) => {
                tracing::error!(query_id = %query_id, "panic while writing a streamed summary");
                wire::stream_error_tail(&Failure::InternalError, &query_id, &echo, sent)
            }
        };
        Ok::<_, std::convert::Infallible>(bytes::Bytes::from(tail))
    }
    .instrument(tracing::Span::current());
    let body = futures_util::stream::once(std::future::ready(Ok(bytes::Bytes::from(head))))
        .chain(futures_util::stream::once(tail));
    let mut resp = Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(axum::body::Body::from_stream(body))
        .expect("valid response");
    if let Ok(v) = format!("search;dur={search_ms:.3}").parse() {
        resp.headers_mut().insert("server-timing", v);
    }
    resp
}

/// The analytics line of a question (`crate::analytics`).
fn record(
    state: &State,
    parts: &Parts,
    parsed: &AskRequest,
    (query_id, client_query_id): (&str, bool),
    result: Result<&wire::Answer, &Failure>,
    started: Instant,
) {
    state.analytics.query(&Query {
        route: crate::protocol::paths::NLWEB_ASK_PATH,
        client: Client::of(&parts.headers),
        request_id: request_id(parts),
        query_id,
        client_query_id,
        request: parsed,
        result,
        latency_ms: started.elapsed().as_secs_f64() * 1e3,
        cold_start: exchange::cold_start(parts),
    });
}
