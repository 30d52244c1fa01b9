//! `build-index`: turns a docs folder of `.mdx` files (or a BEIR-style JSONL
//! corpus) into an nlweb-ask index file, writes it locally and/or to S3, and
//! answers queries against an index the way the Lambda does (`search`).

use build_index::upload;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use ask_index::{Analyzer, BuildOptions, Index, PageInput, SectionInput, Weights};
use clap::{Parser, Subcommand};
use serde::Deserialize;

/// Build an nlweb-ask BM25 index from .mdx docs (the default action), or query one.
#[derive(Parser, Debug)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// The docs team's settings file (an `ask:` section: corpus_path, docs_base_url and every
    /// setting the Lambda reads), checked and stored in the index.
    #[arg(long, default_value = "common/global_config.yaml")]
    config: PathBuf,
    /// Folder of .mdx files (overrides ask.corpus_path).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Base URL that page routes are joined to (overrides ask.docs_base_url).
    #[arg(long)]
    base_url: Option<String>,
    /// Build from a JSONL corpus ({"_id","title","text"[,"url"]} per line) instead of .mdx.
    #[arg(long, conflicts_with = "corpus")]
    jsonl: Option<PathBuf>,
    /// Write the index to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Upload the index to s3://bucket/key (honours AWS_ENDPOINT_URL_S3 and ASK_S3_FORCE_PATH_STYLE).
    #[arg(long)]
    upload: Option<String>,
    /// Use path-style S3 addressing (for S3-compatible stores such as moto).
    #[arg(long)]
    s3_path_style: bool,
    /// Also write the docs' llms.txt (the same text the Lambda serves at /llms.txt) here.
    #[arg(long)]
    llms_txt: Option<PathBuf>,
    /// Base URL of the deployed API, for the endpoint links in llms.txt (default: paths only).
    #[arg(long, default_value = "")]
    api_base_url: String,
    /// Also store each section's sentence vector, for `ask.retriever: hybrid`: the folder of the
    /// pinned model's files (scripts/model.sh prints it; default $ASK_MODEL_DIR, else none).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Cache of embedded sections, so a rebuild embeds only what changed
    /// (default $XDG_CACHE_HOME/nlweb-ask/embeddings.bin, else under ~/.cache).
    #[arg(long)]
    embed_cache: Option<PathBuf>,
    /// Embed every section afresh, reading and writing no cache.
    #[arg(long)]
    no_embed_cache: bool,
    /// Build without sentence vectors even when $ASK_MODEL_DIR is set.
    #[arg(long, conflicts_with = "model")]
    no_model: bool,
    /// Check the settings file (and the docs folder it names) and stop: nothing is built.
    #[arg(long)]
    check: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Answer queries read from stdin (one a line: plain text or {"_id","text"}) with one JSON line each.
    Search {
        /// Index file to query.
        #[arg(long)]
        index: PathBuf,
        /// Hits per query.
        #[arg(long, default_value_t = 10)]
        top_k: usize,
        /// Page weights by path glob, as JSON (`{"gen1/**": 0.6}`), like ask.boost.
        #[arg(long)]
        boost: Option<String>,
        /// Synonym groups as JSON (`[["cancel", "stop"]]`), like ask.synonyms.
        #[arg(long)]
        synonyms: Option<String>,
        /// Search the words as typed: no typo correction (to measure what it changes).
        #[arg(long)]
        no_typos: bool,
        /// `bm25` (the words alone) or `hybrid` (mixed with the sentence model), like ask.retriever.
        #[arg(long, default_value = "bm25", value_parser = ["bm25", "hybrid"])]
        retriever: String,
        /// For `hybrid`: the pinned model's folder (default $ASK_MODEL_DIR).
        #[arg(long)]
        model: Option<PathBuf>,
        /// For `hybrid`: weight of the sentence model's ranking, like ask.hybrid_weight.
        #[arg(long, default_value_t = ask_index::search::HYBRID_WEIGHT)]
        hybrid_weight: f32,
    },
    /// The content-gap report of a deployed endpoint: read its exported log (`sam logs --output json`, `aws logs filter-log-events`, or its standard output; files, or stdin) and write what readers asked, what went unanswered or was rated down (grouped), and the pages cited most and least, as Markdown and JSON.
    Report {
        /// Exported log files (none, or `-`: stdin).
        files: Vec<PathBuf>,
        /// The deployed index, to name the pages and list those never cited.
        #[arg(long)]
        index: Option<PathBuf>,
        /// Write the Markdown page here (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also write the report as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// How well an index ranks your own graded questions (JSON lines: {"q", "expected": [pages], "partial": [pages]}): page-level nDCG@10 with the words alone and, given the model and an index with sentence vectors, mixed at each weight; whether ask.retriever: hybrid helps on your docs.
    Evaluate {
        /// Index file to measure.
        #[arg(long)]
        index: PathBuf,
        /// The graded questions, one JSON object a line.
        #[arg(long)]
        questions: PathBuf,
        /// Page weights by path glob, as JSON, like ask.boost.
        #[arg(long)]
        boost: Option<String>,
        /// Synonym groups as JSON, like ask.synonyms.
        #[arg(long)]
        synonyms: Option<String>,
        /// The pinned model's folder, to measure hybrid too (default $ASK_MODEL_DIR).
        #[arg(long)]
        model: Option<PathBuf>,
    },
    /// Check that an index (a file or s3://bucket/key) is one this release reads: its format
    /// version, checksum and build metadata; prints them.
    CheckIndex {
        /// The index: a file path or s3://bucket/key.
        index: String,
    },
    /// Write the sentence model's packed int8 form (what the Lambda loads: ask.model_dir) into a folder, checked against its pin.
    PackModel {
        /// The pinned model's folder (scripts/model.sh; default $ASK_MODEL_DIR).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Folder to write minilm-l6-q8.bin into (made if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Search {
            index,
            top_k,
            boost,
            synonyms,
            no_typos,
            retriever,
            model,
            hybrid_weight,
        }) => search(
            &index,
            top_k,
            boost.as_deref(),
            synonyms.as_deref(),
            no_typos,
            (retriever == "hybrid").then(|| (model_dir(model), hybrid_weight)),
        ),
        Some(Command::PackModel { model, out }) => pack_model(model_dir(model), &out),
        Some(Command::CheckIndex { index }) => check_index(&index),
        Some(Command::Evaluate {
            index,
            questions,
            boost,
            synonyms,
            model,
        }) => evaluate(
            &index,
            &questions,
            boost.as_deref(),
            synonyms.as_deref(),
            model_dir(model),
        ),
        Some(Command::Report {
            files,
            index,
            out,
            json,
        }) => build_index::report::run(&files, index.as_deref(), out.as_deref(), json.as_deref())
            .map(|_| ()),
        None => build(cli.build),
    };
    if let Err(e) = result {
        eprintln!("build-index: error: {e:#}");
        std::process::exit(1);
    }
}

/// Writes the model's packed form into `out`, refusing to write one whose
/// sha256 is not the pinned one.
fn pack_model(model: Option<PathBuf>, out: &Path) -> Result<()> {
    let dir = model.context("pack-model needs the model: --model DIR or ASK_MODEL_DIR")?;
    let model = ask_embed::Embedder::load(&dir)
        .with_context(|| format!("loading the sentence model from {}", dir.display()))?;
    let bytes = model.packed();
    let pin = ask_embed::MINILM_L6.packed;
    let sha = ask_embed::sha256_hex(&bytes);
    if sha != pin.sha256 {
        bail!(
            "the packed model has sha256 {sha}, not the pinned {}: this build of build-index packs differently",
            pin.sha256
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join(pin.name);
    std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    println!("{} ({} bytes, sha256 {sha})", path.display(), bytes.len());
    Ok(())
}

/// Reads an index's bytes (a file or `s3://bucket/key`) and checks them as
/// the Lambda's cold start would, without decoding the payload.
fn check_index(spec: &str) -> Result<()> {
    let bytes =
        match ask_store::Location::parse(spec).map_err(|e| anyhow::anyhow!("{spec}: {e}"))? {
            ask_store::Location::File(path) => {
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?
            }
            ask_store::Location::S3 { bucket, key } => {
                let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
                runtime.block_on(async {
                    let client = ask_store::s3_client(upload::path_style_from_env()?).await;
                    let s3 = ask_store::S3::new(client, &bucket, &key);
                    ask_store::IndexSource::fetch(&s3)
                        .await
                        .map(|b| b.to_vec())
                        .map_err(|e| anyhow::anyhow!("fetching {spec}: {e}"))
                })?
            }
        };
    let version = bytes
        .get(8..12)
        .map_or(0, |v| u32::from_le_bytes(v.try_into().expect("4 bytes")));
    let meta = ask_index::read_meta(&bytes)
        .with_context(|| format!("{spec} is not an index this release reads"))?;
    println!(
        "{spec}: index format {version} (this release reads {} to {}), build id {}, built {}, {} pages, {} sections, settings {}",
        ask_index::OLDEST_READABLE,
        ask_index::FORMAT_VERSION,
        meta.build_id,
        meta.built_at,
        meta.pages,
        meta.sections,
        if meta.settings.is_empty() {
            "none"
        } else {
            "carried"
        }
    );
    Ok(())
}

fn build(args: BuildArgs) -> Result<()> {
    if args.out.is_none() && args.upload.is_none() && !args.check {
        bail!("nothing to write: give --out PATH and/or --upload s3://bucket/key");
    }
    let explicit_config = std::env::args().any(|a| a == "--config" || a.starts_with("--config="));
    let mut config = build_index::settings::TeamSettings::read(&args.config, explicit_config)?;
    // A base URL given here is the one the settings carry too.
    if let Some(url) = &args.base_url {
        config.set.insert(
            "docs_base_url".into(),
            serde_json::Value::String(url.trim_end_matches('/').to_string()),
        );
        config.settings.docs_base_url = url.trim_end_matches('/').to_string();
    }
    if args.check {
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
        return Ok(());
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
    // SOURCE_DATE_EPOCH (reproducible-builds.org) pins the build time.
    let now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });

    let (pages, fingerprint, source, weights) = match &args.jsonl {
        Some(path) => {
            let (pages, fp) = read_jsonl(path)?;
            (pages, fp, "jsonl", Weights::FLAT)
        }
        None => {
            let dir = args.corpus.clone().unwrap_or_else(|| config.corpus());
            let (pages, fp) = read_mdx(&dir)?;
            (pages, fp, "mdx", Weights::DOCS)
        }
    };
    let opts = BuildOptions {
        docs_base_url: base_url,
        weights,
        source: source.into(),
        corpus_fingerprint: format!("{fingerprint:016x}"),
        built_at_unix: now,
        settings: config.carried(),
    };
    let analyzer = Analyzer::new();
    let mut index = ask_index::build(&pages, &opts, &analyzer).context("building the index")?;
    let bm25_done = started.elapsed();
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
    let bytes = ask_index::encode(&index).context("encoding the index")?;

    if let Some(out) = &args.out {
        if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let tmp = out.with_extension("tmp");
        std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    }
    if let Some(path) = &args.llms_txt {
        let text = ask_index::llms::llms_txt(&index, &index.meta.docs_base_url, &args.api_base_url);
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(uri) = &args.upload {
        let path_style = args.s3_path_style || upload::path_style_from_env()?;
        let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
        runtime.block_on(upload::upload(uri, &bytes, path_style))?;
    }

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
    Ok(())
}

/// The model folder: `--model`, else `$ASK_MODEL_DIR` when set.
fn model_dir(arg: Option<PathBuf>) -> Option<PathBuf> {
    arg.or_else(|| {
        std::env::var_os("ASK_MODEL_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
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

/// Reads every `.mdx` under `dir`; returns pages and a corpus fingerprint.
fn read_mdx(dir: &Path) -> Result<(Vec<PageInput>, u64)> {
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
    Ok((corpus.pages, fp))
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

#[derive(Deserialize)]
struct QueryLine<'a> {
    #[serde(rename = "_id", borrow)]
    id: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
}

/// Writes one answered line of `build-index search`: `{"corrections":
/// [{"from","to"}…],"hits":[{"heading","id","score","url"}…],"query_id"}`
/// (keys in sorted order), as `serde_json` would, by hand: this is the
/// per-query output path that the throughput benchmark measures.
fn write_answer<'i>(
    out: &mut Vec<u8>,
    texts: &mut Vec<(&'i str, &'i str, &'i str, &'i str)>,
    index: &'i Index,
    corrections: &[ask_index::typo::Correction],
    hits: &[ask_index::Hit],
    query_id: &serde_json::value::RawValue,
) -> Result<()> {
    out.extend_from_slice(b"{\"corrections\":[");
    for (i, c) in corrections.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"from\":");
        json_str(out, &c.from)?;
        out.extend_from_slice(b",\"to\":");
        json_str(out, &c.to)?;
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"hits\":[");
    // Every hit's text first, in one short loop: its reads (likely cache
    // misses, far apart in the index) overlap instead of waiting in turn.
    texts.clear();
    texts.extend(hits.iter().map(|h| {
        let (heading, anchor) = index.section_heading_anchor(h.section);
        let (id, route) = index.page_path_route(index.section_page(h.section));
        (heading, anchor, id, route)
    }));
    for (i, (h, &(heading, anchor, id, route))) in hits.iter().zip(texts.iter()).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"heading\":");
        json_str(out, heading)?;
        out.extend_from_slice(b",\"id\":");
        json_str(out, id)?;
        out.extend_from_slice(b",\"score\":");
        serde_json::to_writer(&mut *out, &h.score)?;
        out.extend_from_slice(b",\"url\":");
        json_str(out, &ask_index::search::url_of(index, route, anchor))?;
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"query_id\":");
    out.extend_from_slice(query_id.get().as_bytes());
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// `s` as a JSON string: copied as it is when nothing in it needs an
/// escape (one branch-free pass), else through `serde_json`.
fn json_str(out: &mut Vec<u8>, s: &str) -> Result<()> {
    let plain = !s.bytes().fold(false, |esc, b| {
        esc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if plain {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s)?;
    }
    Ok(())
}

/// The docs team's rules from `--boost` and `--synonyms`, with the
/// sentence model's mix if any.
fn team_rules(
    index: &Index,
    analyzer: &Analyzer,
    boost: Option<&str>,
    synonyms: Option<&str>,
    hybrid: Option<ask_index::search::Hybrid>,
) -> Result<ask_index::search::Rules> {
    let rules: Vec<(String, f32)> = match boost {
        Some(json) => serde_json::from_str::<std::collections::BTreeMap<String, f32>>(json)
            .context("--boost takes a JSON object of glob to weight, such as {\"gen1/**\": 0.6}")?
            .into_iter()
            .collect(),
        None => Vec::new(),
    };
    let groups: Vec<Vec<String>> = match synonyms {
        Some(json) => serde_json::from_str(json)
            .context("--synonyms takes a JSON list of groups, such as [[\"cancel\", \"stop\"]]")?,
        None => Vec::new(),
    };
    Ok(ask_index::search::Rules {
        page_weights: ask_index::boost::Boosts::new(&rules)?.page_weights(index),
        synonyms: ask_index::synonyms::Synonyms::new(&groups, analyzer)?,
        hybrid,
    })
}

/// The sentence model from `dir` (sha256-checked), mixed in at `weight`;
/// an index with no sentence vectors (at `path`) is an error.
fn load_hybrid(
    index: &Index,
    path: &Path,
    dir: &Path,
    weight: f32,
) -> Result<ask_index::search::Hybrid> {
    if index.vectors().is_empty() {
        bail!(
            "{} has no sentence vectors: build it with `build-index --model DIR`",
            path.display()
        );
    }
    let model = ask_embed::Embedder::load(dir)
        .with_context(|| format!("loading the sentence model from {}", dir.display()))?;
    Ok(ask_index::search::Hybrid {
        encoder: std::sync::Arc::new(model),
        weight,
    })
}

/// `build-index evaluate`: the Markdown table of [`build_index::evaluate`]
/// on stdout. Hybrid is measured when the model is given and the index has
/// sentence vectors; otherwise stderr says why not.
fn evaluate(
    path: &Path,
    questions: &Path,
    boost: Option<&str>,
    synonyms: Option<&str>,
    model: Option<PathBuf>,
) -> Result<()> {
    use build_index::evaluate::{WEIGHTS, ndcg10, read_questions, table};
    let text = std::fs::read_to_string(questions)
        .with_context(|| format!("reading {}", questions.display()))?;
    let (questions, unanswerable) =
        read_questions(&text).with_context(|| format!("reading {}", questions.display()))?;
    if questions.is_empty() {
        bail!("no answerable questions to measure");
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let index: Index = ask_index::decode_bytes(bytes.into())
        .with_context(|| format!("loading {}", path.display()))?;
    let analyzer = Analyzer::new();
    let known: std::collections::HashSet<&str> = (0..index.page_count() as u32)
        .map(|p| index.page_path_route(p).0)
        .collect();
    for q in &questions {
        for p in q.expected.iter().chain(&q.partial) {
            if !known.contains(p.as_str()) {
                eprintln!(
                    "warning: {:?} names {p:?}, which is not a page of this index",
                    q.q
                );
            }
        }
    }
    let mut rankings = vec![("bm25".to_string(), None)];
    match model {
        Some(dir) if !index.vectors().is_empty() => {
            let h = load_hybrid(&index, path, &dir, 0.0)?;
            for weight in WEIGHTS {
                let h = ask_index::search::Hybrid {
                    weight,
                    ..h.clone()
                };
                rankings.push((format!("hybrid {weight}"), Some(h)));
            }
        }
        Some(_) => eprintln!(
            "note: {} has no sentence vectors (build it with --model): the words alone measured",
            path.display()
        ),
        None => {
            eprintln!("note: no model (--model DIR or ASK_MODEL_DIR): the words alone measured")
        }
    }
    // The team's rules are read once; only the mix changes between rankings.
    let mut rules = team_rules(&index, &analyzer, boost, synonyms, None)?;
    let mut rows = Vec::new();
    for (name, hybrid) in rankings {
        rules.hybrid = hybrid;
        let total: f64 = questions
            .iter()
            .map(|q| {
                let (hits, _) =
                    ask_index::search::retrieve_corrected(&index, &analyzer, &q.q, &[], 10, &rules);
                let pages: Vec<&str> = hits
                    .iter()
                    .map(|h| index.page_path_route(index.section_page(h.section)).0)
                    .collect();
                ndcg10(&pages, q)
            })
            .sum();
        rows.push((name, total / questions.len() as f64));
    }
    print!("{}", table(&rows, questions.len(), unanswerable));
    Ok(())
}

fn search(
    path: &Path,
    top_k: usize,
    boost: Option<&str>,
    synonyms: Option<&str>,
    no_typos: bool,
    hybrid: Option<(Option<PathBuf>, f32)>,
) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let n_bytes = bytes.len();
    let load = Instant::now();
    let index: Index = ask_index::decode_bytes(bytes.into())
        .with_context(|| format!("loading {}", path.display()))?;
    let load = load.elapsed();
    let analyzer = Analyzer::new();
    let hybrid = match hybrid {
        None => None,
        Some((dir, weight)) => {
            let dir =
                dir.context("--retriever hybrid needs the model: --model DIR or ASK_MODEL_DIR")?;
            Some(load_hybrid(&index, path, &dir, weight)?)
        }
    };
    let rules = team_rules(&index, &analyzer, boost, synonyms, hybrid)?;
    let mut stdin = std::io::stdin().lock();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line_out = Vec::new();
    let mut texts = Vec::new();
    let mut times = Vec::new();
    let mut line = String::new();
    for n in 1.. {
        line.clear();
        if stdin.read_line(&mut line).context("reading stdin")? == 0 {
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let numbered;
        let (id, text) = if trimmed.starts_with('{') {
            let q: QueryLine = serde_json::from_str(trimmed)
                .with_context(|| format!("stdin line {n}: expected {{\"_id\",\"text\"}}"))?;
            (q.id, q.text)
        } else {
            numbered = serde_json::value::to_raw_value(&n)?;
            (
                &*numbered,
                std::borrow::Cow::Borrowed(line.trim_end_matches(['\n', '\r'])),
            )
        };
        let t = Instant::now();
        let (hits, searched) = if no_typos {
            let hits =
                ask_index::search::retrieve_weighted(&index, &analyzer, &text, &[], top_k, &rules);
            (hits, ask_index::typo::Corrected::default())
        } else {
            ask_index::search::retrieve_corrected(&index, &analyzer, &text, &[], top_k, &rules)
        };
        times.push(t.elapsed());
        line_out.clear();
        write_answer(
            &mut line_out,
            &mut texts,
            &index,
            &searched.corrections,
            &hits,
            id,
        )?;
        out.write_all(&line_out)?;
    }
    out.flush()?;
    times.sort();
    let total: std::time::Duration = times.iter().sum();
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p).round() as usize)
            .map(|d| d.as_secs_f64() * 1e6)
            .unwrap_or(0.0)
    };
    eprintln!(
        "searched {} queries in {:.3} s ({:.0} queries/s); p50 {:.1} µs, p99 {:.1} µs; index load {:.2} ms ({} bytes)",
        times.len(),
        total.as_secs_f64(),
        times.len() as f64 / total.as_secs_f64().max(1e-9),
        pct(0.5),
        pct(0.99),
        load.as_secs_f64() * 1e3,
        n_bytes
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in [
            "",
            "plain heading",
            "a \"quoted\" word",
            "back\\slash",
            "tab\there\nnewline\u{1}",
            "ünïcödé — “curly” 🦀",
            "\u{7f} and </script>",
        ] {
            let mut out = Vec::new();
            json_str(&mut out, s).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }
}
