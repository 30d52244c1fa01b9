//! Which runtime objects does the configuration describe? The checker of
//! bearer tokens, the model that writes summaries and the sentence model
//! of hybrid retrieval, built once from the
//! plain settings when the state is made; `config` builds none of them,
//! and `auth` and `generate` never read the configuration.

use crate::auth::{Auth, Mode};
use crate::config::Config;
use crate::generate::{Bedrock, Generator};

/// The checker the configuration describes, built once when the state is
/// made: its keys are `ask.auth_jwks` (inline) or `fetched`, the document
/// the cold start fetched from `ask.auth_jwks_url`. With neither (a fetch
/// that failed under `optional`) it refuses every credential until a
/// refetch brings keys: never open. Err: a key set that does not parse.
pub fn auth(c: &Config, fetched: Option<&str>) -> Result<Auth, String> {
    if c.auth == Mode::Off {
        return Ok(Auth::off());
    }
    let (issuer, audience, scope) = (
        c.auth_issuer.clone(),
        c.auth_audience.clone(),
        c.auth_scope.clone(),
    );
    let auth = match (c.auth_jwks.as_deref(), fetched) {
        (Some(jwks), _) => Auth::new(c.auth, jwks, issuer, audience, scope)
            .map_err(|e| format!("ask.auth_jwks: {e}"))?,
        (None, Some(jwks)) => Auth::new(c.auth, jwks, issuer, audience, scope).map_err(|e| {
            format!(
                "ask.auth_jwks_url {}: {e}",
                c.auth_jwks_url.as_deref().unwrap_or_default()
            )
        })?,
        (None, None) => Auth::without_keys(c.auth, issuer, audience, scope),
    };
    Ok(match &c.auth_jwks_url {
        Some(url) => auth.with_refetch(url.clone()),
        None => auth,
    })
}

/// The page weights of `ask.boost` (checked when the settings were read).
pub fn boosts(c: &Config) -> ask_index::boost::Boosts {
    let rules: Vec<(String, f32)> = c.boost.iter().map(|(k, v)| (k.clone(), *v)).collect();
    ask_index::boost::Boosts::new(&rules).unwrap_or_default()
}

/// What the request parser allows, from the configuration.
pub fn limits(c: &Config) -> crate::protocol::request::Limits {
    crate::protocol::request::Limits {
        max_body_bytes: crate::config::MAX_BODY_BYTES,
        max_query_chars: c.max_query_chars,
        max_prev: crate::config::MAX_PREV,
        default_mode: c.default_mode,
        default_streaming: c.default_streaming,
    }
}

/// The generator the configuration names, if it names a model; `None` is
/// the extractive summarizer alone.
pub async fn generator(c: &Config) -> Result<Option<Box<dyn Generator>>, String> {
    match crate::config::bedrock(c) {
        None => Ok(None),
        Some(b) => Ok(Some(Box::new(Bedrock::from_environment(b).await?))),
    }
}

/// The sentence model of `ask.retriever: hybrid`, loading on its own
/// thread from `ask.model_dir` (the cold start fetches the index
/// meanwhile); `None` for `bm25`. Its files' sha256 was checked when they
/// were packaged (`build-index pack-model`, `scripts/model.sh`), not at
/// every cold start.
pub fn start_model(c: &Config) -> Option<ModelLoad> {
    (c.retriever != crate::config::Retriever::Bm25).then(|| load_model(&c.model_dir))
}

/// The sentence model loading from `dir` on its own thread.
pub fn load_model(dir: &str) -> ModelLoad {
    let folder = dir.to_string();
    ModelLoad {
        dir: folder.clone(),
        thread: std::thread::spawn(move || {
            ask_embed::Embedder::load_checked(std::path::Path::new(&folder), false)
                .map_err(|e| format!("ask.model_dir {folder}: {e}"))
        }),
    }
}

/// A model loading on its own thread ([`start_model`], [`load_model`]).
pub struct ModelLoad {
    /// The folder it loads from.
    pub dir: String,
    thread: std::thread::JoinHandle<Result<ask_embed::Embedder, String>>,
}

/// The hybrid retriever of `ask.retriever: hybrid`: the model from `load`
/// (what [`start_model`] started), checked against the model the index's
/// vectors came from; `None` for `bm25`, and for an index built without
/// vectors, which is served with the words alone after one warning.
pub fn hybrid(
    c: &Config,
    index: &ask_index::Index,
    load: Option<ModelLoad>,
) -> Result<Option<ask_index::search::Hybrid>, String> {
    let Some(load) = load else {
        return Ok(None);
    };
    let built_with = &index.vectors().model;
    if built_with.is_empty() {
        tracing::warn!(
            "ask.retriever is hybrid but the index has no sentence vectors: serving with the words alone (BM25); build it with `build-index --model DIR` (scripts/model.sh fetches the model), or set ask.retriever: bm25"
        );
        return Ok(None);
    }
    if built_with != ask_embed::MINILM_L6.id {
        return Err(format!(
            "the index's vectors come from {built_with:?}, this build runs {:?}: rebuild it with this release's `build-index --model DIR`",
            ask_embed::MINILM_L6.id
        ));
    }
    let model = load
        .thread
        .join()
        .map_err(|_| "the sentence model's loading thread panicked".to_string())??;
    Ok(Some(ask_index::search::Hybrid {
        encoder: std::sync::Arc::new(model),
        weight: c.hybrid_weight,
    }))
}
