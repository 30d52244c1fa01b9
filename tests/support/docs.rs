//! The index of this project's own docs (`docs/content/docs`), and of the
//! shared corpora, built in process with the same library `build-index` uses.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo() -> &'static Path {
    // Both the root package and build-index include this file; the root is
    // where `docs/` lives.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("docs/content/docs").is_dir() {
        here
    } else {
        Box::leak(
            here.parent()
                .expect("repo root")
                .to_path_buf()
                .into_boxed_path(),
        )
    }
}

/// Where the shared corpora are looked for: `$ASK_CORPORA`, else
/// `../shared/corpora` beside the repository.
pub fn corpora_root() -> PathBuf {
    std::env::var_os("ASK_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/corpora"))
}

/// Where each shared corpus comes from (`tests/corpora.tsv`): its upstream
/// repository and commit.
pub fn corpus_source(name: &str) -> String {
    include_str!("../corpora.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f[0] == name)
        .map(|f| format!("{} at {}", f[1], f[2]))
        .unwrap_or_else(|| "(not listed in tests/corpora.tsv)".into())
}

/// The folder of the shared corpus `name`, or `None` when it is absent: the
/// caller skips what needs it, and this says so out loud, naming the corpus
/// and where it comes from. With `ASK_REQUIRE_CORPORA` set (as `.ci/run`
/// does) an absent corpus is a failure instead, so CI cannot pass without
/// them.
pub fn shared_corpus(test: &str, name: &str) -> Option<PathBuf> {
    let dir = corpora_root().join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    let missing = format!(
        "shared corpus {name} not found at {} (set ASK_CORPORA); it is {}",
        dir.display(),
        corpus_source(name)
    );
    if std::env::var_os("ASK_REQUIRE_CORPORA").is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{test}: {missing}; ASK_REQUIRE_CORPORA is set, so an absent corpus fails");
    }
    eprintln!("SKIPPED {test}: {missing}");
    None
}

/// The folders of the shared corpora `names`, or `None` when any is
/// absent (each absent one said out loud, see [`shared_corpus`]).
pub fn shared_corpora(test: &str, names: &[&str]) -> Option<Vec<PathBuf>> {
    let found: Vec<Option<PathBuf>> = names.iter().map(|n| shared_corpus(test, n)).collect();
    found.into_iter().collect()
}

/// The pages of the `.mdx` files under `dir`.
fn corpus(dir: &Path) -> build_index::corpus::Corpus {
    let files = build_index::read_mdx_files(dir, &|_, _| indicatif::ProgressBar::hidden())
        .unwrap_or_else(|e| panic!("{}: {e:?}", dir.display()));
    build_index::corpus::pages(&files)
}

fn index(pages: &[ask_index::PageInput], docs_base_url: &str) -> ask_index::Index {
    let opts = ask_index::BuildOptions {
        docs_base_url: docs_base_url.into(),
        weights: ask_index::Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "test".into(),
        built_at_unix: 0,
        settings: String::new(),
        sites: Vec::new(),
    };
    ask_index::build(pages, &opts, &ask_index::Analyzer::new()).unwrap()
}

/// The index of a shared corpus's folder, under `https://docs.example.com`.
pub fn index_of(dir: &Path) -> ask_index::Index {
    index(&corpus(dir).pages, "https://docs.example.com")
}

pub fn docs_index() -> ask_index::Index {
    let corpus = corpus(&repo().join("docs/content/docs"));
    assert!(corpus.skipped.is_empty(), "{:?}", corpus.skipped);
    index(&corpus.pages, "https://nlweb-ask.example.com/docs")
}

pub fn docs_index_bytes() -> Vec<u8> {
    ask_index::encode(&docs_index()).unwrap()
}

#[allow(unused_imports)]
pub use super::model::model_dir;

/// The bundled docs' index with its sections' vectors (embedded through
/// build-index's cache).
pub fn docs_index_with_vectors(model: &Path) -> ask_index::Index {
    with_vectors(docs_index(), model)
}

/// `index` with its sections' vectors (embedded through build-index's
/// cache).
pub fn with_vectors(index: ask_index::Index, model: &Path) -> ask_index::Index {
    let mut cache = build_index::embed::Cache::open(build_index::embed::default_cache().as_deref());
    let (vectors, _) = build_index::embed::vectors(&index, model, &mut cache, &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .unwrap();
    index.with_vectors(vectors).unwrap()
}

/// The settings the saved events are replayed under besides enabling:
/// `ask.auth: optional` with the test key set of `tests/data/auth/`, so
/// the events without credentials answer as anonymous and the auth events
/// get their 401 and 403 (see events/README.md).
pub fn events_env() -> Vec<(&'static str, String)> {
    let jwks = std::fs::read_to_string(repo().join("tests/data/auth/jwks.json")).unwrap();
    vec![
        ("ASK_AUTH", "optional".to_string()),
        ("ASK_AUTH_JWKS", jwks.trim().to_string()),
        ("ASK_AUTH_ISSUER", "https://auth.example.com/".to_string()),
        (
            "ASK_AUTH_AUDIENCE",
            "https://nlweb-ask.example.com".to_string(),
        ),
    ]
}
