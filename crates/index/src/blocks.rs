//! The sections' text, compressed in blocks (format version 4).
//!
//! Section texts are concatenated, in stored order, into one *text stream*;
//! the stream is cut at section boundaries into blocks of about
//! [`BLOCK_BYTES`], and each block is compressed on its own with deflate
//! (`miniz_oxide`, pure Rust: the codec `benches/experiments/benchmarks-codecs.md` chose by
//! measurement). A section's text is a span of the stream that never
//! crosses a block's end, so reading it decompresses one block. The last
//! [`CACHE_BLOCKS`] blocks read are kept decompressed, shared by the
//! threads that read them.

use std::sync::{Arc, Mutex};

use crate::arrays::{Blob, U32s};
use crate::error::{Error, Result};

/// A block is closed when the next text would take it past this many bytes
/// (a longer text is a block of its own).
pub const BLOCK_BYTES: usize = 16 * 1024;
/// How many decompressed blocks are kept: this many times [`BLOCK_BYTES`]
/// of memory, more when a section's text alone is longer than a block
/// (and a [`TextRef`] still held keeps its block alive past eviction).
pub const CACHE_BLOCKS: usize = 32;
/// deflate's level when building (6: level 9 saved under 2 % more).
const LEVEL: u8 = 6;

/// The compressed blocks of the text stream.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Blocks {
    /// Per block: its end offset in the text stream (uncompressed).
    pub raw_end: U32s,
    /// Per block: its end offset in `packed`.
    pub packed_end: U32s,
    /// The blocks, raw deflate, one after another.
    pub packed: Blob,
}

/// A span of the stored text: a slice of a decompressed block, kept alive
/// as long as the span is. Dereferences to `str`.
#[derive(Clone, Default)]
pub struct TextRef {
    block: Option<Arc<str>>,
    start: usize,
    end: usize,
}

impl std::ops::Deref for TextRef {
    type Target = str;
    fn deref(&self) -> &str {
        self.block
            .as_deref()
            .and_then(|b| b.get(self.start..self.end))
            .unwrap_or("")
    }
}

impl PartialEq for TextRef {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for TextRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl Blocks {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.raw_end.len()
    }

    /// True when there is no text.
    pub fn is_empty(&self) -> bool {
        self.raw_end.is_empty()
    }

    /// Length of the text stream.
    pub fn raw_len(&self) -> usize {
        if self.raw_end.is_empty() {
            0
        } else {
            self.raw_end.get(self.raw_end.len() - 1) as usize
        }
    }

    fn raw_range(&self, block: usize) -> std::ops::Range<usize> {
        let start = if block == 0 {
            0
        } else {
            self.raw_end.get(block - 1) as usize
        };
        start..self.raw_end.get(block) as usize
    }

    fn packed_range(&self, block: usize) -> std::ops::Range<usize> {
        let start = if block == 0 {
            0
        } else {
            self.packed_end.get(block - 1) as usize
        };
        start..self.packed_end.get(block) as usize
    }

    /// The block holding stream offset `at` (the first block whose end is
    /// past it).
    fn block_of(&self, at: usize) -> usize {
        let (mut lo, mut hi) = (0, self.raw_end.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (self.raw_end.get(mid) as usize) <= at {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Block `block`, decompressed and checked; `None` when its bytes do
    /// not inflate to UTF-8 of the stated length (a corrupted file that
    /// kept a valid checksum).
    fn inflate(&self, block: usize) -> Option<Arc<str>> {
        let raw = self.raw_range(block);
        let packed = &self.packed[self.packed_range(block)];
        let bytes = crate::compact::inflate_exact(packed, raw.len())?;
        String::from_utf8(bytes).ok().map(Arc::from)
    }

    /// Checks the block tables (not the blocks' bytes, which are checked
    /// when read): ends ascending, within the packed bytes.
    pub(crate) fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::Invalid(what.to_string()));
        if !self.raw_end.is_well_formed() || !self.packed_end.is_well_formed() {
            return bad("text block ends");
        }
        if self.raw_end.len() != self.packed_end.len() {
            return bad("text block tables disagree in length");
        }
        let (mut raw, mut packed) = (0u32, 0u32);
        for (r, p) in self.raw_end.iter().zip(self.packed_end.iter()) {
            if r <= raw || p < packed {
                return bad("text block ends are not ascending");
            }
            if !crate::compact::deflate_may_hold((p - packed) as usize, (r - raw) as usize) {
                return bad("a text block claims more than deflate holds");
            }
            (raw, packed) = (r, p);
        }
        if packed as usize != self.packed.len() {
            return bad("text blocks length");
        }
        Ok(())
    }

    /// Whether the span `a..b` of the stream lies within one block.
    pub(crate) fn span_is_whole(&self, a: usize, b: usize) -> bool {
        if a == b {
            return b <= self.raw_len();
        }
        if a > b || b > self.raw_len() {
            return false;
        }
        let block = self.block_of(a);
        b <= self.raw_range(block).end
    }
}

/// The decompressed blocks read last, most recent first.
#[derive(Default)]
pub(crate) struct Cache(Mutex<Vec<(u32, Arc<str>)>>);

/// A clone starts with an empty cache.
impl Clone for Cache {
    fn clone(&self) -> Self {
        Cache::default()
    }
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |c| c.len());
        write!(f, "Cache({n} blocks)")
    }
}

impl Cache {
    /// The text at `a..b` of the stream (empty when unreadable).
    pub(crate) fn text(&self, blocks: &Blocks, a: usize, b: usize) -> TextRef {
        if a >= b {
            return TextRef::default();
        }
        let block = blocks.block_of(a);
        if block >= blocks.len() {
            return TextRef::default();
        }
        let base = blocks.raw_range(block).start;
        let Some(text) = self.block(blocks, block) else {
            return TextRef::default();
        };
        TextRef {
            block: Some(text),
            start: a - base,
            end: b - base,
        }
    }

    fn block(&self, blocks: &Blocks, block: usize) -> Option<Arc<str>> {
        let id = block as u32;
        {
            let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = cache.iter().position(|(b, _)| *b == id) {
                let hit = cache.remove(i);
                let text = hit.1.clone();
                cache.insert(0, hit);
                return Some(text);
            }
        }
        // Inflated outside the lock: another thread may do the same block
        // at once, and both get the same text.
        let text = blocks.inflate(block)?;
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !cache.iter().any(|(b, _)| *b == id) {
            cache.insert(0, (id, text.clone()));
            cache.truncate(CACHE_BLOCKS);
        }
        Some(text)
    }

    /// Number of blocks held.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.0.lock().map_or(0, |c| c.len())
    }
}

/// Builds the blocks from texts pushed in stored order.
#[derive(Default)]
pub(crate) struct Writer {
    blocks: Blocks,
    /// The open block's text.
    open: String,
    /// Closed blocks not yet compressed.
    pending: Vec<String>,
    /// Length of the stream so far.
    len: u64,
}

/// Closed blocks are compressed (on every core) this many at a time, so
/// that little raw text is held at once.
const BATCH: usize = 64;

impl Writer {
    /// Appends `text` to the stream; returns its span.
    pub(crate) fn push(&mut self, text: &str) -> Result<[u32; 2]> {
        if text.is_empty() {
            let at = self.offset(self.len)?;
            return Ok([at, at]);
        }
        if !self.open.is_empty() && self.open.len() + text.len() > BLOCK_BYTES {
            self.close()?;
        }
        let start = self.offset(self.len)?;
        self.open.push_str(text);
        self.len += text.len() as u64;
        Ok([start, self.offset(self.len)?])
    }

    fn offset(&self, v: u64) -> Result<u32> {
        u32::try_from(v).map_err(|_| Error::TooLarge("section text over 4 GiB"))
    }

    fn close(&mut self) -> Result<()> {
        if self.open.is_empty() {
            return Ok(());
        }
        let end = self.offset(self.len)?;
        self.blocks.raw_end.push(end);
        self.pending.push(std::mem::take(&mut self.open));
        if self.pending.len() >= BATCH {
            self.compress()?;
        }
        Ok(())
    }

    fn compress(&mut self) -> Result<()> {
        use rayon::prelude::*;
        let packed: Vec<Vec<u8>> = self
            .pending
            .par_iter()
            .map(|t| miniz_oxide::deflate::compress_to_vec(t.as_bytes(), LEVEL))
            .collect();
        self.pending.clear();
        let out = self.blocks.packed.vec_mut();
        for p in packed {
            out.extend_from_slice(&p);
            let end = u32::try_from(out.len())
                .map_err(|_| Error::TooLarge("compressed text over 4 GiB"))?;
            self.blocks.packed_end.push(end);
        }
        Ok(())
    }

    /// The blocks, the last one closed.
    pub(crate) fn finish(mut self) -> Result<Blocks> {
        self.close()?;
        self.compress()?;
        Ok(self.blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_back_through_the_cache() {
        let mut w = Writer::default();
        let texts: Vec<String> = (0..400)
            .map(|i| format!("section {i} é ").repeat(1 + i % 300))
            .collect();
        let spans: Vec<[u32; 2]> = texts.iter().map(|t| w.push(t).unwrap()).collect();
        let blocks = w.finish().unwrap();
        blocks.validate().unwrap();
        assert!(blocks.len() > CACHE_BLOCKS, "{}", blocks.len());
        assert!(blocks.packed.len() * 4 < blocks.raw_len());
        let cache = Cache::default();
        for (t, [a, b]) in texts.iter().zip(&spans) {
            assert!(blocks.span_is_whole(*a as usize, *b as usize));
            assert_eq!(&*cache.text(&blocks, *a as usize, *b as usize), t);
        }
        assert_eq!(cache.held(), CACHE_BLOCKS);
        // Out of range or corrupted: empty, never a panic.
        assert_eq!(&*cache.text(&blocks, usize::MAX - 1, usize::MAX), "");
        let mut bad = blocks.clone();
        bad.packed.vec_mut()[3] ^= 0x55;
        let cold = Cache::default();
        for [a, b] in &spans[..3] {
            let _ = cold.text(&bad, *a as usize, *b as usize).len();
        }
    }
}
