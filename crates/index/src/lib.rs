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
//! - [`sites`]: which of the docs' sites each page belongs to;
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
mod error;
pub mod format;
mod hash;
pub mod index;
pub mod llms;
pub mod markdown;
pub mod pages;
mod score;
pub mod search;
pub mod sites;
pub mod synonyms;
mod topk;
pub mod typo;
pub mod vectors;
mod words;

pub use analyzer::{ANALYZER_ID, Analyzer};
pub use build::build;
pub use bytes::Bytes;
pub use error::{Error, Result};
pub use format::{FORMAT_VERSION, MAGIC, OLDEST_READABLE, decode, decode_bytes, encode, read_meta};
pub use index::{
    B, BuildMeta, BuildOptions, Hit, Index, K1, Page, PageInput, Section, SectionInput, Weights,
};
