//! The request shapes as clients send them (docs/content/docs/api.mdx,
//! Requests): URL parameters ([`UrlParams`]) and one POST body type
//! ([`AskBody`]) holding the flat legacy members and the 0.55 `query` /
//! `context` / `prefer` / `meta` objects side by side, each member as
//! lenient as clients are. `super::request` normalises them.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// Text as clients send it: a string, or a number or boolean read as its
/// text.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "expected a string, number or boolean")]
pub enum Text {
    /// A string.
    String(String),
    /// A number, read as its decimal text.
    Number(serde_json::Number),
    /// A boolean, read as `true` / `false`.
    Bool(bool),
}

impl Text {
    pub(super) fn into_string(self) -> String {
        match self {
            Text::String(s) => s,
            Text::Number(n) => n.to_string(),
            Text::Bool(b) => b.to_string(),
        }
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::String(s) => write!(f, "{s:?}"),
            Text::Number(n) => write!(f, "{n}"),
            Text::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Earlier questions: an array, or one comma-separated string (`"a,b"`,
/// `"[a,b]"`, or a JSON array written as a string).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "expected an array of strings or a comma-separated string"
)]
pub enum Prev {
    /// `["a", "b"]`.
    List(Vec<Text>),
    /// `"a,b"`.
    Joined(Text),
}

/// `site` / `query.site`: one site, or a list whose first entry is used.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "expected a string or an array of strings")]
pub enum Site {
    /// `"docs"`.
    One(Text),
    /// `["docs", …]`.
    Many(Vec<Text>),
}

/// `query` in a body: the 0.55 object or the legacy string.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "expected {\"text\": \"…\"} (NLWeb 0.55) or a string"
)]
pub enum QueryMember {
    /// NLWeb 0.55 `{"text": …, "site": …, …filters}`.
    Object(QueryObject),
    /// Legacy flat `"query": "…"`.
    Text(Text),
}

/// The 0.55 `query` object. Other filters are accepted and ignored.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct QueryObject {
    /// The question.
    #[serde(default)]
    pub text: Option<Text>,
    /// The site to search (one site is served).
    #[serde(default)]
    pub site: Option<Site>,
    /// A standalone version of the question, used instead of it and `prev`.
    #[serde(default)]
    pub decontextualized_query: Option<Text>,
    /// How many results to retrieve (the reference's default is 50); the
    /// answer carries at most 10.
    #[serde(default)]
    pub num_results: Option<Text>,
    /// How many results to return (read before `num_results`); at most 10.
    #[serde(default)]
    pub max_results: Option<Text>,
    /// The reference's 0–100 relevance threshold: accepted and not applied
    /// (BM25 scores have no fixed scale).
    #[serde(default)]
    pub min_score: Option<Text>,
}

/// The 0.55 `context` object.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct Context {
    /// Earlier questions, oldest first.
    #[serde(default)]
    pub prev: Option<Prev>,
    /// Earlier conversation as one text, read as the most recent earlier
    /// question.
    #[serde(default)]
    pub text: Option<Text>,
}

/// The 0.55 `prefer` object.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct Prefer {
    /// SSE (`true`) or one JSON document (`false`).
    #[serde(default)]
    pub streaming: Option<Text>,
    /// `list`, `summarize` or `generate` (a comma list picks the richest).
    #[serde(default)]
    pub mode: Option<Text>,
    /// `conversational_search` (alias `conv_search`) or `chatgpt_app`.
    #[serde(default)]
    pub response_format: Option<Text>,
    /// The client's language, echoed in `_meta.accept_language`.
    #[serde(default, rename = "accept-language")]
    pub accept_language: Option<Text>,
}

/// The 0.55 `meta` object (`version` and others are accepted).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct RequestMeta {
    /// Offset of the first result returned (paging), from 0.
    #[serde(default)]
    pub start_num: Option<Text>,
}

/// A POST body: the NLWeb 0.55 members and the flat legacy ones side by
/// side (a body may mix them).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct AskBody {
    /// The question: the 0.55 object or a legacy string.
    #[serde(default)]
    pub query: Option<QueryMember>,
    /// Legacy alias of `query`.
    #[serde(default)]
    pub q: Option<Text>,
    /// Legacy alias of `query`.
    #[serde(default)]
    pub text: Option<Text>,
    /// Legacy mode.
    #[serde(default)]
    pub mode: Option<Text>,
    /// Legacy mode, read after `mode`.
    #[serde(default)]
    pub generate_mode: Option<Text>,
    /// Legacy streaming flag.
    #[serde(default)]
    pub streaming: Option<Text>,
    /// Legacy earlier questions.
    #[serde(default)]
    pub prev: Option<Prev>,
    /// Legacy site.
    #[serde(default)]
    pub site: Option<Site>,
    /// An id to echo in the answer.
    #[serde(default)]
    pub query_id: Option<Text>,
    /// Legacy standalone question.
    #[serde(default)]
    pub decontextualized_query: Option<Text>,
    /// NLWeb 0.55 context (ignored unless an object).
    #[serde(default, deserialize_with = "object_or_none")]
    pub context: Option<Context>,
    /// NLWeb 0.55 preferences (ignored unless an object).
    #[serde(default, deserialize_with = "object_or_none")]
    pub prefer: Option<Prefer>,
    /// NLWeb 0.55 `meta`: `start_num` is read, the rest accepted.
    #[serde(default, deserialize_with = "object_or_none")]
    pub meta: Option<RequestMeta>,
    /// Legacy results wanted.
    #[serde(default)]
    pub num_results: Option<Text>,
    /// Legacy results wanted (read before `num_results`).
    #[serde(default)]
    pub max_results: Option<Text>,
    /// Legacy page offset.
    #[serde(default)]
    pub start_num: Option<Text>,
}

/// The URL parameters read (GET, and POST with a query string); others are
/// ignored.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct UrlParams {
    /// The question.
    pub query: Option<String>,
    /// Alias of `query`.
    pub q: Option<String>,
    /// Alias of `query`.
    pub text: Option<String>,
    /// `list`, `summarize` or `generate`.
    pub mode: Option<String>,
    /// Read when `mode` is absent.
    pub generate_mode: Option<String>,
    /// `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`).
    pub streaming: Option<String>,
    /// Earlier questions, comma-separated.
    pub prev: Option<String>,
    /// The site to search.
    pub site: Option<String>,
    /// An id to echo in the answer.
    pub query_id: Option<String>,
    /// A standalone version of the question.
    pub decontextualized_query: Option<String>,
    /// Results wanted (at most 10).
    pub num_results: Option<String>,
    /// Results wanted, read before `num_results`.
    pub max_results: Option<String>,
    /// Offset of the first result (paging).
    pub start_num: Option<String>,
}

/// A member that only counts when it is an object: anything else is read
/// as absent, while an object with a bad member is still an error.
fn object_or_none<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = serde_json::Value::deserialize(d)?;
    if v.is_object() {
        serde_path_to_error::deserialize(v)
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("{}: {}", e.path(), e.inner())))
    } else {
        Ok(None)
    }
}
