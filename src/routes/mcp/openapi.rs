//! `/mcp`: MCP over Streamable HTTP.

use serde_json::Value;

use crate::protocol::openapi::{Parts, json, obj, optional_bearer, preflight, s};

/// One `schema`, or an array of them (a JSON-RPC message or a batch).
fn one_or_many(schema: Value) -> Value {
    obj(&[(
        "anyOf",
        Value::Array(vec![
            schema.clone(),
            obj(&[("type", s("array")), ("items", schema)]),
        ]),
    )])
}

/// The request headers of the 2026-07-28 revision.
fn parameters() -> Value {
    Value::Array(
        [
            (
                "MCP-Protocol-Version",
                "The revision; absent: 2025-03-26. 2026-07-28 requires it, equal to _meta's",
            ),
            ("Mcp-Method", "2026-07-28: the body's method"),
            (
                "Mcp-Name",
                "2026-07-28, tools/call: the tool's name (plain, or =?base64?…?=)",
            ),
        ]
        .iter()
        .map(|(name, description)| {
            obj(&[
                ("name", s(name)),
                ("in", s("header")),
                ("required", Value::Bool(false)),
                ("description", s(description)),
                ("schema", obj(&[("type", s("string"))])),
            ])
        })
        .collect(),
    )
}

/// The responses of POST `/mcp`.
fn responses(p: &Parts) -> Value {
    let mcp_response = &p.mcp_response;
    obj(&[
        (
            "200",
            json(
                "The response to a request, or the responses to a batch",
                one_or_many(mcp_response.clone()),
                &[],
            ),
        ),
        (
            "202",
            obj(&[(
                "description",
                s("Notifications and responses accepted; no body"),
            )]),
        ),
        (
            "400",
            json(
                "Parse error, invalid request (id null); protocol 2026-07-28: -32602 without its _meta, -32020 when a header differs from the body, -32022 for a revision not served (data.supported, data.requested), and its protocol errors",
                mcp_response.clone(),
                &[],
            ),
        ),
        (
            "404",
            json(
                "Switched off (Not Found); or, in protocol 2026-07-28, a method it does not serve, initialize and ping among them (JSON-RPC -32601)",
                obj(&[(
                    "anyOf",
                    Value::Array(vec![p.not_found.clone(), mcp_response.clone()]),
                )]),
                &[],
            ),
        ),
        (
            "405",
            json(
                "GET (no SSE stream is offered) or DELETE (no sessions)",
                p.failure.clone(),
                &["Allow"],
            ),
        ),
        (
            "413",
            json(
                "Body over 64 KiB (JSON-RPC error with the failure document in data)",
                mcp_response.clone(),
                &[],
            ),
        ),
        (
            "429",
            json(
                "Rate limited (JSON-RPC error -32000 with the failure document in data)",
                mcp_response.clone(),
                &["Retry-After"],
            ),
        ),
        (
            "401",
            json(
                "ask.auth on: no or bad token (JSON-RPC error -32001 with the UNAUTHORIZED document in data)",
                mcp_response.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "A request with an Origin that ask.mcp_allow_origins does not name, or on a local run a Host that is not loopback (JSON-RPC error -32600 with the FORBIDDEN document in data); ask.auth on: a token without the scope (JSON-RPC error -32001, WWW-Authenticate)",
                mcp_response.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "415",
            json(
                "A Content-Type other than application/json (JSON-RPC error -32600 with the UNSUPPORTED_MEDIA_TYPE document in data)",
                mcp_response.clone(),
                &[],
            ),
        ),
    ])
}

/// The `/mcp` path item.
pub fn fragment(p: &Parts) -> Value {
    obj(&[
        (
            "post",
            obj(&[
                ("operationId", s("mcp")),
                ("security", optional_bearer()),
                (
                    "summary",
                    s(
                        "MCP over Streamable HTTP, stateless, JSON responses: protocol 2024-11-05 to 2025-11-25 with initialize, 2026-07-28 without it (server/discover, each request's _meta checked against MCP-Protocol-Version, Mcp-Method and Mcp-Name); the tools ask, search and fetch, and the pages as resources",
                    ),
                ),
                ("parameters", parameters()),
                (
                    "requestBody",
                    obj(&[(
                        "content",
                        obj(&[(
                            "application/json",
                            obj(&[("schema", one_or_many(p.mcp_message.clone()))]),
                        )]),
                    )]),
                ),
                ("responses", responses(p)),
            ]),
        ),
        ("options", preflight()),
    ])
}
