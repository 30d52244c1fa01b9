//! The one HTTP service the Lambda runs: an `axum::Router` of the routes
//! (`crate::routes`), with the layers of `crate::layers` applied here, in
//! one place. A path the router does not know is the NLWeb 404 document
//! (its fallback); a method a route does not take is the 405 document with
//! `Allow` (its method fallback). Neither costs a token.

use axum::Router;
use axum::extract::Request;
use axum::middleware::from_fn_with_state;
use axum::response::Response;
use lambda_http::RequestExt;
use lambda_http::http::Uri;
use tower::ServiceBuilder;
use tower::util::{MapRequestLayer, MapResponseLayer};
use tower_http::catch_panic::CatchPanicLayer;

use crate::layers;
use crate::protocol::Failure;
use crate::reply;
use crate::routes;
use crate::state::State;

/// The service: requests with the API Gateway stage taken off their path
/// (and a trailing `/`), then the router; `Allow` only on a 405.
pub type Service = tower::util::MapResponse<
    tower::util::MapRequest<Router, fn(lambda_http::Request) -> lambda_http::Request>,
    fn(Response) -> Response,
>;

/// The routes and their layers over `state`.
pub fn router(state: State) -> Router {
    let mut router = Router::new();
    for route in routes::served(&state) {
        router = router.route(route.path, (route.serve)());
    }
    layered(router, state)
}

/// `router`'s routes with the layers over `state`: a route that is not in
/// `crate::routes::ROUTES` is refused by the first of them (public so
/// that a test can try one).
pub fn layered(router: Router<State>, state: State) -> Router {
    let panic_state = state.clone();
    // The OpenAPI document of the table, made once (it does not change
    // while the binary runs).
    static OPENAPI: std::sync::OnceLock<std::sync::Arc<serde_json::Value>> =
        std::sync::OnceLock::new();
    let mut openapi = OPENAPI
        .get_or_init(|| std::sync::Arc::new(routes::openapi_document()))
        .clone();
    // With `ask.sites`, the `site` parameters name them.
    if !state.sites.names.is_empty() {
        openapi = std::sync::Arc::new(crate::protocol::openapi::with_sites(
            &openapi,
            &state.sites.names,
        ));
    }
    router
        .layer(axum::Extension(routes::openapi::Document(openapi)))
        .route_layer(
            ServiceBuilder::new()
                .layer(from_fn_with_state(state.clone(), layers::admit))
                .layer(from_fn_with_state(state.clone(), layers::authenticate))
                .layer(from_fn_with_state(state.clone(), layers::revalidate))
                .layer(from_fn_with_state(state.clone(), layers::rate_limit))
                .layer(from_fn_with_state(state.clone(), layers::body_limit)),
        )
        // After route_layer, so that it replaces the route's default 405
        // (which route_layer wraps): a 405 is neither authenticated nor
        // charged.
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(|| async { reply::not_found() })
        .layer(
            ServiceBuilder::new()
                .layer(from_fn_with_state(state.clone(), layers::off_switch))
                .layer(from_fn_with_state(state.clone(), layers::refetch_keys))
                .layer(from_fn_with_state(state.clone(), layers::stamp))
                .layer(from_fn_with_state(state.clone(), layers::cors))
                .layer(from_fn_with_state(state.clone(), layers::cap))
                .layer(from_fn_with_state(state.clone(), layers::unreadable))
                .layer(from_fn_with_state(state.clone(), layers::preflight))
                .layer(CatchPanicLayer::custom(move |_| {
                    tracing::error!("panic while answering a request");
                    reply::failure(&Failure::InternalError, None, &panic_state.echo(None))
                })),
        )
        .with_state(state)
}

/// The paths of the route table as OpenAPI writes them (the RFC 9728
/// metadata among them, which is served only while `ask.auth` is on).
pub fn paths() -> Vec<String> {
    crate::routes::ROUTES
        .iter()
        .map(|r| crate::protocol::openapi::path_of(r.path))
        .collect()
}

/// The whole service over `state`.
pub fn service(state: State) -> Service {
    ServiceBuilder::new()
        .layer(MapResponseLayer::new(
            allow_on_405_only as fn(Response) -> Response,
        ))
        .layer(MapRequestLayer::new(
            without_stage as fn(lambda_http::Request) -> lambda_http::Request,
        ))
        .service(router(state))
}

/// axum's method router adds `Allow` to whatever answers a method it has
/// no handler for (a preflight, the off switch's 404); the API sends it on
/// a 405 alone (with the route's own list).
fn allow_on_405_only(mut resp: Response) -> Response {
    if resp.status() != 405 {
        resp.headers_mut().remove("allow");
    }
    resp
}

/// The 405 document, with the route's `Allow`.
async fn method_not_allowed(
    axum::extract::State(state): axum::extract::State<State>,
    req: Request,
) -> Response {
    let path = req.uri().path().to_string();
    match routes::of(&path) {
        Some(route) => layers::not_allowed(&state, route, req.method()),
        None => reply::not_found(),
    }
}

/// The request with the path routes are matched on: without the API
/// Gateway stage, and without a trailing `/`.
fn without_stage(mut req: lambda_http::Request) -> lambda_http::Request {
    let raw = req.raw_http_path();
    let path = if raw.is_empty() {
        req.uri().path()
    } else {
        raw
    };
    let trimmed = path.trim_end_matches('/');
    let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
    if trimmed == req.uri().path() {
        return req;
    }
    let uri = match req.uri().query() {
        Some(q) => format!("{trimmed}?{q}"),
        None => trimmed.to_string(),
    };
    // A path that is not a valid URI path stays as it came (and is not
    // a route).
    if let Ok(uri) = uri.parse::<Uri>() {
        *req.uri_mut() = uri;
    }
    req
}

/// Replays one request through the service and gives the response as
/// `lambda_http` would send it: what the tests call.
pub async fn replay(
    state: &State,
    req: &lambda_http::Request,
) -> lambda_http::Response<lambda_http::Body> {
    replay_on(service(state.clone()), req).await
}

/// [`replay`] on a service built once (what the benches call: the Lambda
/// builds its service once per cold start).
pub async fn replay_on(
    service: Service,
    req: &lambda_http::Request,
) -> lambda_http::Response<lambda_http::Body> {
    use tower::ServiceExt;
    let resp: Response = match service.oneshot(copy(req)).await {
        Ok(r) => r,
        Err(e) => match e {},
    };
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let body = if bytes.is_empty() {
        lambda_http::Body::Empty
    } else {
        match String::from_utf8(bytes.to_vec()) {
            Ok(s) => lambda_http::Body::Text(s),
            Err(e) => lambda_http::Body::Binary(e.into_bytes()),
        }
    };
    lambda_http::Response::from_parts(parts, body)
}

thread_local! {
    /// The runtime [`respond`] and [`respond_on`] block on.
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
}

/// [`replay`] on a current-thread runtime of this thread's own (not from
/// inside another runtime: await [`replay`] there).
pub fn respond(
    state: &State,
    req: &lambda_http::Request,
) -> lambda_http::Response<lambda_http::Body> {
    RUNTIME.with(|rt| rt.block_on(replay(state, req)))
}

/// [`replay_on`] on this thread's runtime, as [`respond`] does.
pub fn respond_on(
    service: &Service,
    req: &lambda_http::Request,
) -> lambda_http::Response<lambda_http::Body> {
    RUNTIME.with(|rt| rt.block_on(replay_on(service.clone(), req)))
}

/// A copy of a request (its body, headers and extensions: the request
/// context, the query string parameters).
fn copy(req: &lambda_http::Request) -> lambda_http::Request {
    let body = match req.body() {
        lambda_http::Body::Text(s) => lambda_http::Body::Text(s.clone()),
        lambda_http::Body::Binary(b) => lambda_http::Body::Binary(b.clone()),
        _ => lambda_http::Body::Empty,
    };
    let mut copy = lambda_http::Request::new(body);
    *copy.method_mut() = req.method().clone();
    *copy.uri_mut() = req.uri().clone();
    *copy.version_mut() = req.version();
    *copy.headers_mut() = req.headers().clone();
    *copy.extensions_mut() = req.extensions().clone();
    copy
}
