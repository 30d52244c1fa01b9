//! What does the API look like to a client generator? The OpenAPI 3.1
//! document of every route, generated from the protocol types (their
//! schemars schemas), so it cannot drift from what the code sends. Each
//! route's path item is a [`Fragment`] beside its handler
//! (`crate::routes`, whose table hands them to [`document`]); this module
//! holds the pieces they are built from and the document around them.

use serde_json::{Map, Value};

mod shared;

pub use shared::*;

/// A route's OpenAPI path item, built from the document's schemas.
pub type Fragment = fn(&Parts) -> Value;

fn header(description: &str, example: &str, ty: &str) -> Value {
    obj(&[
        ("description", s(description)),
        ("schema", obj(&[("type", s(ty))])),
        (
            "example",
            if ty == "integer" {
                Value::from(example.parse::<i64>().unwrap_or(0))
            } else {
                s(example)
            },
        ),
    ])
}

/// `components/headers`: the headers the responses refer to.
fn headers() -> Value {
    obj(&[
        (
            "RateLimit-Policy",
            header(
                "The per-client token bucket (IETF draft syntax)",
                "\"default\";q=20;w=60",
                "string",
            ),
        ),
        (
            "RateLimit",
            header(
                "Tokens left and seconds until the bucket is full",
                "\"default\";r=19;t=3",
                "string",
            ),
        ),
        (
            "Retry-After",
            header("Seconds until a token is back", "3", "integer"),
        ),
        (
            "Allow",
            header("The route's methods", "GET, POST, OPTIONS", "string"),
        ),
        (
            "ETag",
            header(
                "Strong validator of a GET answer: the index build and the normalised request",
                "\"3f2a9c0d1e4b5a67\"",
                "string",
            ),
        ),
        (
            "WWW-Authenticate",
            header(
                "The bearer challenge of a 401 or 403 (RFC 6750), with the protected-resource metadata URL (RFC 9728)",
                "Bearer resource_metadata=\"https://api.example.com/.well-known/oauth-protected-resource\", error=\"invalid_token\"",
                "string",
            ),
        ),
        (
            "X-Index",
            header(
                "The index that answered: its build id and build time",
                "build-id=cb49a0b66aae488f; built-at=2026-12-03T06:24:10Z",
                "string",
            ),
        ),
    ])
}

/// A route's path as OpenAPI writes it: `/pages/{*page}` is
/// `/pages/{page}`.
pub fn path_of(route: &str) -> String {
    route.replace("{*", "{")
}

/// The OpenAPI 3.1 document of `routes` (each a path and its fragment).
pub fn document(routes: impl IntoIterator<Item = (&'static str, Fragment)>) -> Value {
    let mut g = Schemas::new();
    let p = Parts::new(&mut g);
    let paths: Map<String, Value> = routes
        .into_iter()
        .map(|(path, fragment)| (path_of(path), fragment(&p)))
        .collect();
    let paths = Value::Object(paths);
    let schemas: Map<String, Value> = g.0.take_definitions(true).into_iter().collect();
    obj(&[
        ("openapi", s("3.1.0")),
        (
            "info",
            obj(&[
                ("title", s("nlweb-ask")),
                ("version", s(env!("CARGO_PKG_VERSION"))),
                (
                    "description",
                    s(
                        "An NLWeb 0.55 /ask endpoint over a product's documentation, with an MCP server (/mcp), llms.txt and /sites. Generated from the protocol types.",
                    ),
                ),
            ]),
        ),
        ("paths", paths),
        (
            "components",
            obj(&[
                ("schemas", Value::Object(schemas)),
                ("headers", headers()),
                (
                    "securitySchemes",
                    obj(&[(
                        "bearer",
                        obj(&[
                            ("type", s("http")),
                            ("scheme", s("bearer")),
                            ("bearerFormat", s("JWT")),
                            (
                                "description",
                                s(
                                    "With ask.auth optional or required: an RS256 or ES256 JWT from the configured issuer, with the configured audience and scope",
                                ),
                            ),
                        ]),
                    )]),
                ),
            ]),
        ),
    ])
}

/// `doc` with the `site` parameter of every operation naming the docs'
/// sites (`ask.sites`): a comma list (`style: form`, `explode: false`) of
/// them and `all`.
pub fn with_sites(doc: &Value, names: &[String]) -> Value {
    let mut doc = doc.clone();
    let mut values: Vec<Value> = names.iter().map(|n| s(n)).collect();
    values.push(s("all"));
    let schema = obj(&[
        ("type", s("array")),
        (
            "items",
            obj(&[("type", s("string")), ("enum", Value::Array(values))]),
        ),
    ]);
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return doc;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut().filter_map(Value::as_object_mut) {
            let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
                continue;
            };
            for p in params.iter_mut().filter_map(Value::as_object_mut) {
                if p.get("name").and_then(Value::as_str) == Some("site")
                    && p.get("in").and_then(Value::as_str) == Some("query")
                {
                    p.insert("schema".into(), schema.clone());
                    p.insert("style".into(), s("form"));
                    p.insert("explode".into(), Value::Bool(false));
                }
            }
        }
    }
    doc
}
