//! What is in an index, how it is built from pages, and which sections best
//! match a query (BM25).
//!
//! The unit of retrieval is a *section*: the part of a page under one heading
//! (plus the page's intro before its first heading). A section's terms are its
//! page title, its heading and its text, weighted per [`Weights`] (a simple
//! BM25F: weighted term frequencies and a weighted length).
//!
//! Everything is stored in a few flat arrays: one string blob for the
//! labels, spans into it, the section texts in deflated blocks
//! ([`crate::blocks`]), and postings as varint gaps of section ids beside
//! precomputed BM25 term-frequency factors ("impacts") of a byte each
//! ([`crate::compact`]). A query then costs one varint read and one
//! multiply-add per posting of each query term.

use serde::{Deserialize, Serialize};

use crate::analyzer::Analyzer;
use crate::arrays::{F32s, U32s};
use crate::error::{Error, Result};
pub use crate::hash::fnv1a64;
use crate::hash::{hash_table, lookup};
use crate::score::accumulate;
pub use crate::topk::Hit;
use crate::topk::{Scratch, TopK, best_first, top_dense};

/// BM25 term-frequency saturation.
pub const K1: f32 = 1.2;
/// BM25 length normalisation.
pub const B: f32 = 0.75;

/// How much a term counts in each field of a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weights {
    /// The page title (repeated in each of its sections).
    pub title: u32,
    /// The section heading.
    pub heading: u32,
    /// The section text.
    pub body: u32,
}

impl Weights {
    /// For documentation pages: the page title weighs most, then the
    /// heading, then body text (chosen on the golden sets: 5/2/1 raised
    /// every set over 2/2/1; see BENCHMARKS.md).
    pub const DOCS: Weights = Weights {
        title: 5,
        heading: 2,
        body: 1,
    };
    /// For flat corpora (BEIR JSONL): title and text as one field.
    pub const FLAT: Weights = Weights {
        title: 1,
        heading: 1,
        body: 1,
    };
}

/// One page handed to [`build`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageInput {
    /// Path relative to the corpus root (`guides/setup.mdx`), or a JSONL `_id`.
    pub path: String,
    /// Route under the docs base URL (`/guides/setup`), or a full URL.
    pub route: String,
    /// Page title.
    pub title: String,
    /// Page description (frontmatter), shown as a fallback snippet.
    pub description: String,
    /// The page's sections in reading order.
    pub sections: Vec<SectionInput>,
    /// The docs team's weight for the page (frontmatter `search.boost`);
    /// `None` weighs 1.
    pub boost: Option<f32>,
    /// A generated reference page (API, CLI, settings): weighed down for
    /// question-like queries ([`crate::search`]).
    pub reference: bool,
    /// The page's sites, bit `i` for [`BuildOptions::sites`]' site `i`
    /// ([`crate::sites::SiteRules::bits`]); 0 when there are none.
    pub sites: u32,
}

/// One heading section of a page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SectionInput {
    /// Heading text; for the intro, the page title.
    pub heading: String,
    /// URL fragment without `#`; empty for the intro.
    pub anchor: String,
    /// Heading level 1–6; 0 for the intro.
    pub level: u8,
    /// The section's body as the Markdown of [`crate::markdown`] (plain
    /// text is Markdown too); analysed as its [`crate::markdown::plain`]
    /// text.
    pub text: String,
}

/// Facts about a build, stored in the index header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildMeta {
    /// Unique id of this build (hex).
    pub build_id: String,
    /// When it was built, RFC 3339 UTC.
    pub built_at: String,
    /// Fingerprint of the corpus files (hex); equal corpora give equal values.
    pub corpus_fingerprint: String,
    /// Base URL that routes are joined to.
    pub docs_base_url: String,
    /// `mdx` or `jsonl`.
    pub source: String,
    /// Analyzer id; the query side must match it.
    pub analyzer: String,
    /// BM25 k1 used for the impacts.
    pub k1: f32,
    /// BM25 b used for the impacts.
    pub b: f32,
    /// Field weights used.
    pub weights: Weights,
    /// Number of pages.
    pub pages: u32,
    /// Number of sections.
    pub sections: u32,
    /// Number of distinct terms.
    pub terms: u32,
    /// Number of postings.
    pub postings: u64,
    /// The docs team's settings: the `ask:` keys its settings file set, as
    /// a JSON object (empty: none; format 4 files have none).
    pub settings: String,
}

/// What [`build`] needs besides the pages.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Base URL of the docs site.
    pub docs_base_url: String,
    /// Field weights.
    pub weights: Weights,
    /// `mdx` or `jsonl`.
    pub source: String,
    /// Fingerprint of the inputs.
    pub corpus_fingerprint: String,
    /// Build time, seconds since the Unix epoch (injected: no clock here).
    pub built_at_unix: u64,
    /// The docs team's settings (the `ask:` keys its settings file set,
    /// as a JSON object; empty: none), carried to the Lambda.
    pub settings: String,
    /// The names of the docs' sites (`ask.sites`), in bit order; empty:
    /// none, and the pages' bits are not stored.
    pub sites: Vec<String>,
}

/// A built, searchable index.
#[derive(Clone, Debug)]
pub struct Index {
    /// Build metadata (the header).
    pub meta: BuildMeta,
    pub(crate) data: IndexData,
    /// What typo lookups derive from the vocabulary.
    pub(crate) word_lookup: std::sync::OnceLock<crate::words::WordLookup>,
    /// Term ids by a hash of the term (open addressing, id + 1, 0 empty),
    /// derived on the first lookup, not at load.
    term_table: std::sync::OnceLock<Vec<u32>>,
    /// The same for the typo vocabulary's words.
    word_table: std::sync::OnceLock<Vec<u32>>,
    /// The text blocks read last, decompressed.
    text_cache: crate::blocks::Cache,
    /// Skips into the long postings lists, made per term on its first
    /// [`Index::section_has_term`].
    skips: crate::compact::Skips,
    /// Per section: its page's sites, made on the first restricted search.
    section_sites: std::sync::OnceLock<Vec<u32>>,
}

/// The payload: flat arrays only (decoded by `format::decode_bytes`,
/// field by field, mostly as slices of the file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct IndexData {
    /// The short stored text (paths, routes, titles, descriptions,
    /// headings, anchors), concatenated. Encoded exactly like a `String`,
    /// checked to be UTF-8 once when decoded, so a span read per answer
    /// only checks its ends.
    pub strings: crate::arrays::Text,
    /// Per page: path, route, title, description spans in `strings` (8
    /// values a page).
    pub page_spans: U32s,
    /// Per section: its page (ascending: deflated gaps in the file).
    pub section_page: crate::compact::Ascending,
    /// Per section: heading level.
    #[serde(with = "serde_bytes")]
    pub section_level: Vec<u8>,
    /// Per section: heading and anchor spans in `strings`, then its text's
    /// span in the text stream of `text` (6 values a section).
    pub section_spans: U32s,
    /// The sections' text, compressed in blocks.
    pub text: crate::blocks::Blocks,
    /// Sorted distinct terms (deflated in the file).
    pub terms: crate::compact::Dictionary,
    /// Per term: end of its postings, counted in postings (the start is
    /// the previous end; their number is the term's document frequency;
    /// deflated gaps in the file).
    pub term_postings_end: crate::compact::Ascending,
    /// Per term: end of its section ids in `postings_ids`, in bytes. Not
    /// in the file: found when it is decoded ([`crate::compact::ids_ends`]).
    #[serde(skip)]
    pub term_ids_end: U32s,
    /// Postings: each term's section ids, ascending, as varint gaps
    /// ([`crate::compact`]).
    pub postings_ids: crate::arrays::Blob,
    /// Postings: BM25 term-frequency factor, a byte each
    /// ([`quantize`]).
    pub postings_impact: crate::arrays::Blob,
    /// Per page: its weight (frontmatter `search.boost`, else 1).
    pub page_boost: F32s,
    /// Per page: 1 for a generated reference page, else 0.
    #[serde(with = "serde_bytes")]
    pub page_reference: Vec<u8>,
    /// The docs' words for typo correction (see [`crate::typo`]), sorted by
    /// length then text (deflated in the file).
    pub words: crate::compact::LazyDictionary,
    /// Per section: its sentence vector, quantised (none when built
    /// without a model).
    pub vectors: crate::vectors::Vectors,
    /// The sites' names and each page's sites (empty: no sites; not in
    /// format 4 and 5 files).
    pub sites: crate::sites::PageSites,
}

/// A page, borrowed from the index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Page<'a> {
    /// Path relative to the corpus root, or JSONL `_id`.
    pub path: &'a str,
    /// Route (or URL for JSONL corpora).
    pub route: &'a str,
    /// Title.
    pub title: &'a str,
    /// Description.
    pub description: &'a str,
}

/// A section, borrowed from the index (its text from a decompressed block).
#[derive(Clone, Debug, PartialEq)]
pub struct Section<'a> {
    /// Index of its page.
    pub page: u32,
    /// Heading text.
    pub heading: &'a str,
    /// Anchor (no `#`), empty for a page intro.
    pub anchor: &'a str,
    /// Heading level (0 = intro).
    pub level: u8,
    /// Its body, as Markdown ([`crate::markdown`]).
    pub text: crate::blocks::TextRef,
}

impl Section<'_> {
    /// Its body's plain text ([`crate::markdown::plain`]): what was
    /// analysed, and what an answer's item shows.
    pub fn plain(&self) -> String {
        crate::markdown::plain(&self.text)
    }
}

/// Lucene's BM25 idf: never negative.
pub fn idf(n_docs: u32, doc_freq: u32) -> f32 {
    let n = n_docs as f32;
    let df = doc_freq as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// BM25's term-frequency factor for a weighted frequency and length.
pub fn impact(tf: f32, doc_len: f32, avg_len: f32) -> f32 {
    let norm = if avg_len > 0.0 {
        1.0 - B + B * doc_len / avg_len
    } else {
        1.0
    };
    tf * (K1 + 1.0) / (tf + K1 * norm)
}

/// The value of one step of a stored impact. The factor lies in
/// `[0, K1 + 1)`, so a byte in these steps keeps it to within half a step
/// (0.0043): a relative error under 1 % for the factors that decide a
/// ranking. A factor under half a step (a section some 500 times the
/// average length) is stored as one step, so that a posting always adds to
/// its section's score.
pub const IMPACT_STEP: f32 = (K1 + 1.0) / 255.0;

/// An impact as stored: the nearest step, at least 1.
pub fn quantize(impact: f32) -> u8 {
    (impact / IMPACT_STEP).round().clamp(1.0, 255.0) as u8
}

/// The impact a stored byte stands for.
pub fn dequantize(q: u8) -> f32 {
    f32::from(q) * IMPACT_STEP
}

/// Equal when the header and payload are: derived state does not count.
impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        self.meta == other.meta && self.data == other.data
    }
}

impl Index {
    pub(crate) fn new(meta: BuildMeta, data: IndexData) -> Index {
        Index {
            meta,
            data,
            word_lookup: std::sync::OnceLock::new(),
            term_table: std::sync::OnceLock::new(),
            word_table: std::sync::OnceLock::new(),
            text_cache: crate::blocks::Cache::default(),
            skips: crate::compact::Skips::default(),
            section_sites: std::sync::OnceLock::new(),
        }
    }

    /// The names of the docs' sites, in bit order (empty: none).
    pub fn site_names(&self) -> &[String] {
        &self.data.sites.names
    }

    /// Page `i`'s sites (bit `j`: [`Index::site_names`]' site `j`); 0 when
    /// the docs have no sites.
    pub fn page_sites(&self, i: u32) -> u32 {
        let bits = &self.data.sites.bits;
        if bits.is_empty() {
            0
        } else {
            bits.get(i as usize)
        }
    }

    /// Per section: its page's sites.
    pub fn section_sites(&self) -> &[u32] {
        self.section_sites.get_or_init(|| {
            (0..self.section_count() as u32)
                .map(|s| self.page_sites(self.section_page(s)))
                .collect()
        })
    }

    /// Each site's page and section counts, in bit order.
    pub fn site_counts(&self) -> Vec<(u32, u32)> {
        let n = self.site_names().len();
        if n == 0 {
            // No sites: nothing to count, and no per-section bits to make.
            return Vec::new();
        }
        let mut counts = vec![(0u32, 0u32); n];
        for p in 0..self.page_count() as u32 {
            let bits = self.page_sites(p);
            for (i, c) in counts.iter_mut().enumerate() {
                c.0 += u32::from(bits & (1 << i) != 0);
            }
        }
        for &bits in self.section_sites() {
            for (i, c) in counts.iter_mut().enumerate() {
                c.1 += u32::from(bits & (1 << i) != 0);
            }
        }
        counts
    }

    /// The sections' sentence vectors (empty when built without a model).
    pub fn vectors(&self) -> &crate::vectors::Vectors {
        &self.data.vectors
    }

    /// This index with `vectors` for its sections (one per section, in
    /// section order, or none).
    pub fn with_vectors(mut self, vectors: crate::vectors::Vectors) -> Result<Index> {
        if !vectors.is_valid(self.section_count()) {
            return Err(Error::Invalid(format!(
                "{} vectors for {} sections",
                vectors.len(),
                self.section_count()
            )));
        }
        // The build id names the contents: the same corpus with vectors is
        // another index.
        let id = fnv1a64(
            vectors.model.as_bytes(),
            fnv1a64(self.meta.build_id.as_bytes(), 0),
        );
        self.meta.build_id = format!("{id:016x}");
        self.data.vectors = vectors;
        Ok(self)
    }

    /// Number of pages.
    pub fn page_count(&self) -> usize {
        self.data.page_spans.len() / 8
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.data.section_page.len()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.data.terms.len()
    }

    /// Page `i`'s weight (frontmatter `search.boost`, else 1).
    pub fn page_boost(&self, i: u32) -> f32 {
        self.data.page_boost.get(i as usize)
    }

    /// Whether page `i` is a generated reference page.
    pub fn page_is_reference(&self, i: u32) -> bool {
        self.data.page_reference[i as usize] != 0
    }

    /// The page of section `i`; panics if out of range.
    pub fn section_page(&self, i: u32) -> u32 {
        self.data.section_page.get(i as usize)
    }

    /// Page `i`; panics if out of range.
    pub fn page(&self, i: u32) -> Page<'_> {
        let d = &self.data;
        let f = |k: usize| d.span(&d.page_spans, i as usize * 4 + k);
        Page {
            path: f(0),
            route: f(1),
            title: f(2),
            description: f(3),
        }
    }

    /// Page `i`'s path and route, without reading its other fields.
    pub fn page_path_route(&self, i: u32) -> (&str, &str) {
        let d = &self.data;
        let f = |k: usize| d.span(&d.page_spans, i as usize * 4 + k);
        (f(0), f(1))
    }

    /// Section `i`'s heading and anchor, without reading its text (which
    /// may inflate a block); panics if out of range.
    pub fn section_heading_anchor(&self, i: u32) -> (&str, &str) {
        let d = &self.data;
        let f = |k: usize| d.span(&d.section_spans, i as usize * 3 + k);
        (f(0), f(1))
    }

    /// Section `i`, its text decompressed (or taken from the cache of
    /// blocks read last); panics if out of range.
    pub fn section(&self, i: u32) -> Section<'_> {
        let d = &self.data;
        let f = |k: usize| d.span(&d.section_spans, i as usize * 3 + k);
        Section {
            page: d.section_page.get(i as usize),
            heading: f(0),
            anchor: f(1),
            level: d.section_level[i as usize],
            text: self.section_text(i),
        }
    }

    /// Section `i`'s text; panics if out of range.
    pub fn section_text(&self, i: u32) -> crate::blocks::TextRef {
        let d = &self.data;
        let k = i as usize * 6 + 4;
        let (a, b) = (
            d.section_spans.get(k) as usize,
            d.section_spans.get(k + 1) as usize,
        );
        self.text_cache.text(&d.text, a, b)
    }

    /// The term's id, from a hash table of the sorted terms (built on the
    /// first lookup).
    pub fn term_id(&self, term: &str) -> Option<u32> {
        let d = &self.data;
        let table = self
            .term_table
            .get_or_init(|| hash_table(d.terms.len(), |i| d.term(i).as_bytes()));
        lookup(table, term.as_bytes(), |i| d.term(i).as_bytes()).map(|i| i as u32)
    }

    /// The index of `w` in the typo vocabulary, from a hash table built on
    /// the first lookup.
    pub(crate) fn word_index(&self, w: &[u8]) -> Option<usize> {
        let d = &self.data;
        let table = self
            .word_table
            .get_or_init(|| hash_table(d.words.get().len(), |i| d.word(i).as_bytes()));
        lookup(table, w, |i| d.word(i).as_bytes())
    }

    /// Whether `section` contains `term` (in its text, heading or page
    /// title): a binary search of the skips into the term's section ids
    /// (which ascend), then at most [`crate::compact::SKIP`] of them read
    /// (the first lookup in a long list reads it once to make its skips).
    pub fn section_has_term(&self, term: &str, section: u32) -> bool {
        let Some(id) = self.term_id(term) else {
            return false;
        };
        let d = &self.data;
        let (bytes, count) = (d.ids_of(id as usize), d.postings_of(id as usize).len());
        self.skips.contains(id, bytes, count, section)
    }

    /// Whether a section of the sites in `mask` has `term`: its section
    /// ids read until one is in them.
    pub fn term_in_sites(&self, term: &str, mask: u32) -> bool {
        let Some(id) = self.term_id(term) else {
            return false;
        };
        let sites = self.section_sites();
        let bytes = self.data.ids_of(id as usize);
        let (mut pos, mut s) = (0usize, 0u32);
        while pos < bytes.len() {
            s = s.wrapping_add(crate::compact::read_varint(bytes, &mut pos));
            if sites.get(s as usize).is_some_and(|b| b & mask != 0) {
                return true;
            }
        }
        false
    }

    /// The idf of a term, if indexed.
    pub fn idf(&self, term: &str) -> Option<f32> {
        self.term_id(term).map(|id| self.data.term_idf(id as usize))
    }

    /// The `k` best sections for `query`, best first (ties: lower id first).
    pub fn search(&self, analyzer: &Analyzer, query: &str, k: usize) -> Vec<Hit> {
        let terms: Vec<(String, f32)> = analyzer
            .analyze(query)
            .into_iter()
            .map(|t| (t, 1.0))
            .collect();
        self.search_terms(&terms, k)
    }

    /// The `k` best sections for already analyzed terms, each with a query
    /// weight (1.0 for the question itself; less for context terms).
    pub fn search_terms(&self, terms: &[(String, f32)], k: usize) -> Vec<Hit> {
        self.search_terms_in(terms, k, None)
    }

    /// [`Index::search_terms`] over the sections of the sites in `scope`
    /// alone ([`crate::sites::Scope`]): the others score nothing.
    pub fn search_terms_in(
        &self,
        terms: &[(String, f32)],
        k: usize,
        scope: crate::sites::Scope,
    ) -> Vec<Hit> {
        let d = &self.data;
        let admitted = scope.map(|mask| (self.section_sites(), mask));
        if k == 0 || terms.is_empty() {
            return Vec::new();
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch {
                scores,
                touched,
                dense: dense_buffers,
            } = &mut *scratch;
            if scores.len() < d.section_page.len() {
                scores.resize(d.section_page.len(), 0.0);
            }
            touched.clear();
            let n = d.section_page.len();
            // Resolve terms and postings ranges first.
            let lists: Vec<(f32, usize, usize, usize)> = terms
                .iter()
                .filter_map(|(term, weight)| {
                    let id = self.term_id(term)? as usize;
                    let postings = d.postings_of(id);
                    // The impacts are stored in steps: one multiply per
                    // posting, as with the exact factor.
                    let w = d.term_idf(id) * weight * IMPACT_STEP;
                    Some((w, id, postings.start, postings.end))
                })
                .collect();
            let total: usize = lists.iter().map(|(_, _, a, b)| b - a).sum();
            // Many postings: accumulate without bookkeeping and scan every
            // section. Few: remember which sections were touched.
            let dense = total * 4 >= n;
            let scores = &mut scores[..n];
            for &(w, id, start, end) in &lists {
                let (bytes, imps) = (d.ids_of(id), &d.postings_impact[start..end]);
                if dense {
                    accumulate::<true>(bytes, imps, w, scores, touched);
                } else {
                    accumulate::<false>(bytes, imps, w, scores, touched);
                }
            }
            // Scores go back to zero for the next query.
            if dense {
                if let Some((sites, mask)) = admitted {
                    // A select, not a branch: the loop vectorises.
                    for (score, bits) in scores.iter_mut().zip(sites) {
                        *score = if bits & mask != 0 { *score } else { 0.0 };
                    }
                }
                return top_dense(scores, dense_buffers, k);
            }
            // Few sections touched: a min-heap whose root is the current
            // k-th best; most sections fail that one comparison.
            let mut top = TopK::new(k);
            for &s in touched.iter() {
                let score = std::mem::take(&mut scores[s as usize]);
                if admitted.is_none_or(|(sites, mask)| sites[s as usize] & mask != 0) {
                    top.consider(s, score);
                }
            }
            let mut top: Vec<Hit> = top.heap.into_iter().map(|w| w.0).collect();
            top.sort_unstable_by(best_first);
            top
        })
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl IndexData {
    fn span<'a>(&'a self, spans: &U32s, i: usize) -> &'a str {
        let (a, b) = (spans.get(2 * i) as usize, spans.get(2 * i + 1) as usize);
        // Spans are in bounds (validated at load); one that cuts a
        // character can only come from a corrupted file that kept a valid
        // checksum.
        self.strings.get(a..b).unwrap_or("")
    }

    /// Where term `id`'s postings are in the postings arrays.
    pub(crate) fn postings_of(&self, id: usize) -> std::ops::Range<usize> {
        let start = if id == 0 {
            0
        } else {
            self.term_postings_end.get(id - 1) as usize
        };
        start..self.term_postings_end.get(id) as usize
    }

    /// Term `id`'s section ids, as varint gaps.
    pub(crate) fn ids_of(&self, id: usize) -> &[u8] {
        let start = if id == 0 {
            0
        } else {
            self.term_ids_end.get(id - 1) as usize
        };
        &self.postings_ids[start..self.term_ids_end.get(id) as usize]
    }

    /// Term `id`'s idf, from its document frequency.
    pub(crate) fn term_idf(&self, id: usize) -> f32 {
        idf(
            self.section_page.len() as u32,
            self.postings_of(id).len() as u32,
        )
    }

    /// Word `i` of the typo vocabulary.
    pub(crate) fn word(&self, i: usize) -> &str {
        self.words.get().get(i)
    }

    fn term(&self, i: usize) -> &str {
        self.terms.get(i)
    }
}

#[cfg(test)]
pub(crate) mod tests;
