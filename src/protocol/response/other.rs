//! The documents of the other routes: the 404 body, `/sites`, the
//! protected resource metadata, and `/who`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::meta::ResponseType;
use super::version::Version;

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

/// One site the index serves: the whole index, or one of the docs'
/// sites (`ask.sites`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// The name to send as `site` / `query.site` (several comma-separated;
    /// `all` searches every page).
    pub site: String,
    /// The product, from the docs' root page.
    pub name: String,
    /// The site's description (`ask.sites`), else the product's.
    pub description: String,
    /// The docs base URL that result links start with.
    pub url: String,
    /// Pages indexed in this site.
    pub pages: u32,
    /// Heading sections indexed in this site.
    pub sections: u32,
    /// The site a request that names none searches. Absent: not the
    /// default (with no default, such a request searches every page).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
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
    /// The document listing `sites`.
    pub fn new(sites: Vec<Site>) -> SitesDocument {
        SitesDocument {
            message_type: SitesType::Sites,
            sites: sites.iter().map(|s| s.site.clone()).collect(),
            details: sites,
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
