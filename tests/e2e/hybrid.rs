//! `ask.retriever: hybrid` in the binary, with the packed model.

use serde_json::Value;

use crate::support::docs;
use crate::{ask, emulator, get};

/// `ask.retriever: hybrid` in the real binary: the packed model (as
/// `build-index pack-model` writes it for the layer) loaded at cold start,
/// the question embedded in the function, the same ranking as the offline
/// path over the same index.
#[test]
fn the_binary_ranks_by_meaning_with_the_packed_model() {
    let Some(model) = docs::model_dir("the_binary_ranks_by_meaning_with_the_packed_model") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("ask-e2e-hybrid-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let embedder = ask_embed::Embedder::load(&model).unwrap();
    std::fs::write(
        tmp.join(ask_embed::MINILM_L6.packed.name),
        embedder.packed(),
    )
    .unwrap();
    let index = docs::docs_index_with_vectors(&model);
    std::fs::write(tmp.join("docs.idx"), ask_index::encode(&index).unwrap()).unwrap();
    let (_emu, port) = emulator();
    let _ask = ask(
        port,
        &[
            ("ASK_ENABLED", "true".to_string()),
            ("ASK_INDEX", tmp.join("docs.idx").display().to_string()),
            ("ASK_RETRIEVER", "hybrid".to_string()),
            ("ASK_MODEL_DIR", tmp.display().to_string()),
        ],
    );
    let q = "stop one caller from using up every request";
    let r = get(
        port,
        &format!(
            "/ask?query={}&mode=list&streaming=false",
            q.replace(' ', "+")
        ),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    let served: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["url"].as_str().unwrap())
        .collect();
    assert!(!served.is_empty());
    let rules = ask_index::search::Rules {
        hybrid: Some(ask_index::search::Hybrid {
            encoder: std::sync::Arc::new(embedder),
            weight: ask_index::search::HYBRID_WEIGHT,
        }),
        ..Default::default()
    };
    let a = ask_index::Analyzer::new();
    let (hits, _) = ask_index::search::retrieve_corrected(&index, &a, q, &[], served.len(), &rules);
    let offline: Vec<String> = hits
        .iter()
        .map(|h| ask_index::search::section_url(&index, h.section))
        .collect();
    assert_eq!(served, offline, "the binary's ranking is the hybrid one");
    let (words, _) = ask_index::search::retrieve_corrected(
        &index,
        &a,
        q,
        &[],
        served.len(),
        &Default::default(),
    );
    let words: Vec<String> = words
        .iter()
        .map(|h| ask_index::search::section_url(&index, h.section))
        .collect();
    assert_ne!(served, words, "and not the words' ranking alone");
    // Words the docs never use: NO_RESULTS, as with BM25.
    let r = get(port, "/ask?query=zqxv+wjkp&mode=list&streaming=false", &[]);
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "NO_RESULTS", "{doc}");
    std::fs::remove_dir_all(&tmp).unwrap();
}
