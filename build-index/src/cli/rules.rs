//! The docs team's rules (`--boost`, `--synonyms`) and the sentence model's mix, shared by `search` and `evaluate`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use ask_index::{Analyzer, Index};

/// The docs team's rules from `--boost` and `--synonyms`, with the
/// sentence model's mix if any.
pub(super) fn team_rules(
    index: &Index,
    analyzer: &Analyzer,
    boost: Option<&str>,
    synonyms: Option<&str>,
    hybrid: Option<ask_index::search::Hybrid>,
) -> Result<ask_index::search::Rules> {
    let rules: Vec<(String, f32)> = match boost {
        Some(json) => serde_json::from_str::<std::collections::BTreeMap<String, f32>>(json)
            .context("--boost takes a JSON object of glob to weight, such as {\"gen1/**\": 0.6}")?
            .into_iter()
            .collect(),
        None => Vec::new(),
    };
    let groups: Vec<Vec<String>> = match synonyms {
        Some(json) => serde_json::from_str(json)
            .context("--synonyms takes a JSON list of groups, such as [[\"cancel\", \"stop\"]]")?,
        None => Vec::new(),
    };
    Ok(ask_index::search::Rules {
        page_weights: ask_index::boost::Boosts::new(&rules)?.page_weights(index),
        synonyms: ask_index::synonyms::Synonyms::new(&groups, analyzer)?,
        hybrid,
    })
}

/// The sentence model from `dir` (sha256-checked), mixed in at `weight`;
/// an index with no sentence vectors (at `path`) is an error.
pub(super) fn load_hybrid(
    index: &Index,
    path: &Path,
    dir: &Path,
    weight: f32,
) -> Result<ask_index::search::Hybrid> {
    if index.vectors().is_empty() {
        bail!(
            "{} has no sentence vectors: build it with `build-index --model DIR`",
            path.display()
        );
    }
    let model = ask_embed::Embedder::load(dir)
        .with_context(|| format!("loading the sentence model from {}", dir.display()))?;
    Ok(ask_index::search::Hybrid {
        encoder: std::sync::Arc::new(model),
        weight,
    })
}
