//! The bundled docs (`docs/content/docs`) divided into sites by a settings
//! file's `ask.sites`, indexed in process as `build-index --config` indexes
//! them (build-index/src/cli/build.rs).

#![allow(dead_code)]

use ask_index::sites::SiteRules;

use super::docs::repo;

/// One entry of `ask.sites`.
pub struct DocsSite {
    /// Its name, sent as `site`.
    pub name: &'static str,
    /// What `/sites` says of it.
    pub description: &'static str,
    /// Path globs relative to `docs/content/docs` (`!` leaves pages out).
    pub paths: &'static [&'static str],
    /// The site a reader starts on.
    pub default: bool,
}

/// The bundled docs as two sites: the reference pages, and the guides (the
/// rest, and the default).
pub const GUIDES_AND_REFERENCE: &[DocsSite] = &[
    DocsSite {
        name: "guides",
        description: "How-to guides: deploying, the widget, operations",
        paths: &["!api.mdx", "!configuration.mdx"],
        default: true,
    },
    DocsSite {
        name: "reference",
        description: "The API and every setting",
        paths: &["api.mdx", "configuration.mdx"],
        default: false,
    },
];

/// The settings file of `sites`: the bundled docs under the base URL of
/// their single-site index.
pub fn settings_yaml(sites: &[DocsSite]) -> String {
    let corpus = repo().join("docs/content/docs").display().to_string();
    let mut yaml = format!(
        "ask:\n  corpus_path: {corpus:?}\n  docs_base_url: https://nlweb-ask.example.com/docs\n  sites:\n"
    );
    for s in sites {
        yaml += &format!(
            "    - name: {}\n      description: {:?}\n      paths: {:?}\n",
            s.name, s.description, s.paths
        );
        if s.default {
            yaml += "      default: true\n";
        }
    }
    yaml
}

/// The encoded index of the bundled docs divided into `sites`: the
/// settings file written to a temporary folder, read and checked, and
/// carried in the index; each page's sites from their rules, every glob
/// matching a page and every site holding one.
pub fn docs_index_with_sites(name: &str, sites: &[DocsSite]) -> Vec<u8> {
    let corpus = repo().join("docs/content/docs");
    ask_index::encode(&index_with_sites(name, &corpus, &settings_yaml(sites))).unwrap()
}

/// The index of the `.mdx` pages under `corpus`, divided into sites by the
/// settings file `yaml` (its `ask.sites`) and carrying its settings, as
/// `build-index --config` builds it (without sentence vectors).
pub fn index_with_sites(name: &str, corpus: &std::path::Path, yaml: &str) -> ask_index::Index {
    let dir = std::env::temp_dir().join(format!("ask-sites-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ask.yaml");
    std::fs::write(&file, yaml).unwrap();
    let team = build_index::settings::TeamSettings::read(&file, true).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let files =
        build_index::read_mdx_files(corpus, &|_, _| indicatif::ProgressBar::hidden()).unwrap();
    let corpus = build_index::corpus::pages(&files);
    assert!(corpus.skipped.is_empty(), "{:?}", corpus.skipped);
    let rules = SiteRules::new(&team.settings.site_defs()).unwrap();
    let mut pages = corpus.pages;
    build_index::corpus::assign_sites(&rules, &mut pages, &corpus.meta).unwrap();
    ask_index::build(
        &pages,
        &ask_index::BuildOptions {
            docs_base_url: team.settings.docs_base_url.clone(),
            weights: ask_index::Weights::DOCS,
            source: "mdx".into(),
            corpus_fingerprint: "test".into(),
            built_at_unix: 0,
            settings: team.carried(),
            sites: rules.names(),
        },
        &ask_index::Analyzer::new(),
    )
    .unwrap()
}
