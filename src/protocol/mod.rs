//! The NLWeb 0.55 protocol as this endpoint speaks it: request shapes
//! ([`request`]), failures with their codes and statuses ([`failure`]),
//! response documents and SSE events ([`response`]), and how answers are
//! written ([`wire`]). Every document the Lambda sends is built from these
//! types; their JSON Schemas derive from the same definitions.

pub mod failure;
pub mod request;
pub mod response;
pub mod wire;

pub use failure::{Failure, FailureCode};
pub use request::{AskBody, AskRequest, Mode, RawRequest, UrlParams, parse};
pub use response::{
    AnswerDocument, Article, Citation, Document, FailureDocument, Meta, ResultItem, StreamEvent,
    Summary,
};
pub use wire::{Answer, answer_document, answer_stream, failure_stream};
