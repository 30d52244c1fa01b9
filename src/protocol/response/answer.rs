//! The answer documents and their items: Schema.org sections and the
//! summary, `conversational_search` and `chatgpt_app` answers, and any
//! `/ask` body.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::FailureDocument;
use super::legacy::LegacyHeader;
use super::meta::Meta;
use super::version::Version;

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
