//! Building an index: each section analysed (in parallel), its text stored
//! once (identical long texts shared), the postings laid out term by term
//! with their BM25 impacts, the hash tables and the typo vocabulary.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::analyzer::{ANALYZER_ID, Analyzer, Interner, WordHash};
use crate::arrays::{F32s, U32s};
use crate::compact::{varint_len, write_varint};
use crate::error::{Error, Result};
use crate::hash::fnv1a64;
use crate::index::{
    B, BuildMeta, BuildOptions, Index, IndexData, K1, PageInput, SectionInput, Weights, impact,
    quantize,
};
use crate::typo::{WordSet, plain_words};

/// Weighted term frequencies and length of one section: the definition the
/// builder uses, exposed so tests can score by brute force.
pub fn section_terms(
    analyzer: &Analyzer,
    weights: Weights,
    page_title: &str,
    section: &SectionInput,
) -> (HashMap<String, u32>, u32) {
    let mut tf = HashMap::new();
    let mut len = 0u32;
    for_each_field(weights, page_title, section, |text, w| {
        if w == 0 {
            return;
        }
        for t in analyzer.analyze(text) {
            *tf.entry(t).or_insert(0) += w;
            len += w;
        }
    });
    (tf, len)
}

/// Calls `f` with each field of a section and its weight: the page title,
/// the heading unless it repeats the title, the text (the plain text of
/// its Markdown).
fn for_each_field(
    weights: Weights,
    page_title: &str,
    section: &SectionInput,
    mut f: impl FnMut(&str, u32),
) {
    f(page_title, weights.title);
    if section.heading != page_title {
        f(&section.heading, weights.heading);
    }
    f(&crate::markdown::plain(&section.text), weights.body);
}

thread_local! {
    /// Per thread, a count for each term id (all zero between sections)
    /// and the ids counted in the current section.
    static COUNTS: std::cell::RefCell<(Vec<u32>, Vec<u32>)> = Default::default();
}

/// [`section_terms`] during a build: term ids in `interner`, counted in an
/// array instead of a map, appended to `ids` and `freqs`; returns the
/// section's weighted length. `new_chunk` gets each chunk of the section that
/// is new to this thread ([`Analyzer::for_each_term_id`]), whatever its
/// field's weight.
fn section_term_ids(
    analyzer: &Analyzer,
    interner: &Interner,
    weights: Weights,
    page_title: &str,
    section: &SectionInput,
    mut new_chunk: impl FnMut(&str),
    (ids, freqs): (&mut Vec<u32>, &mut Vec<u16>),
) -> u32 {
    COUNTS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (counts, counted) = &mut *cell;
        let mut len = 0u32;
        for_each_field(weights, page_title, section, |text, w| {
            analyzer.for_each_term_id(
                interner,
                text,
                |id| {
                    if w == 0 {
                        return;
                    }
                    let i = id as usize;
                    if i >= counts.len() {
                        counts.resize((i + 1).next_power_of_two(), 0);
                    }
                    if counts[i] == 0 {
                        counted.push(id);
                    }
                    counts[i] += w;
                    len += w;
                },
                &mut new_chunk,
            )
        });
        for id in counted.drain(..) {
            ids.push(id);
            // A weighted frequency past 65,535 (a term repeated that often
            // in one section) is kept as 65,535: its stored factor is the
            // same byte either way.
            let f = std::mem::take(&mut counts[id as usize]);
            freqs.push(u16::try_from(f).unwrap_or(u16::MAX));
        }
        len
    })
}

/// The analysis of a run of consecutive sections, done in parallel by
/// [`build`]: their frequencies in one array (a few large allocations, not
/// one a section, so that the memory goes back when they are freed).
#[derive(Default)]
struct Analysed {
    /// Term ids in the build's [`Interner`] of every section in turn.
    ids: Vec<u32>,
    /// Their weighted frequencies.
    freqs: Vec<u16>,
    /// Per section: the end of its terms in `ids` and `freqs`.
    ends: Vec<u32>,
    /// Per section: weighted length.
    lens: Vec<u32>,
    /// Typo-vocabulary words of its chunks that were new to this thread.
    words: Vec<String>,
}

/// Sections analysed together (one allocation of frequencies each).
const ANALYSED_RUN: usize = 2048;

impl Analysed {
    /// Each section's frequencies, in order.
    fn sections(&self) -> impl Iterator<Item = (&[u32], &[u16])> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(a, b)| {
            let r = a as usize..b as usize;
            (&self.ids[r.clone()], &self.freqs[r])
        })
    }
}

/// The short stored text in one string. Strings of 8 bytes or more are stored once however
/// often they occur (a fragment inlined into many pages), and spans share them.
#[derive(Default)]
struct StringBlob {
    s: String,
    /// The span of the first string stored with each hash (one that
    /// shares a hash with another is stored again: rare, and harmless).
    /// No allocation an entry: a build's small allocations stay in its
    /// memory after they are freed.
    seen: HashMap<u64, (usize, usize), std::hash::BuildHasherDefault<WordHash>>,
}

/// A fast hash of a long string ([`WordHash`]).
fn text_hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = WordHash::default();
    h.write(bytes);
    h.finish()
}

/// Section texts at least this long are looked up before being stored
/// again.
const DEDUP_MIN_BYTES: usize = 64;
/// The same for the short strings (a heading that repeats its page's title,
/// a heading many pages share).
const DEDUP_MIN_LABEL_BYTES: usize = 8;

impl StringBlob {
    /// Stores `v` (or finds it stored) and returns its span.
    fn push(&mut self, v: &str) -> Result<[u32; 2]> {
        let long = v.len() >= DEDUP_MIN_LABEL_BYTES;
        let hash = if long { text_hash(v.as_bytes()) } else { 0 };
        let stored = if long {
            self.seen
                .get(&hash)
                .copied()
                .filter(|&(a, b)| &self.s.as_bytes()[a..b] == v.as_bytes())
        } else {
            None
        };
        let (start, end) = match stored {
            Some(span) => span,
            None => {
                let start = self.s.len();
                self.s.push_str(v);
                let end = self.s.len();
                if long {
                    self.seen.entry(hash).or_insert((start, end));
                }
                (start, end)
            }
        };
        let offset =
            |v: usize| u32::try_from(v).map_err(|_| Error::TooLarge("stored text over 4 GiB"));
        Ok([offset(start)?, offset(end)?])
    }
}

/// The stored text of the pages and sections, their per-page and
/// per-section arrays, and the typo vocabulary.
struct Stored {
    blob: StringBlob,
    text: crate::blocks::Blocks,
    page_spans: U32s,
    page_boost: F32s,
    page_reference: Vec<u8>,
    section_page: U32s,
    section_level: Vec<u8>,
    section_spans: U32s,
    vocabulary: WordSet,
}

/// A long section text stored: its page, its section, its span.
type SeenText = (usize, usize, [u32; 2]);

fn store_text(pages: &[PageInput], analysed: &[Analysed]) -> Result<Stored> {
    let mut st = Stored {
        blob: StringBlob::default(),
        text: crate::blocks::Blocks::default(),
        page_spans: U32s::new(),
        page_boost: F32s::new(),
        page_reference: Vec::with_capacity(pages.len()),
        section_page: U32s::new(),
        section_level: Vec::new(),
        section_spans: U32s::new(),
        vocabulary: WordSet::default(),
    };
    // What an answer shows of each hit (page path, route, title; section
    // heading, anchor) is stored first and the descriptions after it, so
    // that the labels of all hits sit together, not one a page between
    // texts: rendering an answer then reads a few cache lines, not one
    // (or a miss) per field. The sections' texts go to compressed blocks.
    let mut page_text = Vec::with_capacity(pages.len() * 4);
    let mut section_text = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        for v in [&page.path, &page.route, &page.title] {
            page_text.push(st.blob.push(v)?);
        }
        page_text.push([0, 0]);
        st.page_boost.push(
            page.boost
                .filter(|b| b.is_finite() && *b >= 0.0)
                .unwrap_or(1.0),
        );
        st.page_reference.push(u8::from(page.reference));
        for section in &page.sections {
            st.section_page.push(p as u32);
            st.section_level.push(section.level);
            for v in [&section.heading, &section.anchor] {
                section_text.push(st.blob.push(v)?);
            }
            section_text.push([0, 0]);
        }
    }
    let mut writer = crate::blocks::Writer::default();
    // A long text met again (a fragment inlined into many pages) is stored
    // once: found by its hash, compared with the section it came from.
    let mut seen: HashMap<u64, SeenText, std::hash::BuildHasherDefault<WordHash>> =
        HashMap::default();
    let mut sections = section_text.chunks_exact_mut(3);
    for (p, (page, spans)) in pages.iter().zip(page_text.chunks_exact_mut(4)).enumerate() {
        spans[3] = st.blob.push(&page.description)?;
        for (s, (section, spans)) in page.sections.iter().zip(&mut sections).enumerate() {
            let text = section.text.as_str();
            if text.len() < DEDUP_MIN_BYTES {
                spans[2] = writer.push(text)?;
                continue;
            }
            let hash = text_hash(text.as_bytes());
            let same = seen
                .get(&hash)
                .filter(|(fp, fs, _)| pages[*fp].sections[*fs].text == text)
                .map(|(_, _, span)| *span);
            spans[2] = match same {
                Some(span) => span,
                None => {
                    let span = writer.push(text)?;
                    seen.entry(hash).or_insert((p, s, span));
                    span
                }
            };
        }
    }
    st.text = writer.finish()?;
    st.page_spans = page_text.into_iter().flatten().collect();
    st.section_spans = section_text.into_iter().flatten().collect();
    for a in analysed {
        st.vocabulary.extend(a.words.iter().cloned());
    }
    Ok(st)
}

/// The sorted terms and their postings.
struct Postings {
    terms: usize,
    terms_text: crate::compact::Dictionary,
    term_postings_end: U32s,
    term_ids_end: U32s,
    postings_ids: Vec<u8>,
    postings_impact: Vec<u8>,
    n_sections: u32,
    n_postings: u64,
}

/// Term ids are positions in byte order of the distinct terms; each term's
/// postings are its sections in ascending order, placed by counting.
/// `interned` is the text of each id of the sections' `tf`.
fn postings(analysed: &mut [Analysed], interned: &[std::sync::Arc<str>]) -> Result<Postings> {
    // Sections per interned term; terms met only in fields of weight 0
    // have none and are left out.
    let mut df: Vec<u64> = vec![0; interned.len()];
    for a in analysed.iter() {
        for &id in &a.ids {
            df[id as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..interned.len() as u32)
        .filter(|&i| df[i as usize] > 0)
        .collect();
    order.par_sort_unstable_by(|&a, &b| interned[a as usize].cmp(&interned[b as usize]));
    let terms: Vec<&str> = order.iter().map(|&i| &*interned[i as usize]).collect();
    let mut new_id = vec![u32::MAX; interned.len()];
    for (n, &i) in order.iter().enumerate() {
        new_id[i as usize] = n as u32;
    }

    let mut ends: Vec<u64> = Vec::with_capacity(terms.len());
    let mut n_postings: u64 = 0;
    for &i in &order {
        n_postings += df[i as usize];
        ends.push(n_postings);
    }
    if n_postings > u32::MAX as u64 {
        return Err(Error::TooLarge("over 4 billion postings"));
    }
    let lengths: Vec<u32> = analysed
        .iter()
        .flat_map(|a| a.lens.iter().copied())
        .collect();
    let n_sections = lengths.len() as u32;
    let avg_len = if lengths.is_empty() {
        0.0
    } else {
        lengths.iter().map(|&l| l as f64).sum::<f64>() as f32 / lengths.len() as f32
    };

    // Two passes over the sections, in order (so each term's ids ascend):
    // the first sizes each term's varint gaps, the second writes them and
    // the impacts in place. No array of ids or frequencies a posting is
    // held on the way (at 50x aws-amplify's sections, hundreds of MB).
    let n_terms = terms.len();
    let mut prev = vec![0u32; n_terms];
    let mut id_bytes = vec![0u64; n_terms];
    let sections = analysed.iter().flat_map(Analysed::sections);
    for (s, (ids, _)) in sections.enumerate() {
        for &id in ids {
            let t = new_id[id as usize] as usize;
            id_bytes[t] += varint_len(s as u32 - prev[t]) as u64;
            prev[t] = s as u32;
        }
    }
    let mut term_ids_end = U32s::new();
    let mut at_id: Vec<usize> = Vec::with_capacity(n_terms);
    let mut total = 0u64;
    for &n in &id_bytes {
        at_id.push(total as usize);
        total += n;
        term_ids_end
            .push(u32::try_from(total).map_err(|_| Error::TooLarge("postings over 4 GiB"))?);
    }
    drop(id_bytes);
    let mut at_impact: Vec<usize> = std::iter::once(0)
        .chain(ends.iter().map(|&e| e as usize))
        .take(n_terms)
        .collect();
    let mut ids = vec![0u8; total as usize];
    let mut impacts = vec![0u8; n_postings as usize];
    prev.fill(0);
    let mut s = 0usize;
    for a in analysed.iter_mut() {
        for (section_ids, freqs) in a.sections() {
            let len = lengths[s] as f32;
            for (&id, &f) in section_ids.iter().zip(freqs) {
                let t = new_id[id as usize] as usize;
                write_varint(&mut ids, &mut at_id[t], s as u32 - prev[t]);
                prev[t] = s as u32;
                impacts[at_impact[t]] = quantize(impact(f as f32, len, avg_len));
                at_impact[t] += 1;
            }
            s += 1;
        }
        // Each run's frequencies are freed once written.
        a.ids = Vec::new();
        a.freqs = Vec::new();
        a.ends = Vec::new();
    }

    let mut dictionary = crate::compact::Dictionary::default();
    for term in &terms {
        dictionary.push(term)?;
    }
    Ok(Postings {
        terms: terms.len(),
        terms_text: dictionary,
        term_postings_end: ends.iter().map(|&e| e as u32).collect(),
        term_ids_end,
        postings_ids: ids,
        postings_impact: impacts,
        n_sections,
        n_postings,
    })
}

/// What the index stores of the pages' sites: nothing when there are no
/// sites (the pages' bits then say nothing).
fn page_sites(pages: &[PageInput], names: &[String]) -> crate::sites::PageSites {
    let mut bits = U32s::new();
    if !names.is_empty() {
        for p in pages {
            bits.push(p.sites);
        }
    }
    crate::sites::PageSites {
        names: names.to_vec(),
        bits,
    }
}

/// Builds an index from pages. Pure: the time and fingerprint come in `opts`.
pub fn build(pages: &[PageInput], opts: &BuildOptions, analyzer: &Analyzer) -> Result<Index> {
    if pages.iter().map(|p| p.sections.len()).sum::<usize>() > u32::MAX as usize {
        return Err(Error::TooLarge("over 4 billion sections"));
    }
    u32::try_from(pages.len()).map_err(|_| Error::TooLarge("over 4 billion pages"))?;

    let interner = Interner::default();
    // Each section's terms and words, analysed on every core (rayon keeps
    // the order). Everything after works from these in corpus order or
    // sorts: the index is the same bytes whatever the number of threads.
    let sections: Vec<(&PageInput, &SectionInput)> = pages
        .iter()
        .flat_map(|page| page.sections.iter().map(move |s| (page, s)))
        .collect();
    let analysed: Vec<Analysed> = sections
        .par_chunks(ANALYSED_RUN)
        .map(|run| {
            let mut a = Analysed::default();
            for (page, section) in run {
                // The typo vocabulary: the words of every distinct chunk (a
                // word never spans whitespace), taken when a thread first
                // analyses the chunk.
                let len = section_term_ids(
                    analyzer,
                    &interner,
                    opts.weights,
                    &page.title,
                    section,
                    |c| a.words.extend(plain_words(c)),
                    (&mut a.ids, &mut a.freqs),
                );
                a.ends.push(a.ids.len() as u32);
                a.lens.push(len);
            }
            a.ids.shrink_to_fit();
            a.freqs.shrink_to_fit();
            a
        })
        .collect();
    drop(sections);
    let interned = interner.into_terms();

    // The postings first, freeing the sections' frequencies as they are
    // written (they are most of a build's memory), then the stored text
    // and the vocabulary (the text blocks deflated on every core).
    let mut analysed = analysed;
    let postings = postings(&mut analysed, &interned)?;
    let stored = store_text(pages, &analysed)?;

    let mut words = crate::compact::Dictionary::default();
    for w in stored.vocabulary.into_sorted(analyzer) {
        words.push(&w)?;
    }

    let data = IndexData {
        strings: crate::arrays::Text::Owned(stored.blob.s),
        page_spans: stored.page_spans,
        section_page: crate::compact::Ascending(stored.section_page),
        section_level: stored.section_level,
        section_spans: stored.section_spans,
        text: stored.text,
        terms: postings.terms_text,
        term_postings_end: crate::compact::Ascending(postings.term_postings_end),
        term_ids_end: postings.term_ids_end,
        postings_ids: crate::arrays::Blob::Owned(postings.postings_ids),
        postings_impact: crate::arrays::Blob::Owned(postings.postings_impact),
        page_boost: stored.page_boost,
        page_reference: stored.page_reference,
        words: crate::compact::LazyDictionary::new(words),
        vectors: crate::vectors::Vectors::default(),
        sites: page_sites(pages, &opts.sites),
    };
    let meta = BuildMeta {
        build_id: build_id(
            &opts.corpus_fingerprint,
            &opts.settings,
            opts.built_at_unix,
            postings.n_postings,
        ),
        built_at: rfc3339(opts.built_at_unix)?,
        corpus_fingerprint: opts.corpus_fingerprint.clone(),
        docs_base_url: opts.docs_base_url.clone(),
        source: opts.source.clone(),
        analyzer: ANALYZER_ID.to_string(),
        k1: K1,
        b: B,
        weights: opts.weights,
        pages: pages.len() as u32,
        sections: postings.n_sections,
        terms: postings.terms as u32,
        postings: postings.n_postings,
        settings: opts.settings.clone(),
    };
    Ok(Index::new(meta, data))
}

/// The build's id: a hash of the corpus, the settings, the time and the
/// postings (settings that change answers change the id, and so every
/// `ETag`).
fn build_id(fingerprint: &str, settings: &str, built_at: u64, postings: u64) -> String {
    let seed = fnv1a64(settings.as_bytes(), built_at ^ postings.rotate_left(32));
    let h = fnv1a64(fingerprint.as_bytes(), seed);
    format!("{h:016x}")
}

/// Formats Unix seconds as RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SSZ`).
pub fn rfc3339(unix: u64) -> Result<String> {
    let secs = i64::try_from(unix).map_err(|_| Error::BuiltAt(unix))?;
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .ok_or(Error::BuiltAt(unix))
}
