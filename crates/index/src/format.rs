//! How an index is laid out in a file, and how a file is checked and read.
//!
//! ```text
//! offset  size  field
//! 0       8     magic  b"NLWASKIX"
//! 8       4     format version (u32 LE)
//! 12      4     header length H (u32 LE)
//! 16      8     payload length P (u64 LE)
//! 24      4     CRC-32 (IEEE) of header and payload (u32 LE)
//! 28      4     reserved, zero
//! 32      H     header: BuildMeta, bincode 2 (serde, standard config)
//! 32+H    P     payload: the flat arrays, bincode 2 (serde, standard config)
//! ```
//!
//! Magic, version, lengths and checksum are read before any decoding, so a
//! wrong, truncated or corrupted file is refused with a message that says
//! what to run. A change to anything the payload holds is a version bump:
//! `tests/data/index-v6.idx` is opened by a test to make that conscious
//! (version 3 added the sections' sentence vectors; version 4 compressed
//! the sections' text in blocks, the section ids to varint gaps and the
//! impacts to a byte, and derives each term's idf from its postings;
//! version 5 stores each section's text as Markdown, in the same payload
//! layout, and the docs team's settings in the header; version 6 adds
//! the docs' sites after the payload's other arrays: their names and each
//! page's bits, both empty when there are no sites. Versions 4 and 5 still
//! read, with no sites; version 4 with no settings).

use crate::analyzer::ANALYZER_ID;
use crate::error::{Error, Result};
use crate::index::{BuildMeta, Index, IndexData};

/// First bytes of every index file.
pub const MAGIC: &[u8; 8] = b"NLWASKIX";
/// Format version written by this build.
pub const FORMAT_VERSION: u32 = 6;
/// The oldest version this build reads. Versions 4 and 5 have the same
/// layout but for the sites; version 4's section texts are plain text,
/// which reads as Markdown with no marks ([`crate::markdown`]).
pub const OLDEST_READABLE: u32 = 4;
/// Size of the fixed prefix before the header.
pub const PREFIX_LEN: usize = 32;

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// Serialises an index into the file layout above.
pub fn encode(index: &Index) -> Result<Vec<u8>> {
    let header = bincode::serde::encode_to_vec(&index.meta, config())
        .map_err(|e| Error::Encode(e.to_string()))?;
    let header_len =
        u32::try_from(header.len()).map_err(|_| Error::TooLarge("header over 4 GiB"))?;
    // The payload is encoded in place after the prefix and header (one
    // copy fewer of what can be tens of MB); its length and the CRC are
    // written into the prefix afterwards.
    // Sized once for the whole file: growing by doubling would hold up to
    // three times the file at once, the index beside it.
    let mut out = Vec::with_capacity(PREFIX_LEN + header.len() + index.data.encoded_len_bound());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&header_len.to_le_bytes());
    out.extend_from_slice(&[0u8; 8]); // payload length
    out.extend_from_slice(&[0u8; 4]); // CRC-32
    out.extend_from_slice(&[0u8; 4]);
    debug_assert_eq!(out.len(), PREFIX_LEN);
    out.extend_from_slice(&header);
    let payload_start = out.len();
    bincode::serde::encode_into_std_write(&index.data, &mut out, config())
        .map_err(|e| Error::Encode(e.to_string()))?;
    let payload_len = (out.len() - payload_start) as u64;
    debug_assert!(
        out.len() - payload_start <= index.data.encoded_len_bound(),
        "the bound is short: the buffer grew"
    );
    let crc = crc32fast::hash(&out[PREFIX_LEN..]);
    out[16..24].copy_from_slice(&payload_len.to_le_bytes());
    out[24..28].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

struct Layout {
    header: std::ops::Range<usize>,
    payload: std::ops::Range<usize>,
    crc: u32,
}

fn layout(bytes: &[u8]) -> Result<(Layout, u32)> {
    if bytes.len() < PREFIX_LEN {
        if bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] != MAGIC {
            return Err(Error::BadMagic);
        }
        return Err(Error::Truncated {
            expected: PREFIX_LEN as u64,
            actual: bytes.len() as u64,
        });
    }
    if &bytes[..8] != MAGIC {
        return Err(Error::BadMagic);
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    let version = u32_at(8);
    if !(OLDEST_READABLE..=FORMAT_VERSION).contains(&version) {
        return Err(Error::Version {
            found: version,
            oldest: OLDEST_READABLE,
            expected: FORMAT_VERSION,
        });
    }
    let header_len = u32_at(12) as u64;
    let payload_len = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let expected = (PREFIX_LEN as u64)
        .checked_add(header_len)
        .and_then(|v| v.checked_add(payload_len))
        .ok_or(Error::Invalid("lengths overflow".into()))?;
    if (bytes.len() as u64) < expected {
        return Err(Error::Truncated {
            expected,
            actual: bytes.len() as u64,
        });
    }
    if (bytes.len() as u64) > expected {
        return Err(Error::TrailingBytes {
            expected,
            actual: bytes.len() as u64,
        });
    }
    let h_end = PREFIX_LEN + header_len as usize;
    Ok((
        Layout {
            header: PREFIX_LEN..h_end,
            payload: h_end..expected as usize,
            crc: u32_at(24),
        },
        version,
    ))
}

/// The header of format 4: [`BuildMeta`] without its settings.
#[derive(serde::Deserialize)]
struct MetaV4 {
    build_id: String,
    built_at: String,
    corpus_fingerprint: String,
    docs_base_url: String,
    source: String,
    analyzer: String,
    k1: f32,
    b: f32,
    weights: crate::index::Weights,
    pages: u32,
    sections: u32,
    terms: u32,
    postings: u64,
}

fn decode_meta(version: u32, bytes: &[u8]) -> Result<BuildMeta> {
    let decoded = if version == 4 {
        bincode::serde::decode_from_slice::<MetaV4, _>(bytes, config()).map(|(m, used)| {
            let meta = BuildMeta {
                build_id: m.build_id,
                built_at: m.built_at,
                corpus_fingerprint: m.corpus_fingerprint,
                docs_base_url: m.docs_base_url,
                source: m.source,
                analyzer: m.analyzer,
                k1: m.k1,
                b: m.b,
                weights: m.weights,
                pages: m.pages,
                sections: m.sections,
                terms: m.terms,
                postings: m.postings,
                settings: String::new(),
            };
            (meta, used)
        })
    } else {
        bincode::serde::decode_from_slice(bytes, config())
    };
    let (meta, used): (BuildMeta, usize) = decoded.map_err(|e| Error::Decode(e.to_string()))?;
    if used != bytes.len() {
        return Err(Error::Invalid("header has trailing bytes".into()));
    }
    Ok(meta)
}

/// Reads only the header (build metadata) after checking magic, version,
/// length and checksum.
pub fn read_meta(bytes: &[u8]) -> Result<BuildMeta> {
    let (l, version) = layout(bytes)?;
    check_crc(bytes, &l, l.crc)?;
    decode_meta(version, &bytes[l.header])
}

fn check_crc(bytes: &[u8], l: &Layout, expected: u32) -> Result<()> {
    let actual = crc32fast::hash(&bytes[l.header.start..l.payload.end]);
    if actual != expected {
        return Err(Error::Checksum { expected, actual });
    }
    Ok(())
}

/// Checks and decodes a whole index file (copying it: see
/// [`decode_bytes`] to share the bytes instead).
pub fn decode(bytes: &[u8]) -> Result<Index> {
    decode_bytes(bytes::Bytes::copy_from_slice(bytes))
}

/// The payload as laid out in the file, borrowed from it: the field order
/// of [`IndexData`] (its text blocks' three fields in line, its
/// `term_ids_end` not in the file), whose arrays are encoded as bytes.
#[derive(serde::Deserialize)]
struct Borrowed<'a> {
    strings: &'a [u8],
    page_spans: &'a [u8],
    section_page: &'a [u8],
    section_level: &'a [u8],
    section_spans: &'a [u8],
    text_raw_end: &'a [u8],
    text_packed_end: &'a [u8],
    text_packed: &'a [u8],
    terms: &'a [u8],
    term_postings_end: &'a [u8],
    postings_ids: &'a [u8],
    postings_impact: &'a [u8],
    page_boost: &'a [u8],
    page_reference: &'a [u8],
    words: &'a [u8],
    vector_model: &'a str,
    vector_scales: &'a [u8],
    vector_codes: &'a [u8],
}

/// What follows [`Borrowed`] in a version 6 payload: the sites.
#[derive(serde::Deserialize)]
struct BorrowedSites<'a> {
    #[serde(borrow)]
    names: Vec<&'a str>,
    bits: &'a [u8],
}

/// Checks and decodes a whole index file whose bytes the index then
/// shares: its labels, text blocks, postings and vectors are slices of
/// `bytes`, not copies (one copy less of the file in memory, and no page
/// faults to make one); the deflated dictionaries and ascending offsets
/// are inflated, and each term's end in the section ids is found.
pub fn decode_bytes(bytes: bytes::Bytes) -> Result<Index> {
    use crate::arrays::{Blob, F32s, Text, U32s};
    use crate::compact::{Ascending, Dictionary, LazyDictionary};
    let (l, version) = layout(&bytes)?;
    check_crc(&bytes, &l, l.crc)?;
    let meta = decode_meta(version, &bytes[l.header.clone()])?;
    let payload = &bytes[l.payload.clone()];
    let share = |s: &[u8]| bytes.slice_ref(s);
    let (b, mut used): (Borrowed, usize) =
        bincode::serde::borrow_decode_from_slice(payload, config())
            .map_err(|e| Error::Decode(e.to_string()))?;
    let mut sites = crate::sites::PageSites::default();
    if version >= 6 {
        let (s, n): (BorrowedSites, usize) =
            bincode::serde::borrow_decode_from_slice(&payload[used..], config())
                .map_err(|e| Error::Decode(e.to_string()))?;
        used += n;
        sites.names = s.names.iter().map(|n| n.to_string()).collect();
        sites.bits = U32s::shared(share(s.bits));
    }
    if used != l.payload.len() {
        return Err(Error::Invalid("payload has trailing bytes".into()));
    }
    // Every term has a posting: no more terms than impacts.
    let term_postings_end = Ascending::unpack(
        b.term_postings_end,
        "term postings",
        b.postings_impact.len(),
    )?;
    let n_terms = term_postings_end.len();
    let mut data = IndexData {
        strings: Text::shared(share(b.strings))
            .ok_or_else(|| Error::Invalid("stored text is not UTF-8".into()))?,
        page_spans: U32s::shared(share(b.page_spans)),
        section_page: Ascending::unpack(b.section_page, "section pages", b.section_level.len())?,
        section_level: b.section_level.to_vec(),
        section_spans: U32s::shared(share(b.section_spans)),
        text: crate::blocks::Blocks {
            raw_end: U32s::shared(share(b.text_raw_end)),
            packed_end: U32s::shared(share(b.text_packed_end)),
            packed: Blob::Shared(share(b.text_packed)),
        },
        terms: Dictionary::unpack(b.terms, "terms", n_terms)?,
        term_postings_end,
        term_ids_end: U32s::new(),
        postings_ids: Blob::Shared(share(b.postings_ids)),
        postings_impact: Blob::Shared(share(b.postings_impact)),
        page_boost: F32s::shared(share(b.page_boost)),
        page_reference: b.page_reference.to_vec(),
        words: LazyDictionary::packed(Blob::Shared(share(b.words))),
        vectors: crate::vectors::Vectors {
            model: b.vector_model.to_string(),
            scales: F32s::shared(share(b.vector_scales)),
            codes: crate::arrays::Blob::Shared(share(b.vector_codes)),
        },
        sites,
    };
    data.term_ids_end = crate::compact::ids_ends(&data.postings_ids, &data.term_postings_end)
        .ok_or_else(|| Error::Invalid("postings length".into()))?;
    data.validate(&meta)?;
    Ok(Index::new(meta, data))
}

impl IndexData {
    /// At least the payload's encoded length: each array's bytes and a
    /// length prefix, the deflated dictionaries counted as their text and
    /// lengths (deflate adds at most 5 bytes a 64 KiB block).
    fn encoded_len_bound(&self) -> usize {
        let dictionary = |text: usize, n: usize| text + 5 * (n + 1) + text / 1024 + 64;
        let arrays = [
            self.strings.len(),
            self.page_spans.byte_len(),
            5 * (self.section_page.len() + 1) + 64,
            self.section_level.len(),
            self.section_spans.byte_len(),
            self.text.raw_end.byte_len(),
            self.text.packed_end.byte_len(),
            self.text.packed.len(),
            dictionary(self.terms.text_len(), self.terms.len()),
            5 * (self.term_postings_end.len() + 1) + 64,
            self.postings_ids.len(),
            self.postings_impact.len(),
            self.page_boost.byte_len(),
            self.page_reference.len(),
            self.words.packed_len(),
            self.vectors.model.len(),
            self.vectors.scales.byte_len(),
            self.vectors.codes.len(),
            self.sites.names.iter().map(|n| n.len() + 10).sum(),
            self.sites.bits.byte_len(),
        ];
        arrays.iter().map(|n| n + 10).sum()
    }
}

/// The checks a decoded payload passes before any accessor reads it.
impl IndexData {
    /// Checks every invariant the accessors rely on, so that a decoded index
    /// that passed this never panics on access.
    pub(crate) fn validate(&self, meta: &BuildMeta) -> Result<()> {
        let bad = |what: &str| Err(Error::Invalid(what.to_string()));
        for (ok, what) in [
            (self.page_spans.is_well_formed(), "page spans"),
            (self.section_page.is_well_formed(), "section pages"),
            (self.section_spans.is_well_formed(), "section spans"),
            (self.term_postings_end.is_well_formed(), "term postings"),
            (self.term_ids_end.is_well_formed(), "term ids"),
        ] {
            if !ok {
                return bad(what);
            }
        }
        if !self.page_spans.len().is_multiple_of(8) {
            return bad("page spans count");
        }
        let n_pages = self.page_spans.len() / 8;
        let n_sections = self.section_page.len();
        if self.section_level.len() != n_sections || self.section_spans.len() != n_sections * 6 {
            return bad("section arrays disagree in length");
        }
        self.text.validate()?;
        let in_strings = |a: usize, b: usize| a <= b && b <= self.strings.len();
        let pages_ok = (0..self.page_spans.len() / 2).all(|i| {
            in_strings(
                self.page_spans.get(2 * i) as usize,
                self.page_spans.get(2 * i + 1) as usize,
            )
        });
        // A section's heading and anchor are in the strings, its text in
        // one block of the text stream.
        let sections_ok = (0..self.section_spans.len() / 2).all(|i| {
            let (a, b) = (
                self.section_spans.get(2 * i) as usize,
                self.section_spans.get(2 * i + 1) as usize,
            );
            if i % 3 == 2 {
                self.text.span_is_whole(a, b)
            } else {
                in_strings(a, b)
            }
        });
        if !pages_ok || !sections_ok {
            return bad("a text span is out of range");
        }
        if self.section_page.iter().any(|p| p as usize >= n_pages) {
            return bad("a section points past the last page");
        }
        let n_terms = self.terms.len();
        if self.term_ids_end.len() != n_terms || self.term_postings_end.len() != n_terms {
            return bad("term arrays disagree in length");
        }
        // The dictionaries were checked when they were inflated.
        if !self.page_boost.is_well_formed()
            || self.page_boost.len() != n_pages
            || self.page_reference.len() != n_pages
        {
            return bad("page weights disagree with the pages");
        }
        if self.page_boost.iter().any(|b| !b.is_finite() || b < 0.0) {
            return bad("a page weight is not a number >= 0");
        }
        let sites = &self.sites;
        if !sites.bits.is_well_formed()
            || sites.names.len() > crate::sites::MAX_SITES
            || sites.bits.len() != if sites.names.is_empty() { 0 } else { n_pages }
        {
            return bad("page sites disagree with the pages");
        }
        if !self.vectors.is_valid(n_sections) {
            return bad("sentence vectors disagree with the sections");
        }
        let n_postings = self.postings_impact.len();
        let (mut prev, mut prev_bytes) = (0usize, 0usize);
        for (e, b) in self.term_postings_end.iter().zip(self.term_ids_end.iter()) {
            let (e, b) = (e as usize, b as usize);
            if e <= prev || e > n_postings || b < prev_bytes || b > self.postings_ids.len() {
                return bad("postings offsets");
            }
            (prev, prev_bytes) = (e, b);
        }
        if prev != n_postings || prev_bytes != self.postings_ids.len() {
            return bad("postings length");
        }
        if self.postings_impact.contains(&0) {
            return bad("an impact of zero");
        }
        if meta.pages as usize != n_pages
            || meta.sections as usize != n_sections
            || meta.terms as usize != n_terms
            || meta.postings != n_postings as u64
        {
            return bad("header counts disagree with the payload");
        }
        if meta.analyzer != ANALYZER_ID {
            return Err(Error::Analyzer {
                found: meta.analyzer.clone(),
            });
        }
        Ok(())
    }
}
