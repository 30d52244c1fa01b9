//! `/ask/feedback`: a reader's rating of an answer.

use serde_json::Value;

use crate::protocol::openapi::{Parts, header_ref, json, obj, optional_bearer, preflight, s};

/// The responses of POST `/ask/feedback`.
fn responses(p: &Parts) -> Value {
    obj(&[
        (
            "204",
            obj(&[
                ("description", s("Recorded; no body")),
                (
                    "headers",
                    obj(&[
                        ("RateLimit-Policy", header_ref("RateLimit-Policy")),
                        ("RateLimit", header_ref("RateLimit")),
                    ]),
                ),
            ]),
        ),
        (
            "400",
            json(
                "Not a rating (INVALID_REQUEST): a body that is not a JSON object, an unknown member, a query_id that is not 1 to 64 letters, digits, '-', '_' or '.', a rating other than up or down, a comment over 1,000 characters; or a query_id this endpoint did not issue (a client's own, a forged one) or issued over a day ago",
                p.failure.clone(),
                &[],
            ),
        ),
        (
            "401",
            json(
                "Unauthorized (ask.auth)",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "Forbidden (ask.auth: the token lacks the scope)",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "404",
            json("Switched off (Not Found)", p.not_found.clone(), &[]),
        ),
        (
            "405",
            json("Any method but POST", p.failure.clone(), &["Allow"]),
        ),
        ("413", json("Body over 64 KiB", p.failure.clone(), &[])),
        (
            "415",
            json(
                "UNSUPPORTED_MEDIA_TYPE: a Content-Type other than application/json",
                p.failure.clone(),
                &[],
            ),
        ),
        (
            "429",
            json("Rate limited", p.failure.clone(), &["Retry-After"]),
        ),
    ])
}

/// The `/ask/feedback` path item.
pub fn fragment(p: &Parts) -> Value {
    obj(&[
        (
            "post",
            obj(&[
                ("operationId", s("feedback")),
                ("security", optional_bearer()),
                (
                    "summary",
                    s(
                        "A reader's rating of an answer, by its query_id: written to the analytics log (the comment only with ask.log_queries); the widget sends X-Ask-Client: widget",
                    ),
                ),
                (
                    "requestBody",
                    obj(&[
                        ("required", Value::Bool(true)),
                        (
                            "content",
                            obj(&[(
                                "application/json",
                                obj(&[("schema", p.feedback_body.clone())]),
                            )]),
                        ),
                    ]),
                ),
                ("responses", responses(p)),
            ]),
        ),
        ("options", preflight()),
    ])
}
