//! `/ask`: GET with URL parameters, POST with a body, and the responses
//! they share.

use serde_json::Value;

use crate::protocol::openapi::{
    Parts, header_ref, json, obj, optional_bearer, preflight, s, with_not_modified,
};
use crate::protocol::request::UrlParams;

/// GET parameters, one per member of UrlParams.
fn parameters() -> Vec<Value> {
    let params_schema = crate::protocol::mcp::inline_schema::<UrlParams>();
    params_schema["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .map(|(name, schema)| {
                    let mut schema = schema.clone();
                    let description = schema
                        .as_object_mut()
                        .and_then(|o| o.remove("description"))
                        .unwrap_or_default();
                    obj(&[
                        ("name", s(name)),
                        ("in", s("query")),
                        ("required", Value::Bool(false)),
                        ("description", description),
                        ("schema", obj(&[("type", s("string"))])),
                    ])
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The responses of POST `/ask` (GET adds 304).
fn responses(p: &Parts) -> Value {
    obj(&[
        (
            "200",
            obj(&[
                (
                    "description",
                    s(
                        "An answer, or a failure that is not the client's fault (NO_RESULTS, UNSUPPORTED_MODE, UNSUPPORTED_FORMAT). JSON, or Server-Sent Events (start, result…, complete; each data line one StreamEvent, named by its message_type).",
                    ),
                ),
                (
                    "headers",
                    obj(&[
                        ("RateLimit-Policy", header_ref("RateLimit-Policy")),
                        ("RateLimit", header_ref("RateLimit")),
                        ("ETag", header_ref("ETag")),
                        ("X-Index", header_ref("X-Index")),
                    ]),
                ),
                (
                    "content",
                    obj(&[
                        ("application/json", obj(&[("schema", p.answer.clone())])),
                        (
                            "text/event-stream",
                            obj(&[
                                ("schema", obj(&[("type", s("string"))])),
                                ("x-event-schema", p.event.clone()),
                            ]),
                        ),
                    ]),
                ),
            ]),
        ),
        (
            "400",
            json("INVALID_QUERY or INVALID_REQUEST", p.failure.clone(), &[]),
        ),
        (
            "404",
            json(
                "The endpoint is switched off (ask.enabled false)",
                p.not_found.clone(),
                &[],
            ),
        ),
        (
            "405",
            json("METHOD_NOT_ALLOWED", p.failure.clone(), &["Allow"]),
        ),
        (
            "413",
            json(
                "PAYLOAD_TOO_LARGE: body over 64 KiB",
                p.failure.clone(),
                &[],
            ),
        ),
        (
            "415",
            json(
                "UNSUPPORTED_MEDIA_TYPE: a POST whose Content-Type is not application/json",
                p.failure.clone(),
                &[],
            ),
        ),
        (
            "429",
            json("RATE_LIMITED", p.failure.clone(), &["Retry-After"]),
        ),
        (
            "401",
            json(
                "UNAUTHORIZED (ask.auth on): no token where one is required, or a token that does not check out",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "FORBIDDEN (ask.auth on): a valid token without the required scope",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        ("500", json("INTERNAL_ERROR", p.failure.clone(), &[])),
    ])
}

/// The `/ask` path item.
pub fn fragment(p: &Parts) -> Value {
    let parameters = parameters();
    let ask_responses = responses(p);
    obj(&[
        (
            "get",
            obj(&[
                ("operationId", s("askGet")),
                ("security", optional_bearer()),
                ("summary", s("Ask a question (URL parameters)")),
                ("parameters", Value::Array(parameters.clone())),
                ("responses", with_not_modified(ask_responses.clone())),
            ]),
        ),
        (
            "post",
            obj(&[
                ("operationId", s("askPost")),
                ("security", optional_bearer()),
                (
                    "summary",
                    s(
                        "Ask a question: an NLWeb 0.55 body or a flat legacy body; members in the body replace URL parameters of the same name",
                    ),
                ),
                ("parameters", Value::Array(parameters)),
                (
                    "requestBody",
                    obj(&[(
                        "content",
                        obj(&[("application/json", obj(&[("schema", p.body.clone())]))]),
                    )]),
                ),
                ("responses", ask_responses),
            ]),
        ),
        ("options", preflight()),
    ])
}
