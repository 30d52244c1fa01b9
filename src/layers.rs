//! What every route gets, each written once as a middleware function and
//! applied by `crate::app` in one place, so that no route can forget one.
//! The order (outermost first) is the order of this file:
//!
//! - on every request, routed or not: [`off_switch`], [`refetch_keys`],
//!   [`stamp`] (`X-Index`, `Server-Timing`, the default `RateLimit-Policy`,
//!   `Cache-Control: private` for a request with a token, the request id
//!   in the logs), [`cors`], [`cap`] (`ask.max_response_bytes`; the
//!   failure that replaces an answer gets CORS like any response),
//!   [`unreadable`], [`preflight`], then a panic → `INTERNAL_ERROR`
//!   (tower-http's `CatchPanicLayer`, in `crate::app`);
//! - on a routed request with an allowed method (a 404 or 405 from the
//!   router's fallbacks costs nothing): [`admit`] (the route in the
//!   table, a JSON POST, a GET without a body, `/mcp`'s `Origin`),
//!   [`authenticate`], [`revalidate`], [`rate_limit`], [`body_limit`].

use std::time::Instant;

use axum::body::{Body, HttpBody, to_bytes};
use axum::extract::{MatchedPath, Request, State as Ctx};
use axum::middleware::Next;
use axum::response::Response;
use lambda_http::RequestExt;
use lambda_http::http::request::Parts;
use lambda_http::http::{HeaderMap, HeaderValue, Method};
use tracing::Instrument;

use crate::auth::{Caller, Denied};
use crate::exchange::{ColdStart, Meter, Started, Validator};
use crate::protocol::Failure;
use crate::rate_limit::ClientKey;
use crate::reply;
use crate::routes::{self, RESOURCE_METADATA_PATH, Route};
use crate::state::{State, api_base_url, request_id, source_ip};

/// `ask.enabled: false`: every path is a bare 404.
pub async fn off_switch(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    if !state.config.enabled {
        return reply::not_found();
    }
    next.run(req).await
}

/// After the answer, before it is handed back: a token that named an
/// unknown key asked for the JWKS again (a task left running would freeze
/// with the Lambda environment).
pub async fn refetch_keys(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    state.auth.refetch_if_wanted().await;
    resp
}

/// The headers every response carries, and the request's span in the logs.
pub async fn stamp(Ctx(state): Ctx<State>, mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    req.extensions_mut().insert(Started(started));
    // What is left of the invocation, from Lambda's own deadline.
    let remaining = req.lambda_context_ref().and_then(|c| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_millis() as u64;
        Some(std::time::Duration::from_millis(
            c.deadline.checked_sub(now)?,
        ))
    });
    req.extensions_mut()
        .insert(crate::exchange::deadline_of(started, remaining));
    req.extensions_mut()
        .insert(ColdStart(state.analytics.first_request()));
    let with_token = req.headers().contains_key("authorization");
    let (parts, body) = req.into_parts();
    let span = tracing::info_span!(
        "request",
        request_id = request_id(&parts).unwrap_or_default()
    );
    let mut resp = next
        .run(Request::from_parts(parts, body))
        .instrument(span)
        .await;
    if with_token {
        private(resp.headers_mut());
    }
    let h = resp.headers_mut();
    if let Ok(v) = format!(
        "build-id={}; built-at={}",
        state.index.meta.build_id, state.index.meta.built_at
    )
    .parse()
    {
        h.insert("x-index", v);
    }
    if !h.contains_key("ratelimit-policy")
        && let Ok(v) = format!("\"default\";q={};w=60", state.config.rate_limit_per_minute).parse()
    {
        h.insert("ratelimit-policy", v);
    }
    let total = started.elapsed().as_secs_f64() * 1e3;
    let timing = match h.get("server-timing").and_then(|v| v.to_str().ok()) {
        Some(route) => format!("{route}, total;dur={total:.3}"),
        None => format!("total;dur={total:.3}"),
    };
    if let Ok(v) = timing.parse() {
        h.insert("server-timing", v);
    }
    resp
}

/// An answer to a request that carried a token is for that caller alone:
/// no shared cache may keep it.
fn private(h: &mut HeaderMap) {
    let cc = h
        .get("cache-control")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let cc = if cc.is_empty() {
        "private".to_string()
    } else if cc.contains("public") {
        cc.replace("public", "private")
    } else if cc.contains("private") {
        cc.to_string()
    } else {
        format!("private, {cc}")
    };
    if let Ok(v) = cc.parse() {
        h.insert("cache-control", v);
    }
}

/// An answer over `ask.max_response_bytes` is not sent: the failure that
/// says so takes its place (a JSON-RPC error on `/mcp`), with the
/// `RateLimit` headers of what it cost. A streamed answer (a body of no
/// known length) is sent as it is written, uncapped: its items are those
/// of the same answer sent whole.
pub async fn cap(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let resp = next.run(req).await;
    let limit = state.config.max_response_bytes;
    match resp.body().size_hint().exact() {
        None => return resp,
        Some(n) if n <= limit as u64 => return resp,
        Some(_) => {}
    }
    let (parts, body) = resp.into_parts();
    let bytes = match to_bytes(body, usize::MAX).await {
        Ok(b) => b,
        Err(_) => return reply::failure(&Failure::InternalError, None, &state.echo(None)),
    };
    if bytes.len() <= limit {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let f = Failure::AnswerTooLarge {
        bytes: bytes.len(),
        limit,
    };
    tracing::warn!(bytes = bytes.len(), limit, route = %path, "answer over the cap");
    let mut failure = reply::failure_at(&path, &f, &state.echo(None));
    // The tokens it cost are still what they were.
    for name in ["ratelimit", "ratelimit-policy"] {
        if let Some(v) = parts.headers.get(name).cloned() {
            failure.headers_mut().insert(name, v);
        }
    }
    failure
}

/// CORS on every response: `Access-Control-Allow-Origin` for `*` or an
/// origin on `ask.cors_allow_origins` (with `Vary: Origin` under an
/// allow-list, whether or not this one is on it; `*` always on a route
/// open to any origin), and the headers a page may read.
pub async fn cors(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let origin = req.headers().get("origin").cloned();
    let route = routes::of(req.uri().path());
    let open = route.is_some_and(|r| r.any_origin);
    let mut resp = next.run(req).await;
    // A route that checks `Origin` is read by the pages it allows, never
    // by any page.
    let origins = match route {
        Some(r) if r.checks_origin => &state.config.mcp_allow_origins,
        _ => &state.config.cors_allow_origins,
    };
    let any = open || (origins.iter().any(|o| o == "*") && !route.is_some_and(|r| r.checks_origin));
    let h = resp.headers_mut();
    let allow = if any {
        Some(HeaderValue::from_static("*"))
    } else {
        origin.filter(|o| o.to_str().is_ok_and(|o| origins.iter().any(|a| a == o)))
    };
    if !any {
        vary(h, "Origin");
    }
    if let Some(a) = allow {
        h.insert("access-control-allow-origin", a);
    }
    h.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(
            "RateLimit, RateLimit-Policy, Retry-After, Server-Timing, ETag, X-Index, WWW-Authenticate",
        ),
    );
    resp
}

/// Adds `name` to the response's one `Vary` header.
fn vary(h: &mut HeaderMap, name: &'static str) {
    let v = match h.get("vary").and_then(|v| v.to_str().ok()) {
        Some(old) if !old.is_empty() => format!("{old}, {name}"),
        _ => name.to_string(),
    };
    if let Ok(v) = HeaderValue::from_str(&v) {
        h.insert("vary", v);
    }
}

/// An event whose URL `lambda_http` could not read (`crate::event`): 400.
pub async fn unreadable(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    if req.headers().contains_key(crate::event::UNREADABLE) {
        let f = Failure::InvalidRequest(
            "the request's Host, X-Forwarded-Proto or query string cannot be read as a URL".into(),
        );
        return reply::failure(&f, None, &state.echo(None));
    }
    next.run(req).await
}

/// A CORS preflight of a route: 204 with the route's methods, no token.
/// A `HEAD`, which the router would serve as a `GET` without its body, is
/// the 405 of any method a route does not take.
pub async fn preflight(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let Some(route) = matched(&req) else {
        return next.run(req).await;
    };
    if req.method() == Method::HEAD {
        return not_allowed(&state, route, req.method());
    }
    if req.method() != Method::OPTIONS {
        return next.run(req).await;
    }
    Response::builder()
        .status(204)
        .header("access-control-allow-methods", route.methods)
        .header(
            "access-control-allow-headers",
            "content-type, accept, authorization, if-none-match, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, x-ask-client",
        )
        .header("access-control-max-age", "86400")
        .body(Body::empty())
        .expect("valid response")
}

/// The 405 document of `method` on `route`, with its `Allow`.
pub fn not_allowed(state: &State, route: &Route, method: &Method) -> Response {
    let f = Failure::MethodNotAllowed {
        method: method.as_str().to_string(),
        path: route.path,
        allow: route.methods,
    };
    reply::failure(&f, None, &state.echo(None))
}

/// The route of the path the router matched, looked up in the table
/// (`None`: a fallback, or a route that is not in the table): what the
/// layers before [`admit`] use (a preflight).
fn matched(req: &Request) -> Option<&'static Route> {
    req.extensions()
        .get::<MatchedPath>()
        .and_then(|p| routes::of(p.as_str()))
}

/// The route [`admit`] found and put into the request: what every layer
/// after it reads (`None`: not admitted, and refused).
fn route_of(req: &Request) -> Option<&'static Route> {
    req.extensions().get::<Admitted>().map(|a| a.0)
}

/// The request's route, as [`admit`] found it in the table once.
#[derive(Clone, Copy)]
struct Admitted(&'static Route);

/// The first layer of a routed request: its route must be in the table
/// (a route the router serves but `ROUTES` does not list is refused, never
/// served without the guards that read the table); a POST must be JSON
/// (415: another type is a "simple" request that a page on any origin may
/// send without a CORS preflight); a GET must carry no body (its question
/// is in its URL, the one thing a cache keys on); a route that checks
/// `Origin` ([`origin_refused`]) refuses one it does not allow (403).
pub async fn admit(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let Some(route) = matched(&req).filter(|r| r.when.is_none_or(|when| when(&state))) else {
        tracing::error!(route = %path, "a route that is not in the route table: refused");
        return reply::not_found();
    };
    if req.method() == Method::POST && !is_json(req.headers()) {
        let f = Failure::UnsupportedMediaType(format!(
            "{path} takes a JSON body: send it with Content-Type: application/json"
        ));
        return reply::failure_at(&path, &f, &state.echo(None));
    }
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(Admitted(route));
    if route.checks_origin
        && let Some(why) = origin_refused(&state, &parts)
    {
        tracing::info!(route = %path, "refused: {why}");
        return reply::failure_at(&path, &Failure::OriginNotAllowed(why), &state.echo(None));
    }
    let body = if parts.method == Method::GET {
        let bytes = to_bytes(body, crate::config::MAX_BODY_BYTES)
            .await
            .unwrap_or_else(|_| bytes::Bytes::from_static(b"-"));
        if !bytes.is_empty() {
            let f = Failure::InvalidRequest(
                "a GET carries its question in its URL and no body: send the JSON with POST".into(),
            );
            return reply::failure_at(&path, &f, &state.echo(None));
        }
        Body::empty()
    } else {
        body
    };
    next.run(Request::from_parts(parts, body)).await
}

/// Whether `Content-Type` is `application/json` (any parameters).
fn is_json(h: &HeaderMap) -> bool {
    let mut all = h.get_all("content-type").iter();
    match (all.next(), all.next()) {
        (Some(v), None) => v.to_str().is_ok_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
        }),
        _ => false,
    }
}

/// Why a request to a route that checks `Origin` (`/mcp`) is refused, if
/// it is. MCP clients are programs that send no `Origin`; a browser always
/// sends one, so a request that carries one comes from a web page, served
/// only when `ask.mcp_allow_origins` names it. A request from a loopback
/// address (a local run) must also name a loopback `Host`, and may come
/// from a page on a loopback origin: a page elsewhere whose name resolves
/// to 127.0.0.1 (DNS rebinding) names its own.
fn origin_refused(state: &State, parts: &Parts) -> Option<String> {
    let loopback_peer = source_ip(parts)
        .and_then(|ip| ip.parse::<std::net::IpAddr>().ok())
        .is_some_and(|ip| ip.is_loopback());
    if loopback_peer {
        let mut hosts = parts.headers.get_all("host").iter();
        let host_ok = match (hosts.next(), hosts.next()) {
            (Some(h), None) => h.to_str().is_ok_and(is_loopback_authority),
            (None, None) => true,
            _ => false,
        };
        if !host_ok {
            return Some(
                "a request from this machine must name a loopback Host (localhost, 127.0.0.1 or [::1])"
                    .into(),
            );
        }
    }
    let mut origins = parts.headers.get_all("origin").iter();
    let origin = match (origins.next(), origins.next()) {
        (None, _) => return None,
        (Some(o), None) => o.to_str().unwrap_or(""),
        (Some(_), Some(_)) => return Some("more than one Origin".into()),
    };
    let allowed = state
        .config
        .mcp_allow_origins
        .iter()
        .any(|a| a.eq_ignore_ascii_case(origin))
        || (loopback_peer
            && ["http://", "https://"]
                .iter()
                .filter_map(|scheme| origin.strip_prefix(scheme))
                .any(is_loopback_authority));
    (!allowed).then(|| {
        "a request with an Origin comes from a web page, and this one is not on ask.mcp_allow_origins (MCP clients send none)".to_string()
    })
}

/// `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().map(|h| format!("[{h}]")),
        None => authority.split(':').next().map(str::to_string),
    };
    host.is_some_and(|h| {
        let h = h.to_ascii_lowercase();
        h == "localhost" || h == "127.0.0.1" || h == "[::1]"
    })
}

/// Who is calling a route that reveals the docs or the settings, as the
/// bucket its requests spend ([`Meter`]); or the failure that refuses
/// them, which still costs the address a token. The RFC 9728 metadata,
/// the OpenAPI document and the widget stay public.
pub async fn authenticate(Ctx(state): Ctx<State>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    // Not in the table: refused (the admit layer has said so already).
    let Some(route) = route_of(&req) else {
        return reply::not_found();
    };
    let guarded = route.guarded;
    let (parts, body) = req.into_parts();
    let ip = ClientKey::from_ip(source_ip(&parts).as_deref());
    let who = if guarded {
        caller(&state, &parts)
    } else {
        Ok(Caller::Anonymous)
    };
    req = Request::from_parts(parts, body);
    let meter = match who {
        Ok(Caller::Subject(sub)) => Meter {
            key: ClientKey::from_subject(&sub),
            subject: true,
        },
        Ok(Caller::Anonymous) => Meter {
            key: ip,
            subject: false,
        },
        Err(f) => {
            let decision = {
                let mut l = state.limiter.lock().unwrap_or_else(|p| p.into_inner());
                l.check(ip, (state.clock)())
            };
            let f = if decision.allowed {
                f
            } else {
                state.analytics.throttled(&path);
                Failure::RateLimited {
                    retry_after_secs: decision.retry_after_secs,
                }
            };
            return reply::failure_at(&path, &f, &state.echo(None));
        }
    };
    req.extensions_mut().insert(meter);
    next.run(req).await
}

/// The caller of a guarded route, or the failure that refuses it.
fn caller(state: &State, parts: &Parts) -> Result<Caller, Failure> {
    let header = parts.headers.get("authorization").map(|v| v.as_bytes());
    let resource_metadata = format!("{}{RESOURCE_METADATA_PATH}", api_base_url(state, parts));
    state.auth.check(header).map_err(|d| match d {
        Denied::NoCredentials => Failure::Unauthorized {
            error: None,
            description: "this endpoint needs a bearer token (Authorization: Bearer <token>)",
            resource_metadata,
        },
        Denied::Invalid(error, description) => Failure::Unauthorized {
            error: Some(error),
            description,
            resource_metadata,
        },
        Denied::InsufficientScope => Failure::Forbidden {
            scope: state.auth.scope().to_string(),
            resource_metadata,
        },
    })
}

/// A GET of a route with a validator: its answer gets the weak `ETag`,
/// `Vary` with the headers that change its bytes (the route's), and
/// `Cache-Control: public, max-age` when `ask.cache_max_age` is set (or the
/// route's own); an
/// `If-None-Match` that names it gets 304, no body and no token spent (the
/// `RateLimit` headers report the bucket as it is).
pub async fn revalidate(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let Some((validator, fixed, vary)) =
        route_of(&req).and_then(|r| Some((r.validator?, r.cache, r.vary)))
    else {
        return next.run(req).await;
    };
    if req.method() != Method::GET {
        return next.run(req).await;
    }
    // A GET has no body to read (the admit layer refuses one).
    let (mut parts, body) = req.into_parts();
    let Some(hash) = validator(&state, &mut parts) else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    // Weak: an answer's bytes differ by its `query_id`, issued per answer.
    let opaque = format!("\"{hash:016x}\"");
    let tag = format!("W/{opaque}");
    let cache = fixed.map(str::to_string).or_else(|| {
        (state.config.cache_max_age > 0)
            .then(|| format!("public, max-age={}", state.config.cache_max_age))
    });
    let matches = parts
        .headers
        .get("if-none-match")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|inm| {
            inm.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == opaque || t == "*")
        });
    if matches && let Some(meter) = parts.extensions.get::<Meter>().copied() {
        let decision = {
            let l = meter
                .limiter(&state)
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            l.peek(meter.key, (state.clock)())
        };
        let mut builder = Response::builder().status(304);
        if let Some(v) = vary {
            builder = builder.header("vary", v);
        }
        return builder
            .header("etag", tag)
            .header("cache-control", cache.as_deref().unwrap_or("no-store"))
            .header(
                "ratelimit",
                format!(
                    "\"{}\";r={};t={}",
                    meter.policy(),
                    decision.remaining,
                    decision.reset_secs
                ),
            )
            .header("ratelimit-policy", policy(&state, &meter))
            .body(Body::empty())
            .expect("valid response");
    }
    parts.extensions.insert(Validator(hash));
    let mut resp = next.run(Request::from_parts(parts, body)).await;
    if resp.status() == 200 {
        let h = resp.headers_mut();
        if let Some(v) = vary {
            self::vary(h, v);
        }
        if let Ok(v) = tag.parse() {
            h.insert("etag", v);
        }
        if let Some(v) = cache.and_then(|c| c.parse().ok()) {
            h.insert("cache-control", v);
        }
    }
    resp
}

/// One token of the caller's bucket for each request to a charged route,
/// taken before the route runs (429 when there is none); a route whose
/// work costs more (an MCP batch) spends the rest through the [`Meter`].
/// The answer reports the bucket as it is when the answer is sent.
pub async fn rate_limit(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    // A route not in the table is charged (the admit layer refuses it).
    let charged = route_of(&req).is_none_or(|r| r.charged);
    let Some(meter) = req.extensions().get::<Meter>().copied() else {
        return next.run(req).await;
    };
    if !charged {
        return next.run(req).await;
    }
    let decision = {
        let mut l = meter
            .limiter(&state)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        l.check(meter.key, (state.clock)())
    };
    let mut resp = if decision.allowed {
        next.run(req).await
    } else {
        state.analytics.throttled(&path);
        let f = Failure::RateLimited {
            retry_after_secs: decision.retry_after_secs,
        };
        reply::failure_at(&path, &f, &state.echo(None))
    };
    let after = {
        let l = meter
            .limiter(&state)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        l.peek(meter.key, (state.clock)())
    };
    let h = resp.headers_mut();
    if let Ok(v) = format!(
        "\"{}\";r={};t={}",
        meter.policy(),
        after.remaining,
        after.reset_secs
    )
    .parse()
    {
        h.insert("ratelimit", v);
    }
    if let Ok(v) = policy(&state, &meter).parse() {
        h.insert("ratelimit-policy", v);
    }
    resp
}

/// The `RateLimit-Policy` of the bucket `meter` names.
fn policy(state: &State, meter: &Meter) -> String {
    let quota = if meter.subject {
        state.config.auth_rate_limit_per_minute
    } else {
        state.config.rate_limit_per_minute
    };
    format!("\"{}\";q={quota};w=60", meter.policy())
}

/// A body over `ask.max_body_bytes` is refused with 413 before the route
/// reads it.
pub async fn body_limit(Ctx(state): Ctx<State>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let (parts, body) = req.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    if body.len() > crate::config::MAX_BODY_BYTES {
        let f = Failure::PayloadTooLarge {
            bytes: body.len(),
            limit: crate::config::MAX_BODY_BYTES,
        };
        return reply::failure_at(&path, &f, &state.echo(None));
    }
    next.run(Request::from_parts(parts, Body::from(body))).await
}
