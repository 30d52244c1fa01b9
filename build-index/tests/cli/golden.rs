//! The golden sets: their corpora, the docs teams' rules, the floors, and one run judged.

use std::path::{Path, PathBuf};

use build_index::evaluate::{Question, distinct, gains, ndcg10};

use crate::{corpora, repo};

/// nDCG@10, reciprocal rank and "found in the first 5" of one run.
pub(crate) fn judge(
    q: &serde_json::Value,
    run: &serde_json::Value,
    golden: &Path,
) -> (f64, f64, bool) {
    let question: Question = serde_json::from_value(q.clone()).unwrap();
    let pages = distinct(
        run["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap()),
    );
    assert!(!question.expected.is_empty(), "{}: {q}", golden.display());
    let gains = gains(&pages, &question);
    let rr = gains
        .iter()
        .take(10)
        .position(|g| *g == 2.0)
        .map_or(0.0, |rank| 1.0 / (rank + 1) as f64);
    let found = gains.iter().take(5).any(|g| *g == 2.0);
    if !found {
        eprintln!("miss: {} -> {:?}", q["q"], &pages[..pages.len().min(5)]);
    }
    (ndcg10(&pages, &question), rr, found)
}

/// A golden set: its corpus, its questions, the docs team's rules (as
/// `build-index search` flags), and the floors of [nDCG@10, MRR@10,
/// recall@5]: the figures measured when the gate was set (2026-12-03) less
/// about 0.03, so a ranking change that loses ground fails CI.
pub(crate) struct GoldenSet {
    pub(crate) corpus: PathBuf,
    pub(crate) golden: PathBuf,
    pub(crate) rules: Vec<(&'static str, &'static str)>,
    pub(crate) floors: [f64; 3],
    /// The same at section level.
    pub(crate) section_floors: [f64; 3],
}

/// The rules are what each docs team would set: legacy pages down
/// (`--boost`), and synonym groups for words users type that the docs do
/// not use (`--synonyms`, written from the golden sets' misses).
pub(crate) fn golden_sets() -> Vec<GoldenSet> {
    let set = |corpus: PathBuf, name: &str, rules, floors, section_floors| GoldenSet {
        corpus,
        golden: repo().join(format!("tests/golden/{name}.jsonl")),
        rules,
        floors,
        section_floors,
    };
    vec![
        set(
            corpora().join("fumadocs"),
            "fumadocs",
            vec![],
            [0.87, 0.85, 0.94],
            [0.70, 0.80, 0.90],
        ),
        set(
            corpora().join("prefect"),
            "prefect",
            vec![(
                "--synonyms",
                r#"[["rerun", "retry"], ["429", "rate limit"], ["api token", "secret"]]"#,
            )],
            [0.80, 0.78, 0.89],
            [0.54, 0.67, 0.81],
        ),
        set(
            corpora().join("shadcn-ui"),
            "shadcn-ui",
            vec![],
            [0.88, 0.88, 0.94],
            [0.72, 0.79, 0.87],
        ),
        set(
            corpora().join("aws-amplify"),
            "aws-amplify",
            vec![
                ("--boost", r#"{"pages/gen1/**": 0.6}"#),
                (
                    "--synonyms",
                    r#"[["log out", "sign out"], ["llm", "model"], ["api key", "secret"]]"#,
                ),
            ],
            [0.79, 0.78, 0.87],
            [0.60, 0.64, 0.81],
        ),
        set(
            repo().join("docs/content/docs"),
            "nlweb-ask-docs",
            vec![(
                "--synonyms",
                r#"[["env var", "environment variable"], ["number of results", "top_k"]]"#,
            )],
            [0.88, 0.90, 0.94],
            [0.68, 0.76, 0.88],
        ),
    ]
}
