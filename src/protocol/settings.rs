//! What does `GET /config` tell an agent? The public settings, as one
//! serde type (its schema goes into the OpenAPI document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::request::Mode;
use super::response::{ResponseFormat, Version};

/// `GET /config`: the settings an agent may read before it asks (NLWeb's
/// route table names the route; the reference answers only
/// `nlweb_gateway`, kept here). Nothing secret: no index location, key set
/// or model id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigDocument {
    /// This API's host and stage, as the reference's `nlweb_gateway` (the
    /// host that NLWeb clients send `/ask` and `/who` to).
    pub nlweb_gateway: String,
    /// The NLWeb protocol version of every document: `0.55`.
    pub protocol_version: Version,
    /// The site name this index serves (`site` / `query.site`).
    pub site: String,
    /// With `ask.sites`: the sites a request may name (`/sites`), besides
    /// `all`. Absent: the index is one site.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
    /// With `ask.sites`: the site a request that names none searches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_site: Option<String>,
    /// The modes served.
    pub modes: Vec<Mode>,
    /// The mode of a request that names none.
    pub default_mode: Mode,
    /// The response formats served (`conv_search` is accepted for
    /// `conversational_search`).
    pub response_formats: Vec<ResponseFormat>,
    /// Whether a request that says nothing gets Server-Sent Events.
    pub default_streaming: bool,
    /// Request limits.
    pub limits: ConfigLimits,
    /// The token bucket every request spends from.
    pub rate_limit: ConfigRateLimit,
    /// Bearer tokens: `off`, `optional` or `required`, and where to get one.
    pub auth: ConfigAuth,
    /// Who writes summaries: `extractive` or `bedrock` (a model).
    pub generator: String,
    /// The routes, as absolute URLs.
    pub endpoints: ConfigEndpoints,
}

/// `limits` of `/config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigLimits {
    /// Longest query, in characters.
    pub max_query_chars: u32,
    /// Largest request body, in bytes.
    pub max_body_bytes: u32,
    /// Most `prev` entries.
    pub max_prev: u32,
    /// Results of an answer that asks for no number.
    pub default_results: u32,
    /// Most results an answer holds.
    pub max_results: u32,
}

/// `rate_limit` of `/config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigRateLimit {
    /// Requests a minute per client address (each warm instance keeps its
    /// own buckets).
    pub per_minute: u32,
    /// Requests a minute per authenticated subject.
    pub per_minute_authenticated: u32,
    /// The window of the `RateLimit` headers, in seconds.
    pub window_seconds: u32,
}

/// `auth` of `/config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigAuth {
    /// `off`, `optional` (anonymous or a valid token) or `required`.
    pub mode: String,
    /// The scope a token must carry, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The RFC 9728 metadata (when auth is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<String>,
}

/// `endpoints` of `/config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigEndpoints {
    /// `/ask`.
    pub ask: String,
    /// `/who`.
    pub who: String,
    /// `/mcp`.
    pub mcp: String,
    /// `/sites`.
    pub sites: String,
    /// `/llms.txt`.
    pub llms_txt: String,
    /// `/openapi.json`.
    pub openapi: String,
}
