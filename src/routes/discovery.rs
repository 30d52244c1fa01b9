//! How an agent finds `/mcp` without reading `llms.txt`: the MCP server
//! card at `/mcp/server-card`, and the domain's catalog that points at it
//! (`/.well-known/ai-catalog.json`, and `/.well-known/mcp/catalog.json`,
//! the path of the extension's earlier drafts); their shapes are
//! `crate::protocol::discovery`'s.

use crate::protocol::discovery::{
    CARD_SCHEMA, Catalog, CatalogEntry, HeaderInput, Remote, ServerCard,
};
use crate::protocol::mcp::ALL_VERSIONS;
use crate::protocol::openapi::{self as oa, get_validated, typed};
use crate::state::{State, api_base_url};
use axum::body::Body;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

pub use crate::protocol::paths::{CARD_PATH, CATALOG_PATH, MCP_CATALOG_PATH};

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
    let host = docs_host(&state.base_url);
    let name = card_name(host);
    let api = api_base_url(state, parts);
    let headers = if state.auth.mode() == crate::auth::Mode::Required {
        vec![HeaderInput::bearer()]
    } else {
        Vec::new()
    };
    // The title and version of `initialize` and `server/discover`.
    let info = crate::mcp::server_info(&state.product.0);
    ServerCard {
        schema: CARD_SCHEMA,
        name,
        version: info.version,
        title: clip(info.title.unwrap_or_default(), 100),
        description: clip(info.description.unwrap_or_default(), 100),
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
    let (mut parts, _) = req.into_parts();
    let body = rendered(&mut parts).unwrap_or_else(|| card_body(&state, &parts));
    document("application/mcp-server-card+json", body)
}

/// GET the catalog (at both of its paths).
pub async fn catalog_handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (mut parts, _) = req.into_parts();
    let body = rendered(&mut parts).unwrap_or_else(|| catalog_body(&state, &parts));
    document("application/ai-catalog+json", body)
}

/// A document as its validator wrote it, left for the route.
#[derive(Clone)]
struct Rendered(String);

/// The document the validator wrote, if it ran.
fn rendered(parts: &mut Parts) -> Option<String> {
    parts.extensions.remove::<Rendered>().map(|Rendered(b)| b)
}

fn card_body(state: &State, parts: &Parts) -> String {
    serde_json::to_string(&card(state, parts)).unwrap_or_default()
}

fn catalog_body(state: &State, parts: &Parts) -> String {
    serde_json::to_string(&catalog(state, parts)).unwrap_or_default()
}

/// The hash of a document, which it leaves in the extensions for the
/// route (written once a request).
fn validate(parts: &mut Parts, body: String, seed: u64) -> Option<u64> {
    let hash = ask_index::index::fnv1a64(body.as_bytes(), seed);
    parts.extensions.insert(Rendered(body));
    Some(hash)
}

/// The card's validator: a hash of the card this request gets (the
/// revalidation layer answers a matching `If-None-Match` with 304, no token
/// spent, and puts the `ETag` and [`CACHE`] on the answer).
pub fn card_validator(state: &State, parts: &mut Parts) -> Option<u64> {
    let body = card_body(state, parts);
    validate(parts, body, 0x6361_7264)
}

/// The catalog's validator, as [`card_validator`].
pub fn catalog_validator(state: &State, parts: &mut Parts) -> Option<u64> {
    let body = catalog_body(state, parts);
    validate(parts, body, 0x6361_7467)
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

/// The server card's OpenAPI path item.
pub fn card_fragment(p: &oa::Parts) -> serde_json::Value {
    get_validated(
        p,
        "The MCP server card (Server Card extension, SEP-2127, draft): name, version, title, description and where /mcp answers, with the revisions it serves; public for an hour, ETag",
        typed(
            "Server card",
            "application/mcp-server-card+json",
            p.server_card.clone(),
        ),
    )
}

/// The AI Catalog's OpenAPI path item.
pub fn catalog_fragment(p: &oa::Parts) -> serde_json::Value {
    get_validated(
        p,
        "The domain's AI Catalog, whose entry points at the server card; public for an hour, ETag",
        typed(
            "AI Catalog",
            "application/ai-catalog+json",
            p.catalog.clone(),
        ),
    )
}

/// The earlier drafts' catalog path's OpenAPI path item.
pub fn mcp_catalog_fragment(p: &oa::Parts) -> serde_json::Value {
    get_validated(
        p,
        "The same catalog, at the path of the Server Card extension's earlier drafts",
        typed(
            "AI Catalog",
            "application/ai-catalog+json",
            p.mcp_catalog.clone(),
        ),
    )
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
