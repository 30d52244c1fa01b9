//! The settings type, its enums, defaults and validation.

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

/// One of `ask.sites`: a named part of the docs (a version, a product, a
/// platform) that a reader can ask alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SiteSetting {
    /// The name sent as `site` (letters, digits, `-`, `_`, `.`; not `all`).
    pub name: String,
    /// What the site holds, for readers and agents (`/sites`).
    pub description: String,
    /// Path globs relative to the corpus root; one starting with `!` leaves pages out. None: every page.
    pub paths: Vec<String>,
    /// Page metadata (frontmatter or `export const meta`) a page must have: key and value, the page's value equal to it or its list holding it.
    pub meta: BTreeMap<String, String>,
    /// Values of the routes' dynamic segments in this site's links, for example `{"platform": "react"}`.
    pub segments: BTreeMap<String, String>,
    /// The site a request that names none searches (at most one site).
    pub default: bool,
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
    /// The name of the site this index serves (`/sites`, the `site` filter) when `sites` is empty; any name but `all`.
    pub site: String,
    /// The docs divided into sites a reader can ask alone: each a `name`, a `description`, the pages it holds (`paths` globs, `!` to leave out; `meta` key and value), its `segments` and whether it is the `default`. A page may be in several. In the environment, JSON.
    pub sites: Vec<SiteSetting>,
    /// Values of the routes' dynamic segments (`[platform]`) when no site of the page names one, for example `{"platform": "javascript"}`. In the environment, JSON.
    pub segments: BTreeMap<String, String>,
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
            sites: Vec::new(),
            segments: BTreeMap::new(),
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
    pub(crate) fn new(key: Option<&str>, message: String) -> Error {
        Error {
            message,
            key: key.map(str::to_string),
        }
    }
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

impl Settings {
    /// Trims what is written with spaces or a trailing slash around it, and
    /// reads an empty optional text as unset.
    pub(crate) fn normalize(&mut self) {
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
        self.check_limits()?;
        self.check_origins()?;
        self.check_ranking()?;
        self.check_sites()?;
        self.check_auth()?;
        self.check_generator()
    }

    /// The numbers and the site's name.
    fn check_limits(&self) -> Result<(), Error> {
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
        Ok(())
    }

    /// The origins, then the limits and addresses checked after them.
    fn check_origins(&self) -> Result<(), Error> {
        let bad = |key: &str, message: String| Err(Error::new(Some(key), message));
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
        Ok(())
    }

    /// The page weights and the synonym groups.
    fn check_ranking(&self) -> Result<(), Error> {
        let bad = |key: &str, message: String| Err(Error::new(Some(key), message));
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
        Ok(())
    }

    /// The sites: names that can be sent, globs that compile, at most one
    /// default.
    fn check_sites(&self) -> Result<(), Error> {
        let bad = |message: String| Err(Error::new(Some("sites"), message));
        let mut seen: Vec<String> = Vec::new();
        for site in &self.sites {
            let name = site.name.as_str();
            let sendable = !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
            if !sendable || name.eq_ignore_ascii_case("all") {
                return bad(format!(
                    "{name:?} is not a site name: letters, digits, -, _ and . (not all), for example gen2"
                ));
            }
            if seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
                return bad(format!("{name:?} is named twice"));
            }
            seen.push(name.to_string());
        }
        if self.sites.iter().filter(|s| s.default).count() > 1 {
            return bad("more than one site is the default".into());
        }
        if let Err(e) = ask_index::sites::SiteRules::new(&self.site_defs()) {
            return bad(e.to_string());
        }
        Ok(())
    }

    /// The sites' rules as the index builds them.
    pub fn site_defs(&self) -> Vec<ask_index::sites::SiteDef> {
        self.sites
            .iter()
            .map(|s| ask_index::sites::SiteDef {
                name: s.name.clone(),
                paths: s.paths.clone(),
                meta: s.meta.clone(),
            })
            .collect()
    }

    /// The sites' dynamic segment values.
    pub fn site_segments(&self) -> ask_index::sites::Segments {
        ask_index::sites::Segments {
            per_site: self.sites.iter().map(|s| s.segments.clone()).collect(),
            defaults: self.segments.clone(),
        }
    }

    /// The key set, the issuer and the audience when `auth` is on.
    fn check_auth(&self) -> Result<(), Error> {
        let bad = |key: &str, message: String| Err(Error::new(Some(key), message));
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
        Ok(())
    }

    /// The modes a model writes, and the Bedrock settings when it is on.
    fn check_generator(&self) -> Result<(), Error> {
        let bad = |key: &str, message: String| Err(Error::new(Some(key), message));
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
