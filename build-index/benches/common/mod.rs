//! Shared by the benches: the shared corpora as sections, their query sets,
//! and the same sections indexed by tantivy (English stemming) as the peer.

#![allow(dead_code)]

#[path = "../../../tests/support/scifact.rs"]
pub mod scifact;

use std::path::{Path, PathBuf};

use ask_index::{Analyzer, BuildOptions, Index, PageInput, SectionInput, Weights};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions};

pub fn corpora() -> PathBuf {
    std::env::var_os("ASK_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"))
}

/// A corpus as pages (MDX through build-index's own parser, or BEIR JSONL)
/// and the weights build-index uses for it.
pub fn pages(name: &str) -> (Vec<PageInput>, Weights) {
    let root = corpora().join(name);
    if name == "beir-scifact" {
        let text = std::fs::read_to_string(root.join("corpus.jsonl")).expect("scifact corpus");
        let pages = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let title = v["title"].as_str().unwrap_or("").to_string();
                PageInput {
                    path: v["_id"].as_str().unwrap().to_string(),
                    route: String::new(),
                    title: title.clone(),
                    description: String::new(),
                    sections: vec![SectionInput {
                        heading: title,
                        anchor: String::new(),
                        level: 0,
                        text: v["text"].as_str().unwrap_or("").to_string(),
                    }],
                    ..PageInput::default()
                }
            })
            .collect();
        return (pages, Weights::FLAT);
    }
    let files = build_index::read_mdx_files(&root, &|_, _| indicatif::ProgressBar::hidden())
        .expect("shared corpora");
    (build_index::corpus::pages(&files).pages, Weights::DOCS)
}

/// An MDX corpus read: its pages and each one's metadata (what
/// `ask.sites` matches).
pub fn corpus(name: &str) -> build_index::corpus::Corpus {
    let files = build_index::read_mdx_files(&corpora().join(name), &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .expect("shared corpora");
    build_index::corpus::pages(&files)
}

/// [`build`] with the sites `names` (the pages' bits already set).
pub fn build_with_sites(pages: &[PageInput], weights: Weights, names: Vec<String>) -> Index {
    let mut opts = options(weights);
    opts.sites = names;
    ask_index::build(pages, &opts, &Analyzer::new()).unwrap()
}

pub fn build(pages: &[PageInput], weights: Weights) -> Index {
    ask_index::build(pages, &options(weights), &Analyzer::new()).unwrap()
}

fn options(weights: Weights) -> BuildOptions {
    BuildOptions {
        docs_base_url: "https://docs.example.com".into(),
        weights,
        source: "mdx".into(),
        corpus_fingerprint: "bench".into(),
        built_at_unix: 0,
        settings: String::new(),
        sites: Vec::new(),
    }
}

/// Queries: SciFact's 300 test claims; for the MDX corpora, every page
/// description (at most 300), which are not indexed in the section text…
/// except as the intro of their page, as a reader sees them.
pub fn queries(name: &str, pages: &[PageInput]) -> Vec<String> {
    if name == "beir-scifact" {
        let root = corpora().join(name);
        let qrels = scifact::qrels(&root);
        return scifact::test_queries(&root, &qrels)
            .into_iter()
            .map(|q| q.1)
            .collect();
    }
    pages
        .iter()
        .map(|p| p.description.trim().to_string())
        .filter(|d| d.split_whitespace().count() >= 3)
        .take(300)
        .collect()
}

/// The same sections in tantivy: one text field (title, heading, text) with
/// the `en_stem` analyzer, BM25, in RAM.
pub struct Peer {
    pub index: tantivy::Index,
    pub reader: tantivy::IndexReader,
    pub field: Field,
    pub id: Field,
}

pub fn peer_schema() -> (Schema, Field, Field) {
    let mut sb = Schema::builder();
    let opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let body = sb.add_text_field("body", opts);
    let id = sb.add_u64_field("section", STORED);
    (sb.build(), body, id)
}

/// tantivy's index of the same sections, in RAM, with `threads` indexing
/// threads (50 MB of writer memory each).
pub fn peer_build(pages: &[PageInput], threads: usize) -> Peer {
    let (schema, body, id) = peer_schema();
    let index = tantivy::Index::create_in_ram(schema);
    let mut writer: tantivy::IndexWriter = index
        .writer_with_num_threads(threads, threads * 50_000_000)
        .unwrap();
    let mut n = 0u64;
    for p in pages {
        for s in &p.sections {
            let plain = ask_index::markdown::plain(&s.text);
            let text = if s.heading == p.title {
                format!("{}\n{}", p.title, plain)
            } else {
                format!("{}\n{}\n{}", p.title, s.heading, plain)
            };
            writer
                .add_document(tantivy::doc!(body => text, id => n))
                .unwrap();
            n += 1;
        }
    }
    writer.commit().unwrap();
    let reader = index.reader().unwrap();
    Peer {
        index,
        reader,
        field: body,
        id,
    }
}

impl Peer {
    /// Top-10 sections for a query (parse + search), as tantivy doc addresses.
    pub fn search(&self, parser: &QueryParser, q: &str, k: usize) -> usize {
        let searcher = self.reader.searcher();
        let (query, _) = parser.parse_query_lenient(q);
        let top = searcher
            .search(&query, &TopDocs::with_limit(k).order_by_score())
            .unwrap();
        top.len()
    }

    /// Top-k section numbers (in `pages` order) for a query.
    pub fn search_sections(&self, parser: &QueryParser, q: &str, k: usize) -> Vec<u64> {
        use tantivy::schema::Value;
        let searcher = self.reader.searcher();
        let (query, _) = parser.parse_query_lenient(q);
        let top = searcher
            .search(&query, &TopDocs::with_limit(k).order_by_score())
            .unwrap();
        top.into_iter()
            .map(|(_, addr)| {
                let doc: tantivy::TantivyDocument = searcher.doc(addr).unwrap();
                doc.get_first(self.id).and_then(|v| v.as_u64()).unwrap()
            })
            .collect()
    }

    pub fn parser(&self) -> QueryParser {
        QueryParser::for_index(&self.index, vec![self.field])
    }
}

/// SciFact nDCG@10 of a ranking function that returns page (document)
/// positions for a query text.
pub fn scifact_ndcg(pages: &[PageInput], rank: &dyn Fn(&str) -> Vec<usize>) -> f64 {
    let root = corpora().join("beir-scifact");
    let qrels = scifact::qrels(&root);
    let queries = scifact::test_queries(&root, &qrels);
    let total: f64 = queries
        .iter()
        .map(|(id, text, _)| {
            let ranked = rank(text);
            let ids: Vec<&str> = ranked.iter().map(|&p| pages[p].path.as_str()).collect();
            scifact::ndcg_at_10(&ids, &qrels[id])
        })
        .sum();
    total / queries.len() as f64
}
