//! The Server-Sent Events of a streamed answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::answer::ResultItem;
use super::error::{ErrorBody, FailureDocument};
use super::meta::Meta;

/// The `start` event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartEvent {
    /// Stream metadata (`streaming: true`).
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The exchange's id.
    pub query_id: String,
}

/// A `result` event: one item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultEvent {
    /// 0-based position in arrival order.
    pub index: usize,
    /// The item.
    pub item: ResultItem,
}

/// The `complete` event, always last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompleteEvent {
    /// How the stream ended (`answer` or `failure`) and its conversation.
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The exchange's id.
    pub query_id: String,
    /// How many `result` events came before.
    pub total_items: usize,
    /// The failure, when the stream ended in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// One Server-Sent Event's data; `message_type` is also the event's name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "message_type", rename_all = "lowercase")]
pub enum StreamEvent {
    /// First.
    Start(StartEvent),
    /// One per item.
    Result(ResultEvent),
    /// A failure document, after `start`.
    Error(FailureDocument),
    /// Last.
    Complete(CompleteEvent),
}

impl StreamEvent {
    /// The SSE `event:` name.
    pub fn name(&self) -> &'static str {
        match self {
            StreamEvent::Start(_) => "start",
            StreamEvent::Result(_) => "result",
            StreamEvent::Error(_) => "error",
            StreamEvent::Complete(_) => "complete",
        }
    }
}
