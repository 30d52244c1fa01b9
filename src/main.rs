//! `ask`: config → index → state, once per cold start; then the runtime loop.

use std::time::Instant;

use lambda_http::Error;
use nlweb_ask::config::{Config, Transport};
use nlweb_ask::event::SafeEvents;
use nlweb_ask::source;
use nlweb_ask::state::State;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let json = std::env::var("AWS_LAMBDA_LOG_FORMAT").is_ok_and(|v| v.eq_ignore_ascii_case("json"));
    let filter = tracing_subscriber::EnvFilter::try_from_env("AWS_LAMBDA_LOG_LEVEL")
        .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env())
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    {
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let fmt = tracing_subscriber::fmt::layer()
            .with_target(false)
            .without_time();
        let registry = tracing_subscriber::registry()
            .with(filter)
            .with(nlweb_ask::logs::own_code_below_info());
        if json {
            registry.with(fmt.json()).init();
        } else {
            registry.with(fmt).init();
        }
    }

    let t = Instant::now();
    let env = |k: &str| std::env::var(k).ok();
    // Before the index: whether to serve and where the index is, from the
    // environment alone (the settings file's values come with the index).
    let boot = nlweb_ask::config::boot(&env)?;
    let state: State = if boot.load_index() {
        // The sentence model loads on its own thread while the index is
        // fetched (the fetch mostly waits on S3), unless the environment
        // says bm25; the index's settings may still say bm25, and then it
        // is dropped.
        let t_model = Instant::now();
        let model = boot.model_dir.as_deref().map(nlweb_ask::built::load_model);
        let (index, timings) = source::open(&boot.index, boot.s3_force_path_style)
            .await
            .map_err(|e| {
                tracing::error!("{e}");
                e
            })?;
        let settings = nlweb_ask::config::carried(&index.meta.settings).map_err(|e| {
            let e = format!("the index's settings: {e}");
            tracing::error!("{e}");
            e
        })?;
        let config = nlweb_ask::config::load(&settings, &env).map_err(|e| {
            tracing::error!("{e}");
            e
        })?;
        tracing::info!(
            build_id = %index.meta.build_id,
            built_at = %index.meta.built_at,
            pages = index.meta.pages,
            sections = index.meta.sections,
            bytes = timings.bytes,
            fetch_ms = timings.fetch_ms,
            decode_ms = timings.decode_ms,
            settings = settings.len(),
            init_ms = t.elapsed().as_secs_f64() * 1e3,
            "index loaded"
        );
        // The settings name the sites the index was built with.
        nlweb_ask::sites::Sites::check(&config, &index).map_err(|e| {
            tracing::error!("{e}");
            e
        })?;
        if config.enabled {
            serve(config, index, model, t_model).await?
        } else {
            tracing::info!("ask.enabled is false in the index's settings: every route answers 404");
            disabled(config)?
        }
    } else {
        let config = nlweb_ask::config::load(&Default::default(), &env)?;
        tracing::info!("ask.enabled is false: every route answers 404");
        disabled(config)?
    };
    // lambda_http::run, with each event made readable first (see event.rs).
    let transport = state.config.transport;
    let service = nlweb_ask::app::service(state);
    match transport {
        Transport::Buffered => {
            lambda_http::lambda_runtime::run(SafeEvents(lambda_http::Adapter::from(service))).await
        }
        // Every response a stream of the body's frames (lambda_http's
        // streaming adapter); the API's integration must stream too.
        Transport::Streaming => {
            lambda_http::lambda_runtime::run(SafeEvents(lambda_http::StreamAdapter::from(service)))
                .await
        }
    }
}

/// The state of an enabled function: the key set fetched when
/// `ask.auth_jwks_url` is set, the token checker, the generator, the
/// sentence model (`model`, started before the index was fetched).
async fn serve(
    config: Config,
    index: ask_index::Index,
    model: Option<nlweb_ask::built::ModelLoad>,
    t_model: Instant,
) -> Result<State, Error> {
    let mut fetched = None;
    if config.auth != nlweb_ask::auth::Mode::Off
        && let Some(url) = &config.auth_jwks_url
    {
        match nlweb_ask::auth::fetch_jwks(url).await {
            Ok(jwks) => fetched = Some(jwks),
            // `optional`: anonymous callers are still served, and every
            // token is refused (401) until a refetch brings the keys:
            // never anonymous for a token.
            Err(e) if config.auth == nlweb_ask::auth::Mode::Optional => {
                tracing::error!("{e}; serving anonymous callers only, refusing every token");
            }
            Err(e) => {
                tracing::error!("{e}");
                return Err(e.into());
            }
        }
    }
    // A key set that does not parse fails the cold start, naming it.
    let auth = nlweb_ask::built::auth(&config, fetched.as_deref()).map_err(|e| {
        let e = format!("ask.auth: {e}");
        tracing::error!("{e}");
        e
    })?;
    let generator = nlweb_ask::built::generator(&config).await.map_err(|e| {
        let e = format!("ask.generator: {e}");
        tracing::error!("{e}");
        e
    })?;
    // The model started before the settings were known: kept for hybrid
    // from the folder they name, loaded again from another.
    let model = match model {
        _ if config.retriever == nlweb_ask::config::Retriever::Bm25 => None,
        Some(m) if m.dir == config.model_dir => Some(m),
        _ => Some(nlweb_ask::built::load_model(&config.model_dir)),
    };
    let hybrid = nlweb_ask::built::hybrid(&config, &index, model).map_err(|e| {
        let e = format!("ask.retriever: {e}");
        tracing::error!("{e}");
        e
    })?;
    let secret = std::env::var("ASK_QUERY_ID_SECRET").ok();
    let mut state = State::with_auth(config, index, auth).with_query_id_secret(secret.as_deref());
    if let Some(h) = hybrid {
        tracing::info!(
            model = ask_embed::MINILM_L6.id,
            weight = h.weight,
            ready_ms = t_model.elapsed().as_secs_f64() * 1e3,
            "hybrid retrieval: sentence model loaded (beside the index fetch)"
        );
        state = state.with_hybrid(h);
    }
    Ok(match generator {
        Some(g) => {
            tracing::info!(
                generator = g.name(),
                model = g.model(),
                "summaries by a model"
            );
            state.with_generator(g)
        }
        None => state,
    })
}

/// The state of a disabled function: an empty index, every route 404.
fn disabled(config: Config) -> Result<State, Error> {
    let empty = ask_index::build(
        &[],
        &ask_index::BuildOptions {
            docs_base_url: String::new(),
            weights: ask_index::Weights::DOCS,
            source: "none".into(),
            corpus_fingerprint: String::new(),
            built_at_unix: 0,
            settings: String::new(),
            sites: Vec::new(),
        },
        &ask_index::Analyzer::new(),
    )?;
    let auth = nlweb_ask::built::auth(&config, None)?;
    Ok(State::with_auth(config, empty, auth))
}
