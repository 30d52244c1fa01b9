//! What is this function configured to do?
//!
//! Defaults come from `common/global_config.yaml` (embedded at compile time,
//! `ask:` section); each `ASK_*` environment variable set by `template.yaml`
//! overrides its key. Read and validated once, in `main`; the handler only
//! sees the resulting [`Config`].

use serde::Deserialize;

use crate::mode::Mode;

/// The settings file compiled into the binary.
pub const EMBEDDED_CONFIG: &str = include_str!("../common/global_config.yaml");

/// Validated settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Off: every route answers 404.
    pub enabled: bool,
    /// `s3://bucket/key` or a file path.
    pub index: String,
    /// Overrides the index's docs base URL when non-empty.
    pub docs_base_url: String,
    /// Results per answer (1–10).
    pub top_k: usize,
    /// Token bucket capacity and refill per minute, per client.
    pub rate_limit_per_minute: u32,
    /// Allowed CORS origins; `*` allows any (never with credentials).
    pub cors_allow_origins: Vec<String>,
    /// Mode when the request names none.
    pub default_mode: Mode,
    /// Streaming when the request says nothing.
    pub default_streaming: bool,
    /// Longest query, in characters.
    pub max_query_chars: usize,
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most `prev` entries read.
    pub max_prev: usize,
    /// Most distinct clients the rate limiter tracks.
    pub max_tracked_clients: usize,
    /// Page weights by path glob (`ask.boost`, `ASK_BOOST` as JSON).
    pub boost: ask_index::boost::Boosts,
    /// The same, as given (for equality and logs).
    pub boost_rules: Vec<(String, f32)>,
    /// Synonym groups (`ask.synonyms`, `ASK_SYNONYMS` as JSON), as given;
    /// validated by analyzing them ([`ask_index::synonyms::Synonyms`]).
    pub synonyms: Vec<Vec<String>>,
    /// Seconds a GET answer may be cached (`Cache-Control: public,
    /// max-age`); 0 keeps `no-store`.
    pub cache_max_age: u32,
    /// The name of the site this index serves (`/sites`, `site` filters).
    pub site: String,
    /// Path-style S3 addressing (`ASK_S3_FORCE_PATH_STYLE`), for S3-compatible stores.
    pub s3_force_path_style: bool,
    /// `ask.auth`: off, optional or required.
    pub auth: AuthMode,
    /// `ask.auth_jwks`: the JWKS as JSON text (its keys are read when the
    /// state is made, by `crate::built::auth`).
    pub auth_jwks: Option<String>,
    /// `ask.auth_jwks_url`: where to fetch the JWKS once at cold start.
    pub auth_jwks_url: Option<String>,
    /// `ask.auth_issuer`: the required `iss` (and the authorization server
    /// named in the protected-resource metadata).
    pub auth_issuer: Option<String>,
    /// `ask.auth_audience`: the required `aud`.
    pub auth_audience: Option<String>,
    /// `ask.auth_scope`: the scope a token must carry (empty: none).
    pub auth_scope: String,
    /// `ask.auth_rate_limit_per_minute`: each token subject's own bucket.
    pub auth_rate_limit_per_minute: u32,
    /// `ask.generator`: who writes summaries.
    pub generator: GeneratorConfig,
    /// `ask.generator_modes`: the modes whose summary a model writes
    /// (default `generate` only; `summarize` stays extractive unless listed).
    pub generator_modes: Vec<Mode>,
    /// The API's public address (`https://host/stage`), for self-links:
    /// llms.txt, the RFC 9728 metadata and `WWW-Authenticate`, `/config`,
    /// `/who`. Empty: the domain and stage of the request context.
    pub public_base_url: String,
    /// Largest response body sent; a larger answer becomes a failure.
    pub max_response_bytes: usize,
    /// `ask.retriever`: the words alone, or mixed with the sentence model.
    pub retriever: Retriever,
    /// `ask.model_dir`: the folder of the sentence model's files, for
    /// `hybrid` (the Lambda layer's `/opt/model` by default).
    pub model_dir: String,
    /// `ask.hybrid_weight`: weight of the sentence model's ranking (0–1).
    pub hybrid_weight: f32,
    /// `ask.transport`: whole responses, or SSE answers sent as they are
    /// written.
    pub transport: Transport,
    /// `ask.log_queries`: the reader's words (questions, the words the
    /// docs lack, rating comments) go into the analytics lines too.
    pub log_queries: bool,
}

/// `ask.transport`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Every response sent whole (API Gateway's default integration).
    Buffered,
    /// Lambda response streaming: an SSE answer's `start` and sections go
    /// out as soon as retrieval is done, its summary when it is written
    /// (the API's integration must stream too).
    Streaming,
}

/// `ask.auth`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AuthMode {
    /// No authentication.
    #[default]
    Off,
    /// Anonymous or authenticated.
    Optional,
    /// Authenticated only.
    Required,
}

impl AuthMode {
    /// Reads `off`, `optional` or `required`.
    pub fn parse(s: &str) -> Option<AuthMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "" => Some(AuthMode::Off),
            "optional" => Some(AuthMode::Optional),
            "required" => Some(AuthMode::Required),
            _ => None,
        }
    }

    /// The setting's name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMode::Off => "off",
            AuthMode::Optional => "optional",
            AuthMode::Required => "required",
        }
    }
}

/// `ask.generator: bedrock` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BedrockConfig {
    /// A Bedrock model id (`amazon.nova-micro-v1:0`) or inference profile id.
    pub model_id: String,
    /// Region of the Bedrock endpoint; `None`: the function's own.
    pub region: Option<String>,
    /// Most tokens the model may write.
    pub max_tokens: u32,
    /// Whole-call limit, retries included.
    pub timeout: std::time::Duration,
}

/// The scope required when `ask.auth_scope` is not set.
pub const DEFAULT_AUTH_SCOPE: &str = "docs:read";

/// `ask.retriever`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retriever {
    /// BM25 over the words (the default).
    Bm25,
    /// BM25 mixed with the sentence vectors' ranking.
    Hybrid,
}

/// `ask.generator`.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorConfig {
    /// Sentences of the sections, verbatim (the default).
    Extractive,
    /// A model on Amazon Bedrock.
    Bedrock(BedrockConfig),
}

/// The choice `value` names among `choices`, or the error naming `ask.key`
/// and what it may be.
fn one_of<T: Copy>(key: &str, value: &str, choices: &[(&str, T)]) -> Result<T, ConfigError> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            ConfigError(format!("ask.{key} {value:?} is not {}", names.join(" or ")))
        })
}

/// Longest `ask.bedrock_timeout_ms`: under the function's 10-second timeout.
pub const MAX_GENERATOR_TIMEOUT_MS: u64 = 8_000;

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    ask: FileAsk,
}

#[derive(Deserialize, Default)]
struct FileAsk {
    enabled: Option<bool>,
    index: Option<String>,
    docs_base_url: Option<String>,
    top_k: Option<usize>,
    rate_limit_per_minute: Option<u32>,
    cors_allow_origins: Option<Vec<String>>,
    default_mode: Option<String>,
    default_streaming: Option<bool>,
    max_query_chars: Option<usize>,
    site: Option<String>,
    cache_max_age: Option<u32>,
    boost: Option<std::collections::BTreeMap<String, f32>>,
    synonyms: Option<Vec<Vec<String>>>,
    auth: Option<String>,
    auth_jwks: Option<String>,
    auth_jwks_url: Option<String>,
    auth_issuer: Option<String>,
    auth_audience: Option<String>,
    auth_scope: Option<String>,
    auth_rate_limit_per_minute: Option<u32>,
    public_base_url: Option<String>,
    max_response_bytes: Option<usize>,
    retriever: Option<String>,
    transport: Option<String>,
    model_dir: Option<String>,
    hybrid_weight: Option<f32>,
    generator: Option<String>,
    generator_modes: Option<Vec<String>>,
    bedrock_model_id: Option<String>,
    bedrock_region: Option<String>,
    bedrock_max_tokens: Option<u32>,
    bedrock_timeout_ms: Option<u64>,
    log_queries: Option<bool>,
}

/// A setting that does not validate.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

/// A boolean variable (see [`ask_store::env_flag`]).
fn env_flag(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Option<bool>, ConfigError> {
    ask_store::env_flag(name, env(name).as_deref()).map_err(ConfigError)
}

fn parse_num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, ConfigError> {
    v.trim()
        .parse()
        .map_err(|_| ConfigError(format!("{name}={v:?} is not a whole number")))
}

impl Config {
    /// Reads `file` (YAML with an `ask:` section), then the environment
    /// through `env`, and validates.
    pub fn load(file: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let f: File = serde_saphyr::from_str(file)
            .map_err(|e| ConfigError(format!("common/global_config.yaml: {e}")))?;
        let a = f.ask;
        let generator = generator(&a, env)?;
        let generator_modes = generator_modes(a.generator_modes, env, &generator)?;
        let mut c = Config {
            enabled: a.enabled.unwrap_or(false),
            index: a.index.unwrap_or_default(),
            docs_base_url: a.docs_base_url.unwrap_or_default(),
            top_k: a.top_k.unwrap_or(5),
            rate_limit_per_minute: a.rate_limit_per_minute.unwrap_or(20),
            cors_allow_origins: a.cors_allow_origins.unwrap_or_else(|| vec!["*".into()]),
            default_mode: Mode::Generate,
            default_streaming: a.default_streaming.unwrap_or(true),
            max_query_chars: a.max_query_chars.unwrap_or(500),
            max_body_bytes: 64 * 1024,
            max_prev: 10,
            max_tracked_clients: 100_000,
            site: a.site.unwrap_or_else(|| "docs".into()),
            cache_max_age: a.cache_max_age.unwrap_or(0),
            boost: ask_index::boost::Boosts::default(),
            boost_rules: a.boost.unwrap_or_default().into_iter().collect(),
            synonyms: a.synonyms.unwrap_or_default(),
            auth: AuthMode::Off,
            auth_jwks: a.auth_jwks,
            auth_jwks_url: a.auth_jwks_url,
            auth_issuer: nonempty(a.auth_issuer),
            auth_audience: nonempty(a.auth_audience),
            auth_scope: a.auth_scope.unwrap_or_else(|| DEFAULT_AUTH_SCOPE.into()),
            auth_rate_limit_per_minute: a.auth_rate_limit_per_minute.unwrap_or(120),
            s3_force_path_style: false,
            generator,
            generator_modes,
            public_base_url: a.public_base_url.unwrap_or_default(),
            max_response_bytes: a.max_response_bytes.unwrap_or(1024 * 1024),
            retriever: Retriever::Hybrid,
            model_dir: a.model_dir.unwrap_or_else(|| "/opt/model".into()),
            hybrid_weight: a.hybrid_weight.unwrap_or(ask_index::search::HYBRID_WEIGHT),
            transport: Transport::Buffered,
            log_queries: a.log_queries.unwrap_or(false),
        };
        c.transport = one_of(
            "transport",
            &env("ASK_TRANSPORT")
                .or(a.transport)
                .unwrap_or_else(|| "buffered".into()),
            &[
                ("buffered", Transport::Buffered),
                ("streaming", Transport::Streaming),
            ],
        )?;
        c.retriever = one_of(
            "retriever",
            &env("ASK_RETRIEVER")
                .or(a.retriever)
                .unwrap_or_else(|| "hybrid".into()),
            &[("bm25", Retriever::Bm25), ("hybrid", Retriever::Hybrid)],
        )?;
        if let Some(v) = env("ASK_MODEL_DIR").filter(|v| !v.is_empty()) {
            c.model_dir = v;
        }
        if let Some(v) = env("ASK_HYBRID_WEIGHT") {
            c.hybrid_weight = parse_num("ASK_HYBRID_WEIGHT", &v)?;
        }
        if !(0.0..=1.0).contains(&c.hybrid_weight) {
            return Err(ConfigError(format!(
                "ask.hybrid_weight {} is not between 0 and 1",
                c.hybrid_weight
            )));
        }
        let mut mode = a.default_mode.unwrap_or_else(|| "generate".into());
        let mut auth = a.auth.unwrap_or_else(|| "off".into());
        if let Some(v) = env("ASK_AUTH") {
            auth = v;
        }
        c.auth = AuthMode::parse(&auth).ok_or_else(|| {
            ConfigError(format!(
                "ask.auth {auth:?} is not off, optional or required"
            ))
        })?;
        if let Some(v) = env("ASK_AUTH_JWKS") {
            c.auth_jwks = nonempty(Some(v));
        }
        if let Some(v) = env("ASK_AUTH_JWKS_URL") {
            c.auth_jwks_url = nonempty(Some(v));
        }
        if let Some(v) = env("ASK_AUTH_ISSUER") {
            c.auth_issuer = nonempty(Some(v));
        }
        if let Some(v) = env("ASK_AUTH_AUDIENCE") {
            c.auth_audience = nonempty(Some(v));
        }
        if let Some(v) = env("ASK_AUTH_SCOPE") {
            c.auth_scope = v.trim().to_string();
        }
        if let Some(v) = env("ASK_AUTH_RATE_LIMIT_PER_MINUTE") {
            c.auth_rate_limit_per_minute = parse_num("ASK_AUTH_RATE_LIMIT_PER_MINUTE", &v)?;
        }
        if let Some(v) = env_flag(env, "ASK_ENABLED")? {
            c.enabled = v;
        }
        if let Some(v) = env("ASK_INDEX") {
            c.index = v;
        }
        if let Some(v) = env("ASK_BOOST").filter(|v| !v.trim().is_empty()) {
            let map: std::collections::BTreeMap<String, f32> = serde_json::from_str(&v)
                .map_err(|e| {
                    ConfigError(format!(
                        "ASK_BOOST is not a JSON object of glob to weight ({e}), for example {{\"gen1/**\": 0.6}}"
                    ))
                })?;
            c.boost_rules = map.into_iter().collect();
        }
        c.boost = ask_index::boost::Boosts::new(&c.boost_rules)
            .map_err(|e| ConfigError(format!("ask.boost: {e}")))?;
        if let Some(v) = env("ASK_SYNONYMS").filter(|v| !v.trim().is_empty()) {
            c.synonyms = serde_json::from_str(&v).map_err(|e| {
                ConfigError(format!(
                    "ASK_SYNONYMS is not a JSON list of word groups ({e}), for example [[\"cancel\", \"stop\"]]"
                ))
            })?;
        }
        if !c.synonyms.is_empty() {
            ask_index::synonyms::Synonyms::new(&c.synonyms, &ask_index::Analyzer::new())
                .map_err(|e| ConfigError(format!("ask.synonyms: {e}")))?;
        }
        if let Some(v) = env("ASK_CACHE_MAX_AGE") {
            c.cache_max_age = parse_num("ASK_CACHE_MAX_AGE", &v)?;
        }
        if let Some(v) = env("ASK_SITE") {
            c.site = v.trim().to_string();
        }
        if let Some(v) = env("ASK_DOCS_BASE_URL") {
            c.docs_base_url = v;
        }
        if let Some(v) = env("ASK_TOP_K") {
            c.top_k = parse_num("ASK_TOP_K", &v)?;
        }
        if let Some(v) = env("ASK_RATE_LIMIT_PER_MINUTE") {
            c.rate_limit_per_minute = parse_num("ASK_RATE_LIMIT_PER_MINUTE", &v)?;
        }
        if let Some(v) = env("ASK_CORS_ALLOW_ORIGINS") {
            c.cors_allow_origins = list(&v);
        }
        if let Some(v) = env("ASK_DEFAULT_MODE") {
            mode = v;
        }
        if let Some(v) = env_flag(env, "ASK_LOG_QUERIES")? {
            c.log_queries = v;
        }
        if let Some(v) = env_flag(env, "ASK_DEFAULT_STREAMING")? {
            c.default_streaming = v;
        }
        if let Some(v) = env_flag(env, ask_store::PATH_STYLE_VAR)? {
            c.s3_force_path_style = v;
        }
        if let Some(v) = env("ASK_PUBLIC_BASE_URL") {
            c.public_base_url = v;
        }
        c.public_base_url = c.public_base_url.trim().trim_end_matches('/').to_string();
        if !c.public_base_url.is_empty()
            && (!(c.public_base_url.starts_with("https://")
                || c.public_base_url.starts_with("http://"))
                || c.public_base_url
                    .bytes()
                    .any(|b| b.is_ascii_control() || b == b'"' || b == b' ' || !b.is_ascii()))
        {
            return Err(ConfigError(format!(
                "ASK_PUBLIC_BASE_URL {:?} is not an http(s) URL, for example https://api.example.com/prod",
                c.public_base_url
            )));
        }
        if let Some(v) = env("ASK_MAX_RESPONSE_BYTES") {
            c.max_response_bytes = parse_num("ASK_MAX_RESPONSE_BYTES", &v)?;
        }
        if c.max_response_bytes < 64 * 1024 {
            return Err(ConfigError(
                "max_response_bytes must be at least 65536".into(),
            ));
        }
        if let Some(v) = env("ASK_MAX_QUERY_CHARS") {
            c.max_query_chars = parse_num("ASK_MAX_QUERY_CHARS", &v)?;
        }
        c.default_mode = Mode::parse(&mode).ok_or_else(|| {
            ConfigError(format!(
                "default mode {mode:?} is not list, summarize or generate"
            ))
        })?;
        c.docs_base_url = c.docs_base_url.trim_end_matches('/').to_string();
        if !(1..=10).contains(&c.top_k) {
            return Err(ConfigError(format!(
                "top_k {} is not between 1 and 10",
                c.top_k
            )));
        }
        if c.rate_limit_per_minute == 0 {
            return Err(ConfigError(
                "rate_limit_per_minute must be at least 1".into(),
            ));
        }
        if c.max_query_chars == 0 {
            return Err(ConfigError("max_query_chars must be at least 1".into()));
        }
        if c.site.is_empty() || c.site.eq_ignore_ascii_case("all") {
            return Err(ConfigError(
                "ASK_SITE must name the site (any name but all), for example docs".into(),
            ));
        }
        if c.cors_allow_origins.is_empty() {
            return Err(ConfigError(
                "ASK_CORS_ALLOW_ORIGINS is empty: give origins or *".into(),
            ));
        }
        if c.auth_rate_limit_per_minute == 0 {
            return Err(ConfigError(
                "auth_rate_limit_per_minute must be at least 1".into(),
            ));
        }
        if c.auth != AuthMode::Off {
            match (&c.auth_jwks, &c.auth_jwks_url) {
                (None, None) => {
                    return Err(ConfigError(
                        "ask.auth is on but there is no key set: give ASK_AUTH_JWKS (a JWKS as JSON) or ASK_AUTH_JWKS_URL".into(),
                    ));
                }
                (Some(_), Some(_)) => {
                    return Err(ConfigError(
                        "give one of ASK_AUTH_JWKS and ASK_AUTH_JWKS_URL, not both".into(),
                    ));
                }
                // Its keys are read when the state is made
                // (`crate::built::auth`): a set that does not parse fails
                // the cold start there, naming it.
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
                        return Err(ConfigError(format!(
                            "ASK_AUTH_JWKS_URL {url:?} is not an https URL: the keys that decide who may ask must come over TLS"
                        )));
                    }
                }
            }
            // A shared identity provider's keys also sign tokens for its
            // other APIs: without the issuer and this API's audience, any
            // of those tokens would be accepted here.
            if c.auth_issuer.is_none() || c.auth_audience.is_none() {
                return Err(ConfigError(
                    "ask.auth is on but ASK_AUTH_ISSUER or ASK_AUTH_AUDIENCE is empty: give both (the issuer's URL and this API's audience), or any token the identity provider signs for another API would be accepted".into(),
                ));
            }
        }
        if c.enabled && c.index.trim().is_empty() {
            return Err(ConfigError(
                "ASK_INDEX is not set: point it at s3://bucket/key or a file built by `build-index --out`".into(),
            ));
        }
        Ok(c)
    }
}

/// A setting's value trimmed, or none when that leaves nothing.
fn nonempty(v: Option<String>) -> Option<String> {
    v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// A comma-separated setting's items, trimmed, empty ones left out.
fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `ask.generator_modes` (`ASK_GENERATOR_MODES` first): the modes whose
/// summary a configured model writes.
fn generator_modes(
    file: Option<Vec<String>>,
    env: &dyn Fn(&str) -> Option<String>,
    generator: &GeneratorConfig,
) -> Result<Vec<Mode>, ConfigError> {
    let modes = match env("ASK_GENERATOR_MODES") {
        Some(v) => list(&v),
        None => file.unwrap_or_else(|| vec!["generate".into()]),
    };
    let modes = modes
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| match Mode::parse(m) {
            Some(m) if m != Mode::List => Ok(m),
            _ => Err(ConfigError(format!(
                "ask.generator_modes {m:?} is not summarize or generate"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if *generator != GeneratorConfig::Extractive && modes.is_empty() {
        return Err(ConfigError(
            "ask.generator_modes is empty: name generate, summarize or both".into(),
        ));
    }
    Ok(modes)
}

/// `ask.generator` and its `bedrock_*` settings, the environment first.
fn generator(
    a: &FileAsk,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<GeneratorConfig, ConfigError> {
    let kind = nonempty(env("ASK_GENERATOR"))
        .or_else(|| nonempty(a.generator.clone()))
        .unwrap_or_else(|| "extractive".into());
    match kind.to_ascii_lowercase().as_str() {
        "extractive" => return Ok(GeneratorConfig::Extractive),
        "bedrock" => {}
        _ => {
            return Err(ConfigError(format!(
                "ask.generator {kind:?} is not extractive or bedrock"
            )));
        }
    }
    let model_id = nonempty(env("ASK_BEDROCK_MODEL_ID"))
        .or_else(|| nonempty(a.bedrock_model_id.clone()))
        .ok_or_else(|| {
            ConfigError(
                "ask.generator is bedrock but ASK_BEDROCK_MODEL_ID is not set, for example amazon.nova-micro-v1:0".into(),
            )
        })?;
    let region = nonempty(env("ASK_BEDROCK_REGION")).or_else(|| nonempty(a.bedrock_region.clone()));
    let max_tokens = match nonempty(env("ASK_BEDROCK_MAX_TOKENS")) {
        Some(v) => parse_num("ASK_BEDROCK_MAX_TOKENS", &v)?,
        None => a.bedrock_max_tokens.unwrap_or(500),
    };
    let timeout_ms: u64 = match nonempty(env("ASK_BEDROCK_TIMEOUT_MS")) {
        Some(v) => parse_num("ASK_BEDROCK_TIMEOUT_MS", &v)?,
        None => a.bedrock_timeout_ms.unwrap_or(6_000),
    };
    if !(1..=4096).contains(&max_tokens) {
        return Err(ConfigError(format!(
            "bedrock_max_tokens {max_tokens} is not between 1 and 4096"
        )));
    }
    if !(100..=MAX_GENERATOR_TIMEOUT_MS).contains(&timeout_ms) {
        return Err(ConfigError(format!(
            "bedrock_timeout_ms {timeout_ms} is not between 100 and {MAX_GENERATOR_TIMEOUT_MS} (the function times out at 10 s)"
        )));
    }
    Ok(GeneratorConfig::Bedrock(BedrockConfig {
        model_id,
        region,
        max_tokens,
        timeout: std::time::Duration::from_millis(timeout_ms),
    }))
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
    fn embedded_defaults() {
        let c = Config::load(EMBEDDED_CONFIG, &env(&[])).unwrap();
        assert!(!c.enabled);
        assert_eq!(c.top_k, 5);
        assert_eq!(c.rate_limit_per_minute, 20);
        assert_eq!(c.default_mode, Mode::Generate);
        assert!(c.default_streaming);
        assert_eq!(c.cors_allow_origins, vec!["*"]);
        assert_eq!(c.max_query_chars, 500);
    }

    #[test]
    fn environment_overrides_the_file() {
        let c = Config::load(
            EMBEDDED_CONFIG,
            &env(&[
                ("ASK_ENABLED", "true"),
                ("ASK_INDEX", "s3://b/k"),
                ("ASK_TOP_K", "3"),
                ("ASK_RATE_LIMIT_PER_MINUTE", "60"),
                ("ASK_CORS_ALLOW_ORIGINS", "https://a.dev, https://b.dev"),
                ("ASK_DEFAULT_MODE", "list"),
                ("ASK_DEFAULT_STREAMING", "false"),
                ("ASK_MAX_QUERY_CHARS", "100"),
                ("ASK_DOCS_BASE_URL", "https://x.dev/docs/"),
            ]),
        )
        .unwrap();
        assert!(c.enabled);
        assert_eq!(c.index, "s3://b/k");
        assert_eq!(c.top_k, 3);
        assert_eq!(c.rate_limit_per_minute, 60);
        assert_eq!(c.cors_allow_origins, vec!["https://a.dev", "https://b.dev"]);
        assert_eq!(c.default_mode, Mode::List);
        assert!(!c.default_streaming);
        assert_eq!(c.max_query_chars, 100);
        assert_eq!(c.docs_base_url, "https://x.dev/docs");
    }

    #[test]
    fn boost_globs_weigh_pages() {
        let c = Config::load(
            EMBEDDED_CONFIG,
            &env(&[("ASK_BOOST", r#"{"gen1/**": 0.6, "api-ref/**": 0.5}"#)]),
        )
        .unwrap();
        assert_eq!(c.boost.weight("gen1/a.mdx"), 0.6);
        assert_eq!(c.boost.weight("api-ref/x/y.mdx"), 0.5);
        assert_eq!(c.boost.weight("guides/a.mdx"), 1.0);
        for bad in [r#"{"a/**": 0}"#, r#"{"a/[": 1}"#, "gen1/**=0.6"] {
            let e = Config::load(EMBEDDED_CONFIG, &env(&[("ASK_BOOST", bad)])).unwrap_err();
            assert!(
                e.to_string().contains("boost") || e.to_string().contains("BOOST"),
                "{e}"
            );
        }
    }

    #[test]
    fn synonym_groups_from_the_file_or_the_environment() {
        let file = "ask:\n  synonyms:\n    - [cancel, stop]\n    - [sign out, log out]\n";
        let c = Config::load(file, &env(&[])).unwrap();
        assert_eq!(c.synonyms.len(), 2);
        assert_eq!(c.synonyms[1], vec!["sign out", "log out"]);
        let c = Config::load(file, &env(&[("ASK_SYNONYMS", r#"[["llm", "model"]]"#)])).unwrap();
        assert_eq!(
            c.synonyms,
            vec![vec!["llm".to_string(), "model".to_string()]]
        );
        for bad in [
            r#"[["alone"]]"#,
            r#"[["stop", "the"]]"#,
            r#"{"stop": "cancel"}"#,
        ] {
            let e = Config::load(EMBEDDED_CONFIG, &env(&[("ASK_SYNONYMS", bad)])).unwrap_err();
            assert!(
                e.to_string().contains("SYNONYMS") || e.to_string().contains("synonym"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_generator_is_extractive_unless_a_model_is_named() {
        let c = Config::load(EMBEDDED_CONFIG, &env(&[])).unwrap();
        assert_eq!(c.generator, GeneratorConfig::Extractive);
        assert_eq!(c.generator_modes, vec![Mode::Generate]);
        let file = "ask:\n  generator: bedrock\n  bedrock_model_id: amazon.nova-micro-v1:0\n  generator_modes: [generate, summarize]\n";
        let c = Config::load(file, &env(&[("ASK_BEDROCK_TIMEOUT_MS", "2500")])).unwrap();
        let GeneratorConfig::Bedrock(b) = &c.generator else {
            panic!("{:?}", c.generator)
        };
        assert_eq!(b.model_id, "amazon.nova-micro-v1:0");
        assert_eq!(b.region, None);
        assert_eq!(b.max_tokens, 500);
        assert_eq!(b.timeout, std::time::Duration::from_millis(2500));
        assert_eq!(c.generator_modes, vec![Mode::Generate, Mode::Summarize]);
        let c = Config::load(
            EMBEDDED_CONFIG,
            &env(&[
                ("ASK_GENERATOR", "bedrock"),
                ("ASK_BEDROCK_MODEL_ID", "m"),
                ("ASK_BEDROCK_REGION", "eu-west-1"),
                ("ASK_GENERATOR_MODES", "summarize"),
            ]),
        )
        .unwrap();
        assert!(
            matches!(&c.generator, GeneratorConfig::Bedrock(b) if b.region.as_deref() == Some("eu-west-1"))
        );
        assert_eq!(c.generator_modes, vec![Mode::Summarize]);
        for (pairs, says) in [
            (&[("ASK_GENERATOR", "openai")][..], "ask.generator"),
            (&[("ASK_GENERATOR", "bedrock")][..], "ASK_BEDROCK_MODEL_ID"),
            (
                &[
                    ("ASK_GENERATOR", "bedrock"),
                    ("ASK_BEDROCK_MODEL_ID", "m"),
                    ("ASK_BEDROCK_TIMEOUT_MS", "9000"),
                ][..],
                "bedrock_timeout_ms",
            ),
            (
                &[
                    ("ASK_GENERATOR", "bedrock"),
                    ("ASK_BEDROCK_MODEL_ID", "m"),
                    ("ASK_BEDROCK_MAX_TOKENS", "0"),
                ][..],
                "bedrock_max_tokens",
            ),
            (&[("ASK_GENERATOR_MODES", "list")][..], "generator_modes"),
            (
                &[
                    ("ASK_GENERATOR", "bedrock"),
                    ("ASK_BEDROCK_MODEL_ID", "m"),
                    ("ASK_GENERATOR_MODES", " "),
                ][..],
                "generator_modes",
            ),
        ] {
            let e = Config::load(EMBEDDED_CONFIG, &env(pairs)).unwrap_err();
            assert!(e.to_string().contains(says), "{pairs:?}: {e}");
        }
    }

    #[test]
    fn invalid_values_are_refused() {
        for (k, v) in [
            ("ASK_TOP_K", "0"),
            ("ASK_TOP_K", "11"),
            ("ASK_TOP_K", "five"),
            ("ASK_ENABLED", "maybe"),
            ("ASK_DEFAULT_MODE", "recommend"),
            ("ASK_RATE_LIMIT_PER_MINUTE", "0"),
        ] {
            assert!(
                Config::load(EMBEDDED_CONFIG, &env(&[(k, v)])).is_err(),
                "{k}={v}"
            );
        }
        let e = Config::load(EMBEDDED_CONFIG, &env(&[("ASK_ENABLED", "1")])).unwrap_err();
        assert!(e.to_string().contains("ASK_INDEX"), "{e}");
    }
}
