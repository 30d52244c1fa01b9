//! `_meta` and what it is made of: the version, the format, the echo of
//! the exchange, the answer's confidence and corrections, and who wrote it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::legacy::LegacyHeader;
use super::version::Version;

/// The response formats served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// `results`: a list of Schema.org items (requested as
    /// `conversational_search` or `conv_search`).
    #[default]
    ConversationalSearch,
    /// `content` (text for a model) and `structuredData` (the same items).
    ChatgptApp,
}

/// What every document says about its exchange beyond the answer itself:
/// which index answered (build id and build time: the data's freshness),
/// the format, and what the request asked that is echoed back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Echo {
    /// The index build that answered.
    pub index_build_id: String,
    /// When that index was built (RFC 3339).
    pub index_built_at: String,
    /// The response format.
    pub format: ResponseFormat,
    /// What was searched, when earlier questions changed the question.
    pub decontextualized_query: Option<String>,
    /// `prefer.accept-language`, echoed (results stay as indexed).
    pub accept_language: Option<String>,
    /// How well the docs seem to answer (answers only).
    pub confidence: Option<AnswerConfidence>,
    /// The question's words replaced by the docs' words (answers only).
    pub corrections: Vec<QueryCorrection>,
    /// Who wrote the summary (answers with one).
    pub generator: Option<GeneratorUsed>,
    /// The bucket's requests a minute, for the older in-band headers of an
    /// answer (`None`: the answer carries none).
    pub rate_limit_per_minute: Option<u32>,
}

impl Echo {
    /// The older in-band headers (`api_version`, `data_freshness`,
    /// `rate_limits`): top-level members of a JSON answer, unnamed events
    /// after a stream's `start`.
    pub fn legacy_headers(&self) -> (Option<Version>, Option<LegacyHeader>, Option<LegacyHeader>) {
        let Some(per_minute) = self.rate_limit_per_minute else {
            return (None, None, None);
        };
        (
            Some(Version::V055),
            Some(LegacyHeader {
                message: format!(
                    "The index was built at {} (build {}).",
                    self.index_built_at, self.index_build_id
                ),
            }),
            Some(LegacyHeader {
                message: format!(
                    "{per_minute} requests a minute per client address; the RateLimit headers give what is left."
                ),
            }),
        )
    }
}

/// One word of the question that the docs never use, replaced by the docs'
/// closest word before searching (typo tolerance: one typo in a word of 5
/// to 8 letters, two from 9; never in identifiers or numbers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryCorrection {
    /// The word as typed.
    pub from: String,
    /// The docs' word searched instead.
    pub to: String,
}

/// Whether the docs seem to answer the question: the share of the
/// question's weight (idf; a word the docs never use weighs as much as the
/// rarest) found in the best sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerConfidence {
    /// 0 to 1: the weighted share of the question's terms found.
    pub coverage: f32,
    /// Under hybrid retrieval, -1 to 1: how close the question's meaning
    /// is to the closest of the best sections (the cosine of their
    /// sentence vectors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// False when the coverage is under the threshold: the docs do not
    /// seem to answer, and the summary says so.
    pub answered: bool,
    /// The question's words found in no best section (analyzed form),
    /// heaviest first.
    pub missing: Vec<String>,
    /// When the sites asked do not answer: the other sites (`/sites`)
    /// whose pages do. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_sites: Vec<String>,
}

/// `_meta.response_type`: what kind of document this is. This endpoint
/// answers or fails; it never sends `elicitation` or `promise`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResponseType {
    /// An answer.
    Answer,
    /// A failure; the document carries `error`.
    Failure,
}

/// `_meta.session_context`: the conversation this answer belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionContext {
    /// The `query_id` of the exchange.
    pub conversation_id: String,
}

/// `_meta.generator`: who wrote the summary of a `summarize` or
/// `generate` answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GeneratorUsed {
    /// `extractive` (sentences of the sections, verbatim) or the model
    /// provider that wrote it (`bedrock`).
    pub name: String,
    /// The configured model, whether or not it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why the extractive summary answered although a model is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
}

/// Why a configured model did not write the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fallback {
    /// The docs do not seem to answer (`answer_confidence.answered` is
    /// false): the model was not asked.
    NotAnswered,
    /// The provider throttled the call (after a retry).
    Throttled,
    /// No answer within the configured time.
    Timeout,
    /// The model declined or was filtered, or wrote nothing.
    Refused,
    /// The model cited no source it was given.
    NoValidCitation,
    /// Any other failure of the call (logged).
    Error,
}

/// `_meta` of every document and of the `start` and `complete` events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// `answer` or `failure`.
    pub response_type: ResponseType,
    /// Always `0.55`.
    pub version: Version,
    /// The format of `results` (answers and the `start` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// `true` on the `start` event of a stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// On the `complete` event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_context: Option<SessionContext>,
    /// The id of the index build that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_build_id: Option<String>,
    /// When that index was built (RFC 3339): the data's freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_built_at: Option<String>,
    /// What was searched when earlier questions (`prev`, `context.text`)
    /// changed the question, or the client's own `decontextualized_query`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decontextualized_query: Option<String>,
    /// `prefer.accept-language`, echoed; results stay in the docs' language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept_language: Option<String>,
    /// Whether the docs seem to answer (answer documents and `start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_confidence: Option<AnswerConfidence>,
    /// The question's words corrected before searching, when any were
    /// (answer documents and `start`); `decontextualized_query` then holds
    /// the question as searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_corrections: Option<Vec<QueryCorrection>>,
    /// Who wrote the summary (answers with one, and `start`). With
    /// `ask.transport: streaming`, `start` goes out before the summary is
    /// written: it names who is to write it, and `complete` who did (with
    /// the fallback, if any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<GeneratorUsed>,
}

impl Meta {
    /// The members every `_meta` of an exchange shares.
    fn base(response_type: ResponseType, echo: &Echo) -> Meta {
        Meta {
            response_type,
            version: Version::V055,
            response_format: None,
            streaming: None,
            session_context: None,
            index_build_id: Some(echo.index_build_id.clone()),
            index_built_at: Some(echo.index_built_at.clone()),
            decontextualized_query: echo.decontextualized_query.clone(),
            accept_language: echo.accept_language.clone(),
            answer_confidence: None,
            query_corrections: None,
            generator: None,
        }
    }

    /// An answer document's `_meta`.
    pub fn answer(echo: &Echo) -> Meta {
        Meta {
            response_format: Some(echo.format),
            answer_confidence: echo.confidence.clone(),
            query_corrections: (!echo.corrections.is_empty()).then(|| echo.corrections.clone()),
            generator: echo.generator.clone(),
            ..Meta::base(ResponseType::Answer, echo)
        }
    }

    /// A failure document's `_meta`.
    pub fn failure(echo: &Echo) -> Meta {
        Meta::base(ResponseType::Failure, echo)
    }

    /// The `start` event's `_meta` (a stream starts as an answer).
    pub fn stream_start(echo: &Echo) -> Meta {
        Meta {
            streaming: Some(true),
            ..Meta::answer(echo)
        }
    }

    /// The `complete` event's `_meta`: how the stream ended, and its
    /// conversation.
    pub fn stream_complete(response_type: ResponseType, query_id: &str, echo: &Echo) -> Meta {
        Meta {
            session_context: Some(SessionContext {
                conversation_id: query_id.to_string(),
            }),
            ..Meta::base(response_type, echo)
        }
    }
}
