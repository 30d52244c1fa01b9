//! What do agents get when they read the docs rather than ask them? The
//! MCP `search` and `fetch` tools' arguments and results (the shapes of
//! OpenAI's "Building MCP servers" page, which ChatGPT's connectors and
//! deep research require), and MCP resources: each page as a
//! `text/markdown` resource whose URI is the page's id (the results that
//! carry them are in `super::mcp`, beside the other results).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `search` tool's arguments.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArguments {
    /// What to look for, in plain language or keywords.
    pub query: String,
    /// The site to search; see `/sites`. Default: the default site, else every page.
    #[serde(default)]
    #[schemars(with = "String")]
    pub site: Option<String>,
}

/// The `fetch` tool's arguments.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchArguments {
    /// A page's id, as `search` or `resources/list` gives it.
    pub id: String,
}

/// `search`'s result: the pages that answer best, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResults {
    /// At most 10 pages.
    pub results: Vec<SearchResult>,
}

/// One page `search` found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    /// The page's id: what `fetch` and `resources/read` take (the URL of
    /// its Markdown on this endpoint).
    pub id: String,
    /// The page's title.
    pub title: String,
    /// The page on the docs site, for citation.
    pub url: String,
    /// A snippet of its best section for the query.
    pub text: String,
}

/// `fetch`'s result: a whole page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageDocument {
    /// The page's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The whole page as Markdown (cut, with a closing note that says so,
    /// when it would pass the response cap).
    pub text: String,
    /// The page on the docs site.
    pub url: String,
    /// What else is known of it, every value a string.
    pub metadata: PageMetadata,
}

/// A fetched page's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageMetadata {
    /// The site it belongs to (`/sites`).
    pub site: String,
    /// Its headings, in order, one a line.
    pub headings: String,
    /// The index build that holds it.
    pub build_id: String,
    /// Its file in the docs folder.
    pub path: String,
    /// `true` when `text` was cut at the response cap.
    pub truncated: String,
}

/// `resources/list`'s and `resources/templates/list`'s params.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
pub struct ListParams {
    /// Where the previous page of results ended (its `nextCursor`).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `resources/read`'s params.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
pub struct ReadParams {
    /// The resource's URI: a page's id.
    pub uri: String,
}

/// One page as a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The page's id.
    pub uri: String,
    /// Its key: its path in the docs folder without the extension.
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its description, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `text/markdown`.
    pub mime_type: String,
}
