//! The pieces every path's fragment is built from: JSON helpers, the
//! shared responses, and the schemas generated once for the document.

use serde_json::{Map, Value};

use super::Schemas;
use crate::protocol::analytics::FeedbackRequest;
use crate::protocol::discovery::{Catalog, ServerCard};
use crate::protocol::mcp::{Message, Response as McpResponse};
use crate::protocol::request::AskBody;
use crate::protocol::response::{
    Document, FailureDocument, LegacyMessage, NotFound, ProtectedResourceMetadata, SitesDocument,
    StreamEvent, WhoDocument,
};
use crate::protocol::settings::ConfigDocument;

pub(super) fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

pub(super) fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

pub(super) fn header_ref(name: &str) -> Value {
    obj(&[("$ref", s(&format!("#/components/headers/{name}")))])
}

/// A response with a JSON body of `schema` and the rate-limit headers.
pub(super) fn json(description: &str, schema: Value, extra_headers: &[&str]) -> Value {
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
pub(super) fn optional_bearer() -> Value {
    Value::Array(vec![obj(&[]), obj(&[("bearer", Value::Array(vec![]))])])
}

/// GET `/ask`'s responses: those of POST, and 304.
pub(super) fn with_not_modified(mut responses: Value) -> Value {
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

pub(super) fn preflight() -> Value {
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

/// The schemas the paths refer to, generated once, in the order the
/// document has always asked for them.
pub(super) struct Parts {
    pub(super) failure: Value,
    pub(super) not_found: Value,
    pub(super) answer: Value,
    pub(super) event: Value,
    pub(super) body: Value,
    pub(super) mcp_message: Value,
    pub(super) mcp_response: Value,
    pub(super) sites: Value,
    pub(super) resource_metadata: Value,
    pub(super) config: Value,
    pub(super) who: Value,
    pub(super) feedback_body: Value,
    pub(super) server_card: Value,
    pub(super) catalog: Value,
    pub(super) mcp_catalog: Value,
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
