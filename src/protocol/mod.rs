//! The NLWeb 0.55 protocol as this endpoint speaks it: request shapes as
//! sent ([`shapes`]) and as normalised ([`request`]), failures with their codes and statuses ([`failure`]),
//! response documents and SSE events ([`response`]), the public settings
//! of `/config` ([`settings`]), the MCP server card and catalog ([`discovery`]), the analytics
//! lines and the rating body ([`analytics`]), and how answers are written ([`wire`]). Every document the Lambda sends is built from these
//! types; their JSON Schemas derive from the same definitions.

pub mod analytics;
pub mod discovery;
pub mod failure;
pub mod mcp;
pub mod openapi;
pub mod pages;
pub mod paths;
pub mod request;
pub mod response;
pub mod settings;
pub mod shapes;
pub mod wire;

pub use failure::{Failure, FailureCode};
pub use request::{AskBody, AskRequest, Mode, RawRequest, UrlParams, parse};
pub use response::{
    AnswerDocument, Article, Citation, Document, FailureDocument, Meta, ResultItem, StreamEvent,
    Summary,
};
pub use wire::{Answer, answer_document, answer_stream, failure_stream};

#[cfg(test)]
mod tests {
    use super::*;

    fn schema<T: schemars::JsonSchema>() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(T)).unwrap()
    }

    #[test]
    fn schemas_derive_from_the_types() {
        // The request: both body shapes in one object, GET parameters apart.
        let body = schema::<AskBody>();
        for member in ["query", "prev", "context", "prefer", "meta", "streaming"] {
            assert!(body["properties"].get(member).is_some(), "{member}");
        }
        let params = schema::<UrlParams>();
        let names: Vec<&str> = params["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(names.len(), 13, "{names:?}");

        // Every failure code is in the failure document's schema.
        let failure = schema::<FailureDocument>().to_string();
        for code in FailureCode::ALL {
            assert!(failure.contains(code.as_str()), "{}", code.as_str());
        }
        // Constants are constants: the version and the item types.
        let doc = schema::<Document>().to_string();
        for constant in [
            "\"0.55\"",
            "TechArticle",
            "SearchSummary",
            "https://schema.org",
        ] {
            assert!(doc.contains(constant), "{constant}");
        }
        let events = schema::<StreamEvent>().to_string();
        for name in ["start", "result", "error", "complete"] {
            assert!(events.contains(&format!("\"{name}\"")), "{name}");
        }
    }
}
