//! The pieces every path's fragment is built from: JSON helpers, the
//! shared responses, and the schemas generated once for the document.

use serde_json::{Map, Value};

use crate::protocol::analytics::FeedbackRequest;
use crate::protocol::discovery::{Catalog, ServerCard};
use crate::protocol::mcp::{Message, Response as McpResponse};
use crate::protocol::request::AskBody;
use crate::protocol::response::{
    Document, FailureDocument, LegacyMessage, NotFound, ProtectedResourceMetadata, SitesDocument,
    StreamEvent, WhoDocument,
};
use crate::protocol::settings::ConfigDocument;
use schemars::JsonSchema;

/// A JSON object of `pairs`, in order.
pub fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// A JSON string.
pub fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// A `$ref` to the header `name` of `components/headers`.
pub fn header_ref(name: &str) -> Value {
    obj(&[("$ref", s(&format!("#/components/headers/{name}")))])
}

/// A response with a JSON body of `schema` and the rate-limit headers.
pub fn json(description: &str, schema: Value, extra_headers: &[&str]) -> Value {
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

/// Anonymous, or a bearer token (which `ask.auth` makes required or not).
pub fn optional_bearer() -> Value {
    Value::Array(vec![obj(&[]), obj(&[("bearer", Value::Array(vec![]))])])
}

/// GET `/ask`'s responses: those of POST, and 304.
pub fn with_not_modified(mut responses: Value) -> Value {
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

/// The `options` operation every route has: the CORS preflight.
pub fn preflight() -> Value {
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

/// [`json`] under another media type, with `ETag`; 304 when
/// `If-None-Match` names it.
pub fn typed(description: &str, mime: &str, schema: Value) -> Value {
    let mut r = json(description, schema.clone(), &["ETag"]);
    r["content"] = obj(&[(mime, obj(&[("schema", schema)]))]);
    r
}

/// A GET route (and its preflight): `ok`, or switched off, or the wrong
/// method, or (when it spends a token) rate-limited.
pub fn get_route(p: &Parts, summary: &str, ok: Value, spends_token: bool) -> Value {
    let mut responses = vec![
        ("200", ok),
        ("404", json("Switched off", p.not_found.clone(), &[])),
        (
            "405",
            json("METHOD_NOT_ALLOWED", p.failure.clone(), &["Allow"]),
        ),
    ];
    if spends_token {
        responses.push((
            "429",
            json("RATE_LIMITED", p.failure.clone(), &["Retry-After"]),
        ));
    }
    obj(&[
        (
            "get",
            obj(&[("summary", s(summary)), ("responses", obj(&responses))]),
        ),
        ("options", preflight()),
    ])
}

/// A GET route that spends a token, with no validator.
pub fn get_only(p: &Parts, summary: &str, ok: Value) -> Value {
    get_route(p, summary, ok, true)
}

/// A public GET with a validator: 304 for a matching If-None-Match.
pub fn get_validated(p: &Parts, summary: &str, ok: Value) -> Value {
    revalidated(get_only(p, summary, ok))
}

/// A path item whose GET has a validator: 304 among its responses.
pub fn revalidated(mut item: Value) -> Value {
    item["get"]["responses"] = with_not_modified(item["get"]["responses"].take());
    item
}

/// A GET route that takes a bearer token as /ask does (ask.auth), with
/// `parameters` and the statuses beyond get_only's.
pub fn get_protected(
    p: &Parts,
    id: &str,
    summary: &str,
    ok: Value,
    parameters: Vec<Value>,
    more: Vec<(&str, Value)>,
) -> Value {
    let mut route = get_only(p, summary, ok);
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
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "FORBIDDEN (ask.auth on)",
                p.failure.clone(),
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
}

/// A 200 whose body is text of `mime`.
pub fn text(description: &str, mime: &str) -> Value {
    obj(&[
        ("description", s(description)),
        (
            "content",
            obj(&[(mime, obj(&[("schema", obj(&[("type", s("string"))]))]))]),
        ),
    ])
}

/// Schemas collected into `components/schemas`, referred to by `$ref`.
pub(super) struct Schemas(pub(super) schemars::SchemaGenerator);

impl Schemas {
    pub(super) fn new() -> Schemas {
        Schemas(
            schemars::generate::SchemaSettings::draft2020_12()
                .with(|s| s.definitions_path = "/components/schemas".into())
                .into_generator(),
        )
    }

    pub(super) fn of<T: JsonSchema>(&mut self) -> Value {
        serde_json::to_value(self.0.subschema_for::<T>()).unwrap_or_default()
    }

    /// A named component for `T`, even when schemars would inline it.
    pub(super) fn named<T: JsonSchema>(&mut self, name: &str) -> Value {
        let schema = self.of::<T>();
        if schema.get("$ref").is_some() {
            return schema;
        }
        self.0.definitions_mut().insert(name.to_string(), schema);
        obj(&[("$ref", s(&format!("#/components/schemas/{name}")))])
    }
}

/// The schemas the paths refer to, generated once, in the order the
/// document has always asked for them.
pub struct Parts {
    /// The failure document.
    pub failure: Value,
    /// The 404 of the off switch.
    pub not_found: Value,
    /// The /ask answer.
    pub answer: Value,
    /// An SSE event: named, or the older in-band header.
    pub event: Value,
    /// The POST /ask body.
    pub body: Value,
    /// A JSON-RPC message to /mcp.
    pub mcp_message: Value,
    /// A JSON-RPC response from /mcp.
    pub mcp_response: Value,
    /// The /sites document.
    pub sites: Value,
    /// RFC 9728 protected-resource metadata.
    pub resource_metadata: Value,
    /// The /config document.
    pub config: Value,
    /// The /who document.
    pub who: Value,
    /// The POST /ask/feedback body.
    pub feedback_body: Value,
    /// The MCP server card.
    pub server_card: Value,
    /// The AI Catalog.
    pub catalog: Value,
    /// The AI Catalog at its earlier path.
    pub mcp_catalog: Value,
}

impl Parts {
    pub(super) fn new(g: &mut Schemas) -> Parts {
        let failure = g.of::<FailureDocument>();
        let not_found = g.of::<NotFound>();
        let answer = g.of::<Document>();
        // Named events, and the older in-band headers as unnamed ones.
        let event = obj(&[(
            "oneOf",
            Value::Array(vec![g.of::<StreamEvent>(), g.of::<LegacyMessage>()]),
        )]);
        let body = g.named::<AskBody>("AskBody");
        let mcp_message = g.of::<Message>();
        let mcp_response = g.of::<McpResponse>();
        let sites = g.of::<SitesDocument>();
        let resource_metadata = g.of::<ProtectedResourceMetadata>();
        let config = g.of::<ConfigDocument>();
        let who = g.of::<WhoDocument>();
        let feedback_body = g.named::<FeedbackRequest>("FeedbackRequest");
        let server_card = g.of::<ServerCard>();
        let catalog = g.of::<Catalog>();
        let mcp_catalog = g.of::<Catalog>();
        Parts {
            failure,
            not_found,
            answer,
            event,
            body,
            mcp_message,
            mcp_response,
            sites,
            resource_metadata,
            config,
            who,
            feedback_body,
            server_card,
            catalog,
            mcp_catalog,
        }
    }
}
