//! The GET routes: the MCP server card and catalogs, `/openapi.json`,
//! `/llms.txt`, `/sites`, `/config`, `/who`, the widget and the RFC 9728
//! metadata.

use serde_json::Value;

use super::shared::{Parts, json, obj, optional_bearer, preflight, s, with_not_modified};
use crate::protocol::paths::RESOURCE_METADATA_PATH;
use crate::protocol::paths::{CARD_PATH, CATALOG_PATH, MCP_CATALOG_PATH};

/// [`json`] under another media type, with `ETag`; 304 when
/// `If-None-Match` names it.
fn typed(description: &str, mime: &str, schema: Value) -> Value {
    let mut r = json(description, schema.clone(), &["ETag"]);
    r["content"] = obj(&[(mime, obj(&[("schema", schema)]))]);
    r
}

/// A GET route (and its preflight): `ok`, or switched off, or the wrong
/// method, or (when it spends a token) rate-limited.
fn get_route(p: &Parts, summary: &str, ok: Value, spends_token: bool) -> Value {
    let mut responses = vec![
        ("200", ok),
        ("404", json("Switched off", p.not_found.clone(), &[])),
        (
            "405",
            json("METHOD_NOT_ALLOWED", p.failure.clone(), &["Allow"]),
        ),
    ];
    if spends_token {
        responses.push((
            "429",
            json("RATE_LIMITED", p.failure.clone(), &["Retry-After"]),
        ));
    }
    obj(&[
        (
            "get",
            obj(&[("summary", s(summary)), ("responses", obj(&responses))]),
        ),
        ("options", preflight()),
    ])
}

fn get_only(p: &Parts, summary: &str, ok: Value) -> Value {
    get_route(p, summary, ok, true)
}

/// A public GET with a validator: 304 for a matching If-None-Match.
fn get_validated(p: &Parts, summary: &str, ok: Value) -> Value {
    let mut route = get_only(p, summary, ok);
    route["get"]["responses"] = with_not_modified(route["get"]["responses"].take());
    route
}

/// A GET route that takes a bearer token as /ask does (ask.auth), with
/// `parameters` and the statuses beyond get_only's.
fn get_protected(
    p: &Parts,
    id: &str,
    summary: &str,
    ok: Value,
    parameters: Vec<Value>,
    more: Vec<(&str, Value)>,
) -> Value {
    let mut route = get_only(p, summary, ok);
    let get = &mut route["get"];
    get["operationId"] = s(id);
    get["security"] = optional_bearer();
    if !parameters.is_empty() {
        get["parameters"] = Value::Array(parameters);
    }
    for (status, response) in [
        (
            "401",
            json(
                "UNAUTHORIZED (ask.auth on)",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
        (
            "403",
            json(
                "FORBIDDEN (ask.auth on)",
                p.failure.clone(),
                &["WWW-Authenticate"],
            ),
        ),
    ]
    .into_iter()
    .chain(more)
    {
        get["responses"][status] = response;
    }
    route
}

/// A 200 whose body is text of `mime`.
fn text(description: &str, mime: &str) -> Value {
    obj(&[
        ("description", s(description)),
        (
            "content",
            obj(&[(mime, obj(&[("schema", obj(&[("type", s("string"))]))]))]),
        ),
    ])
}

/// The MCP server card and the catalogs that point at it.
fn discovery(p: &Parts) -> Vec<(&'static str, Value)> {
    vec![
        (
            CARD_PATH,
            get_validated(
                p,
                "The MCP server card (Server Card extension, SEP-2127, draft): name, version, title, description and where /mcp answers, with the revisions it serves; public for an hour, ETag",
                typed(
                    "Server card",
                    "application/mcp-server-card+json",
                    p.server_card.clone(),
                ),
            ),
        ),
        (
            CATALOG_PATH,
            get_validated(
                p,
                "The domain's AI Catalog, whose entry points at the server card; public for an hour, ETag",
                typed(
                    "AI Catalog",
                    "application/ai-catalog+json",
                    p.catalog.clone(),
                ),
            ),
        ),
        (
            MCP_CATALOG_PATH,
            get_validated(
                p,
                "The same catalog, at the path of the Server Card extension's earlier drafts",
                typed(
                    "AI Catalog",
                    "application/ai-catalog+json",
                    p.mcp_catalog.clone(),
                ),
            ),
        ),
    ]
}

/// The routes that take a bearer token as /ask does.
fn protected(p: &Parts) -> Vec<(&'static str, Value)> {
    vec![
        (
            crate::protocol::paths::LLMS_PATH,
            get_protected(
                p,
                "llmsTxt",
                "The docs' page list and these endpoints, in the llms.txt format, from the index",
                text("llms.txt", "text/plain"),
                vec![],
                vec![],
            ),
        ),
        (
            crate::protocol::paths::SITES_PATH,
            get_protected(
                p,
                "sites",
                "The site this index serves",
                json("Sites", p.sites.clone(), &[]),
                vec![],
                vec![],
            ),
        ),
        (
            crate::protocol::paths::CONFIG_PATH,
            get_protected(
                p,
                "config",
                "The public settings an agent may read: protocol version, modes, formats, limits, rate limit, auth, the endpoints",
                json("Settings", p.config.clone(), &[]),
                vec![],
                vec![],
            ),
        ),
        (
            crate::protocol::paths::WHO_PATH,
            get_protected(
                p,
                "who",
                "Whether this site answers a question: relevant, a score from 0 to 1 (the /ask answer's confidence) and the best page; JSON whatever streaming says",
                json("The site's relevance", p.who.clone(), &[]),
                vec![obj(&[
                    ("name", s("query")),
                    ("in", s("query")),
                    ("required", Value::Bool(true)),
                    ("description", s("The question (also `q` or `text`)")),
                    ("schema", obj(&[("type", s("string"))])),
                ])],
                vec![(
                    "400",
                    json(
                        "INVALID_QUERY: missing, empty or too long",
                        p.failure.clone(),
                        &[],
                    ),
                )],
            ),
        ),
    ]
}

/// The GET routes' path items, in the document's order.
pub(super) fn paths(p: &Parts) -> Vec<(&'static str, Value)> {
    let mut paths = discovery(p);
    paths.push((
        crate::protocol::paths::OPENAPI_PATH,
        get_only(
            p,
            "This document",
            json("OpenAPI 3.1", obj(&[("type", s("object"))]), &[]),
        ),
    ));
    paths.extend(protected(p));
    paths.push((
        crate::protocol::paths::WIDGET_PATH,
        get_route(
            p,
            "The <nlweb-ask> web component for docs sites (an ES module; no rate-limit token spent)",
            text("JavaScript", "text/javascript"),
            false,
        ),
    ));
    paths.push((
        RESOURCE_METADATA_PATH,
        get_only(
            p,
            "RFC 9728 protected-resource metadata: the issuer and scope of the tokens /ask and /mcp take (404 while ask.auth is off)",
            json("Protected-resource metadata", p.resource_metadata.clone(), &[]),
        ),
    ));
    paths
}
