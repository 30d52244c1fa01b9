//! `build-index`: turns a docs folder of `.mdx` files (or a BEIR-style JSONL
//! corpus) into an nlweb-ask index file, writes it locally and/or to S3, and
//! answers queries against an index the way the Lambda does (`search`).

mod cli;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

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
    /// Answer queries read from stdin (one a line: plain text or {"_id","text"[,"site"]}) with one JSON line each.
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
        /// Search these sites of the index alone (`ask.sites`; comma-separated names, or all), like `site` on /ask; a line's own `"site"` comes first.
        #[arg(long)]
        site: Option<String>,
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
            site,
            retriever,
            model,
            hybrid_weight,
        }) => cli::search::search(
            &index,
            top_k,
            (boost.as_deref(), synonyms.as_deref()),
            no_typos,
            site.as_deref(),
            (retriever == "hybrid").then(|| (model_dir(model), hybrid_weight)),
        ),
        Some(Command::PackModel { model, out }) => cli::model::pack_model(model_dir(model), &out),
        Some(Command::CheckIndex { index }) => cli::check::check_index(&index),
        Some(Command::Evaluate {
            index,
            questions,
            boost,
            synonyms,
            model,
        }) => cli::evaluate::evaluate(
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
        None => cli::build::build(cli.build),
    };
    if let Err(e) = result {
        eprintln!("build-index: error: {e:#}");
        std::process::exit(1);
    }
}

/// The model folder: `--model`, else `$ASK_MODEL_DIR` when set.
fn model_dir(arg: Option<PathBuf>) -> Option<PathBuf> {
    arg.or_else(|| {
        std::env::var_os("ASK_MODEL_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}
