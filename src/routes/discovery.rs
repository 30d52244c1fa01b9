//! How an agent finds `/mcp` without reading `llms.txt`: the MCP server
//! card at `/mcp/server-card`, and the domain's catalog that points at it
//! (`/.well-known/ai-catalog.json`, and `/.well-known/mcp/catalog.json`,
//! the path of the extension's earlier drafts). Shapes of the Server Card
//! extension (SEP-2127) as its repository's main branch has them at
//! 8924e08 (2026-07-24); the extension is still a draft, not final.

use axum::body::Body;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;
use serde::Serialize;

use crate::protocol::mcp::ALL_VERSIONS;
use crate::state::{State, api_base_url};

/// The card's path.
pub const CARD_PATH: &str = "/mcp/server-card";
/// The AI Catalog's well-known path (the extension's current draft).
pub const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";
/// The MCP catalog path of the extension's earlier drafts: the same
/// catalog.
pub const MCP_CATALOG_PATH: &str = "/.well-known/mcp/catalog.json";

/// The schema every card names.
pub const CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// An MCP server card.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCard {
    /// [`CARD_SCHEMA`].
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    /// Reverse-DNS of the docs' host, then `/nlweb-ask`.
    pub name: String,
    /// The crate version.
    pub version: &'static str,
    /// At most 100 characters.
    pub title: String,
    /// At most 100 characters.
    pub description: String,
    /// The docs site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Where `/mcp` answers (none when this deployment's address is
    /// unknown).
    pub remotes: Vec<Remote>,
}

/// One address of the server.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Remote {
    /// `streamable-http`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The absolute `/mcp` URL.
    pub url: String,
    /// Every revision `/mcp` serves.
    pub supported_protocol_versions: &'static [&'static str],
    /// The `Authorization` header, when `ask.auth` is `required`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<serde_json::Value>,
}

/// An AI Catalog.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// `1.0`.
    pub spec_version: &'static str,
    /// This deployment's server, if its address is known.
    pub entries: Vec<CatalogEntry>,
}

/// A catalog entry: where a card is.
#[derive(Debug, Serialize)]
pub struct CatalogEntry {
    /// `urn:air:<docs host>:mcp:nlweb-ask`.
    pub identifier: String,
    /// `application/mcp-server-card+json`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The card's URL.
    pub url: String,
}

/// The docs site's host (`docs.example.com`), if its base URL has one.
fn docs_host(base_url: &str) -> Option<&str> {
    let rest = base_url
        .strip_prefix("https://")
        .or_else(|| base_url.strip_prefix("http://"))?;
    let host = rest.split(['/', ':', '?', '#']).next()?;
    (!host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'))
    .then_some(host)
}

/// At most `n` characters.
fn clip(s: String, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s,
    }
}

/// The card as this request sees the deployment.
pub fn card(state: &State, parts: &Parts) -> ServerCard {
    let product = &state.product.0;
    let host = docs_host(&state.base_url);
    let name = match host {
        Some(h) => format!(
            "{}/nlweb-ask",
            h.split('.').rev().collect::<Vec<_>>().join(".")
        ),
        None => "local/nlweb-ask".to_string(),
    };
    let api = api_base_url(state, parts);
    let headers = if state.auth.mode() == crate::auth::Mode::Required {
        vec![serde_json::json!({
            "name": "Authorization",
            "description": "A bearer token from the docs' authorization server",
            "isRequired": true,
            "isSecret": true,
            "value": "Bearer {token}",
            "variables": {"token": {"isRequired": true, "isSecret": true}}
        })]
    } else {
        Vec::new()
    };
    ServerCard {
        schema: CARD_SCHEMA,
        name,
        version: env!("CARGO_PKG_VERSION"),
        title: clip(format!("Ask the {product} docs"), 100),
        description: clip(
            format!("Answers questions about {product} from its documentation."),
            100,
        ),
        website_url: host.map(|_| state.base_url.clone()),
        remotes: if api.is_empty() {
            Vec::new()
        } else {
            vec![Remote {
                kind: "streamable-http",
                url: format!("{api}/mcp"),
                supported_protocol_versions: &ALL_VERSIONS,
                headers,
            }]
        },
    }
}

/// The catalog as this request sees the deployment.
pub fn catalog(state: &State, parts: &Parts) -> Catalog {
    let api = api_base_url(state, parts);
    let host = docs_host(&state.base_url).unwrap_or("local");
    Catalog {
        spec_version: "1.0",
        entries: if api.is_empty() {
            Vec::new()
        } else {
            vec![CatalogEntry {
                identifier: format!("urn:air:{host}:mcp:nlweb-ask"),
                kind: "application/mcp-server-card+json",
                url: format!("{api}{CARD_PATH}"),
            }]
        },
    }
}

/// GET `/mcp/server-card`.
pub async fn card_handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    document(
        &parts,
        "application/mcp-server-card+json",
        &card(&state, &parts),
    )
}

/// GET the catalog.
pub async fn catalog_handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    document(
        &parts,
        "application/ai-catalog+json",
        &catalog(&state, &parts),
    )
}

/// The document, public for an hour, with an `ETag` (304 when the client
/// names it) and CORS open to every origin, as the extension asks.
fn document(parts: &Parts, content_type: &str, doc: &impl Serialize) -> Response {
    let body = serde_json::to_string(doc).unwrap_or_default();
    let tag = format!(
        "\"{:016x}\"",
        ask_index::index::fnv1a64(body.as_bytes(), 0x6361_7264)
    );
    let fresh = parts
        .headers
        .get("if-none-match")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|inm| {
            inm.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == tag)
        });
    let builder = Response::builder()
        .status(if fresh { 304 } else { 200 })
        .header("cache-control", "public, max-age=3600")
        .header("etag", &tag)
        .header("access-control-allow-origin", "*");
    if fresh {
        builder.body(Body::empty())
    } else {
        builder
            .header("content-type", content_type)
            .body(Body::from(body))
    }
    .expect("valid response")
}
