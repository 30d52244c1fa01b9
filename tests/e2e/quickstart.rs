//! The quickstart's docs-team walk-through against the binary.

use serde_json::Value;

use crate::support::{docs, moto};
use crate::{ask, emulator, get};

/// The code blocks of `docs/content/docs/quickstart.mdx` titled `title`:
/// what a docs team copies from it.
fn quickstart_file(title: &str) -> String {
    let page =
        std::fs::read_to_string(docs::repo().join("docs/content/docs/quickstart.mdx")).unwrap();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let fence: String = line.chars().take_while(|&c| c == '`').collect();
        if fence.len() >= 3 && line.contains(&format!("title=\"{title}\"")) {
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| l.trim_end() != fence)
                .collect();
            return body.join("\n") + "\n";
        }
    }
    panic!("quickstart.mdx has no block titled {title}");
}

/// The quickstart's walk-through, as a docs team follows it: its settings
/// file and page, written into an empty docs repository; the index built
/// from them (the settings checked and carried in it, as `build-index
/// --config` does); the release binary serving it with nothing but where
/// the index is. The file's `enabled`, `top_k`, `docs_base_url` and `site`
/// show in the answers; an `ASK_TOP_K` variable overrides the file's.
#[test]
fn the_quickstart_docs_team_walk_through() {
    let repo = std::env::temp_dir().join(format!("acme-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(repo.join("content")).unwrap();
    std::fs::write(repo.join("ask.yaml"), quickstart_file("ask.yaml")).unwrap();
    for page in ["content/widgets.mdx", "content/troubleshooting.mdx"] {
        std::fs::write(repo.join(page), quickstart_file(page)).unwrap();
    }
    let team = build_index::settings::TeamSettings::read(&repo.join("ask.yaml"), true).unwrap();
    let files =
        build_index::read_mdx_files(&team.corpus(), &|_, _| indicatif::ProgressBar::hidden())
            .unwrap();
    let pages = build_index::corpus::pages(&files).pages;
    let index = ask_index::build(
        &pages,
        &ask_index::BuildOptions {
            docs_base_url: team.settings.docs_base_url.clone(),
            weights: ask_index::Weights::DOCS,
            source: "mdx".into(),
            corpus_fingerprint: "quickstart".into(),
            built_at_unix: 0,
            settings: team.carried(),
            sites: Vec::new(),
        },
        &ask_index::Analyzer::new(),
    )
    .unwrap();
    let s3 = moto::Moto::start();
    s3.create_bucket("acme");
    s3.put(
        "acme",
        "index/acme.idx",
        &ask_index::encode(&index).unwrap(),
    );
    std::fs::remove_dir_all(&repo).unwrap();
    let (_emu, port) = emulator();
    let mut env = s3.env();
    // Only where the index is: enabled comes from the team's file.
    env.push(("ASK_INDEX", "s3://acme/index/acme.idx".to_string()));
    let ask_it = || {
        let r = get(
            port,
            "/ask?query=how+do+I+install+the+widget&mode=list&streaming=false",
            &[],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let doc: Value = serde_json::from_slice(&r.body).unwrap();
        doc["results"].as_array().unwrap().clone()
    };
    {
        let _ask = ask(port, &env);
        let results = ask_it();
        assert_eq!(results.len(), 3, "the file's top_k: {results:?}");
        assert_eq!(results[0]["url"], "https://docs.acme.dev/widgets#install");
        let sites: Value = serde_json::from_slice(&get(port, "/sites", &[]).body).unwrap();
        assert!(sites.to_string().contains("\"acme\""), "{sites}");
    }
    env.push(("ASK_TOP_K", "1".to_string()));
    let _ask = ask(port, &env);
    assert_eq!(ask_it().len(), 1, "ASK_TOP_K overrides the file's top_k");
}
