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

/// The card's `name`: the docs' host reversed, then `/nlweb-ask`
/// (`com.example.docs/nlweb-ask`); `local/nlweb-ask` without a host or
/// past the card's 200 characters.
fn card_name(host: Option<&str>) -> String {
    match host {
        Some(h) if h.len() + "/nlweb-ask".len() <= 200 => format!(
            "{}/nlweb-ask",
            h.split('.').rev().collect::<Vec<_>>().join(".")
        ),
        _ => "local/nlweb-ask".to_string(),
    }
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
    let name = card_name(host);
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

/// How long a client may keep the card and the catalog.
pub const CACHE: &str = "public, max-age=3600";

/// GET `/mcp/server-card`.
pub async fn card_handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    document(
        "application/mcp-server-card+json",
        card_body(&state, &parts),
    )
}

/// GET the catalog (at both of its paths).
pub async fn catalog_handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    document("application/ai-catalog+json", catalog_body(&state, &parts))
}

fn card_body(state: &State, parts: &Parts) -> String {
    serde_json::to_string(&card(state, parts)).unwrap_or_default()
}

fn catalog_body(state: &State, parts: &Parts) -> String {
    serde_json::to_string(&catalog(state, parts)).unwrap_or_default()
}

/// The card's validator: a hash of the card this request would get (the
/// revalidation layer answers a matching `If-None-Match` with 304, no token
/// spent, and puts the `ETag` and [`CACHE`] on the answer).
pub fn card_validator(state: &State, parts: &mut Parts, _: &[u8]) -> Option<u64> {
    Some(ask_index::index::fnv1a64(
        card_body(state, parts).as_bytes(),
        0x6361_7264,
    ))
}

/// The catalog's validator, as [`card_validator`].
pub fn catalog_validator(state: &State, parts: &mut Parts, _: &[u8]) -> Option<u64> {
    Some(ask_index::index::fnv1a64(
        catalog_body(state, parts).as_bytes(),
        0x6361_7467,
    ))
}

/// The document (CORS open to every origin is the route's, in the table;
/// the `ETag` is the revalidation layer's).
fn document(content_type: &str, body: String) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", content_type)
        .header("cache-control", CACHE)
        .body(Body::from(body))
        .expect("valid response")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_docs_host_is_kept_only_when_it_is_a_plain_host() {
        assert_eq!(
            docs_host("https://docs.example.com/x"),
            Some("docs.example.com")
        );
        assert_eq!(docs_host("http://localhost:3000"), Some("localhost"));
        for bad in [
            "",
            "docs.example.com",
            "ftp://x.org",
            "https://",
            "https://a_b.org",
            "https://é.org",
        ] {
            assert_eq!(docs_host(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_follow_the_cards_pattern_and_length() {
        // ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters.
        let ok = |n: &str| {
            let Some((ns, rest)) = n.split_once('/') else {
                return false;
            };
            (3..=200).contains(&n.len())
                && !ns.is_empty()
                && ns
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
                && !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        };
        assert_eq!(
            card_name(Some("docs.example.com")),
            "com.example.docs/nlweb-ask"
        );
        assert_eq!(card_name(None), "local/nlweb-ask");
        let long = format!("{}.example.com", "a".repeat(250));
        assert_eq!(card_name(Some(&long)), "local/nlweb-ask");
        for n in [
            card_name(Some("docs.example.com")),
            card_name(None),
            card_name(Some("localhost")),
            card_name(Some(&long)),
        ] {
            assert!(ok(&n), "{n}");
        }
        assert_eq!(clip("é".repeat(150), 100).chars().count(), 100);
    }
}
