//! The index shared by `build-index` and the `ask` Lambda.
//!
//! - [`analyzer`]: which terms a text contains (build and query time alike);
//! - [`index`]: pages, sections, postings, BM25 scoring, building;
//! - [`format`]: the versioned, checksummed file layout;
//! - [`blocks`]: the sections' text, compressed in blocks;
//! - [`compact`]: postings in few bytes;
//! - [`boost`]: per-path page weights a docs team sets;
//! - [`synonyms`]: a docs team's synonym groups;
//! - [`typo`]: correcting the question's words against the docs' words;
//! - [`vectors`]: the sections' sentence vectors, searched exactly;
//! - [`llms`]: the `llms.txt` of the indexed docs;
//! - [`markdown`]: a section's stored Markdown, its plain text and blocks.
//!
//! Pure code: no I/O, no clock, no environment.
#![deny(missing_docs)]

pub mod analyzer;
pub mod arrays;
pub mod blocks;
pub mod boost;
pub mod build;
pub mod compact;
pub mod format;
mod hash;
pub mod index;
pub mod llms;
pub mod markdown;
pub mod search;
pub mod synonyms;
mod topk;
pub mod typo;
pub mod vectors;

pub use analyzer::{ANALYZER_ID, Analyzer};
pub use build::build;
pub use bytes::Bytes;
pub use format::{FORMAT_VERSION, MAGIC, OLDEST_READABLE, decode, decode_bytes, encode, read_meta};
pub use index::{
    B, BuildMeta, BuildOptions, Hit, Index, K1, Page, PageInput, Section, SectionInput, Weights,
};

/// What can go wrong building or reading an index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes do not start with the index magic.
    #[error(
        "not an nlweb-ask index (bad magic bytes); build one with `build-index --out PATH` and point ASK_INDEX at it"
    )]
    BadMagic,
    /// Written by another format version.
    #[error(
        "index format version {found}, this build reads versions {} to {expected}; rebuild it with this release's `build-index` (`build-index --corpus DOCS --out PATH`, or `--upload s3://BUCKET/KEY`) and deploy the new file",
        format::OLDEST_READABLE
    )]
    Version {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// Shorter than its header says.
    #[error(
        "index is truncated: {actual} bytes of {expected}; re-run `build-index` (or the upload) and check the copy"
    )]
    Truncated {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Longer than its header says.
    #[error(
        "index has {actual} bytes, its header says {expected}; re-run `build-index` (or the upload)"
    )]
    TrailingBytes {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Checksum mismatch: the bytes changed after they were written.
    #[error(
        "index checksum mismatch (stored {expected:08x}, computed {actual:08x}): the file is corrupted; re-run `build-index`"
    )]
    Checksum {
        /// Stored CRC-32.
        expected: u32,
        /// Computed CRC-32.
        actual: u32,
    },
    /// Built with another analyzer.
    #[error(
        "index was built with analyzer {found:?}, this build uses {:?}; rebuild it with this release's `build-index`",
        ANALYZER_ID
    )]
    Analyzer {
        /// Analyzer id in the file.
        found: String,
    },
    /// bincode could not decode it.
    #[error("index payload does not decode ({0}); rebuild it with `build-index`")]
    Decode(String),
    /// bincode could not encode it.
    #[error("index does not encode: {0}")]
    Encode(String),
    /// Decoded, but inconsistent.
    #[error("index is inconsistent ({0}); rebuild it with `build-index`")]
    Invalid(String),
    /// Past a 32-bit limit of the format.
    #[error("corpus too large for the index format: {0}")]
    TooLarge(&'static str),
    /// The build time is not a date the format can write.
    #[error("build time {0} (Unix seconds) is past the year 9999; check SOURCE_DATE_EPOCH")]
    BuiltAt(u64),
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
