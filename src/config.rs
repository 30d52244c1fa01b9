//! What is this function configured to do?
//!
//! The `ask:` settings are [`ask_settings::Settings`]: their defaults, then
//! the settings file the docs team keeps beside its docs (which
//! `build-index` checks and stores in the index), then each `ASK_<KEY>`
//! variable. `main` reads them once at cold start ([`load`], after the
//! index is fetched); the handler only sees the resulting [`Config`].
//! Plain data at the ground: nothing here builds a runtime object.

use ask_settings::env_name;

pub use ask_settings::{
    AuthMode, DEFAULT_AUTH_SCOPE, Generator, MAX_GENERATOR_TIMEOUT_MS, Retriever, Transport,
};

/// Validated settings (the `ask:` keys).
pub type Config = ask_settings::Settings;

/// The bundled docs' settings file (`common/global_config.yaml`), which
/// the tests load as a docs team's file.
pub const EMBEDDED_CONFIG: &str = include_str!("../common/global_config.yaml");

/// Largest request body, in bytes (not a setting).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Most `prev` entries read (not a setting).
pub const MAX_PREV: usize = 10;
/// Most distinct clients the rate limiter tracks (not a setting).
pub const MAX_TRACKED_CLIENTS: usize = 100_000;

/// Settings that do not validate.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

impl From<ask_settings::Error> for ConfigError {
    fn from(e: ask_settings::Error) -> Self {
        ConfigError(e.message)
    }
}

/// The settings: the defaults, then the keys a settings file set (as an
/// index carries them; empty when it carries none), then the environment
/// through `env`.
pub fn load(
    file: &serde_json::Map<String, serde_json::Value>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let c = ask_settings::resolve(file, env)?;
    if c.enabled && c.index.is_empty() {
        return Err(no_index());
    }
    Ok(c)
}

/// Enabled with no index to load.
fn no_index() -> ConfigError {
    ConfigError(format!(
        "{} is not set: point it at s3://bucket/key or a file built by `build-index --out`",
        env_name("index")
    ))
}

/// The settings an index carries (its `BuildMeta::settings`, the keys the
/// docs team's file set, as JSON; empty: none).
pub fn carried(json: &str) -> Result<serde_json::Map<String, serde_json::Value>, ConfigError> {
    if json.trim().is_empty() {
        return Ok(Default::default());
    }
    serde_json::from_str(json)
        .map_err(|e| ConfigError(format!("not a JSON object of settings: {e}")))
}

/// [`load`] from a settings file's YAML text (what the tests use, with
/// [`EMBEDDED_CONFIG`]).
pub fn load_yaml(yaml: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    let file = ask_settings::read_file("settings", yaml)?;
    load(&file, env)
}

/// What the environment alone says at cold start, before the index (and
/// the settings it carries) is fetched.
#[derive(Clone, Debug, PartialEq)]
pub struct Boot {
    /// `ASK_ENABLED`, when set.
    pub enabled: Option<bool>,
    /// `ASK_INDEX`.
    pub index: String,
    /// `ASK_S3_FORCE_PATH_STYLE`.
    pub s3_force_path_style: bool,
    /// The sentence model's folder to start loading (`ASK_MODEL_DIR`, else
    /// the default), or `None` when `ASK_RETRIEVER` is `bm25`.
    pub model_dir: Option<String>,
}

impl Boot {
    /// Whether to fetch the index: `ASK_ENABLED` is not false and
    /// `ASK_INDEX` is set (then the settings file's `enabled` decides when
    /// `ASK_ENABLED` is not set), or `ASK_ENABLED` is true (and a missing
    /// `ASK_INDEX` fails the cold start).
    pub fn load_index(&self) -> bool {
        match self.enabled {
            Some(false) => false,
            Some(true) => true,
            None => !self.index.is_empty(),
        }
    }
}

/// Reads [`Boot`] from the environment through `env`; a boolean that is
/// not one fails, naming its variable.
pub fn boot(env: &dyn Fn(&str) -> Option<String>) -> Result<Boot, ConfigError> {
    let flag = |name: &str| -> Result<Option<bool>, ConfigError> {
        match env(name).filter(|v| !v.trim().is_empty()) {
            None => Ok(None),
            Some(v) => ask_store::parse_bool(&v)
                .map(Some)
                .ok_or_else(|| ConfigError(format!("{name}={v:?} is not a boolean (true/false)"))),
        }
    };
    let enabled = flag(&env_name("enabled"))?;
    let index = env(&env_name("index"))
        .unwrap_or_default()
        .trim()
        .to_string();
    if enabled == Some(true) && index.is_empty() {
        return Err(no_index());
    }
    let bm25 = env(&env_name("retriever")).is_some_and(|v| v.trim().eq_ignore_ascii_case("bm25"));
    let defaults = ask_settings::Settings::default();
    Ok(Boot {
        enabled,
        index,
        s3_force_path_style: flag(&env_name("s3_force_path_style"))?.unwrap_or(false),
        model_dir: (!bm25).then(|| {
            env(&env_name("model_dir"))
                .filter(|v| !v.trim().is_empty())
                .unwrap_or(defaults.model_dir)
        }),
    })
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

/// The Bedrock settings when `ask.generator` is `bedrock`.
pub fn bedrock(c: &Config) -> Option<BedrockConfig> {
    (c.generator == Generator::Bedrock).then(|| BedrockConfig {
        model_id: c.bedrock_model_id.trim().to_string(),
        region: Some(c.bedrock_region.trim().to_string()).filter(|r| !r.is_empty()),
        max_tokens: c.bedrock_max_tokens,
        timeout: std::time::Duration::from_millis(c.bedrock_timeout_ms),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mode::Mode;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_bundled_docs_settings() {
        let c = load_yaml(EMBEDDED_CONFIG, &env(&[])).unwrap();
        assert!(!c.enabled);
        assert_eq!(c.top_k, 5);
        assert_eq!(c.rate_limit_per_minute, 20);
        assert_eq!(c.default_mode, Mode::Generate);
        assert!(c.default_streaming);
        assert_eq!(c.cors_allow_origins, vec!["*"]);
        assert_eq!(c.max_query_chars, 500);
        assert_eq!(c.retriever, Retriever::Hybrid);
    }

    #[test]
    fn the_environment_overrides_the_file() {
        let c = load_yaml(
            "ask:\n  top_k: 8\n  docs_base_url: https://x.dev/docs/\n",
            &env(&[
                ("ASK_ENABLED", "true"),
                ("ASK_INDEX", "s3://b/k"),
                ("ASK_RATE_LIMIT_PER_MINUTE", "60"),
            ]),
        )
        .unwrap();
        assert!(c.enabled);
        assert_eq!(c.index, "s3://b/k");
        assert_eq!(c.top_k, 8);
        assert_eq!(c.rate_limit_per_minute, 60);
        assert_eq!(c.docs_base_url, "https://x.dev/docs");
        let c = load_yaml("ask:\n  top_k: 8\n", &env(&[("ASK_TOP_K", "3")])).unwrap();
        assert_eq!(c.top_k, 3);
    }

    #[test]
    fn the_generator_is_extractive_unless_a_model_is_named() {
        let c = load_yaml(EMBEDDED_CONFIG, &env(&[])).unwrap();
        assert_eq!(bedrock(&c), None);
        assert_eq!(c.generator_modes, vec![Mode::Generate]);
        let file = "ask:\n  generator: bedrock\n  bedrock_model_id: amazon.nova-micro-v1:0\n  generator_modes: [generate, summarize]\n  cors_allow_origins: [https://docs.example.com]\n";
        let c = load_yaml(file, &env(&[("ASK_BEDROCK_TIMEOUT_MS", "2500")])).unwrap();
        let b = bedrock(&c).unwrap();
        assert_eq!(b.model_id, "amazon.nova-micro-v1:0");
        assert_eq!(b.region, None);
        assert_eq!(b.max_tokens, 500);
        assert_eq!(b.timeout, std::time::Duration::from_millis(2500));
        assert_eq!(c.generator_modes, vec![Mode::Generate, Mode::Summarize]);
        let c = load_yaml(
            EMBEDDED_CONFIG,
            &env(&[
                ("ASK_GENERATOR", "bedrock"),
                ("ASK_BEDROCK_MODEL_ID", "m"),
                ("ASK_BEDROCK_REGION", "eu-west-1"),
                ("ASK_GENERATOR_MODES", "summarize"),
                ("ASK_MODEL_FROM_ANY_ORIGIN", "true"),
            ]),
        )
        .unwrap();
        assert_eq!(bedrock(&c).unwrap().region.as_deref(), Some("eu-west-1"));
        assert_eq!(c.generator_modes, vec![Mode::Summarize]);
        for (pairs, says) in [
            (&[("ASK_GENERATOR", "openai")][..], "ASK_GENERATOR"),
            (
                &[("ASK_GENERATOR", "bedrock")][..],
                "bedrock_model_id is not set",
            ),
            (
                &[
                    ("ASK_GENERATOR", "bedrock"),
                    ("ASK_BEDROCK_MODEL_ID", "m"),
                    ("ASK_BEDROCK_TIMEOUT_MS", "9000"),
                ][..],
                "ASK_BEDROCK_TIMEOUT_MS",
            ),
            (
                &[
                    ("ASK_GENERATOR", "bedrock"),
                    ("ASK_BEDROCK_MODEL_ID", "m"),
                    ("ASK_BEDROCK_MAX_TOKENS", "0"),
                ][..],
                "ASK_BEDROCK_MAX_TOKENS",
            ),
            (
                &[("ASK_GENERATOR_MODES", "list")][..],
                "ASK_GENERATOR_MODES",
            ),
            // Any page could spend the model's budget through its
            // visitors' browsers: refused unless the team says so.
            (
                &[("ASK_GENERATOR", "bedrock"), ("ASK_BEDROCK_MODEL_ID", "m")][..],
                "model_from_any_origin",
            ),
            (
                &[("ASK_MCP_ALLOW_ORIGINS", "*")][..],
                "ASK_MCP_ALLOW_ORIGINS",
            ),
        ] {
            let e = load_yaml(EMBEDDED_CONFIG, &env(pairs)).unwrap_err();
            assert!(e.to_string().contains(says), "{pairs:?}: {e}");
        }
    }

    #[test]
    fn enabled_needs_an_index() {
        let e = load_yaml(EMBEDDED_CONFIG, &env(&[("ASK_ENABLED", "1")])).unwrap_err();
        assert!(e.to_string().contains("ASK_INDEX"), "{e}");
    }
}
