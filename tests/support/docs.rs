//! The index of this project's own docs (`docs/content/docs`), built in
//! process with the same library `build-index` uses.

#![allow(dead_code)]

use std::path::Path;

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

pub fn docs_index() -> ask_index::Index {
    let files = build_index::read_mdx_files(&repo().join("docs/content/docs"), &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .expect("docs/content/docs");
    let corpus = build_index::corpus::pages(&files);
    assert!(corpus.skipped.is_empty(), "{:?}", corpus.skipped);
    let opts = ask_index::BuildOptions {
        docs_base_url: "https://nlweb-ask.example.com/docs".into(),
        weights: ask_index::Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "test".into(),
        built_at_unix: 0,
    };
    ask_index::build(&corpus.pages, &opts, &ask_index::Analyzer::new()).unwrap()
}

pub fn docs_index_bytes() -> Vec<u8> {
    ask_index::encode(&docs_index()).unwrap()
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
