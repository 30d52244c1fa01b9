//! How does an agent find `/mcp`? The documents of the Server Card
//! extension (SEP-2127) as its repository's main branch has them at
//! 8924e08 (2026-07-24; still a draft): the server card and the AI Catalog
//! that points at it, as serde types whose schemas carry the extension's
//! constraints.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// The schema every card names.
pub const CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// An MCP server card.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerCard {
    /// [`CARD_SCHEMA`].
    #[serde(rename = "$schema")]
    #[schemars(extend("const" = CARD_SCHEMA))]
    pub schema: &'static str,
    /// Reverse-DNS of the docs' host, then `/nlweb-ask`.
    #[schemars(
        length(min = 3, max = 200),
        regex(pattern = r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
    )]
    pub name: String,
    /// The crate version.
    #[schemars(length(max = 255))]
    pub version: String,
    /// The server's title.
    #[schemars(length(min = 1, max = 100))]
    pub title: String,
    /// What it does.
    #[schemars(length(min = 1, max = 100))]
    pub description: String,
    /// The docs site.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(url)]
    pub website_url: Option<String>,
    /// Where `/mcp` answers (none when this deployment's address is
    /// unknown).
    pub remotes: Vec<Remote>,
}

/// One address of the server.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Remote {
    /// `streamable-http`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "streamable-http"))]
    pub kind: &'static str,
    /// The absolute `/mcp` URL.
    #[schemars(regex(pattern = r"^(https?://[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$"))]
    pub url: String,
    /// Every revision `/mcp` serves.
    pub supported_protocol_versions: &'static [&'static str],
    /// The `Authorization` header, when `ask.auth` is `required`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<HeaderInput>,
}

/// A header a client must send (the extension's `KeyValueInput`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeaderInput {
    /// The header's name.
    pub name: &'static str,
    /// What to put in it.
    pub description: &'static str,
    /// It must be sent.
    pub is_required: bool,
    /// It is a secret.
    pub is_secret: bool,
    /// Its value, with `{variables}`.
    pub value: &'static str,
    /// The variables of `value`.
    pub variables: BTreeMap<&'static str, Variable>,
}

/// A variable of a [`HeaderInput`]'s value.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    /// It must be given.
    pub is_required: bool,
    /// It is a secret.
    pub is_secret: bool,
}

impl HeaderInput {
    /// `Authorization: Bearer {token}`.
    pub fn bearer() -> HeaderInput {
        let secret = Variable {
            is_required: true,
            is_secret: true,
        };
        HeaderInput {
            name: "Authorization",
            description: "A bearer token from the docs' authorization server",
            is_required: true,
            is_secret: true,
            value: "Bearer {token}",
            variables: BTreeMap::from([("token", secret)]),
        }
    }
}

/// An AI Catalog.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// `1.0`.
    #[schemars(extend("const" = "1.0"))]
    pub spec_version: &'static str,
    /// This deployment's server, if its address is known.
    pub entries: Vec<CatalogEntry>,
}

/// A catalog entry: where a card is.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CatalogEntry {
    /// `urn:air:<docs host>:mcp:nlweb-ask`.
    pub identifier: String,
    /// `application/mcp-server-card+json`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "application/mcp-server-card+json"))]
    pub kind: &'static str,
    /// The card's URL.
    pub url: String,
}
