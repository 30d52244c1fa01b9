//! Which terms does a piece of text contain?
//!
//! One analyzer runs at build time and at query time, so a query term and an
//! indexed term meet only if they went through the same steps:
//!
//! 1. Identifiers are split into their parts before word analysis: `createMDX`
//!    gives `create` and `MDX`, `next.config.mjs` gives `next`, `config`, `mjs`,
//!    `@takumi-rs/core` gives `takumi`, `rs`, `core`.
//! 2. The parts go through the `bm25` crate's English tokenizer: Unicode
//!    normalisation (deunicode), lower case, Unicode word boundaries, NLTK
//!    English stop words, Snowball stemming.
//! 3. Each identifier is also kept whole, lower-cased and unstemmed
//!    (`createmdx`, `next.config.mjs`, `takumi-rs/core`), so an exact identifier
//!    in a query scores above a text that merely has its parts.

use std::sync::Arc;

use bm25::{DefaultTokenizer, Language, Tokenizer};

/// Name and version of the analysis, stored in every index: a change to the
/// steps above must change this string (and the format version).
pub const ANALYZER_ID: &str = "en-snowball+identifiers/1";

/// Longest identifier kept whole, in bytes; longer runs (hashes, base64) only
/// contribute their parts.
const MAX_WHOLE_IDENTIFIER: usize = 64;

/// Bytes (chunks, their terms and the table's share) a thread's chunk cache
/// holds before it starts again, its memory given back: what clients send
/// is kept in it, so the bound is on bytes, not entries.
const CHUNK_CACHE_BYTES: usize = 1 << 20;

/// Longest chunk kept in the cache. Words and identifiers are shorter; a
/// longer run (a hash, a pasted blob, a character repeated) is analysed
/// each time it comes, and not remembered.
const MAX_CACHED_CHUNK: usize = 64;

/// A chunk's whole identifier (if it is one) and its words.
type ChunkTerms = (Option<Arc<str>>, Vec<Arc<str>>);

/// Each chunk's analysis, keyed by what clients send, so hashed with the
/// standard library's randomly keyed hasher (no one can choose chunks that
/// collide), and the bytes it holds.
#[derive(Default)]
struct ChunkCache {
    entries: std::collections::HashMap<Box<str>, ChunkTerms>,
    bytes: usize,
}

thread_local! {
    /// Each chunk's analysis ([`Analyzer::analyze_chunk`]), per thread.
    static CHUNKS: std::cell::RefCell<ChunkCache> = Default::default();
}

/// Runs `f` with this thread's chunk cache, dropped first if it is full.
fn with_chunks<R>(f: impl FnOnce(&mut ChunkCache) -> R) -> R {
    CHUNKS.with(|cell| {
        let mut cache = cell.borrow_mut();
        if cache.bytes >= CHUNK_CACHE_BYTES {
            *cache = ChunkCache::default();
        }
        f(&mut cache)
    })
}

/// How long `text` is once transliterated to ASCII, as the analysis reads
/// it: a character can stand for several words (U+FDFA for five), so this,
/// not the character count, bounds what analysing `text` costs.
pub fn transliterated_len(text: &str) -> usize {
    text.chars()
        .map(|c| {
            if c.is_ascii() {
                1
            } else {
                deunicode::deunicode_char(c).map_or(0, str::len)
            }
        })
        .sum()
}

/// The bytes the chunk cache holds (for tests of its bound).
pub fn chunk_cache_bytes() -> usize {
    CHUNKS.with(|cell| cell.borrow().bytes)
}

/// Distinct chunks an index build remembers per thread, as term ids.
const BUILD_CHUNK_CACHE_MAX: usize = 1 << 20;

/// A build's terms, numbered in the order the threads first meet them:
/// the threads of one build share it, so a section's terms can be counted
/// by id. The ids depend on thread timing; the index orders terms by
/// text ([`Interner::into_terms`] gives the text of each id).
pub struct Interner {
    /// Tells this build's chunks apart from another's in a thread's cache.
    id: u64,
    terms: std::sync::Mutex<(TermIds, Vec<Arc<str>>)>,
}

type TermIds = std::collections::HashMap<Arc<str>, u32, std::hash::BuildHasherDefault<WordHash>>;

/// Chunks analysed by this thread into the term ids of one [`Interner`].
type BuildChunks =
    std::collections::HashMap<Box<str>, Box<[u32]>, std::hash::BuildHasherDefault<WordHash>>;

thread_local! {
    /// Each chunk's term ids, per thread, for the interner whose id is kept.
    static BUILD_CHUNKS: std::cell::RefCell<(u64, BuildChunks)> =
        std::cell::RefCell::new((0, BuildChunks::default()));
}

static INTERNERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Default for Interner {
    fn default() -> Self {
        Self {
            id: INTERNERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            terms: Default::default(),
        }
    }
}

impl Interner {
    /// The ids of `terms`, new ones numbered next.
    fn intern<'a>(&self, terms: impl Iterator<Item = &'a Arc<str>>) -> Box<[u32]> {
        let mut guard = self.terms.lock().unwrap_or_else(|e| e.into_inner());
        let (ids, texts) = &mut *guard;
        terms
            .map(|t| {
                *ids.entry(t.clone()).or_insert_with(|| {
                    texts.push(t.clone());
                    texts.len() as u32 - 1
                })
            })
            .collect()
    }

    /// Every term met, by id.
    pub fn into_terms(self) -> Vec<Arc<str>> {
        self.terms.into_inner().unwrap_or_else(|e| e.into_inner()).1
    }
}

/// The build's hasher for its maps of terms, chunks and stored text:
/// eight bytes a step (FxHash's), several times faster than SipHash on
/// short keys. Not keyed, so only for the docs' own text, never for what
/// clients send.
#[derive(Default)]
pub struct WordHash(u64);

impl std::hash::Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            h = (h.rotate_left(5) ^ v).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_u8(&mut self, b: u8) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
    }
}

/// The English analyzer shared by `build-index` and the Lambda.
pub struct Analyzer {
    words: DefaultTokenizer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Analyzer({ANALYZER_ID})")
    }
}

impl Analyzer {
    /// Builds the analyzer (stemmer and stop-word set); do it once and reuse it.
    pub fn new() -> Self {
        let words = DefaultTokenizer::builder()
            .language_mode(Language::English)
            .normalization(true)
            .stemming(true)
            .stopwords(true)
            .build();
        Self { words }
    }

    /// The terms of `text`, in order, duplicates kept.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.analyze_into(text, &mut out);
        out
    }

    /// Appends the terms of `text` to `out`.
    pub fn analyze_into(&self, text: &str, out: &mut Vec<String>) {
        if text.is_empty() {
            return;
        }
        // Whole identifiers first, then the words, in text order. Each
        // whitespace-separated chunk is analysed on its own (Unicode word
        // boundaries never cross whitespace, and transliteration, lower
        // case, stop words and stemming work a character or a word at a
        // time), so a chunk seen before is looked up, not analysed again.
        let mut words = Vec::new();
        with_chunks(|cache| {
            for chunk in text.split_whitespace() {
                self.cached(cache, chunk, |whole, chunk_words| {
                    out.extend(whole.iter().map(|t| t.to_string()));
                    words.extend(chunk_words.iter().map(|t| t.to_string()));
                });
            }
        });
        out.extend(words);
    }

    /// Calls `f` with every term of `text`: the terms of [`Analyzer::analyze`],
    /// each whole identifier next to its words rather than before all of
    /// them, and without a `String` for each.
    pub fn for_each_term(&self, text: &str, mut f: impl FnMut(&Arc<str>)) {
        with_chunks(|cache| {
            for chunk in text.split_whitespace() {
                self.cached(cache, chunk, |whole, words| {
                    whole.iter().chain(words).for_each(&mut f)
                });
            }
        });
    }

    /// [`Analyzer::for_each_term`] for an index build: `f` gets each
    /// term's id in `interner`, and `new_chunk` each chunk this thread had
    /// not analysed for this interner (or since its cache last filled up).
    pub fn for_each_term_id(
        &self,
        interner: &Interner,
        text: &str,
        mut f: impl FnMut(u32),
        mut new_chunk: impl FnMut(&str),
    ) {
        BUILD_CHUNKS.with(|cell| {
            let mut cell = cell.borrow_mut();
            let (owner, cache) = &mut *cell;
            if *owner != interner.id {
                cache.clear();
                *owner = interner.id;
            }
            for chunk in text.split_whitespace() {
                if let Some(ids) = cache.get(chunk) {
                    ids.iter().copied().for_each(&mut f);
                    continue;
                }
                if cache.len() >= BUILD_CHUNK_CACHE_MAX {
                    cache.clear();
                }
                new_chunk(chunk);
                let (whole, words) = self.analyze_chunk(chunk);
                let ids = interner.intern(whole.iter().chain(&words));
                ids.iter().copied().for_each(&mut f);
                cache.insert(chunk.into(), ids);
            }
        });
    }

    /// Calls `found` with `chunk`'s analysis from `cache`, analysed first
    /// if it is not there yet: one lookup when it is.
    fn cached(
        &self,
        cache: &mut ChunkCache,
        chunk: &str,
        found: impl FnOnce(&Option<Arc<str>>, &[Arc<str>]),
    ) {
        if let Some((whole, words)) = cache.entries.get(chunk) {
            return found(whole, words);
        }
        let analysed = self.analyze_chunk(chunk);
        if chunk.len() > MAX_CACHED_CHUNK {
            return found(&analysed.0, &analysed.1);
        }
        // The key, each term's text and pointer, and the table's slot.
        let term_bytes = |t: &Arc<str>| t.len() + 2 * std::mem::size_of::<usize>() * 2;
        cache.bytes += chunk.len()
            + analysed.0.iter().map(term_bytes).sum::<usize>()
            + analysed.1.iter().map(term_bytes).sum::<usize>()
            + 64;
        let (whole, words) = cache.entries.entry(chunk.into()).or_insert(analysed);
        found(whole, words)
    }

    /// What one whitespace-separated chunk contributes: its whole
    /// identifier, if it is one, and its words.
    fn analyze_chunk(&self, chunk: &str) -> (Option<Arc<str>>, Vec<Arc<str>>) {
        let shared = |words: Vec<String>| words.into_iter().map(Arc::from).collect();
        let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        if core.is_empty() {
            return (None, Vec::new());
        }
        if !is_identifier(core) {
            return (None, shared(self.words.tokenize(chunk)));
        }
        let whole = (core.len() <= MAX_WHOLE_IDENTIFIER)
            .then(|| deunicode::deunicode(core).to_lowercase())
            .filter(|w| !w.is_empty())
            .map(Arc::from);
        let mut split = String::with_capacity(core.len() + 8);
        split_identifier(core, &mut split);
        (whole, shared(self.words.tokenize(&split)))
    }
}

/// Characters that join the parts of an identifier.
fn is_joiner(c: char) -> bool {
    matches!(c, '.' | '_' | '-' | '/' | '@' | ':' | '$' | '#' | '+')
}

/// Is this whitespace-free run an identifier worth keeping whole: two or more
/// alphanumeric parts joined by a joiner, or a lower→upper camel-case step?
pub fn is_identifier(s: &str) -> bool {
    let mut parts_joined = false;
    let mut camel = false;
    let mut saw_joiner_after_alnum = false;
    let mut prev: Option<char> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if is_joiner(c) {
            if prev.is_some_and(|p| p.is_alphanumeric()) {
                saw_joiner_after_alnum = true;
            }
        } else if c.is_alphanumeric() {
            if saw_joiner_after_alnum {
                parts_joined = true;
            }
            if let Some(p) = prev
                && c.is_uppercase()
                && (p.is_lowercase()
                    || (p.is_uppercase() && chars.peek().is_some_and(|n| n.is_lowercase())))
            {
                camel = true;
            }
        } else {
            // Quotes, brackets, commas inside a run: prose, not an identifier.
            return false;
        }
        prev = Some(c);
    }
    parts_joined || camel
}

/// Writes the parts of an identifier separated by spaces: joiners become
/// spaces, and camel-case steps (`createMDX`, `MDXProvider`, `useState`) split.
fn split_identifier(s: &str, out: &mut String) {
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if is_joiner(c) || !c.is_alphanumeric() {
            out.push(' ');
            continue;
        }
        if i > 0 && c.is_uppercase() {
            let p = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analysis without the chunk cache: identifiers' parts and words
    /// joined into one text and tokenized at once.
    fn analyze_at_once(a: &Analyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut split = String::new();
        for chunk in text.split_whitespace() {
            let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
            if core.is_empty() {
                continue;
            }
            if is_identifier(core) {
                if core.len() <= MAX_WHOLE_IDENTIFIER {
                    let whole = deunicode::deunicode(core).to_lowercase();
                    if !whole.is_empty() {
                        out.push(whole);
                    }
                }
                split_identifier(core, &mut split);
            } else {
                split.push_str(chunk);
            }
            split.push(' ');
        }
        out.extend(a.words.tokenize(&split));
        out
    }

    #[test]
    fn chunk_by_chunk_is_the_same_as_all_at_once() {
        let a = Analyzer::new();
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/content/docs");
        let mut texts: Vec<String> = std::fs::read_dir(docs)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        texts.extend(
            [
                "ΣΊΣΥΦΟΣ Straße naïve café 北京市 Ñandú",
                "createMDX next.config.mjs @takumi-rs/core HTTPServer2 v1.2.3",
                "don't can't it's — «quoted» (parens) [1] x\u{a0}y a\u{200b}b",
                "",
                "   ",
            ]
            .map(String::from),
        );
        for text in &texts {
            let mut want = analyze_at_once(&a, text);
            // Twice: once filling the caches, once from them.
            let interner = Interner::default();
            let mut ids = [Vec::new(), Vec::new()];
            let mut new_chunks = [0, 0];
            for pass in 0..2 {
                assert_eq!(a.analyze(text), want, "{text:.80}");
                let mut each = Vec::new();
                a.for_each_term(text, |t| each.push(t.to_string()));
                each.sort();
                let mut sorted = want.clone();
                sorted.sort();
                assert_eq!(each, sorted, "{text:.80}");
                a.for_each_term_id(
                    &interner,
                    text,
                    |id| ids[pass].push(id),
                    |_| new_chunks[pass] += 1,
                );
            }
            let distinct: std::collections::HashSet<&str> = text.split_whitespace().collect();
            assert_eq!(new_chunks, [distinct.len(), 0], "{text:.80}");
            let terms = interner.into_terms();
            want.sort();
            for ids in ids {
                let mut by_id: Vec<String> = ids
                    .iter()
                    .map(|&id| terms[id as usize].to_string())
                    .collect();
                by_id.sort();
                assert_eq!(by_id, want, "{text:.80}");
            }
        }
    }

    #[test]
    fn analyzes_table() {
        let a = Analyzer::new();
        let cases: &[(&str, &[&str])] = &[
            ("Running the servers", &["run", "server"]),
            ("SPACE Station", &["space", "station"]),
            ("the and of", &[]),
            ("createMDX", &["createmdx", "creat", "mdx"]),
            (
                "next.config.mjs",
                &["next.config.mjs", "next", "config", "mjs"],
            ),
            (
                "@takumi-rs/core",
                &["takumi-rs/core", "takumi", "rs", "core"],
            ),
            ("useState()", &["usestate", "use", "state"]),
            ("MDXProvider", &["mdxprovider", "mdx", "provid"]),
            (
                "snake_case_name",
                &["snake_case_name", "snake", "case", "name"],
            ),
            ("(see `createMDX`).", &["see", "createmdx", "creat", "mdx"]),
            ("Café déjà", &["cafe", "deja"]),
            ("v1.2.3", &["v1.2.3", "v1", "2", "3"]),
            ("", &[]),
        ];
        for (input, want) in cases {
            let got = a.analyze(input);
            // Whole identifiers come first, then the word stream.
            let mut got_sorted = got.clone();
            got_sorted.sort();
            let mut want_sorted: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            want_sorted.sort();
            assert_eq!(got_sorted, want_sorted, "input {input:?} gave {got:?}");
        }
    }

    #[test]
    fn query_and_document_meet() {
        let a = Analyzer::new();
        let doc = a.analyze("Pass options to `createMDX()` in next.config.mjs");
        for q in ["createMDX", "create mdx", "next.config.mjs", "next config"] {
            for t in a.analyze(q) {
                assert!(doc.contains(&t), "query {q:?} term {t:?} not in {doc:?}");
            }
        }
    }

    #[test]
    fn identifiers_are_recognised() {
        for (s, want) in [
            ("createMDX", true),
            ("next.config.mjs", true),
            ("a-b", true),
            ("hello", false),
            ("Hello", false),
            ("HTTP", false),
            ("MDXProvider", true),
            ("it's", false),
            ("e.g", true),
        ] {
            assert_eq!(is_identifier(s), want, "{s}");
        }
    }
}
