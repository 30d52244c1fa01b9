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
//! `tests/data/index-v3.idx` is opened by a test to make that conscious
//! (version 3 added the sections' sentence vectors).

use crate::analyzer::ANALYZER_ID;
use crate::arrays::U32s;
use crate::index::{BuildMeta, Index, IndexData};
use crate::{Error, Result};

/// First bytes of every index file.
pub const MAGIC: &[u8; 8] = b"NLWASKIX";
/// Format version written by this build; the only one it reads.
pub const FORMAT_VERSION: u32 = 3;
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
    let mut out = Vec::with_capacity(PREFIX_LEN + header.len());
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
    let crc = crc32fast::hash(&out[PREFIX_LEN..]);
    out[16..24].copy_from_slice(&payload_len.to_le_bytes());
    out[24..28].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

struct Layout {
    header: std::ops::Range<usize>,
    payload: std::ops::Range<usize>,
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
    if version != FORMAT_VERSION {
        return Err(Error::Version {
            found: version,
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
        },
        u32_at(24),
    ))
}

fn decode_meta(bytes: &[u8]) -> Result<BuildMeta> {
    let (meta, used): (BuildMeta, usize) = bincode::serde::decode_from_slice(bytes, config())
        .map_err(|e| Error::Decode(e.to_string()))?;
    if used != bytes.len() {
        return Err(Error::Invalid("header has trailing bytes".into()));
    }
    Ok(meta)
}

/// Reads only the header (build metadata) after checking magic, version,
/// length and checksum.
pub fn read_meta(bytes: &[u8]) -> Result<BuildMeta> {
    let (l, crc) = layout(bytes)?;
    check_crc(bytes, &l, crc)?;
    decode_meta(&bytes[l.header])
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
/// of [`IndexData`], whose byte arrays are encoded as bytes.
#[derive(serde::Deserialize)]
struct Borrowed<'a> {
    strings: &'a [u8],
    page_spans: &'a [u8],
    section_page: &'a [u8],
    section_level: &'a [u8],
    section_spans: &'a [u8],
    term_text: &'a str,
    term_end: &'a [u8],
    term_idf: &'a [u8],
    term_postings_end: &'a [u8],
    postings_section: &'a [u8],
    postings_impact: &'a [u8],
    page_boost: &'a [u8],
    page_reference: &'a [u8],
    words: &'a str,
    word_end: &'a [u8],
    vector_model: &'a str,
    vector_scales: &'a [u8],
    vector_codes: &'a [u8],
}

/// Checks and decodes a whole index file whose bytes the index then
/// shares: its text and arrays are slices of `bytes`, not copies (one copy
/// less of the file in memory, and no page faults to make one).
pub fn decode_bytes(bytes: bytes::Bytes) -> Result<Index> {
    use crate::arrays::{F32s, Text, U32s};
    let (l, crc) = layout(&bytes)?;
    check_crc(&bytes, &l, crc)?;
    let meta = decode_meta(&bytes[l.header.clone()])?;
    let payload = &bytes[l.payload.clone()];
    let (b, used): (Borrowed, usize) = bincode::serde::borrow_decode_from_slice(payload, config())
        .map_err(|e| Error::Decode(e.to_string()))?;
    if used != l.payload.len() {
        return Err(Error::Invalid("payload has trailing bytes".into()));
    }
    let share = |s: &[u8]| bytes.slice_ref(s);
    let data = IndexData {
        strings: Text::shared(share(b.strings))
            .ok_or_else(|| Error::Invalid("stored text is not UTF-8".into()))?,
        page_spans: U32s::shared(share(b.page_spans)),
        section_page: U32s::shared(share(b.section_page)),
        section_level: b.section_level.to_vec(),
        section_spans: U32s::shared(share(b.section_spans)),
        term_text: b.term_text.to_string(),
        term_end: U32s::shared(share(b.term_end)),
        term_idf: F32s::shared(share(b.term_idf)),
        term_postings_end: U32s::shared(share(b.term_postings_end)),
        postings_section: U32s::shared(share(b.postings_section)),
        postings_impact: F32s::shared(share(b.postings_impact)),
        page_boost: F32s::shared(share(b.page_boost)),
        page_reference: b.page_reference.to_vec(),
        words: b.words.to_string(),
        word_end: U32s::shared(share(b.word_end)),
        vectors: crate::vectors::Vectors {
            model: b.vector_model.to_string(),
            scales: F32s::shared(share(b.vector_scales)),
            codes: crate::arrays::Blob::Shared(share(b.vector_codes)),
        },
    };
    data.validate(&meta)?;
    Ok(Index::new(meta, data))
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
            (self.term_end.is_well_formed(), "term ends"),
            (self.term_idf.is_well_formed(), "term idf"),
            (self.term_postings_end.is_well_formed(), "term postings"),
            (self.postings_section.is_well_formed(), "postings"),
            (self.postings_impact.is_well_formed(), "impacts"),
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
        let check_spans = |spans: &U32s| -> bool {
            (0..spans.len() / 2).all(|i| {
                let (a, b) = (spans.get(2 * i) as usize, spans.get(2 * i + 1) as usize);
                a <= b && b <= self.strings.len()
            })
        };
        if !check_spans(&self.page_spans) || !check_spans(&self.section_spans) {
            return bad("a text span is out of range");
        }
        if self.section_page.iter().any(|p| p as usize >= n_pages) {
            return bad("a section points past the last page");
        }
        let n_terms = self.term_end.len();
        if self.term_idf.len() != n_terms || self.term_postings_end.len() != n_terms {
            return bad("term arrays disagree in length");
        }
        let mut prev = 0usize;
        for i in 0..n_terms {
            let e = self.term_end.get(i) as usize;
            if e < prev || self.term_text.get(prev..e).is_none() {
                return bad("term text offsets");
            }
            prev = e;
        }
        if prev != self.term_text.len() {
            return bad("term text length");
        }
        if !self.page_boost.is_well_formed()
            || self.page_boost.len() != n_pages
            || self.page_reference.len() != n_pages
        {
            return bad("page weights disagree with the pages");
        }
        if self.page_boost.iter().any(|b| !b.is_finite() || b < 0.0) {
            return bad("a page weight is not a number >= 0");
        }
        if !self.vectors.is_valid(n_sections) {
            return bad("sentence vectors disagree with the sections");
        }
        if !self.word_end.is_well_formed() {
            return bad("word ends");
        }
        let mut prev = 0usize;
        for e in self.word_end.iter() {
            let e = e as usize;
            if e < prev || self.words.get(prev..e).is_none() {
                return bad("word offsets");
            }
            prev = e;
        }
        if prev != self.words.len() {
            return bad("words length");
        }
        let n_postings = self.postings_section.len();
        if self.postings_impact.len() != n_postings {
            return bad("postings arrays disagree in length");
        }
        let mut prev = 0usize;
        for e in self.term_postings_end.iter() {
            let e = e as usize;
            if e < prev || e > n_postings {
                return bad("postings offsets");
            }
            prev = e;
        }
        if prev != n_postings {
            return bad("postings length");
        }
        // A max over all ids vectorises; an early-exit search would not.
        let max_section = self.postings_section.iter().fold(0u32, u32::max);
        if n_postings > 0 && max_section as usize >= n_sections {
            return bad("a posting points past the last section");
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
