//! What does the endpoint send back? Every NLWeb 0.55 response document
//! (answer, failure) and every SSE event, as serde types. `_meta` is built
//! here and only here; schemas derive from the same types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::failure::{Failure, FailureCode};

/// The protocol version on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Version {
    /// NLWeb 0.55.
    #[default]
    #[serde(rename = "0.55")]
    V055,
}

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

/// `@context` of every item: Schema.org.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SchemaContext {
    /// `https://schema.org`.
    #[default]
    #[serde(rename = "https://schema.org")]
    SchemaOrg,
}

/// `@type` of a document item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TechArticleType {
    /// A heading section of a docs page.
    #[default]
    TechArticle,
}

/// `@type` of the summary item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SearchSummaryType {
    /// The extractive answer.
    #[default]
    SearchSummary,
}

/// A heading section of a docs page, as a Schema.org `TechArticle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Article {
    /// `TechArticle`.
    #[serde(rename = "@type")]
    pub kind: TechArticleType,
    /// `https://schema.org`.
    #[serde(rename = "@context")]
    pub context: SchemaContext,
    /// Page title, then ` — ` and the section heading.
    pub name: String,
    /// Absolute URL of the section (`#anchor`).
    pub url: String,
    /// The docs base URL.
    pub site: String,
    /// BM25 score, two decimals.
    pub score: f32,
    /// A short query-relevant snippet.
    pub description: String,
    /// The section's plain text.
    pub text: String,
    /// The same article for clients of the older format.
    pub schema_object: ArticleObject,
    /// Where the text comes from.
    pub grounding: Grounding,
}

/// `schema_object` of a document item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArticleObject {
    /// `TechArticle`.
    #[serde(rename = "@type")]
    pub kind: TechArticleType,
    /// `https://schema.org`.
    #[serde(rename = "@context")]
    pub context: SchemaContext,
    /// As the item's.
    pub name: String,
    /// As the item's.
    pub url: String,
    /// As the item's.
    pub description: String,
    /// As the item's.
    pub text: String,
}

/// `grounding` of a document item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grounding {
    /// The section's URL.
    pub source_urls: Vec<String>,
}

impl Article {
    /// An item, with its `schema_object` and `grounding` filled from the
    /// same fields.
    pub fn new(
        name: String,
        url: String,
        site: String,
        score: f32,
        description: String,
        text: String,
    ) -> Article {
        Article {
            kind: TechArticleType::TechArticle,
            context: SchemaContext::SchemaOrg,
            schema_object: ArticleObject {
                kind: TechArticleType::TechArticle,
                context: SchemaContext::SchemaOrg,
                name: name.clone(),
                url: url.clone(),
                description: description.clone(),
                text: text.clone(),
            },
            grounding: Grounding {
                source_urls: vec![url.clone()],
            },
            name,
            url,
            site,
            score,
            description,
            text,
        }
    }
}

/// A source the summary cites: `[index]` in its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// 1-based rank of the cited item among the document items.
    pub index: usize,
    /// The cited item's name.
    pub name: String,
    /// The cited item's URL.
    pub url: String,
}

/// The extractive answer, as a Schema.org `SearchSummary`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// `SearchSummary`.
    #[serde(rename = "@type")]
    pub kind: SearchSummaryType,
    /// `https://schema.org`.
    #[serde(rename = "@context")]
    pub context: SchemaContext,
    /// Sentences from the sources, each followed by `[n]`.
    pub text: String,
    /// `Answer`.
    pub name: String,
    /// Empty: the summary has no page of its own.
    pub url: String,
    /// The docs base URL.
    pub site: String,
    /// Always 1.
    pub score: f32,
    /// The first sentence, without its citation.
    pub description: String,
    /// The cited items, by index.
    pub citations: Vec<Citation>,
    /// The same summary for clients of the older format.
    pub schema_object: SummaryObject,
}

/// `schema_object` of the summary item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummaryObject {
    /// `SearchSummary`.
    #[serde(rename = "@type")]
    pub kind: SearchSummaryType,
    /// `https://schema.org`.
    #[serde(rename = "@context")]
    pub context: SchemaContext,
    /// As the item's.
    pub text: String,
}

impl Summary {
    /// The summary item for `text` and its citations.
    pub fn new(
        text: String,
        description: String,
        citations: Vec<Citation>,
        site: String,
    ) -> Summary {
        Summary {
            kind: SearchSummaryType::SearchSummary,
            context: SchemaContext::SchemaOrg,
            schema_object: SummaryObject {
                kind: SearchSummaryType::SearchSummary,
                context: SchemaContext::SchemaOrg,
                text: text.clone(),
            },
            text,
            name: "Answer".into(),
            url: String::new(),
            site,
            score: 1.0,
            description,
            citations,
        }
    }
}

/// One entry of `results` or one streamed `item`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ResultItem {
    /// A docs section.
    Article(Article),
    /// The extractive answer.
    Summary(Summary),
}

/// A non-streaming answer (`application/json`, status 200).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerDocument {
    /// Document metadata.
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The client's `query_id`, or one made up for this answer.
    pub query_id: String,
    /// The SearchSummary first (summarize and generate), then the sections
    /// best first.
    pub results: Vec<ResultItem>,
    /// NLWeb's older in-band header `api_version` (`0.55`), for clients of
    /// the older format; a 0.55 client ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<Version>,
    /// The older header `data_freshness`: when the index was built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_freshness: Option<LegacyHeader>,
    /// The older header `rate_limits`: the token bucket, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<LegacyHeader>,
}

/// `error` of a failure document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// What kind of failure.
    pub code: FailureCode,
    /// What went wrong and what to do.
    pub message: String,
}

impl From<&Failure> for ErrorBody {
    fn from(f: &Failure) -> ErrorBody {
        ErrorBody {
            code: f.code(),
            message: f.to_string(),
        }
    }
}

/// A failure document: the body of every non-answer (and of `NO_RESULTS`,
/// `UNSUPPORTED_*` at 200).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailureDocument {
    /// Document metadata.
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The failure.
    pub error: ErrorBody,
    /// Present when the request got as far as having one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_id: Option<String>,
}

impl FailureDocument {
    /// The document for `f`.
    pub fn new(f: &Failure, query_id: Option<&str>, echo: &Echo) -> FailureDocument {
        FailureDocument {
            meta: Meta::failure(echo),
            error: f.into(),
            query_id: query_id.map(str::to_string),
        }
    }
}

/// The type of a text block: `text` (a `chatgpt_app` block's `Type`, an
/// MCP content block's `type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextType {
    /// `text`.
    #[default]
    Text,
}

/// A `chatgpt_app` text block (the reference's capitalised members).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatText {
    /// `text`.
    #[serde(rename = "Type")]
    pub kind: TextType,
    /// The summary, or the ranked sections as text.
    #[serde(rename = "Text")]
    pub text: String,
}

/// A non-streaming answer in the `chatgpt_app` format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatAnswerDocument {
    /// Document metadata (`response_format: chatgpt_app`).
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The exchange's id.
    pub query_id: String,
    /// Text for a model to read: the summary with its `[n]` citations, or
    /// the ranked sections.
    pub content: Vec<ChatText>,
    /// The same items as `results` in the other format.
    #[serde(rename = "structuredData")]
    pub structured_data: Vec<ResultItem>,
}

/// Any `/ask` response body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Document {
    /// An answer (`conversational_search`).
    Answer(AnswerDocument),
    /// An answer (`chatgpt_app`).
    ChatAnswer(ChatAnswerDocument),
    /// A failure.
    Failure(FailureDocument),
}

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

/// The body of a 404: not an NLWeb document but what API Gateway itself
/// answers for a route that does not exist, so a disabled endpoint and a
/// wrong path look the same as no endpoint at all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotFound {
    /// `Not Found`.
    pub message: String,
}

impl Default for NotFound {
    fn default() -> NotFound {
        NotFound {
            message: "Not Found".into(),
        }
    }
}

/// `message-type` of the `/sites` document (the reference server's name,
/// hyphen included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SitesType {
    /// `sites`.
    #[default]
    Sites,
}

/// One site the index serves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// The name to send as `site` / `query.site` (`all` also works).
    pub site: String,
    /// The product, from the docs' root page.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The docs base URL that result links start with.
    pub url: String,
    /// Pages indexed.
    pub pages: u32,
    /// Heading sections indexed.
    pub sections: u32,
    /// The index build's id.
    pub build_id: String,
    /// When the index was built (RFC 3339).
    pub built_at: String,
}

/// `GET /sites`: the reference server's shape (`message-type`, `sites` as
/// names) with the details of each site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SitesDocument {
    /// `sites`.
    #[serde(rename = "message-type")]
    pub message_type: SitesType,
    /// The site names.
    pub sites: Vec<String>,
    /// Each site's details, in the same order.
    pub details: Vec<Site>,
}

impl SitesDocument {
    /// The document for one site.
    pub fn new(site: Site) -> SitesDocument {
        SitesDocument {
            message_type: SitesType::Sites,
            sites: vec![site.site.clone()],
            details: vec![site],
        }
    }
}

/// `GET /.well-known/oauth-protected-resource` (RFC 9728), served when
/// `ask.auth` is on: where to get a token for `/ask` and `/mcp`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtectedResourceMetadata {
    /// The protected resource: this API's base URL.
    pub resource: String,
    /// The issuer that tokens come from (`ask.auth_issuer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_servers: Option<Vec<String>>,
    /// The scope a token must carry (`ask.auth_scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Always `["header"]`: `Authorization: Bearer`.
    pub bearer_methods_supported: Vec<String>,
    /// `RS256` and `ES256`.
    pub resource_signing_alg_values_supported: Vec<String>,
    /// The product's name.
    pub resource_name: String,
}

/// `_meta` of a `/who` document: the shape of the reference's
/// `WhoResponseMeta` with this endpoint's response type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoMeta {
    /// Always `answer`: relevant or not, the site says how much.
    pub response_type: ResponseType,
    /// Always `0.55`.
    pub version: Version,
    /// The exchange's id (the reference's conversation id).
    pub conversation_id: String,
}

/// `GET /who`: is this site relevant to a question? The reference's
/// `WhoResponse` (`_meta` and `content`, whose resource is this site as a
/// Schema.org `WebSite`), with the verdict also at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoDocument {
    /// Document metadata.
    #[serde(rename = "_meta")]
    pub meta: WhoMeta,
    /// The question, as asked.
    pub query: String,
    /// Whether the docs seem to answer it: the same confidence rule as an
    /// `/ask` answer's `_meta.answer_confidence.answered`.
    pub relevant: bool,
    /// 0 to 1: the weighted share of the question's terms found in the best
    /// sections (`_meta.answer_confidence.coverage` of `/ask`).
    pub score: f32,
    /// One resource: this site.
    pub content: Vec<WhoContent>,
}

/// `resource`, the only kind of `content` item of `/who`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResourceType {
    /// `resource`.
    #[default]
    Resource,
}

/// A `content` item of `/who`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoContent {
    /// `resource`.
    #[serde(rename = "type")]
    pub kind: ResourceType,
    /// The site.
    pub resource: WhoResource,
}

/// The site as a resource: where to ask it, and its description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoResource {
    /// This site's `/ask` endpoint.
    pub uri: String,
    /// `application/ld+json`.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// The site.
    pub data: WhoSite,
}

/// `@type` of a `/who` site.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WebSiteType {
    /// `WebSite`.
    #[default]
    WebSite,
}

/// The site and its best page for the question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoSite {
    /// `WebSite`.
    #[serde(rename = "@type")]
    pub kind: WebSiteType,
    /// The site name to send as `site`.
    pub site: String,
    /// The product, from the docs' root page.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The docs base URL.
    pub url: String,
    /// The same as the document's `score`.
    pub score: f32,
    /// The same as the document's `relevant`.
    pub relevant: bool,
    /// The best section for the question (none when nothing matches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_page: Option<WhoPage>,
}

/// The best section for a `/who` question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoPage {
    /// Page title and section heading.
    pub name: String,
    /// Its absolute URL, with the section's anchor.
    pub url: String,
    /// Its BM25 score, as in an `/ask` answer.
    pub score: f32,
    /// A query-relevant snippet.
    pub description: String,
}

/// One of NLWeb's older in-band "headers" (`{"message": …}`), as the
/// reference's non-streaming answers carry them at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegacyHeader {
    /// The header's text.
    pub message: String,
}

/// NLWeb's older in-band headers in a stream: unnamed events (no `event:`
/// line, so a client that listens for the named 0.55 events never sees
/// them) right after `start`, in the reference's legacy shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "message_type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LegacyMessage {
    /// `{"message_type":"api_version","api_version":"0.55"}`.
    ApiVersion {
        /// `0.55`.
        api_version: Version,
    },
    /// `{"message_type":"data_freshness","content":…}`: when the index was
    /// built.
    DataFreshness {
        /// The header's text.
        content: String,
    },
    /// `{"message_type":"rate_limits","content":…}`: the token bucket.
    RateLimits {
        /// The header's text.
        content: String,
    },
}
