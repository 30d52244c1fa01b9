//! Every key of the settings, from the type's JSON Schema, and the docs' table of them.

use serde_json::Value;

use super::settings::Settings;

/// What kind of value a key holds, as its environment variable is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `true`, `1`, `yes`, `on` or `false`, `0`, `no`, `off` (any case).
    Bool,
    /// A number.
    Number,
    /// Text, as written.
    Text,
    /// A list of words: a comma list (or JSON).
    List,
    /// JSON (an object, or a list of lists).
    Json,
}

/// One key of the settings: its name, its variable, its kind, its
/// default and its meaning (the field's doc comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// `top_k`.
    pub name: String,
    /// `ASK_TOP_K`.
    pub env: String,
    /// How its variable is read.
    pub kind: Kind,
    /// Its default.
    pub default: Value,
    /// What it means.
    pub doc: String,
}

/// The configuration page's table of every key (`docs/content/docs/
/// configuration.mdx` holds it verbatim; a test checks): key, variable,
/// default and meaning, from [`keys`].
pub fn table() -> String {
    let mut out = String::from(
        "| key in `ask:` | environment variable | default | meaning |\n|---|---|---|---|\n",
    );
    for k in keys() {
        let default = match &k.default {
            Value::String(s) if s.is_empty() => "empty".to_string(),
            Value::String(s) => format!("`{s}`"),
            Value::Null => "none".to_string(),
            v => format!("`{v}`"),
        };
        let doc = k
            .doc
            .split("\n\n")
            .next()
            .unwrap_or("")
            .replace('\n', " ")
            .replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | `{}` | {default} | {doc} |\n",
            k.name, k.env
        ));
    }
    out
}

/// The variable of key `name`: `ASK_` and the name in capitals.
pub fn env_name(name: &str) -> String {
    format!("ASK_{}", name.to_ascii_uppercase())
}

/// Every key of [`Settings`], in its order, from its JSON Schema.
pub fn keys() -> Vec<Key> {
    let schema = schemars::schema_for!(Settings);
    let schema = schema.as_value();
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let defaults = serde_json::to_value(Settings::default()).expect("settings serialise");
    let props = schema["properties"].as_object().expect("properties");
    // The schema's properties are sorted; the struct's order is the
    // serialised default's (serde_json keeps insertion order only with
    // preserve_order, so read it from the field list instead).
    FIELDS
        .iter()
        .map(|name| {
            let p = &props[*name];
            Key {
                name: name.to_string(),
                env: env_name(name),
                kind: kind_of(p, &defs),
                default: defaults[*name].clone(),
                doc: p
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            }
        })
        .collect()
}

/// The fields of [`Settings`] in their order (checked against the schema
/// by a test).
pub(super) const FIELDS: &[&str] = &[
    "enabled",
    "index",
    "corpus_path",
    "docs_base_url",
    "top_k",
    "rate_limit_per_minute",
    "cors_allow_origins",
    "mcp_allow_origins",
    "model_from_any_origin",
    "default_mode",
    "default_streaming",
    "max_query_chars",
    "boost",
    "synonyms",
    "cache_max_age",
    "site",
    "sites",
    "segments",
    "public_base_url",
    "max_response_bytes",
    "retriever",
    "model_dir",
    "hybrid_weight",
    "transport",
    "log_queries",
    "auth",
    "auth_jwks",
    "auth_jwks_url",
    "auth_issuer",
    "auth_audience",
    "auth_scope",
    "auth_rate_limit_per_minute",
    "generator",
    "generator_modes",
    "bedrock_model_id",
    "bedrock_region",
    "bedrock_max_tokens",
    "bedrock_timeout_ms",
    "s3_force_path_style",
];

/// The kind of a property of the schema (following `$ref`s, an
/// `Option`'s `null` left aside).
fn kind_of(p: &Value, defs: &Value) -> Kind {
    if let Some(r) = p.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or("");
        return kind_of(&defs[name], defs);
    }
    let types: Vec<&str> = match p.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let t = types.into_iter().find(|t| *t != "null");
    match t {
        Some("boolean") => Kind::Bool,
        Some("integer") | Some("number") => Kind::Number,
        Some("string") => Kind::Text,
        Some("array") => {
            let items = &p["items"];
            let item = if items.get("$ref").is_some() {
                kind_of(items, defs)
            } else {
                match items.get("type").and_then(Value::as_str) {
                    Some("string") => Kind::Text,
                    _ => Kind::Json,
                }
            };
            if item == Kind::Text {
                Kind::List
            } else {
                Kind::Json
            }
        }
        Some(_) => Kind::Json,
        // An enum of strings (`oneOf` of constants) or an `anyOf` with null.
        None => {
            let alts = p
                .get("oneOf")
                .or_else(|| p.get("anyOf"))
                .and_then(Value::as_array);
            match alts {
                Some(alts) => alts
                    .iter()
                    .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                    .map(|a| {
                        if a.get("const").is_some_and(Value::is_string) || a.get("enum").is_some() {
                            Kind::Text
                        } else {
                            kind_of(a, defs)
                        }
                    })
                    .next()
                    .unwrap_or(Kind::Text),
                None if p.get("enum").is_some() => Kind::Text,
                None => Kind::Json,
            }
        }
    }
}
