//! What does a docs team set, and where does it come from?
//!
//! The `ask:` settings are one serde type, [`Settings`], with a doc comment
//! and a default for each key. That type is the schema of everything else:
//!
//! - the **settings file** a docs team keeps beside its docs (YAML, an
//!   `ask:` section): [`read_file`] refuses an unknown key or a bad value,
//!   naming the key, the file and the line. `build-index --config FILE`
//!   reads it and stores the keys it sets in the index, so the Lambda, the
//!   local server and every deploy use the same values;
//! - the **environment**: each key `ask.<key>` is read from `ASK_<KEY>` by
//!   one rule ([`resolve`]), and overrides the file; an empty variable is
//!   ignored;
//! - the `/config` document and the configuration page's table, which
//!   [`keys`] lists with their variable, default and doc comment.
//!
//! Precedence: the defaults below < the settings file (carried in the
//! index) < the environment. [`Settings::validate`] is the one check of a
//! loaded value. Pure: no I/O; the environment is a function passed in.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A response mode.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Ranked sections only.
    List,
    /// Sections plus an extractive SearchSummary.
    Summarize,
    /// Like summarize, unless a model writes the summary.
    Generate,
}

impl Mode {
    /// Parses one mode name; `none` is the reference server's name for list.
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "list" | "none" => Some(Mode::List),
            "summarize" | "summary" => Some(Mode::Summarize),
            "generate" => Some(Mode::Generate),
            _ => None,
        }
    }

    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::List => "list",
            Mode::Summarize => "summarize",
            Mode::Generate => "generate",
        }
    }
}

/// `ask.auth`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    /// `Authorization` is not read.
    #[default]
    Off,
    /// No token is anonymous; a token must check out.
    Optional,
    /// No token is `401`.
    Required,
}

impl AuthMode {
    /// The setting's name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMode::Off => "off",
            AuthMode::Optional => "optional",
            AuthMode::Required => "required",
        }
    }
}

/// `ask.retriever`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Retriever {
    /// BM25 over the words alone.
    Bm25,
    /// BM25 mixed with the sentence vectors' ranking (the default).
    #[default]
    Hybrid,
}

/// `ask.transport`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Every response sent whole.
    #[default]
    Buffered,
    /// Lambda response streaming: an SSE answer's sections go out as soon
    /// as they are found (the API's integration must stream too).
    Streaming,
}

/// `ask.generator`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Generator {
    /// Sentences and code of the sections, verbatim (the default).
    #[default]
    Extractive,
    /// A model on Amazon Bedrock.
    Bedrock,
}

/// The `ask:` settings: one field a key, its doc comment the key's
/// meaning, its default in [`Settings::default`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Off (the default): every route answers 404 `{"message":"Not Found"}`, as API Gateway does for a route that does not exist.
    pub enabled: bool,
    /// Where the index is: `s3://bucket/key` or a file path. Required when enabled; the template sets it.
    pub index: String,
    /// The folder of `.mdx` pages `build-index` reads, relative to the settings file's folder.
    pub corpus_path: String,
    /// The docs site's base URL, which page routes are joined to (no trailing slash). No default a deploy may use: `scripts/deploy.sh` refuses an empty one or one on example.com.
    pub docs_base_url: String,
    /// Results per answer, 1 to 10.
    pub top_k: usize,
    /// Requests per minute per client IP: the token bucket's capacity and refill.
    pub rate_limit_per_minute: u32,
    /// Origins a browser may call from (`Access-Control-Allow-Origin`); `*` allows any, never with credentials. In the environment, a comma list.
    pub cors_allow_origins: Vec<String>,
    /// Origins of the web pages that may call `/mcp` (`https://docs.example.com`); a request with another `Origin` gets 403. No `*`. In the environment, a comma list.
    pub mcp_allow_origins: Vec<String>,
    /// Allow `generator: bedrock` with `cors_allow_origins: *` (any page could make its visitors ask the model on your bill); refused otherwise.
    pub model_from_any_origin: bool,
    /// The mode when a request names none: `list`, `summarize` or `generate`.
    pub default_mode: Mode,
    /// Server-Sent Events when a request says nothing of streaming.
    pub default_streaming: bool,
    /// The longest question, in characters.
    pub max_query_chars: usize,
    /// Page weights by path glob, for example `{"gen1/**": 0.6}`; a weight is a number above 0. In the environment, JSON.
    pub boost: BTreeMap<String, f32>,
    /// Synonym groups, for example `[["cancel", "stop"]]`: a question's word also finds its group's others. In the environment, JSON.
    pub synonyms: Vec<Vec<String>>,
    /// Seconds a GET answer may be cached (`Cache-Control: public, max-age`); 0 keeps `no-store`. `ETag` and 304 always.
    pub cache_max_age: u32,
    /// The name of the site this index serves (`/sites`, the `site` filter); any name but `all`.
    pub site: String,
    /// The API's public address (`https://api.example.com/prod`), for the links the endpoint writes to itself. Empty: the domain and stage of API Gateway's request context, never `Host`.
    pub public_base_url: String,
    /// The largest response body, in bytes (at least 65,536); a larger answer is a failure.
    pub max_response_bytes: usize,
    /// `hybrid` (the words mixed with a sentence model's ranking of meaning) or `bm25` (the words alone, the smallest memory). An index without vectors is served with the words alone.
    ///
    /// The default is the retriever with the higher mean page nDCG@10 over every held-out golden, paraphrase and fresh set, no set more than 0.03 below the other (checked by build-index's relevance gate).
    pub retriever: Retriever,
    /// The folder of the sentence model's files (the deployment's model layer).
    pub model_dir: String,
    /// Weight of the sentence model's ranking under `hybrid`, 0 to 1.
    pub hybrid_weight: f32,
    /// `buffered` (every response whole) or `streaming` (Lambda response streaming; the template's streaming variant sets it).
    pub transport: Transport,
    /// Write readers' words (questions, the words the docs lack, rating comments) into the analytics lines; never addresses.
    pub log_queries: bool,
    /// Bearer-token authentication: `off`, `optional` (a token is checked when one is sent) or `required`.
    pub auth: AuthMode,
    /// The key set as JSON text (`{"keys": [...]}`); give this or `auth_jwks_url`.
    pub auth_jwks: Option<String>,
    /// Where to fetch the key set once per cold start: an `https://` URL (plain `http://` only on loopback).
    pub auth_jwks_url: Option<String>,
    /// The `iss` tokens must carry. Required when `auth` is on.
    pub auth_issuer: Option<String>,
    /// The `aud` tokens must carry: this API's own audience. Required when `auth` is on.
    pub auth_audience: Option<String>,
    /// The scope a token must carry (`scope` or `scp`); empty requires none.
    pub auth_scope: String,
    /// Requests per minute for each token subject, in its own bucket.
    pub auth_rate_limit_per_minute: u32,
    /// Who writes `generate` summaries: `extractive`, or `bedrock` (a model on Amazon Bedrock; the template's `Generator` and `BedrockModelId` give the function its permission).
    pub generator: Generator,
    /// The modes whose summary a model writes: `generate`, `summarize` or both.
    pub generator_modes: Vec<Mode>,
    /// The Bedrock model or inference profile id, for example `amazon.nova-micro-v1:0`.
    pub bedrock_model_id: String,
    /// The Bedrock endpoint's region; empty: the function's own.
    pub bedrock_region: String,
    /// The most tokens the model may write, 1 to 4,096.
    pub bedrock_max_tokens: u32,
    /// The model call's whole limit, retries included, in milliseconds (100 to 8,000).
    pub bedrock_timeout_ms: u64,
    /// Path-style S3 addressing, for S3-compatible stores.
    pub s3_force_path_style: bool,
}

/// The scope required when `ask.auth_scope` is not set.
pub const DEFAULT_AUTH_SCOPE: &str = "docs:read";

/// Longest `ask.bedrock_timeout_ms`: under the function's timeout.
pub const MAX_GENERATOR_TIMEOUT_MS: u64 = 8_000;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            enabled: false,
            index: String::new(),
            corpus_path: ".".into(),
            docs_base_url: String::new(),
            top_k: 5,
            rate_limit_per_minute: 20,
            cors_allow_origins: vec!["*".into()],
            mcp_allow_origins: Vec::new(),
            model_from_any_origin: false,
            default_mode: Mode::Generate,
            default_streaming: true,
            max_query_chars: 500,
            boost: BTreeMap::new(),
            synonyms: Vec::new(),
            cache_max_age: 0,
            site: "docs".into(),
            public_base_url: String::new(),
            max_response_bytes: 1024 * 1024,
            retriever: Retriever::Hybrid,
            model_dir: "/opt/model".into(),
            hybrid_weight: ask_index::search::HYBRID_WEIGHT,
            transport: Transport::Buffered,
            log_queries: false,
            auth: AuthMode::Off,
            auth_jwks: None,
            auth_jwks_url: None,
            auth_issuer: None,
            auth_audience: None,
            auth_scope: DEFAULT_AUTH_SCOPE.into(),
            auth_rate_limit_per_minute: 120,
            generator: Generator::Extractive,
            generator_modes: vec![Mode::Generate],
            bedrock_model_id: String::new(),
            bedrock_region: String::new(),
            bedrock_max_tokens: 500,
            bedrock_timeout_ms: 6_000,
            s3_force_path_style: false,
        }
    }
}

/// A setting that does not check out, and where it came from.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// What is wrong, naming the key and where it was set.
    pub message: String,
    /// The key, when one is to blame.
    pub key: Option<String>,
}

impl Error {
    fn new(key: Option<&str>, message: String) -> Error {
        Error {
            message,
            key: key.map(str::to_string),
        }
    }
}

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
const FIELDS: &[&str] = &[
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

/// The value of variable `var` (of key kind `kind`) as JSON.
fn env_value(var: &str, kind: Kind, raw: &str) -> Result<Value, Error> {
    let v = raw.trim();
    let bad = |what: &str| Error::new(None, format!("{var}={raw:?} is not {what}"));
    Ok(match kind {
        Kind::Bool => Value::Bool(
            ask_store::parse_bool(v)
                .ok_or_else(|| bad("a boolean (true, false, 1, 0, yes, no, on or off)"))?,
        ),
        Kind::Number => serde_json::from_str::<serde_json::Number>(v)
            .map(Value::Number)
            .map_err(|_| bad("a number"))?,
        Kind::Text => Value::String(v.to_string()),
        Kind::List if v.starts_with('[') => serde_json::from_str(v)
            .map_err(|e| bad(&format!("a JSON list ({e}) or a comma list")))?,
        Kind::List => Value::Array(
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_string()))
                .collect(),
        ),
        Kind::Json => serde_json::from_str(v).map_err(|e| bad(&format!("JSON ({e})")))?,
    })
}

/// The settings: the defaults, then the keys `file` sets (what a settings
/// file gave, as [`read_file`] returns it or an index carries it), then
/// each key's `ASK_<KEY>` variable that `env` gives and is not empty.
/// Checked ([`Settings::validate`]).
pub fn resolve(
    file: &Map<String, Value>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, Error> {
    let mut map = file.clone();
    let mut from_env: Vec<(String, String)> = Vec::new();
    for key in keys() {
        let Some(raw) = env(&key.env).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        map.insert(key.name.clone(), env_value(&key.env, key.kind, &raw)?);
        from_env.push((key.name, key.env));
    }
    let settings: Settings = serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let key = e.path().iter().next().map(|s| s.to_string());
        let source = key
            .as_deref()
            .and_then(|k| from_env.iter().find(|(n, _)| n == k))
            .map_or_else(|| "the settings".to_string(), |(_, v)| v.clone());
        Error::new(key.as_deref(), format!("{source}: {}", e.into_inner()))
    })?;
    let mut settings = settings;
    settings.normalize();
    settings.validate().map_err(|mut e| {
        if let Some((_, var)) = e
            .key
            .as_deref()
            .and_then(|k| from_env.iter().find(|(n, _)| n == k))
        {
            e.message = format!("{var}: {}", e.message);
        }
        e
    })?;
    Ok(settings)
}

/// The keys a settings file sets, checked: the YAML `text` of file
/// `name` must hold an `ask:` section (and nothing else) whose keys are
/// keys of [`Settings`] and whose values check out with the defaults for
/// the rest. An error names the key, the file and the line.
pub fn read_file(name: &str, text: &str) -> Result<Map<String, Value>, Error> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Typed {
        #[serde(default)]
        #[allow(dead_code)]
        ask: Settings,
    }
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        ask: Option<Map<String, Value>>,
    }
    let at = |line: Option<u64>| line.map_or_else(String::new, |l| format!(", line {l}"));
    if let Err(e) = serde_saphyr::from_str::<Typed>(text) {
        let line = e.location().map(|l| l.line());
        let message = one_line(&e.to_string());
        let key = unknown_key(&message);
        return Err(Error::new(
            key.as_deref(),
            format!("{name}{}: {message}", at(line)),
        ));
    }
    let raw: Raw = serde_saphyr::from_str(text)
        .map_err(|e| Error::new(None, format!("{name}: {}", one_line(&e.to_string()))))?;
    let map = raw.ask.unwrap_or_default();
    resolve(&map, &|_| None).map_err(|e| {
        let line = e.key.as_deref().and_then(|k| line_of(text, k));
        Error::new(
            e.key.as_deref(),
            format!(
                "{name}{}: ask.{}: {}",
                at(line),
                e.key.as_deref().unwrap_or("?"),
                e.message.trim_start_matches("the settings: ")
            ),
        )
    })?;
    Ok(map)
}

/// `http(s)://host[:port]`: an origin as a browser sends it.
fn is_origin(o: &str) -> bool {
    let Some(rest) = o
        .strip_prefix("https://")
        .or_else(|| o.strip_prefix("http://"))
    else {
        return false;
    };
    !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
}

/// Collapses a message onto one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key a serde "unknown field" message names.
fn unknown_key(message: &str) -> Option<String> {
    let rest = message.split("unknown field `").nth(1)?;
    Some(rest.split('`').next()?.to_string())
}

/// The 1-based line where `key:` is set in the `ask:` section of `text`.
fn line_of(text: &str, key: &str) -> Option<u64> {
    let mut in_ask = false;
    for (i, line) in text.lines().enumerate() {
        if !line.starts_with([' ', '\t']) && !line.trim().is_empty() {
            in_ask = line.trim_end().starts_with("ask:");
            continue;
        }
        let t = line.trim_start();
        if in_ask
            && t.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        {
            return Some(i as u64 + 1);
        }
    }
    None
}

impl Settings {
    /// Trims what is written with spaces or a trailing slash around it, and
    /// reads an empty optional text as unset.
    fn normalize(&mut self) {
        let opt = |v: &mut Option<String>| {
            *v = v
                .take()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty());
        };
        opt(&mut self.auth_jwks);
        opt(&mut self.auth_jwks_url);
        opt(&mut self.auth_issuer);
        opt(&mut self.auth_audience);
        self.docs_base_url = self.docs_base_url.trim().trim_end_matches('/').to_string();
        self.public_base_url = self
            .public_base_url
            .trim()
            .trim_end_matches('/')
            .to_string();
        self.site = self.site.trim().to_string();
        self.auth_scope = self.auth_scope.trim().to_string();
        self.index = self.index.trim().to_string();
        for list in [&mut self.cors_allow_origins, &mut self.mcp_allow_origins] {
            for o in list.iter_mut() {
                *o = o.trim().trim_end_matches('/').to_string();
            }
            list.retain(|o| !o.is_empty());
        }
    }

    /// Checks every value against what it may be: the one check of
    /// loaded settings (the file's keys at build time, the file's and the
    /// environment's at cold start).
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |key: &str, message: String| Err(Error::new(Some(key), message));
        if !(1..=10).contains(&self.top_k) {
            return bad("top_k", format!("{} is not between 1 and 10", self.top_k));
        }
        if self.rate_limit_per_minute == 0 {
            return bad("rate_limit_per_minute", "must be at least 1".into());
        }
        if self.max_query_chars == 0 {
            return bad("max_query_chars", "must be at least 1".into());
        }
        if self.site.trim().is_empty() || self.site.trim().eq_ignore_ascii_case("all") {
            return bad(
                "site",
                format!(
                    "{:?} must name the site (any name but all), for example docs",
                    self.site
                ),
            );
        }
        if self.cors_allow_origins.is_empty() {
            return bad("cors_allow_origins", "is empty: give origins or *".into());
        }
        if let Some(o) = self.mcp_allow_origins.iter().find(|o| !is_origin(o)) {
            return bad(
                "mcp_allow_origins",
                format!(
                    "{o:?} is not an origin (scheme and host, no path, no *), for example https://docs.example.com"
                ),
            );
        }
        if self.auth_rate_limit_per_minute == 0 {
            return bad("auth_rate_limit_per_minute", "must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.hybrid_weight) {
            return bad(
                "hybrid_weight",
                format!("{} is not between 0 and 1", self.hybrid_weight),
            );
        }
        if self.max_response_bytes < 64 * 1024 {
            return bad("max_response_bytes", "must be at least 65536".into());
        }
        let public = self.public_base_url.trim();
        if !public.is_empty()
            && (!(public.starts_with("https://") || public.starts_with("http://"))
                || public
                    .bytes()
                    .any(|b| b.is_ascii_control() || b == b'"' || b == b' ' || !b.is_ascii()))
        {
            return bad(
                "public_base_url",
                format!(
                    "{public:?} is not an http(s) URL, for example https://api.example.com/prod"
                ),
            );
        }
        let rules: Vec<(String, f32)> = self.boost.iter().map(|(k, v)| (k.clone(), *v)).collect();
        if let Err(e) = ask_index::boost::Boosts::new(&rules) {
            return bad("boost", e.to_string());
        }
        if !self.synonyms.is_empty()
            && let Err(e) =
                ask_index::synonyms::Synonyms::new(&self.synonyms, &ask_index::Analyzer::new())
        {
            return bad("synonyms", e.to_string());
        }
        if self.auth != AuthMode::Off {
            match (&self.auth_jwks, &self.auth_jwks_url) {
                (None, None) => {
                    return bad(
                        "auth",
                        "is on but there is no key set: give auth_jwks (a JWKS as JSON) or auth_jwks_url".into(),
                    );
                }
                (Some(_), Some(_)) => {
                    return bad(
                        "auth_jwks_url",
                        "give auth_jwks or auth_jwks_url, not both".into(),
                    );
                }
                (Some(_), None) => {}
                (None, Some(url)) => {
                    // Plain http only on this machine's loopback (tests, a
                    // local identity provider).
                    let loopback = url.strip_prefix("http://").is_some_and(|rest| {
                        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
                        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
                        !authority.contains('@') && matches!(host, "127.0.0.1" | "localhost")
                    });
                    if !url.starts_with("https://") && !loopback {
                        return bad(
                            "auth_jwks_url",
                            format!(
                                "{url:?} is not an https URL: the keys that decide who may ask must come over TLS"
                            ),
                        );
                    }
                }
            }
            // A shared identity provider's keys also sign tokens for its
            // other APIs: without the issuer and this API's audience, any
            // of those tokens would be accepted here.
            if self.auth_issuer.is_none() || self.auth_audience.is_none() {
                return bad(
                    "auth",
                    "is on but auth_issuer or auth_audience is not set: give both (the issuer's URL and this API's audience), or any token the identity provider signs for another API would be accepted".into(),
                );
            }
        }
        if self.generator_modes.contains(&Mode::List) {
            return bad(
                "generator_modes",
                "may name summarize and generate, not list".into(),
            );
        }
        if self.generator == Generator::Bedrock {
            if self.bedrock_model_id.trim().is_empty() {
                return bad(
                    "generator",
                    "is bedrock but bedrock_model_id is not set: name a model, for example amazon.nova-micro-v1:0".into(),
                );
            }
            if self.generator_modes.is_empty() {
                return bad(
                    "generator_modes",
                    "is empty: name generate, summarize or both".into(),
                );
            }
            if !(1..=4096).contains(&self.bedrock_max_tokens) {
                return bad(
                    "bedrock_max_tokens",
                    format!("{} is not between 1 and 4096", self.bedrock_max_tokens),
                );
            }
            if !(100..=MAX_GENERATOR_TIMEOUT_MS).contains(&self.bedrock_timeout_ms) {
                return bad(
                    "bedrock_timeout_ms",
                    format!(
                        "{} is not between 100 and {MAX_GENERATOR_TIMEOUT_MS} (the function's deadline comes first)",
                        self.bedrock_timeout_ms
                    ),
                );
            }
            if self.cors_allow_origins.iter().any(|o| o == "*") && !self.model_from_any_origin {
                return bad(
                    "cors_allow_origins",
                    "is * with generator: bedrock: any web page could make its visitors' browsers ask the model, each from its own address, on your bill. Name your docs site's origin (for example https://docs.example.com), or set model_from_any_origin: true".into(),
                );
            }
        }
        Ok(())
    }

    /// The keys whose value differs from the default, as JSON: what a
    /// settings file set, as an index carries it.
    pub fn changed(&self) -> Map<String, Value> {
        let mine = serde_json::to_value(self).expect("settings serialise");
        let defaults = serde_json::to_value(Settings::default()).expect("settings serialise");
        mine.as_object()
            .expect("an object")
            .iter()
            .filter(|(k, v)| defaults.get(k.as_str()) != Some(v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn every_field_is_a_key_in_order_with_a_doc_comment() {
        let schema = schemars::schema_for!(Settings);
        let props = schema.as_value()["properties"].as_object().unwrap().clone();
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        let mut fields: Vec<&str> = FIELDS.to_vec();
        fields.sort();
        assert_eq!(names, fields);
        let defaults = serde_json::to_value(Settings::default()).unwrap();
        let order: Vec<&String> = defaults.as_object().unwrap().keys().collect();
        assert_eq!(order.len(), FIELDS.len());
        for k in keys() {
            assert!(!k.doc.is_empty(), "{} has no doc comment", k.name);
        }
    }

    #[test]
    fn kinds_come_from_the_types() {
        let kind = |n: &str| keys().into_iter().find(|k| k.name == n).unwrap().kind;
        assert_eq!(kind("enabled"), Kind::Bool);
        assert_eq!(kind("top_k"), Kind::Number);
        assert_eq!(kind("hybrid_weight"), Kind::Number);
        assert_eq!(kind("site"), Kind::Text);
        assert_eq!(kind("auth_jwks_url"), Kind::Text);
        assert_eq!(kind("default_mode"), Kind::Text);
        assert_eq!(kind("auth"), Kind::Text);
        assert_eq!(kind("cors_allow_origins"), Kind::List);
        assert_eq!(kind("generator_modes"), Kind::List);
        assert_eq!(kind("boost"), Kind::Json);
        assert_eq!(kind("synonyms"), Kind::Json);
    }

    #[test]
    fn the_environment_overrides_the_file_key_by_key() {
        let file = read_file(
            "ask.yaml",
            "ask:\n  top_k: 8\n  site: guides\n  docs_base_url: https://d.dev\n",
        )
        .unwrap();
        let s = resolve(&file, &env(&[])).unwrap();
        assert_eq!((s.top_k, s.site.as_str()), (8, "guides"));
        let s = resolve(
            &file,
            &env(&[
                ("ASK_TOP_K", "3"),
                ("ASK_CORS_ALLOW_ORIGINS", "https://a.dev, https://b.dev"),
                ("ASK_DEFAULT_MODE", "list"),
                ("ASK_DEFAULT_STREAMING", "off"),
                ("ASK_BOOST", r#"{"gen1/**": 0.6}"#),
                ("ASK_AUTH_ISSUER", ""),
            ]),
        )
        .unwrap();
        assert_eq!(s.top_k, 3);
        assert_eq!(s.site, "guides");
        assert_eq!(s.cors_allow_origins, vec!["https://a.dev", "https://b.dev"]);
        assert_eq!(s.default_mode, Mode::List);
        assert!(!s.default_streaming);
        assert_eq!(s.boost["gen1/**"], 0.6);
        // An empty variable is ignored: the file's value stands.
        let f = read_file("a.yaml", "ask:\n  auth_scope: docs:write\n").unwrap();
        let s = resolve(&f, &env(&[("ASK_AUTH_SCOPE", "")])).unwrap();
        assert_eq!(s.auth_scope, "docs:write");
    }

    #[test]
    fn bad_variables_name_the_variable() {
        for (k, v, says) in [
            ("ASK_TOP_K", "five", "ASK_TOP_K"),
            ("ASK_TOP_K", "11", "ASK_TOP_K: 11 is not between 1 and 10"),
            ("ASK_ENABLED", "maybe", "ASK_ENABLED"),
            ("ASK_DEFAULT_MODE", "recommend", "ASK_DEFAULT_MODE"),
            ("ASK_BOOST", "gen1/**=0.6", "ASK_BOOST"),
            ("ASK_RETRIEVER", "vector", "ASK_RETRIEVER"),
        ] {
            let e = resolve(&Map::new(), &env(&[(k, v)])).unwrap_err();
            assert!(e.message.contains(says), "{k}={v}: {e}");
        }
    }

    #[test]
    fn a_file_with_an_unknown_key_or_a_bad_value_fails_naming_key_file_and_line() {
        let e = read_file("docs/ask.yaml", "ask:\n  top_k: 5\n  top_kk: 8\n").unwrap_err();
        assert!(
            e.message.starts_with("docs/ask.yaml, line 3") && e.message.contains("top_kk"),
            "{e}"
        );
        assert_eq!(e.key.as_deref(), Some("top_kk"));
        let e = read_file("docs/ask.yaml", "ask:\n  site: guides\n  top_k: 11\n").unwrap_err();
        assert_eq!(
            e.message,
            "docs/ask.yaml, line 3: ask.top_k: 11 is not between 1 and 10"
        );
        let e = read_file("a.yaml", "ask:\n  default_mode: fast\n").unwrap_err();
        assert!(
            e.message.starts_with("a.yaml, line 2") && e.message.contains("fast"),
            "{e}"
        );
        let e = read_file("a.yaml", "aks:\n  top_k: 5\n").unwrap_err();
        assert!(
            e.message.starts_with("a.yaml, line 1") && e.message.contains("aks"),
            "{e}"
        );
        let e = read_file("a.yaml", "ask:\n  generator: bedrock\n").unwrap_err();
        assert!(
            e.message
                .contains("line 2: ask.generator: is bedrock but bedrock_model_id"),
            "{e}"
        );
    }

    #[test]
    fn what_a_file_sets_is_what_differs_from_the_defaults() {
        let s = Settings {
            top_k: 8,
            ..Settings::default()
        };
        assert_eq!(Value::Object(s.changed()), serde_json::json!({"top_k": 8}));
    }
}
