//! The int8 model against what it stands for: the `tokenizers` crate's
//! reading of the pinned tokenizer.json, and f32 vectors of the same
//! network stored in `tests/data/minilm-f32-reference.json`, which
//! `scripts/minilm-reference.sh` recomputes with numpy and Hugging Face's
//! `tokenizers` (pinned wheels) and checks or rewrites (`--write`).
use std::path::PathBuf;

use ask_embed::{Embedder, MINILM_L6, QUERY_TOKENS, SECTION_TOKENS};

#[path = "../../../tests/support/model.rs"]
mod support_model;

/// The model's folder (tests/support/model.rs), or `None` to skip.
use support_model::model_dir as model;

fn corpora() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora")
}

/// Every .mdx file's text under `dir`.
fn texts(dir: &std::path::Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            texts(&p, out);
        } else if p.extension().is_some_and(|e| e == "mdx" || e == "md")
            && let Ok(t) = std::fs::read_to_string(&p)
        {
            out.push(t);
        }
    }
}

#[test]
fn the_tokenizer_gives_the_pinned_tokenizer_json_ids() {
    let Some(dir) = model("the_tokenizer_gives_the_pinned_tokenizer_json_ids") else {
        return;
    };
    let e = Embedder::load(&dir).unwrap();
    let mut reference = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    // The file pads to 128; the model reads only the real tokens.
    reference.with_padding(None);
    let mut docs = Vec::new();
    texts(&corpora(), &mut docs);
    assert!(docs.len() > 1000, "the corpora are at ../shared/corpora");
    // Paragraphs of every page (a page whole is mostly past 96 tokens),
    // and strings made to catch each rule.
    let mut cases: Vec<String> = docs
        .iter()
        .flat_map(|d| d.split("\n\n").map(str::to_string).collect::<Vec<_>>())
        .filter(|p| !p.trim().is_empty())
        .collect();
    cases.extend(
        [
            "Café naïve RÉSUMÉ ﬁle ß ΣΑΣ İstanbul",
            "什么是 flow run 的超时？",
            "tabs\tand\r\nnewlines\u{0}nul \u{fffd} \u{200b}zero-width \u{00ad}soft",
            "[CLS] odd [SEP] tokens [MASK][UNK][PAD]in text [SEPARATE]",
            "emoji 🚀 ‘quotes’ «guillemets» — dashes … and 1,000.5%",
            &"a".repeat(101),
            &"supercalifragilistic".repeat(5),
            "",
            "   ",
        ]
        .map(str::to_string),
    );
    let mut differ = 0;
    for text in &cases {
        let want = reference.encode(text.as_str(), true).unwrap();
        let want = want.get_ids();
        for max in [QUERY_TOKENS, SECTION_TOKENS] {
            let mut w: Vec<u32> = want.to_vec();
            if w.len() > max {
                let sep = *w.last().unwrap();
                w.truncate(max - 1);
                w.push(sep);
            }
            if e.tokens(text, max) != w {
                differ += 1;
                if differ < 5 {
                    eprintln!("{text:?} ({max}):\n  {:?}\n  {w:?}", e.tokens(text, max));
                }
            }
        }
    }
    assert_eq!(differ, 0, "of {} texts", cases.len());
    eprintln!("{} texts tokenized alike", cases.len());
}

#[test]
fn vectors_are_within_rounding_of_the_f32_network() {
    let Some(dir) = model("vectors_are_within_rounding_of_the_f32_network") else {
        return;
    };
    let e = Embedder::load(&dir).unwrap();
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/minilm-f32-reference.json");
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(cases.len(), 24);
    let mut worst = 1f32;
    for c in &cases {
        let text = c["text"].as_str().unwrap();
        let max = c["max_tokens"].as_u64().unwrap() as usize;
        let want: Vec<f32> = c["vector"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let got = e.embed_one(text, max).unwrap();
        let cos: f32 = got.iter().zip(&want).map(|(a, b)| a * b).sum();
        worst = worst.min(cos);
        assert!(cos > 0.99, "{text:?}: cosine {cos} with the f32 network");
    }
    eprintln!("worst cosine with the f32 network: {worst:.4}");
}

#[test]
fn the_packed_model_is_the_pinned_file_and_gives_the_same_vectors() {
    let Some(dir) = model("the_packed_model_is_the_pinned_file_and_gives_the_same_vectors") else {
        return;
    };
    let e = Embedder::load(&dir).unwrap();
    let bytes = e.packed();
    assert_eq!(
        ask_embed::sha256_hex(&bytes),
        MINILM_L6.packed.sha256,
        "the int8 form changed: pin the new sha256 and change MINILM_L6.id, so caches and indexes of the old vectors are not mixed with the new"
    );
    let p = Embedder::from_packed(&bytes).unwrap();
    for q in ["dark mode toggle", "how do I retry a failed task"] {
        assert_eq!(e.embed_one(q, 64).unwrap(), p.embed_one(q, 64).unwrap());
    }
    // A folder with the packed file loads it, checked.
    let tmp = std::env::temp_dir().join(format!("ask-embed-pack-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join(MINILM_L6.packed.name), &bytes).unwrap();
    let from_dir = Embedder::load(&tmp).unwrap();
    assert_eq!(
        from_dir.embed_one("dark mode toggle", 64).unwrap(),
        e.embed_one("dark mode toggle", 64).unwrap()
    );
    // Any other bytes under that name fail the check, naming both digests.
    let mut other = bytes.clone();
    other[100] ^= 1;
    std::fs::write(tmp.join(MINILM_L6.packed.name), &other).unwrap();
    let err = Embedder::load(&tmp).unwrap_err().to_string();
    assert!(
        err.contains(MINILM_L6.packed.sha256) && err.contains("minilm-l6-q8.bin"),
        "{err}"
    );
    // A cut file is an error, not a panic, even unchecked.
    for len in [0, 7, 8, 1000, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            Embedder::from_packed(&bytes[..len]).is_err(),
            "cut at {len}"
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
