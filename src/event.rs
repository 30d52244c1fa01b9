//! Can this event be read as an HTTP request? `lambda_http` turns an event
//! into a `Request` by parsing `scheme://host/path?query` with `unwrap`s:
//! a `Host` it cannot parse as a URL host (an ALB forwards the client's),
//! an odd `X-Forwarded-Proto` or a raw query string the `http` crate
//! refuses would panic before the handler runs, and the invocation would
//! fail. [`SafeEvents`] tries the conversion on a copy first; when it
//! panics, the fields it reads for the URL are dropped and the request is
//! marked ([`UNREADABLE`]), so the handler answers 400 `INVALID_REQUEST`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use lambda_http::aws_lambda_events::http::HeaderMap;
use lambda_http::request::LambdaRequest;
use lambda_http::{LambdaEvent, Request, Service};

/// The header a sanitized event carries (any value).
pub const UNREADABLE: &str = "x-nlweb-ask-unreadable";

/// A copy of the event, for a trial conversion.
fn copy(r: &LambdaRequest) -> Option<LambdaRequest> {
    match r {
        LambdaRequest::ApiGatewayV1(e) => Some(LambdaRequest::ApiGatewayV1(e.clone())),
        LambdaRequest::ApiGatewayV2(e) => Some(LambdaRequest::ApiGatewayV2(e.clone())),
        LambdaRequest::Alb(e) => Some(LambdaRequest::Alb(e.clone())),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Whether `lambda_http` converts the event without panicking.
fn converts(r: &LambdaRequest) -> bool {
    let Some(c) = copy(r) else {
        return true;
    };
    // The panic is expected; keep it out of the logs.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ok = catch_unwind(AssertUnwindSafe(|| Request::from(c))).is_ok();
    std::panic::set_hook(hook);
    ok
}

fn mark(headers: &mut HeaderMap, multi: Option<&mut HeaderMap>) {
    for h in [headers].into_iter().chain(multi) {
        h.remove("host");
        h.remove("x-forwarded-proto");
        h.insert(UNREADABLE, "1".parse().expect("header value"));
    }
}

/// The event as it is if `lambda_http` can read it; else without the
/// fields that make it panic, and marked.
pub fn sanitized(mut r: LambdaRequest) -> LambdaRequest {
    if converts(&r) {
        return r;
    }
    match &mut r {
        LambdaRequest::ApiGatewayV1(e) => {
            mark(&mut e.headers, Some(&mut e.multi_value_headers));
            e.query_string_parameters = Default::default();
            e.multi_value_query_string_parameters = Default::default();
            e.request_context.domain_name = None;
        }
        LambdaRequest::ApiGatewayV2(e) => {
            mark(&mut e.headers, None);
            e.raw_query_string = None;
            e.query_string_parameters = Default::default();
            e.request_context.domain_name = None;
        }
        LambdaRequest::Alb(e) => {
            mark(&mut e.headers, Some(&mut e.multi_value_headers));
            e.query_string_parameters = Default::default();
            e.multi_value_query_string_parameters = Default::default();
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
    if !converts(&r) {
        // Last resort: the path too.
        match &mut r {
            LambdaRequest::ApiGatewayV1(e) => e.path = Some("/".into()),
            LambdaRequest::ApiGatewayV2(e) => e.raw_path = Some("/".into()),
            LambdaRequest::Alb(e) => e.path = Some("/".into()),
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }
    r
}

/// An event read as `lambda_http` reads it, after [`sanitized`]: what the
/// tests replay.
pub fn request_from_str(event: &str) -> Result<Request, serde_json::Error> {
    let r: LambdaRequest = serde_json::from_str(event)?;
    Ok(Request::from(sanitized(r)))
}

/// Wraps `lambda_http`'s adapter: every event is [`sanitized`] first.
pub struct SafeEvents<A>(pub A);

impl<A> Service<LambdaEvent<LambdaRequest>> for SafeEvents<A>
where
    A: Service<LambdaEvent<LambdaRequest>>,
{
    type Response = A::Response;
    type Error = A::Error;
    type Future = A::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, event: LambdaEvent<LambdaRequest>) -> Self::Future {
        let LambdaEvent { payload, context } = event;
        self.0.call(LambdaEvent::new(sanitized(payload), context))
    }
}
