//! `build-index evaluate`: how well an index ranks the team's own graded questions.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ask_index::{Analyzer, Index};

use super::rules::{load_hybrid, team_rules};

/// `build-index evaluate`: the Markdown table of [`build_index::evaluate`]
/// on stdout. Hybrid is measured when the model is given and the index has
/// sentence vectors; otherwise stderr says why not.
pub(crate) fn evaluate(
    path: &Path,
    questions: &Path,
    boost: Option<&str>,
    synonyms: Option<&str>,
    model: Option<PathBuf>,
) -> Result<()> {
    use build_index::evaluate::{WEIGHTS, ndcg10, read_questions, table};
    let text = std::fs::read_to_string(questions)
        .with_context(|| format!("reading {}", questions.display()))?;
    let (questions, unanswerable) =
        read_questions(&text).with_context(|| format!("reading {}", questions.display()))?;
    if questions.is_empty() {
        bail!("no answerable questions to measure");
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let index: Index = ask_index::decode_bytes(bytes.into())
        .with_context(|| format!("loading {}", path.display()))?;
    let analyzer = Analyzer::new();
    let known: std::collections::HashSet<&str> = (0..index.page_count() as u32)
        .map(|p| index.page_path_route(p).0)
        .collect();
    for q in &questions {
        for p in q.expected.iter().chain(&q.partial) {
            if !known.contains(p.as_str()) {
                eprintln!(
                    "warning: {:?} names {p:?}, which is not a page of this index",
                    q.q
                );
            }
        }
    }
    let mut rankings = vec![("bm25".to_string(), None)];
    match model {
        Some(dir) if !index.vectors().is_empty() => {
            let h = load_hybrid(&index, path, &dir, 0.0)?;
            for weight in WEIGHTS {
                let h = ask_index::search::Hybrid {
                    weight,
                    ..h.clone()
                };
                rankings.push((format!("hybrid {weight}"), Some(h)));
            }
        }
        Some(_) => eprintln!(
            "note: {} has no sentence vectors (build it with --model): the words alone measured",
            path.display()
        ),
        None => {
            eprintln!("note: no model (--model DIR or ASK_MODEL_DIR): the words alone measured")
        }
    }
    // The team's rules are read once; only the mix changes between rankings.
    let mut rules = team_rules(&index, &analyzer, boost, synonyms, None)?;
    let mut rows = Vec::new();
    for (name, hybrid) in rankings {
        rules.hybrid = hybrid;
        let total: f64 = questions
            .iter()
            .map(|q| {
                let (hits, _) =
                    ask_index::search::retrieve_corrected(&index, &analyzer, &q.q, &[], 10, &rules);
                let pages: Vec<&str> = hits
                    .iter()
                    .map(|h| index.page_path_route(index.section_page(h.section)).0)
                    .collect();
                ndcg10(&pages, q)
            })
            .sum();
        rows.push((name, total / questions.len() as f64));
    }
    print!("{}", table(&rows, questions.len(), unanswerable));
    Ok(())
}
