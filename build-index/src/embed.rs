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

/// What the model reads of section `i`: its page's title, its heading
/// (when it has its own) and its text, as far as [`SECTION_TOKENS`] go.
pub fn section_text(index: &Index, i: u32) -> String {
    let s = index.section(i);
    let title = index.page(s.page).title;
    let mut out = String::with_capacity(title.len() + s.heading.len() + s.text.len() + 4);
    out.push_str(title);
    if !s.heading.is_empty() && s.heading != title {
        out.push_str(": ");
        out.push_str(s.heading);
    }
    out.push_str(". ");
    // Past about 4 characters a token, the model reads no further.
    let cut = s.text.floor_char_boundary(SECTION_TOKENS * 8);
    out.push_str(&s.text[..cut]);
    out
}

/// A text's key in the cache: two 64-bit hashes of the model, the window
/// and the text.
type Key = [u8; 16];

fn key(text: &str) -> Key {
    let seed =
        ask_index::index::fnv1a64(format!("{}\0{SECTION_TOKENS}", MINILM_L6.id).as_bytes(), 0);
    let a = ask_index::index::fnv1a64(text.as_bytes(), seed);
    let b = ask_index::index::fnv1a64(text.as_bytes(), seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&a.to_le_bytes());
    k[8..].copy_from_slice(&b.to_le_bytes());
    k
}

/// Embedded sections by text, kept in one file between builds:
/// `NLWEMB01`, then records of key (16 bytes), scale (f32 LE) and
/// [`DIM`] codes. A file that does not read as that is started afresh.
pub struct Cache {
    path: Option<PathBuf>,
    map: HashMap<Key, (f32, Vec<i8>)>,
    added: usize,
}

const MAGIC: &[u8; 8] = b"NLWEMB01";
const RECORD: usize = 16 + 4 + DIM;

impl Cache {
    /// The cache in `path` (none: nothing kept between builds).
    pub fn open(path: Option<&Path>) -> Cache {
        let mut map = HashMap::new();
        if let Some(bytes) = path.and_then(|p| std::fs::read(p).ok())
            && bytes.starts_with(MAGIC)
        {
            for r in bytes[MAGIC.len()..].chunks_exact(RECORD) {
                let k: Key = r[..16].try_into().expect("16 bytes");
                let scale = f32::from_le_bytes(r[16..20].try_into().expect("4 bytes"));
                // A damaged record is embedded again, not stored.
                if !scale.is_finite() || scale < 0.0 {
                    continue;
                }
                map.insert(k, (scale, r[20..].iter().map(|&b| b as i8).collect()));
            }
        }
        Cache {
            path: path.map(Path::to_path_buf),
            map,
            added: 0,
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
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
        let mut bytes = Vec::with_capacity(MAGIC.len() + self.map.len() * RECORD);
        bytes.extend_from_slice(MAGIC);
        let mut keys: Vec<&Key> = self.map.keys().collect();
        keys.sort();
        for k in keys {
            let (scale, codes) = &self.map[k];
            bytes.extend_from_slice(k);
            bytes.extend_from_slice(&scale.to_le_bytes());
            bytes.extend(codes.iter().map(|&c| c as u8));
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
    let texts: Vec<String> = (0..index.section_count() as u32)
        .map(|i| section_text(index, i))
        .collect();
    let keys: Vec<Key> = texts.iter().map(|t| key(t)).collect();
    let mut missing: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, k) in keys.iter().enumerate() {
        if !cache.map.contains_key(k) && seen.insert(*k) {
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
                cache.map.insert(keys[i], quantise(&v));
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
    let rows: Vec<(f32, Vec<i8>)> = keys.iter().map(|k| cache.map[k].clone()).collect();
    Ok((Vectors::from_quantised(MINILM_L6.id, &rows), counts))
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
    fn the_cache_reads_back_what_it_wrote_and_ignores_other_files() {
        let dir = std::env::temp_dir().join(format!("embed-cache-{}", std::process::id()));
        let path = dir.join("c.bin");
        let mut c = Cache::open(Some(&path));
        assert!(c.is_empty());
        let v: Vec<f32> = (0..DIM).map(|i| (i as f32 - 190.0) / 400.0).collect();
        c.map.insert(key("a"), quantise(&v));
        c.save().unwrap();
        let back = Cache::open(Some(&path));
        assert_eq!(back.len(), 1);
        assert_eq!(back.map[&key("a")], quantise(&v));
        std::fs::write(&path, b"not a cache").unwrap();
        assert!(Cache::open(Some(&path)).is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }
}
