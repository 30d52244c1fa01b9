//! What does the API look like to a client generator? The OpenAPI 3.1
//! document of every route, generated from the protocol types (their
//! schemars schemas), so it cannot drift from what the code sends.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::mcp::{Message, Response as McpResponse};
use super::request::{AskBody, UrlParams};
use super::response::{Document, FailureDocument, NotFound, SitesDocument, StreamEvent};

/// Schemas collected into `components/schemas`, referred to by `$ref`.
struct Schemas(schemars::SchemaGenerator);

impl Schemas {
    fn new() -> Schemas {
        Schemas(
            schemars::generate::SchemaSettings::draft2020_12()
                .with(|s| s.definitions_path = "/components/schemas".into())
                .into_generator(),
        )
    }

    fn of<T: JsonSchema>(&mut self) -> Value {
        serde_json::to_value(self.0.subschema_for::<T>()).unwrap_or_default()
    }

    /// A named component for `T`, even when schemars would inline it.
    fn named<T: JsonSchema>(&mut self, name: &str) -> Value {
        let schema = self.of::<T>();
        if schema.get("$ref").is_some() {
            return schema;
        }
        self.0.definitions_mut().insert(name.to_string(), schema);
        obj(&[("$ref", s(&format!("#/components/schemas/{name}")))])
    }
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

fn header_ref(name: &str) -> Value {
    obj(&[("$ref", s(&format!("#/components/headers/{name}")))])
}

/// A response with a JSON body of `schema` and the rate-limit headers.
fn json(description: &str, schema: Value, extra_headers: &[&str]) -> Value {
    let mut headers = Map::new();
    for h in ["RateLimit-Policy", "RateLimit"]
        .iter()
        .chain(extra_headers)
    {
        headers.insert(h.to_string(), header_ref(h));
    }
    obj(&[
        ("description", s(description)),
        ("headers", Value::Object(headers)),
        (
            "content",
            obj(&[("application/json", obj(&[("schema", schema)]))]),
        ),
    ])
}

/// [`json`] under another media type, with `ETag`; 304 when
/// `If-None-Match` names it.
fn typed(description: &str, mime: &str, schema: Value) -> Value {
    let mut r = json(description, schema.clone(), &["ETag"]);
    r["content"] = obj(&[(mime, obj(&[("schema", schema)]))]);
    r
}

/// Anonymous, or a bearer token (which `ask.auth` makes required or not).
fn optional_bearer() -> Value {
    Value::Array(vec![obj(&[]), obj(&[("bearer", Value::Array(vec![]))])])
}

/// GET `/ask`'s responses: those of POST, and 304.
fn with_not_modified(mut responses: Value) -> Value {
    if let Some(o) = responses.as_object_mut() {
        o.insert(
            "304".into(),
            obj(&[
                (
                    "description",
                    s("If-None-Match names the current answer: no body, no token spent"),
                ),
                (
                    "headers",
                    obj(&[
                        ("ETag", header_ref("ETag")),
                        ("RateLimit", header_ref("RateLimit")),
                    ]),
                ),
            ]),
        );
    }
    responses
}

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

fn preflight() -> Value {
    obj(&[
        ("summary", s("CORS preflight")),
        (
            "responses",
            obj(&[(
                "204",
                obj(&[("description", s("allowed methods and headers"))]),
            )]),
        ),
    ])
}

/// The OpenAPI 3.1 document.
pub fn document() -> Value {
    let mut g = Schemas::new();
    let failure = g.of::<FailureDocument>();
    let not_found = g.of::<NotFound>();
    let answer = g.of::<Document>();
    // Named events, and the older in-band headers as unnamed ones.
    let event = obj(&[(
        "oneOf",
        Value::Array(vec![
            g.of::<StreamEvent>(),
            g.of::<super::response::LegacyMessage>(),
        ]),
    )]);
    let body = g.named::<AskBody>("AskBody");
    let mcp_message = g.of::<Message>();
    let mcp_response = g.of::<McpResponse>();
    let sites = g.of::<SitesDocument>();
    let resource_metadata = g.of::<super::response::ProtectedResourceMetadata>();
    let config = g.of::<super::settings::ConfigDocument>();
    let who = g.of::<super::response::WhoDocument>();
    let feedback_body = g.named::<super::analytics::FeedbackRequest>("FeedbackRequest");

    // GET parameters, one per member of UrlParams.
    let params_schema = super::mcp::inline_schema::<UrlParams>();
    let parameters: Vec<Value> = params_schema["properties"]
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
        .unwrap_or_default();

    let ask_responses = obj(&[
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
                        ("application/json", obj(&[("schema", answer)])),
                        (
                            "text/event-stream",
                            obj(&[
                                ("schema", obj(&[("type", s("string"))])),
                                ("x-event-schema", event),
                            ]),
                        ),
                    ]),
                ),
            ]),
        ),
        (
            "400",
            json("INVALID_QUERY or INVALID_REQUEST", failure.clone(), &[]),
        ),
        (
            "404",
            json(
                "The endpoint is switched off (ask.enabled false)",
                not_found.clone(),
                &[],
            ),
        ),
        (
            "405",
            json("METHOD_NOT_ALLOWED", failure.clone(), &["Allow"]),
        ),
        (
            "413",
            json("PAYLOAD_TOO_LARGE: body over 64 KiB", failure.clone(), &[]),
        ),
        (
            "415",
            json(
                "UNSUPPORTED_MEDIA_TYPE: a POST whose Content-Type is not application/json",
                failure.clone(),
                &[],
            ),
        ),
        (
            "429",
            json("RATE_LIMITED", failure.clone(), &["Retry-After"]),
        ),
        (
            "401",
            json(
                "UNAUTHORIZED (ask.auth on): no token where one is required, or a token that does not check out",
                failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "FORBIDDEN (ask.auth on): a valid token without the required scope",
                failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        ("500", json("INTERNAL_ERROR", failure.clone(), &[])),
    ]);

    // A GET route (and its preflight): `ok`, or switched off, or the wrong
    // method, or (when it spends a token) rate-limited.
    let get_route = |summary: &str, ok: Value, spends_token: bool| {
        let mut responses = vec![
            ("200", ok),
            ("404", json("Switched off", not_found.clone(), &[])),
            (
                "405",
                json("METHOD_NOT_ALLOWED", failure.clone(), &["Allow"]),
            ),
        ];
        if spends_token {
            responses.push((
                "429",
                json("RATE_LIMITED", failure.clone(), &["Retry-After"]),
            ));
        }
        obj(&[
            (
                "get",
                obj(&[("summary", s(summary)), ("responses", obj(&responses))]),
            ),
            ("options", preflight()),
        ])
    };
    let get_only = |summary: &str, ok: Value| get_route(summary, ok, true);
    // A public GET with a validator: 304 for a matching If-None-Match.
    let get_validated = |summary: &str, ok: Value| {
        let mut route = get_only(summary, ok);
        route["get"]["responses"] = with_not_modified(route["get"]["responses"].take());
        route
    };
    // A GET route that takes a bearer token as /ask does (ask.auth), with
    // `parameters` and the statuses beyond get_only's.
    let get_protected =
        |id: &str, summary: &str, ok: Value, parameters: Vec<Value>, more: Vec<(&str, Value)>| {
            let mut route = get_only(summary, ok);
            let get = &mut route["get"];
            get["operationId"] = s(id);
            get["security"] = optional_bearer();
            if !parameters.is_empty() {
                get["parameters"] = Value::Array(parameters);
            }
            for (status, response) in [
                (
                    "401",
                    json(
                        "UNAUTHORIZED (ask.auth on)",
                        failure.clone(),
                        &["WWW-Authenticate"],
                    ),
                ),
                (
                    "403",
                    json(
                        "FORBIDDEN (ask.auth on)",
                        failure.clone(),
                        &["WWW-Authenticate"],
                    ),
                ),
            ]
            .into_iter()
            .chain(more)
            {
                get["responses"][status] = response;
            }
            route
        };
    // A 200 whose body is text of `mime`.
    let text = |description: &str, mime: &str| {
        obj(&[
            ("description", s(description)),
            (
                "content",
                obj(&[(mime, obj(&[("schema", obj(&[("type", s("string"))]))]))]),
            ),
        ])
    };

    let paths = obj(&[
        (
            "/ask",
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
                                obj(&[("application/json", obj(&[("schema", body)]))]),
                            )]),
                        ),
                        ("responses", ask_responses),
                    ]),
                ),
                ("options", preflight()),
            ]),
        ),
        (
            super::analytics::FEEDBACK_PATH,
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
                                        obj(&[("schema", feedback_body.clone())]),
                                    )]),
                                ),
                            ]),
                        ),
                        (
                            "responses",
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
                                        failure.clone(),
                                        &[],
                                    ),
                                ),
                                ("401", json("Unauthorized (ask.auth)", failure.clone(), &["WWW-Authenticate"])),
                                ("403", json("Forbidden (ask.auth: the token lacks the scope)", failure.clone(), &["WWW-Authenticate"])),
                                ("404", json("Switched off (Not Found)", not_found.clone(), &[])),
                                ("405", json("Any method but POST", failure.clone(), &["Allow"])),
                                ("413", json("Body over 64 KiB", failure.clone(), &[])),
                                ("415", json("UNSUPPORTED_MEDIA_TYPE: a Content-Type other than application/json", failure.clone(), &[])),
                                ("429", json("Rate limited", failure.clone(), &["Retry-After"])),
                            ]),
                        ),
                    ]),
                ),
                ("options", preflight()),
            ]),
        ),
        (
            "/mcp",
            obj(&[
                (
                    "post",
                    obj(&[
                        ("operationId", s("mcp")),
                        ("security", optional_bearer()),
                        (
                            "summary",
                            s(
                                "MCP over Streamable HTTP, stateless, JSON responses: protocol 2024-11-05 to 2025-11-25 with initialize, 2026-07-28 without it (server/discover, each request's _meta checked against MCP-Protocol-Version, Mcp-Method and Mcp-Name); one tool, ask",
                            ),
                        ),
                        (
                            "parameters",
                            Value::Array(
                                [
                                    ("MCP-Protocol-Version", "The revision; absent: 2025-03-26. 2026-07-28 requires it, equal to _meta's"),
                                    ("Mcp-Method", "2026-07-28: the body's method"),
                                    ("Mcp-Name", "2026-07-28, tools/call: the tool's name (plain, or =?base64?…?=)"),
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
                            ),
                        ),
                        (
                            "requestBody",
                            obj(&[(
                                "content",
                                obj(&[(
                                    "application/json",
                                    obj(&[("schema", one_or_many(mcp_message.clone()))]),
                                )]),
                            )]),
                        ),
                        (
                            "responses",
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
                                            Value::Array(vec![not_found.clone(), mcp_response.clone()]),
                                        )]),
                                        &[],
                                    ),
                                ),
                                (
                                    "405",
                                    json(
                                        "GET (no SSE stream is offered) or DELETE (no sessions)",
                                        failure.clone(),
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
                                        mcp_response,
                                        &[],
                                    ),
                                ),
                            ]),
                        ),
                    ]),
                ),
                ("options", preflight()),
            ]),
        ),
        (
            "/mcp/server-card",
            get_validated(
                "The MCP server card (Server Card extension, SEP-2127, draft): name, version, title, description and where /mcp answers, with the revisions it serves; public for an hour, ETag",
                typed(
                    "Server card",
                    "application/mcp-server-card+json",
                    g.of::<super::discovery::ServerCard>(),
                ),
            ),
        ),
        (
            "/.well-known/ai-catalog.json",
            get_validated(
                "The domain's AI Catalog, whose entry points at the server card; public for an hour, ETag",
                typed(
                    "AI Catalog",
                    "application/ai-catalog+json",
                    g.of::<super::discovery::Catalog>(),
                ),
            ),
        ),
        (
            "/.well-known/mcp/catalog.json",
            get_validated(
                "The same catalog, at the path of the Server Card extension's earlier drafts",
                typed(
                    "AI Catalog",
                    "application/ai-catalog+json",
                    g.of::<super::discovery::Catalog>(),
                ),
            ),
        ),
        (
            "/openapi.json",
            get_only(
                "This document",
                json("OpenAPI 3.1", obj(&[("type", s("object"))]), &[]),
            ),
        ),
        (
            "/llms.txt",
            get_protected(
                "llmsTxt",
                "The docs' page list and these endpoints, in the llms.txt format, from the index",
                text("llms.txt", "text/plain"),
                vec![],
                vec![],
            ),
        ),
        (
            "/sites",
            get_protected(
                "sites",
                "The site this index serves",
                json("Sites", sites, &[]),
                vec![],
                vec![],
            ),
        ),
        (
            "/config",
            get_protected(
                "config",
                "The public settings an agent may read: protocol version, modes, formats, limits, rate limit, auth, the endpoints",
                json("Settings", config, &[]),
                vec![],
                vec![],
            ),
        ),
        (
            "/who",
            get_protected(
                "who",
                "Whether this site answers a question: relevant, a score from 0 to 1 (the /ask answer's confidence) and the best page; JSON whatever streaming says",
                json("The site's relevance", who, &[]),
                vec![obj(&[
                    ("name", s("query")),
                    ("in", s("query")),
                    ("required", Value::Bool(true)),
                    ("description", s("The question (also `q` or `text`)")),
                    ("schema", obj(&[("type", s("string"))])),
                ])],
                vec![(
                    "400",
                    json(
                        "INVALID_QUERY: missing, empty or too long",
                        failure.clone(),
                        &[],
                    ),
                )],
            ),
        ),
        (
            "/ask/widget.js",
            get_route(
                "The <nlweb-ask> web component for docs sites (an ES module; no rate-limit token spent)",
                text("JavaScript", "text/javascript"),
                false,
            ),
        ),
        (
            "/.well-known/oauth-protected-resource",
            get_only(
                "RFC 9728 protected-resource metadata: the issuer and scope of the tokens /ask and /mcp take (404 while ask.auth is off)",
                json("Protected-resource metadata", resource_metadata, &[]),
            ),
        ),
    ]);

    let header = |description: &str, example: &str, ty: &str| {
        obj(&[
            ("description", s(description)),
            ("schema", obj(&[("type", s(ty))])),
            (
                "example",
                if ty == "integer" {
                    Value::from(example.parse::<i64>().unwrap_or(0))
                } else {
                    s(example)
                },
            ),
        ])
    };
    let headers = obj(&[
        (
            "RateLimit-Policy",
            header(
                "The per-client token bucket (IETF draft syntax)",
                "\"default\";q=20;w=60",
                "string",
            ),
        ),
        (
            "RateLimit",
            header(
                "Tokens left and seconds until the bucket is full",
                "\"default\";r=19;t=3",
                "string",
            ),
        ),
        (
            "Retry-After",
            header("Seconds until a token is back", "3", "integer"),
        ),
        (
            "Allow",
            header("The route's methods", "GET, POST, OPTIONS", "string"),
        ),
        (
            "ETag",
            header(
                "Strong validator of a GET answer: the index build and the normalised request",
                "\"3f2a9c0d1e4b5a67\"",
                "string",
            ),
        ),
        (
            "WWW-Authenticate",
            header(
                "The bearer challenge of a 401 or 403 (RFC 6750), with the protected-resource metadata URL (RFC 9728)",
                "Bearer resource_metadata=\"https://api.example.com/.well-known/oauth-protected-resource\", error=\"invalid_token\"",
                "string",
            ),
        ),
        (
            "X-Index",
            header(
                "The index that answered: its build id and build time",
                "build-id=cb49a0b66aae488f; built-at=2026-12-03T06:24:10Z",
                "string",
            ),
        ),
    ]);
    let schemas: Map<String, Value> = g.0.take_definitions(true).into_iter().collect();
    obj(&[
        ("openapi", s("3.1.0")),
        (
            "info",
            obj(&[
                ("title", s("nlweb-ask")),
                ("version", s(env!("CARGO_PKG_VERSION"))),
                (
                    "description",
                    s(
                        "An NLWeb 0.55 /ask endpoint over a product's documentation, with an MCP server (/mcp), llms.txt and /sites. Generated from the protocol types.",
                    ),
                ),
            ]),
        ),
        ("paths", paths),
        (
            "components",
            obj(&[
                ("schemas", Value::Object(schemas)),
                ("headers", headers),
                (
                    "securitySchemes",
                    obj(&[(
                        "bearer",
                        obj(&[
                            ("type", s("http")),
                            ("scheme", s("bearer")),
                            ("bearerFormat", s("JWT")),
                            (
                                "description",
                                s(
                                    "With ask.auth optional or required: an RS256 or ES256 JWT from the configured issuer, with the configured audience and scope",
                                ),
                            ),
                        ]),
                    )]),
                ),
            ]),
        ),
    ])
}
