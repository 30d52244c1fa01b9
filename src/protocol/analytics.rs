//! What the function writes down about its traffic (docs/content/docs/analytics.mdx):
//! one log line per event, in CloudWatch's Embedded Metric Format, so that
//! each line is both a searchable log record and a metric data point. And
//! the `POST /ask/feedback` body a reader's rating comes in.
//!
//! Never in a line: the client's address, a token, a header's value. The
//! reader's words (the question, the words the docs lack, a comment) only
//! when `ask.log_queries` is on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::paths::FEEDBACK_PATH;

/// The metric namespace every line reports in.
pub const NAMESPACE: &str = "nlweb-ask";

/// Longest `query_id` a rating may name: the longest `/ask` keeps of a
/// client's own (of letters, digits, `-`, `_` and `.`).
pub const MAX_QUERY_ID_CHARS: usize = 64;
/// Longest comment kept with a rating.
pub const MAX_COMMENT_CHARS: usize = 1000;
/// Longest client name kept (`X-Ask-Client`, MCP `clientInfo.name`).
pub const MAX_CLIENT_NAME_CHARS: usize = 64;

/// A character of an id or a client's name as kept: letters, digits, `-`,
/// `_`, `.` (what `/ask` keeps of a client's `query_id`).
pub fn id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.".contains(c)
}
/// Result URLs a query event lists.
pub const TOP_URLS: usize = 3;

/// Who sent a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClientKind {
    /// The `<nlweb-ask>` widget (it sends `X-Ask-Client: widget`).
    Widget,
    /// An MCP client (`tools/call` of `ask`).
    Mcp,
    /// Anything else that calls `/ask`.
    Http,
}

impl ClientKind {
    /// The name in logs and metric dimensions.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::Widget => "widget",
            ClientKind::Mcp => "mcp",
            ClientKind::Http => "http",
        }
    }
}

/// A reader's rating of an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    /// The answer helped.
    Up,
    /// It did not.
    Down,
}

/// The body of `POST /ask/feedback`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackRequest {
    /// The `query_id` of the answer rated (its document's, or its `start`
    /// event's).
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[A-Za-z0-9._-]+$"))]
    pub query_id: String,
    /// `up` or `down`.
    pub rating: Rating,
    /// What the reader wants the docs team to know (kept only when
    /// `ask.log_queries` is on).
    #[serde(default)]
    #[schemars(length(max = 1000))]
    pub comment: Option<String>,
}

impl FeedbackRequest {
    /// The body read and checked: a JSON object with a `query_id` of 1 to
    /// [`MAX_QUERY_ID_CHARS`] characters, a `rating`, and a comment of at
    /// most [`MAX_COMMENT_CHARS`]; `Err` says what is wrong.
    pub fn parse(body: &[u8]) -> Result<FeedbackRequest, String> {
        let r: FeedbackRequest = serde_json::from_slice(body).map_err(|e| {
            format!(
                "the body is not a rating ({e}); send {{\"query_id\": \"…\", \"rating\": \"up\" or \"down\", \"comment\": \"…\"}}"
            )
        })?;
        let id = r.query_id.chars().count();
        if id == 0 || id > MAX_QUERY_ID_CHARS || !r.query_id.chars().all(id_char) {
            return Err(format!(
                "query_id must be the answer's id: 1 to {MAX_QUERY_ID_CHARS} letters, digits, '-', '_' or '.'"
            ));
        }
        if let Some(c) = &r.comment
            && c.chars().count() > MAX_COMMENT_CHARS
        {
            return Err(format!(
                "the comment is over {MAX_COMMENT_CHARS} characters"
            ));
        }
        Ok(r)
    }
}

/// The `_aws` member that makes a log line an Embedded Metric Format
/// record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// When, in milliseconds since the Unix epoch.
    #[serde(rename = "Timestamp")]
    pub timestamp: u64,
    /// The metrics the line carries.
    #[serde(rename = "CloudWatchMetrics")]
    pub metrics: Vec<Directive>,
}

/// One metric directive of an [`Envelope`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Directive {
    /// [`NAMESPACE`].
    #[serde(rename = "Namespace")]
    pub namespace: String,
    /// Sets of dimension names (members of the line).
    #[serde(rename = "Dimensions")]
    pub dimensions: Vec<Vec<String>>,
    /// The metrics (members of the line).
    #[serde(rename = "Metrics")]
    pub metrics: Vec<MetricDefinition>,
}

/// A metric's name (a member of the line) and unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricDefinition {
    /// The member that holds the value.
    #[serde(rename = "Name")]
    pub name: String,
    /// `Count` or `Milliseconds`.
    #[serde(rename = "Unit")]
    pub unit: String,
}

impl Envelope {
    /// An envelope at `timestamp` for `metrics` (name, unit) over each set
    /// of `dimensions`.
    pub fn new(timestamp: u64, dimensions: &[&[&str]], metrics: &[(&str, &str)]) -> Envelope {
        Envelope {
            timestamp,
            metrics: vec![Directive {
                namespace: NAMESPACE.to_string(),
                dimensions: dimensions
                    .iter()
                    .map(|set| set.iter().map(|d| d.to_string()).collect())
                    .collect(),
                metrics: metrics
                    .iter()
                    .map(|(name, unit)| MetricDefinition {
                        name: name.to_string(),
                        unit: unit.to_string(),
                    })
                    .collect(),
            }],
        }
    }
}

/// What a line records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A question answered (or not) on `/ask` or by MCP `tools/call`.
    Query,
    /// A reader's rating (`POST /ask/feedback`).
    Feedback,
    /// A request refused by the rate limit (429).
    Throttled,
}

/// One question and what became of it: metrics `requests` (1),
/// `unanswered` (0 or 1) and `latency_ms`, by `function` and `route`, and
/// by `function` and `client`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryEvent {
    /// The EMF envelope.
    #[serde(rename = "_aws")]
    pub aws: Envelope,
    /// [`EventKind::Query`].
    pub event: EventKind,
    /// The Lambda function's name (`local` outside Lambda).
    pub function: String,
    /// The route: `/ask` or `/mcp`.
    pub route: String,
    /// Who asked.
    pub client: ClientKind,
    /// The client's own name: MCP `clientInfo.name` (sent with each
    /// 2026-07-28 request), or `X-Ask-Client`'s value; of letters, digits,
    /// `-`, `_` and `.` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// API Gateway's request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The answer's `query_id` (what a rating names).
    pub query_id: String,
    /// The id is the client's own (`query_id` in the request): a rating
    /// never names it, and the report never joins one to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_query_id: bool,
    /// A later page of an earlier question (`start_num`): a request, not a
    /// new question.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_num: usize,
    /// `list`, `summarize` or `generate`.
    pub mode: String,
    /// Asked for SSE.
    pub streaming: bool,
    /// Sections in the answer.
    pub results: usize,
    /// The docs seem to answer: results, and coverage at or above the
    /// threshold (`_meta.answer_confidence.answered`).
    pub answered: bool,
    /// `_meta.answer_confidence.coverage` (none for a failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// The failure code when there was no answer (`NO_RESULTS`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The first result URLs, best first (the pages that came closest,
    /// when not answered).
    pub top_urls: Vec<String>,
    /// The sites searched (`ask.sites`), comma-separated; for a failure,
    /// the sites asked. Absent: every page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Milliseconds from the request's arrival to its answer (to the
    /// sections, for a streamed summary).
    pub latency_ms: f64,
    /// The first request this Lambda environment served.
    pub cold_start: bool,
    /// The question, only with `ask.log_queries`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The question's words the best sections lack (analyzed), only with
    /// `ask.log_queries`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// Metric: 1.
    pub requests: u32,
    /// Metric: 1 when not answered.
    pub unanswered: u32,
}

/// A rating: metrics `feedback_up` and `feedback_down` (0 or 1), by
/// `function`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackEvent {
    /// The EMF envelope.
    #[serde(rename = "_aws")]
    pub aws: Envelope,
    /// [`EventKind::Feedback`].
    pub event: EventKind,
    /// The Lambda function's name.
    pub function: String,
    /// Who rated.
    pub client: ClientKind,
    /// API Gateway's request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The `query_id` rated.
    pub query_id: String,
    /// `up` or `down`.
    pub rating: Rating,
    /// The reader's comment, only with `ask.log_queries`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Metric: 1 for `up`.
    pub feedback_up: u32,
    /// Metric: 1 for `down`.
    pub feedback_down: u32,
}

/// A request the rate limit refused: metric `throttled` (1), by
/// `function` and `route`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThrottledEvent {
    /// The EMF envelope.
    #[serde(rename = "_aws")]
    pub aws: Envelope,
    /// [`EventKind::Throttled`].
    pub event: EventKind,
    /// The Lambda function's name.
    pub function: String,
    /// The route refused.
    pub route: String,
    /// Metric: 1.
    pub throttled: u32,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
