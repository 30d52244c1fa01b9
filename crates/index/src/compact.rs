//! Postings in few bytes (format version 4): a term's section ids as
//! LEB128 varints of the gaps between them (the first gap is the first id),
//! beside each posting's BM25 term-frequency factor in a byte (`quantize`
//! in the `index` module); and the deflated dictionaries and offsets.

use crate::arrays::U32s;
use crate::error::{Error, Result};

/// Appends `v` as a LEB128 varint.
pub(crate) fn push_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes of `v` as a varint.
pub(crate) fn varint_len(v: u32) -> usize {
    match v {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// Writes `v` as a varint at `*pos` of `out` (sized by [`varint_len`]).
pub(crate) fn write_varint(out: &mut [u8], pos: &mut usize, mut v: u32) {
    while v >= 0x80 {
        out[*pos] = (v as u8) | 0x80;
        *pos += 1;
        v >>= 7;
    }
    out[*pos] = v as u8;
    *pos += 1;
}

/// Reads a varint at `*pos`, which must be within `bytes`. Any bytes read
/// without a panic: a varint cut by the end of `bytes` ends there, bits
/// past 32 are dropped (a file is not checked value by value at load).
#[inline(always)]
pub(crate) fn read_varint(bytes: &[u8], pos: &mut usize) -> u32 {
    let b = bytes[*pos];
    *pos += 1;
    if b < 0x80 {
        return u32::from(b);
    }
    let mut v = u32::from(b & 0x7f);
    let mut shift = 7u32;
    while let Some(&b) = bytes.get(*pos) {
        *pos += 1;
        v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b < 0x80 {
            break;
        }
        shift = shift.saturating_add(7);
    }
    v
}

/// The section ids of one term's gap stream (the tests' reader; the
/// search loop reads the gaps in line).
#[cfg(test)]
pub(crate) struct Ids<'a> {
    bytes: &'a [u8],
    pos: usize,
    id: u32,
}

#[cfg(test)]
impl<'a> Ids<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Ids {
            bytes,
            pos: 0,
            id: 0,
        }
    }
}

#[cfg(test)]
impl Iterator for Ids<'_> {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        self.id = self.id.wrapping_add(read_varint(self.bytes, &mut self.pos));
        Some(self.id)
    }
}

/// Per term, the end in `ids` of its varints, given each term's end
/// counted in postings: each varint ends at a byte under 0x80. `None` when
/// the bytes hold too few.
pub(crate) fn ids_ends(ids: &[u8], postings_end: &U32s) -> Option<U32s> {
    let mut out = U32s::with_capacity(postings_end.len());
    let (mut pos, mut seen) = (0usize, 0usize);
    for e in postings_end.iter() {
        let e = e as usize;
        // Eight bytes at a time while more than eight varints are still to
        // end (a word ends at most eight): its bytes under 0x80 counted.
        while e.saturating_sub(seen) > 8 {
            let Some(w) = ids.get(pos..pos + 8) else {
                break;
            };
            let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            seen += (!x & 0x8080_8080_8080_8080).count_ones() as usize;
            pos += 8;
        }
        while seen < e {
            seen += usize::from(*ids.get(pos)? < 0x80);
            pos += 1;
        }
        out.push(u32::try_from(pos).ok()?);
    }
    Some(out)
}

/// One posting in this many keeps its section id and where the next
/// posting's bytes start, so that finding a section in a term's ids reads
/// at most this many varints ([`Skips`]).
pub(crate) const SKIP: usize = 64;

/// A term's skips: (section id, offset of the next posting's bytes).
type SkipList = std::sync::Arc<[(u32, u32)]>;

/// Skips into the long postings lists: for a term of more than [`SKIP`]
/// postings, every [`SKIP`]-th posting's section id and the offset of the
/// next one in the term's ids. Made for a term the first time a section
/// is looked up in it (one read of its ids), then kept: at most 8 bytes
/// per 64 postings of the terms asked about. Not in the file.
#[derive(Default)]
pub(crate) struct Skips(std::sync::Mutex<std::collections::HashMap<u32, SkipList>>);

/// A clone starts with no skips.
impl Clone for Skips {
    fn clone(&self) -> Self {
        Skips::default()
    }
}

impl std::fmt::Debug for Skips {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |m| m.len());
        write!(f, "Skips({n} terms)")
    }
}

impl Skips {
    /// Whether term `term`, whose ids are `bytes` (`count` of them),
    /// holds `section`: a binary search of its skips, then at most
    /// [`SKIP`] ids read.
    pub(crate) fn contains(&self, term: u32, bytes: &[u8], count: usize, section: u32) -> bool {
        let (mut pos, mut id) = (0usize, 0u32);
        if count > SKIP {
            let skips = self.of(term, bytes);
            let n = skips.partition_point(|&(s, _)| s <= section);
            if n > 0 {
                let (s, after) = skips[n - 1];
                if s == section {
                    return true;
                }
                (pos, id) = (after as usize, s);
            }
        }
        while pos < bytes.len() {
            id = id.wrapping_add(read_varint(bytes, &mut pos));
            if id >= section {
                return id == section;
            }
        }
        false
    }

    fn of(&self, term: u32, bytes: &[u8]) -> SkipList {
        if let Some(s) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&term) {
            return s.clone();
        }
        let mut skips = Vec::new();
        let (mut pos, mut id, mut k) = (0usize, 0u32, 0usize);
        while pos < bytes.len() {
            id = id.wrapping_add(read_varint(bytes, &mut pos));
            if k % SKIP == 0 {
                skips.push((id, pos as u32));
            }
            k += 1;
        }
        let skips: SkipList = skips.into();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(term, skips.clone());
        skips
    }
}

/// Whether `bytes` is exactly `count` varints of ascending ids (gaps of at
/// least 1 after the first), each below `limit`: what the builder writes
/// (the loader does not check it: [`read_varint`] and [`Ids`] read any
/// bytes, and the search ignores ids past the last section).
#[cfg(test)]
pub(crate) fn check(bytes: &[u8], count: usize, limit: u32) -> bool {
    let (mut pos, mut id) = (0, 0u64);
    for k in 0..count {
        let Some(v) = read_checked(bytes, &mut pos) else {
            return false;
        };
        if k > 0 && v == 0 {
            return false;
        }
        id += u64::from(v);
        if id >= u64::from(limit) {
            return false;
        }
    }
    pos == bytes.len()
}

/// Short strings in a fixed order (the sorted terms, the typo
/// vocabulary): in memory concatenated with their end offsets, in the file
/// deflated, as a varint count, each string's length as a varint, then the
/// text, behind the inflated length (u32 LE). Inflated once when the index
/// is decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dictionary {
    text: String,
    end: U32s,
}

impl Dictionary {
    /// Appends `s`.
    pub fn push(&mut self, s: &str) -> Result<()> {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len())
            .map_err(|_| Error::TooLarge("dictionary text over 4 GiB"))?;
        self.end.push(end);
        Ok(())
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.end.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }

    /// String `i`; panics past the end.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.end.get(i - 1) as usize
        };
        &self.text[start..self.end.get(i) as usize]
    }

    /// Bytes of text held.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    fn raw(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity(self.text.len() + self.end.len() + 5);
        push_gaps(&mut raw, &self.end);
        raw.extend_from_slice(self.text.as_bytes());
        raw
    }

    /// The file's form.
    pub(crate) fn packed(&self) -> Vec<u8> {
        deflate_behind_length(&self.raw())
    }

    /// Reads the file's form, of at most `max_count` strings; `what`
    /// names it in errors. The inflated bytes are refused past what
    /// deflate can hold ([`deflate_may_hold`]) before any memory is taken
    /// for them; no tighter ratio is assumed, since one long word that
    /// repeats itself ("limitlimit…") deflates far more than real words.
    pub(crate) fn unpack(bytes: &[u8], what: &str, max_count: usize) -> Result<Dictionary> {
        let bad = || Error::Invalid(format!("{what} do not inflate"));
        let mut raw = inflate_behind_length(bytes, usize::MAX).ok_or_else(bad)?;
        let (end, pos, at) = read_sums(&raw, max_count).ok_or_else(bad)?;
        raw.drain(..pos);
        let text = String::from_utf8(raw).map_err(|_| bad())?;
        if at != text.len() as u64 || end.iter().any(|e| !text.is_char_boundary(e as usize)) {
            return Err(bad());
        }
        Ok(Dictionary { text, end })
    }
}

/// A dictionary inflated on first use, not at load: the typo vocabulary,
/// which only questions with a word the docs lack need. A vocabulary that
/// does not inflate reads as empty (no corrections), since it is checked
/// only then.
#[derive(Clone, Debug, Default)]
pub struct LazyDictionary {
    packed: crate::arrays::Blob,
    inflated: std::sync::OnceLock<Dictionary>,
}

impl LazyDictionary {
    /// A dictionary at hand (a build's), deflated for the file now.
    pub fn new(d: Dictionary) -> Self {
        LazyDictionary {
            packed: crate::arrays::Blob::Owned(d.packed()),
            inflated: std::sync::OnceLock::from(d),
        }
    }

    /// The file's bytes, to inflate when first read.
    pub(crate) fn packed(packed: crate::arrays::Blob) -> Self {
        LazyDictionary {
            packed,
            inflated: std::sync::OnceLock::new(),
        }
    }

    /// The dictionary (inflated now if it was not yet).
    pub fn get(&self) -> &Dictionary {
        self.inflated.get_or_init(|| {
            // Each word takes at least its one gap byte.
            let max = self.packed.len().saturating_mul(1032).saturating_add(64);
            Dictionary::unpack(&self.packed, "typo vocabulary words", max).unwrap_or_default()
        })
    }

    /// Bytes in the file.
    pub fn packed_len(&self) -> usize {
        self.packed.len()
    }
}

/// Equal when the file's bytes are.
impl PartialEq for LazyDictionary {
    fn eq(&self, other: &Self) -> bool {
        self.packed == other.packed
    }
}

impl serde::Serialize for LazyDictionary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.packed)
    }
}

impl serde::Serialize for Dictionary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.packed())
    }
}

/// An ascending array (offsets that only grow, such as each term's end in
/// the postings): in memory a plain [`U32s`], in the file its gaps as
/// varints, deflated, behind the inflated length (u32 LE). Inflated once
/// when the index is decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ascending(pub U32s);

impl std::ops::Deref for Ascending {
    type Target = U32s;
    fn deref(&self) -> &U32s {
        &self.0
    }
}

impl Ascending {
    /// The file's form.
    pub(crate) fn packed(&self) -> Vec<u8> {
        let mut raw = Vec::with_capacity(self.0.len() + 5);
        push_gaps(&mut raw, &self.0);
        deflate_behind_length(&raw)
    }

    /// Reads the file's form, of at most `max_count` values (what the rest
    /// of the file allows: the inflated bytes are refused past 5 a value
    /// before any memory is taken for them); `what` names it in errors.
    pub(crate) fn unpack(bytes: &[u8], what: &str, max_count: usize) -> Result<Ascending> {
        let bad = || Error::Invalid(format!("{what} do not inflate"));
        let cap = max_count.saturating_add(1).saturating_mul(5);
        let raw = inflate_behind_length(bytes, cap).ok_or_else(bad)?;
        let (out, pos, _) = read_sums(&raw, max_count).ok_or_else(bad)?;
        if pos != raw.len() {
            return Err(bad());
        }
        Ok(Ascending(out))
    }
}

impl serde::Serialize for Ascending {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.packed())
    }
}

/// Appends the count of `values`, then the gaps between them (from 0), as
/// varints: what [`read_sums`] reads back. A value below the one before (a
/// builder's bug) wraps, and the reader refuses the array.
fn push_gaps(raw: &mut Vec<u8>, values: &U32s) {
    push_varint(raw, values.len() as u32);
    let mut prev = 0;
    for v in values.iter() {
        push_varint(raw, v.wrapping_sub(prev));
        prev = v;
    }
}

/// What [`push_gaps`] wrote at the start of `raw`, of at most `max_count`
/// values: the values (running sums of the gaps), where they end, and the
/// last; `None` when they do not read.
fn read_sums(raw: &[u8], max_count: usize) -> Option<(U32s, usize, u64)> {
    let mut pos = 0;
    let count = read_checked(raw, &mut pos)? as usize;
    if count > raw.len() || count > max_count {
        return None;
    }
    let mut out = U32s::with_capacity(count);
    let mut at: u64 = 0;
    for _ in 0..count {
        at += u64::from(read_checked(raw, &mut pos)?);
        out.push(u32::try_from(at).ok()?);
    }
    Some((out, pos, at))
}

/// Whether `packed` bytes of deflate may inflate to `raw` bytes: deflate
/// expands at most about 1032 to 1, so a larger claim is not an index's,
/// and is refused before any memory is taken for it.
pub(crate) fn deflate_may_hold(packed: usize, raw: usize) -> bool {
    raw <= packed.saturating_mul(1032).saturating_add(64)
}

/// `raw`'s length (u32 LE), then `raw` deflated.
fn deflate_behind_length(raw: &[u8]) -> Vec<u8> {
    let mut out = (raw.len() as u32).to_le_bytes().to_vec();
    out.extend(miniz_oxide::deflate::compress_to_vec(raw, 6));
    out
}

/// The bytes [`deflate_behind_length`] wrote, if they inflate to the
/// length they claim, which is at most `cap`.
fn inflate_behind_length(bytes: &[u8], cap: usize) -> Option<Vec<u8>> {
    let (len, packed) = bytes.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > cap || !deflate_may_hold(packed.len(), len) {
        return None;
    }
    inflate_exact(packed, len)
}

/// `packed` (raw deflate) inflated, if it holds exactly `len` bytes: into
/// one buffer of that size, not one grown as it fills.
pub(crate) fn inflate_exact(packed: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    let n = miniz_oxide::inflate::decompress_slice_iter_to_slice(
        &mut out,
        std::iter::once(packed),
        false,
        true,
    )
    .ok()?;
    (n == len).then_some(out)
}

/// A varint at `*pos`, if one ends there within 5 bytes and fits a u32.
fn read_checked(raw: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v: u64 = 0;
    for shift in (0..35).step_by(7) {
        let b = *raw.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return u32::try_from(v).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ids_round_trip(mut ids in proptest::collection::vec(0u32..u32::MAX, 0..200)) {
            ids.sort_unstable();
            ids.dedup();
            let mut out = Vec::new();
            let mut prev = 0;
            for &id in &ids {
                push_varint(&mut out, id - prev);
                prev = id;
            }
            prop_assert!(check(&out, ids.len(), u32::MAX));
            let mut written = vec![0u8; ids.iter().scan(0, |p, &id| { let g = id - *p; *p = id; Some(varint_len(g)) }).sum()];
            let (mut pos, mut p) = (0, 0);
            for &id in &ids {
                write_varint(&mut written, &mut pos, id - p);
                p = id;
            }
            prop_assert_eq!(&written, &out);
            prop_assert_eq!(Ids::new(&out).collect::<Vec<_>>(), ids.clone());
            if let Some(&last) = ids.last() {
                prop_assert!(!check(&out, ids.len(), last));
                prop_assert!(!check(&out[..out.len() - 1], ids.len(), u32::MAX));
            }
        }

        #[test]
        fn any_bytes_are_checked_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40), n in 0usize..20) {
            if check(&bytes, n, 1000) {
                prop_assert_eq!(Ids::new(&bytes).count(), n);
            }
        }

        #[test]
        fn dictionaries_round_trip(words in proptest::collection::vec("[a-zé0-9._-]{0,12}", 0..50)) {
            let mut d = Dictionary::default();
            for w in &words {
                d.push(w).unwrap();
            }
            let back = Dictionary::unpack(&d.packed(), "terms", words.len()).unwrap();
            if !words.is_empty() {
                prop_assert!(Dictionary::unpack(&d.packed(), "terms", words.len() - 1).is_err());
            }
            prop_assert_eq!(&back, &d);
            for (i, w) in words.iter().enumerate() {
                prop_assert_eq!(back.get(i), w.as_str());
            }
        }

        #[test]
        fn ascending_arrays_round_trip(mut v in proptest::collection::vec(any::<u32>(), 0..100)) {
            v.sort_unstable();
            let a = Ascending(v.iter().copied().collect());
            let back = Ascending::unpack(&a.packed(), "ends", v.len()).unwrap();
            prop_assert_eq!(back.iter().collect::<Vec<_>>(), v.clone());
            let _ = Ascending::unpack(&a.packed()[1..], "ends", v.len());
            if v.len() > 2 {
                prop_assert!(Ascending::unpack(&a.packed(), "ends", 0).is_err());
            }
        }

        #[test]
        fn a_length_deflate_cannot_hold_is_refused(claim in 1033u32 * 3 + 65..u32::MAX) {
            // Three bytes of deflate claiming more than 1032 times as much.
            let mut bytes = claim.to_le_bytes().to_vec();
            bytes.extend([3, 0, 0]);
            prop_assert!(Dictionary::unpack(&bytes, "terms", usize::MAX).is_err());
            prop_assert!(inflate_behind_length(&bytes, usize::MAX).is_none());
        }

        #[test]
        fn dictionaries_of_long_repeating_words_round_trip(word in "[a-z]{1,6}", repeat in 1usize..2000, n in 1usize..4) {
            // One word that repeats itself deflates hundreds of times over.
            let mut d = Dictionary::default();
            for i in 0..n {
                d.push(&format!("{}{i}", word.repeat(repeat))).unwrap();
            }
            prop_assert_eq!(Dictionary::unpack(&d.packed(), "terms", n).unwrap(), d);
        }

        #[test]
        fn any_dictionary_bytes_are_refused_or_read(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = Dictionary::unpack(&bytes, "terms", 1000);
        }

    }
}
