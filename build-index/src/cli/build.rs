//! The default action: the settings file (and `--check`), the corpus read, the index built, written and uploaded.

use build_index::settings::TeamSettings;
use build_index::upload;

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use ask_index::{Analyzer, BuildOptions, Index, PageInput, SectionInput, Weights};
use serde::Deserialize;

use crate::{BuildArgs, model_dir};

/// Builds the index from the docs folder (or a JSONL corpus) and writes it
/// to `--out` and/or uploads it; with `--check`, checks the settings and stops.
pub(crate) fn build(args: BuildArgs) -> Result<()> {
    if args.out.is_none() && args.upload.is_none() && !args.check {
        bail!("nothing to write: give --out PATH and/or --upload s3://bucket/key");
    }
    let config = read_settings(&args)?;
    if args.check {
        return check(&args, &config);
    }
    if !config.settings.enabled {
        eprintln!(
            "notice: ask.enabled is false in {}: a deployed /ask answers 404 until it is true (or ASK_ENABLED=true)",
            args.config.display()
        );
    }
    let base_url = args
        .base_url
        .clone()
        .unwrap_or_else(|| config.settings.docs_base_url.clone());
    let base_url = base_url.trim_end_matches('/').to_string();
    let started = Instant::now();
    let now = build_time();

    let Pages {
        mut pages,
        meta,
        fingerprint,
        source,
        weights,
    } = read_pages(&args, &config)?;
    let sites = assign_sites(&args, &config, &mut pages, &meta)?;
    let opts = BuildOptions {
        docs_base_url: base_url,
        weights,
        source: source.into(),
        corpus_fingerprint: format!("{fingerprint:016x}"),
        built_at_unix: now,
        settings: config.carried(),
        sites,
    };
    let analyzer = Analyzer::new();
    let index = ask_index::build(&pages, &opts, &analyzer).context("building the index")?;
    let bm25_done = started.elapsed();
    let (index, embedded) = add_vectors(&args, index, bm25_done)?;
    let bytes = ask_index::encode(&index).context("encoding the index")?;

    write_outputs(&args, &index, &bytes)?;
    print_summary(&args, &index, &bytes, started, &embedded);
    Ok(())
}

/// The settings file `--config` names (it must exist when named
/// explicitly), with `--base-url` on top.
fn read_settings(args: &BuildArgs) -> Result<TeamSettings> {
    let explicit_config = std::env::args().any(|a| a == "--config" || a.starts_with("--config="));
    let mut config = TeamSettings::read(&args.config, explicit_config)?;
    // A base URL given here is the one the settings carry too.
    if let Some(url) = &args.base_url {
        config.set.insert(
            "docs_base_url".into(),
            serde_json::Value::String(url.trim_end_matches('/').to_string()),
        );
        config.settings.docs_base_url = url.trim_end_matches('/').to_string();
    }
    Ok(config)
}

/// `--check`: the settings were read and checked; the docs folder they
/// name (unless the corpus is JSONL) must be a folder.
fn check(args: &BuildArgs, config: &TeamSettings) -> Result<()> {
    if args.jsonl.is_none() {
        let dir = args.corpus.clone().unwrap_or_else(|| config.corpus());
        if !dir.is_dir() {
            bail!(
                "{}: ask.corpus_path names {}, which is not a folder",
                args.config.display(),
                dir.display()
            );
        }
    }
    println!(
        "{}: {} settings checked",
        args.config.display(),
        config.set.len()
    );
    Ok(())
}

/// The build time, seconds since the Unix epoch.
fn build_time() -> u64 {
    // SOURCE_DATE_EPOCH (reproducible-builds.org) pins the build time.
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        })
}

/// A page's metadata, as `ask.sites` matches it.
type PageMeta = BTreeMap<String, Vec<String>>;

/// What the corpus holds, read.
struct Pages {
    pages: Vec<PageInput>,
    /// Each page's metadata.
    meta: Vec<PageMeta>,
    fingerprint: u64,
    /// `mdx` or `jsonl`.
    source: &'static str,
    weights: Weights,
}

/// The pages (from `--jsonl`, else the docs folder), their metadata, the
/// corpus fingerprint, the source's name and its field weights.
fn read_pages(args: &BuildArgs, config: &TeamSettings) -> Result<Pages> {
    Ok(match &args.jsonl {
        Some(path) => {
            let (pages, fingerprint) = read_jsonl(path)?;
            Pages {
                meta: vec![PageMeta::new(); pages.len()],
                pages,
                fingerprint,
                source: "jsonl",
                weights: Weights::FLAT,
            }
        }
        None => {
            let dir = args.corpus.clone().unwrap_or_else(|| config.corpus());
            let (corpus, fingerprint) = read_mdx(&dir)?;
            Pages {
                pages: corpus.pages,
                meta: corpus.meta,
                fingerprint,
                source: "mdx",
                weights: Weights::DOCS,
            }
        }
    })
}

/// Each page's sites (`ask.sites`), and the sites' names; prints each
/// site's page count. A glob that matches no page, or a site that holds
/// none, fails the build.
fn assign_sites(
    args: &BuildArgs,
    config: &TeamSettings,
    pages: &mut [PageInput],
    meta: &[PageMeta],
) -> Result<Vec<String>> {
    let rules = ask_index::sites::SiteRules::new(&config.settings.site_defs())
        .with_context(|| format!("{}: ask.sites", args.config.display()))?;
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let counts = build_index::corpus::assign_sites(&rules, pages, meta)
        .with_context(|| format!("{}: ask.sites", args.config.display()))?;
    let names = rules.names();
    let listed: Vec<String> = names
        .iter()
        .zip(&counts)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let none = pages.iter().filter(|p| p.sites == 0).count();
    println!(
        "sites (pages each): {}; in no site: {none}",
        listed.join(", ")
    );
    Ok(names)
}

/// The index with each section's sentence vector when there is a model
/// (`--model` or `$ASK_MODEL_DIR`, unless `--no-model`), and the words the
/// summary line gives them (empty: none).
fn add_vectors(args: &BuildArgs, mut index: Index, bm25_done: Duration) -> Result<(Index, String)> {
    let model = if args.no_model {
        None
    } else {
        model_dir(args.model.clone())
    };
    let mut embedded = String::new();
    if let Some(dir) = &model {
        let cache_path = match (&args.embed_cache, args.no_embed_cache) {
            (_, true) => None,
            (Some(p), false) => Some(p.clone()),
            (None, false) => build_index::embed::default_cache(),
        };
        let t = Instant::now();
        let mut cache = build_index::embed::Cache::open(cache_path.as_deref());
        let (vectors, counts) = build_index::embed::vectors(&index, dir, &mut cache, &progress)?;
        embedded = format!(
            ", sentence vectors: {} embedded + {} cached in {:.2} s (BM25 part {:.2} s)",
            counts.embedded,
            counts.cached,
            t.elapsed().as_secs_f64(),
            bm25_done.as_secs_f64()
        );
        index = index.with_vectors(vectors)?;
    }
    Ok((index, embedded))
}

/// Writes the encoded index to `--out` (through a `.tmp` file), the
/// llms.txt to `--llms-txt`, and uploads it to `--upload`.
fn write_outputs(args: &BuildArgs, index: &Index, bytes: &[u8]) -> Result<()> {
    if let Some(out) = &args.out {
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let tmp = out.with_extension("tmp");
        std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    }
    if let Some(path) = &args.llms_txt {
        let text = ask_index::llms::llms_txt(index, &index.meta.docs_base_url, &args.api_base_url);
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(uri) = &args.upload {
        let path_style = args.s3_path_style || upload::path_style_from_env()?;
        let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
        runtime.block_on(upload::upload(uri, bytes, path_style))?;
    }
    Ok(())
}

/// The one line on stdout that says what was built and where it went.
fn print_summary(args: &BuildArgs, index: &Index, bytes: &[u8], started: Instant, embedded: &str) {
    let m = &index.meta;
    let dest: Vec<String> = args
        .out
        .iter()
        .map(|p| p.display().to_string())
        .chain(args.upload.iter().cloned())
        .collect();
    let reference = (0..index.page_count() as u32)
        .filter(|&p| index.page_is_reference(p))
        .count();
    let boosted = (0..index.page_count() as u32)
        .filter(|&p| index.page_boost(p) != 1.0)
        .count();
    println!(
        "built {} pages ({} generated reference, {} with a boost), {} sections, {} terms, {} postings, {} bytes in {:.2} s{}, build id {} -> {}",
        m.pages,
        reference,
        boosted,
        m.sections,
        m.terms,
        m.postings,
        bytes.len(),
        started.elapsed().as_secs_f64(),
        embedded,
        m.build_id,
        dest.join(", ")
    );
}

fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    if std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(len);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
        {
            pb.set_style(style);
        }
        pb.set_message(what.to_string());
        pb
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// Reads every `.mdx` under `dir`; returns its pages and a corpus
/// fingerprint.
fn read_mdx(dir: &Path) -> Result<(build_index::corpus::Corpus, u64)> {
    if !dir.is_dir() {
        bail!(
            "corpus folder {} does not exist (set ask.corpus_path or pass --corpus DIR)",
            dir.display()
        );
    }
    let files = build_index::read_mdx_files(dir, &progress)?;
    let mut fp = 0u64;
    for (path, src) in &files {
        fp = ask_index::index::fnv1a64(path.as_bytes(), fp);
        fp = ask_index::index::fnv1a64(src.as_bytes(), fp);
    }
    let corpus = build_index::corpus::pages(&files);
    for s in &corpus.skipped {
        eprintln!(
            "warning: {}:{}: {} (file skipped)",
            dir.join(&s.path).display(),
            s.line,
            s.message
        );
    }
    if corpus.pages.is_empty() {
        bail!("no pages found under {}", dir.display());
    }
    Ok((corpus, fp))
}

#[derive(Deserialize)]
struct JsonlDoc {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    url: String,
}

fn read_jsonl(path: &Path) -> Result<(Vec<PageInput>, u64)> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut pages = Vec::new();
    let mut fp = 0u64;
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        fp = ask_index::index::fnv1a64(line.as_bytes(), fp);
        let doc: JsonlDoc = serde_json::from_str(&line).with_context(|| {
            format!(
                "{}:{}: not a {{\"_id\",\"title\",\"text\"}} object",
                path.display(),
                n + 1
            )
        })?;
        pages.push(PageInput {
            route: doc.url,
            title: doc.title.clone(),
            description: String::new(),
            sections: vec![SectionInput {
                heading: doc.title,
                anchor: String::new(),
                level: 0,
                text: doc.text,
            }],
            path: doc.id,
            ..PageInput::default()
        });
    }
    Ok((pages, fp))
}
