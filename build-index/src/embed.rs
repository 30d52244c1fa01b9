//! The sections' sentence vectors, for hybrid retrieval: each section's
//! text run through the pinned sentence model ([`ask_embed`]), quantised
//! ([`ask_index::vectors`]), with a cache keyed by the text so that a
//! rebuild embeds only the sections that changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ask_embed::{DIM, Embedder, MINILM_L6, SECTION_TOKENS};
use ask_index::Index;
use ask_index::vectors::{Vectors, quantise};

/// What the model reads of section `i`: its page's title and description
/// (what the page is about, which a section's own words often leave out),
/// its heading (when it has its own) and its plain text, as far as
/// [`SECTION_TOKENS`] go: `Title (description): Heading. Text`.
pub fn section_text(index: &Index, i: u32) -> String {
    let s = index.section(i);
    let text = s.plain();
    let page = index.page(s.page);
    let (title, description) = (page.title, page.description);
    let mut out =
        String::with_capacity(title.len() + description.len() + s.heading.len() + text.len() + 8);
    out.push_str(title);
    if !description.is_empty() {
        out.push_str(" (");
        out.push_str(description);
        out.push(')');
    }
    if !s.heading.is_empty() && s.heading != title {
        out.push_str(": ");
        out.push_str(s.heading);
    }
    out.push_str(". ");
    // Past about 4 characters a token, the model reads no further.
    let cut = text.floor_char_boundary(SECTION_TOKENS * 8);
    out.push_str(&text[..cut]);
    out
}

/// A text's key in the cache: two 64-bit hashes of the model, the window
/// and the text.
type Key = [u8; 16];

/// The model and window the cache's vectors come from (hashed once).
fn seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        ask_index::index::fnv1a64(format!("{}\0{SECTION_TOKENS}", MINILM_L6.id).as_bytes(), 0)
    })
}

/// `fnv1a64(text, seed)` and `fnv1a64(text, seed ^ 0x9e37…)`, in one
/// pass: the two multiply chains run side by side (a warm build hashes
/// every section's text; one chain after the other took most of its
/// vector step).
fn key(text: &str) -> Key {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let seed = seed();
    let mut a = seed ^ 0xcbf2_9ce4_8422_2325;
    let mut b = (seed ^ 0x9e37_79b9_7f4a_7c15) ^ 0xcbf2_9ce4_8422_2325;
    for &byte in text.as_bytes() {
        a = (a ^ byte as u64).wrapping_mul(PRIME);
        b = (b ^ byte as u64).wrapping_mul(PRIME);
    }
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&a.to_le_bytes());
    k[8..].copy_from_slice(&b.to_le_bytes());
    k
}

/// Embedded sections by text, kept in one file between builds:
/// `NLWEMB02`, the model's seed (u64 LE), then records sorted by key: key
/// (16 bytes), scale (f32 LE) and [`DIM`] codes. A file that does not read
/// as that, or holds another model's vectors, is started afresh (so
/// vectors of an old model do not pile up).
///
/// The file's records are kept as read and found by binary search: a
/// build whose sections are all cached decodes only the records it uses.
pub struct Cache {
    path: Option<PathBuf>,
    /// The file's records (whole records only).
    file: Vec<u8>,
    /// Vectors embedded since the file was read: scale and codes (`i8`
    /// as bytes, as the index stores them).
    new: HashMap<Key, (f32, Vec<u8>)>,
    added: usize,
}

const MAGIC: &[u8; 8] = b"NLWEMB02";
const HEADER: usize = 16;
const RECORD: usize = 16 + 4 + DIM;

impl Cache {
    /// The cache in `path` (none: nothing kept between builds).
    pub fn open(path: Option<&Path>) -> Cache {
        let mut file = Vec::new();
        if let Some(bytes) = path.and_then(|p| std::fs::read(p).ok())
            && bytes.starts_with(MAGIC)
            && bytes.get(8..HEADER) == Some(&seed().to_le_bytes()[..])
        {
            file = bytes;
            file.drain(..HEADER);
            file.truncate(file.len() / RECORD * RECORD);
            // Binary search needs strictly increasing keys: a file out of
            // order (damaged) is started afresh rather than kept wrong.
            let sorted = file
                .chunks_exact(RECORD)
                .zip(file.chunks_exact(RECORD).skip(1))
                .all(|(a, b)| a[..16] < b[..16]);
            if !sorted {
                file.clear();
            }
        }
        Cache {
            path: path.map(Path::to_path_buf),
            file,
            new: HashMap::new(),
            added: 0,
        }
    }

    /// The vector cached for `k`: a record whose scale is not a finite
    /// non-negative number is damaged, and counts as missing.
    fn get(&self, k: &Key) -> Option<(f32, &[u8])> {
        if let Some((scale, codes)) = self.new.get(k) {
            return Some((*scale, codes));
        }
        let n = self.file.len() / RECORD;
        let record = |i: usize| &self.file[i * RECORD..][..RECORD];
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match record(mid)[..16].cmp(&k[..]) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let r = record(mid);
                    let scale = f32::from_le_bytes(r[16..20].try_into().expect("4 bytes"));
                    if !scale.is_finite() || scale < 0.0 {
                        return None;
                    }
                    return Some((scale, &r[20..]));
                }
            }
        }
        None
    }

    fn insert(&mut self, k: Key, (scale, codes): (f32, Vec<i8>)) {
        self.new
            .insert(k, (scale, codes.into_iter().map(|c| c as u8).collect()));
    }

    /// Entries held (a key both read and embedded again counts twice).
    pub fn len(&self) -> usize {
        self.file.len() / RECORD + self.new.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the cache back (whole, then renamed into place, so a
    /// concurrent build never reads half a file).
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        // The file's records (sorted) merged with the new ones (sorted), a
        // new one replacing a damaged record of the same key.
        let mut new: Vec<(&Key, &(f32, Vec<u8>))> = self.new.iter().collect();
        new.sort_by_key(|(k, _)| **k);
        let mut bytes = Vec::with_capacity(HEADER + self.file.len() + new.len() * RECORD);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&seed().to_le_bytes());
        let mut old = self.file.chunks_exact(RECORD).peekable();
        let mut new = new.into_iter().peekable();
        loop {
            let take_new = match (old.peek(), new.peek()) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(r), Some((k, _))) => match r[..16].cmp(&k[..]) {
                    std::cmp::Ordering::Less => false,
                    std::cmp::Ordering::Greater => true,
                    std::cmp::Ordering::Equal => {
                        old.next();
                        true
                    }
                },
            };
            if take_new {
                let (k, (scale, codes)) = new.next().expect("peeked");
                bytes.extend_from_slice(k);
                bytes.extend_from_slice(&scale.to_le_bytes());
                bytes.extend_from_slice(codes);
            } else {
                bytes.extend_from_slice(old.next().expect("peeked"));
            }
        }
        static SAVES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
        std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// How many sections one call embedded and found cached.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    /// Run through the model.
    pub embedded: usize,
    /// Read from the cache.
    pub cached: usize,
}

/// Every section's quantised vector, from the cache or the model (loaded
/// from `model_dir`, sha256-checked, only when a section is not cached).
pub fn vectors(
    index: &Index,
    model_dir: &Path,
    cache: &mut Cache,
    progress: &dyn Fn(u64, &str) -> indicatif::ProgressBar,
) -> Result<(Vectors, Counts)> {
    // Each section's text and key, a share of the sections a core.
    let n = index.section_count();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let per = n.div_ceil(cores).max(1);
    let (mut texts, mut keys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..n)
            .step_by(per)
            .map(|start| {
                s.spawn(move || {
                    let t: Vec<String> = (start..(start + per).min(n))
                        .map(|i| section_text(index, i as u32))
                        .collect();
                    let k: Vec<Key> = t.iter().map(|t| key(t)).collect();
                    (t, k)
                })
            })
            .collect();
        for p in parts {
            let (t, k) = p.join().expect("hashing thread");
            texts.extend(t);
            keys.extend(k);
        }
    });
    let mut missing: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, k) in keys.iter().enumerate() {
        if cache.get(k).is_none() && seen.insert(*k) {
            missing.push(i);
        }
    }
    let counts = Counts {
        embedded: missing.len(),
        cached: texts.len() - missing.len(),
    };
    if !missing.is_empty() {
        let model = Embedder::load(model_dir)
            .with_context(|| format!("loading the sentence model from {}", model_dir.display()))?;
        let pb = progress(missing.len() as u64, "embedding");
        // Saved as it goes: an interrupted build keeps what it embedded.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        for chunk in missing.chunks(512) {
            // One batch a core, run side by side.
            let part = chunk.len().div_ceil(threads);
            let vs: Vec<Vec<f32>> = std::thread::scope(|s| {
                let jobs: Vec<_> = chunk
                    .chunks(part)
                    .map(|c| {
                        let batch: Vec<&str> = c.iter().map(|&i| texts[i].as_str()).collect();
                        let model = &model;
                        s.spawn(move || model.embed(&batch, SECTION_TOKENS))
                    })
                    .collect();
                let mut out = Vec::with_capacity(chunk.len());
                for j in jobs {
                    out.extend(j.join().expect("embedding thread")?);
                }
                anyhow::Ok(out)
            })
            .context("embedding sections")?;
            for (&i, v) in chunk.iter().zip(vs) {
                cache.insert(keys[i], quantise(&v));
            }
            cache.added += chunk.len();
            pb.inc(chunk.len() as u64);
            if cache.added >= 4096 {
                save(cache);
                cache.added = 0;
            }
        }
        pb.finish_and_clear();
        save(cache);
    }
    let mut scales = Vec::with_capacity(keys.len());
    let mut codes = Vec::with_capacity(keys.len() * DIM);
    for k in &keys {
        let (scale, c) = cache.get(k).expect("every section was cached or embedded");
        scales.push(scale);
        codes.extend_from_slice(c);
    }
    Ok((
        Vectors {
            model: MINILM_L6.id.to_string(),
            scales: scales.into_iter().collect(),
            codes: ask_index::arrays::Blob::Owned(codes),
        },
        counts,
    ))
}

/// Saves the cache; one that cannot be written (a read-only home) costs
/// the next build time, not this build.
fn save(cache: &Cache) {
    if let Err(e) = cache.save() {
        eprintln!("warning: embedding cache not saved: {e:#}");
    }
}

/// The cache file used unless `--embed-cache` names another:
/// `$XDG_CACHE_HOME/nlweb-ask/embeddings.bin` (else under `$HOME/.cache`).
pub fn default_cache() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("nlweb-ask").join("embeddings.bin"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_reads_title_description_heading_and_text() {
        let page = |description: &str| ask_index::PageInput {
            path: "p.mdx".into(),
            route: "/p".into(),
            title: "Timeouts".into(),
            description: description.into(),
            sections: vec![
                ask_index::SectionInput {
                    heading: String::new(),
                    anchor: String::new(),
                    level: 0,
                    text: "Runs can be cut short.".into(),
                },
                ask_index::SectionInput {
                    heading: "Flow timeouts".into(),
                    anchor: "flow-timeouts".into(),
                    level: 2,
                    text: "Set timeout_seconds.".into(),
                },
            ],
            ..ask_index::PageInput::default()
        };
        let a = ask_index::Analyzer::new();
        let opts = ask_index::BuildOptions {
            docs_base_url: "https://docs.example.com".into(),
            weights: ask_index::Weights::DOCS,
            source: "mdx".into(),
            corpus_fingerprint: "f".into(),
            built_at_unix: 1,
            settings: String::new(),
            sites: Vec::new(),
        };
        let with = ask_index::build(&[page("Stop runs that take too long.")], &opts, &a).unwrap();
        assert_eq!(
            section_text(&with, 0),
            "Timeouts (Stop runs that take too long.). Runs can be cut short."
        );
        assert_eq!(
            section_text(&with, 1),
            "Timeouts (Stop runs that take too long.): Flow timeouts. Set timeout_seconds."
        );
        let without = ask_index::build(&[page("")], &opts, &a).unwrap();
        assert_eq!(
            section_text(&without, 1),
            "Timeouts: Flow timeouts. Set timeout_seconds."
        );
    }

    #[test]
    fn a_key_is_the_two_fnv_hashes_it_always_was() {
        for text in [
            "",
            "a",
            "Timeouts: set a maximum duration. ",
            &"é".repeat(300),
        ] {
            let k = key(text);
            let a = ask_index::index::fnv1a64(text.as_bytes(), seed());
            let b = ask_index::index::fnv1a64(text.as_bytes(), seed() ^ 0x9e37_79b9_7f4a_7c15);
            assert_eq!(k[..8], a.to_le_bytes());
            assert_eq!(k[8..], b.to_le_bytes());
        }
    }

    #[test]
    fn the_cache_reads_back_what_it_wrote_and_ignores_other_files() {
        let dir = std::env::temp_dir().join(format!("embed-cache-{}", std::process::id()));
        let path = dir.join("c.bin");
        let mut c = Cache::open(Some(&path));
        assert!(c.is_empty());
        let v: Vec<f32> = (0..DIM).map(|i| (i as f32 - 190.0) / 400.0).collect();
        c.insert(key("a"), quantise(&v));
        c.save().unwrap();
        let mut back = Cache::open(Some(&path));
        assert_eq!(back.len(), 1);
        let want = quantise(&v);
        let codes: Vec<u8> = want.1.iter().map(|&c| c as u8).collect();
        assert_eq!(back.get(&key("a")), Some((want.0, &codes[..])));
        // Added keys land in order, around the ones read, and read back.
        let texts: Vec<String> = (0..50).map(|i| format!("section {i}")).collect();
        for t in &texts {
            back.insert(key(t), quantise(&v));
        }
        back.save().unwrap();
        let again = Cache::open(Some(&path));
        assert_eq!(again.len(), 51);
        for t in texts.iter().map(String::as_str).chain(["a"]) {
            assert!(again.get(&key(t)).is_some(), "{t}");
        }
        assert!(again.get(&key("never embedded")).is_none());
        // A damaged record (a negative scale) counts as missing.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 16..HEADER + 20].copy_from_slice(&(-1f32).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let damaged = Cache::open(Some(&path));
        assert_eq!(damaged.len(), 51);
        let missing = (texts.iter().map(String::as_str).chain(["a"]))
            .filter(|t| damaged.get(&key(t)).is_none())
            .count();
        assert_eq!(missing, 1);
        // Keys out of order (a damaged key): the file is started afresh.
        bytes[HEADER..HEADER + 16].fill(0xff);
        std::fs::write(&path, &bytes).unwrap();
        assert!(Cache::open(Some(&path)).is_empty());
        std::fs::write(&path, b"not a cache").unwrap();
        assert!(Cache::open(Some(&path)).is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }
}
