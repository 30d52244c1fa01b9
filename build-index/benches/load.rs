//! Loading an index (bytes in memory → ready to search) next to a plain copy
//! of the same bytes, on the aws-amplify corpus (the largest MDX corpus).
//! Throughput is reported in bytes/s by criterion.

use std::hint::black_box;
use std::path::Path;

use ask_index::{Analyzer, BuildOptions, Weights};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn corpus_bytes(name: &str) -> Vec<u8> {
    let root = std::env::var_os("ASK_CORPORA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora"));
    let files =
        build_index::read_mdx_files(&root.join(name), &|_, _| indicatif::ProgressBar::hidden())
            .expect("shared corpora");
    let corpus = build_index::corpus::pages(&files);
    let opts = BuildOptions {
        docs_base_url: "https://docs.example.com".into(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "bench".into(),
        built_at_unix: 0,
    };
    let index = ask_index::build(&corpus.pages, &opts, &Analyzer::new()).unwrap();
    ask_index::encode(&index).unwrap()
}

fn load(c: &mut Criterion) {
    let bytes = corpus_bytes("aws-amplify");
    let mut g = c.benchmark_group("load/aws-amplify");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("plain copy", |b| {
        b.iter(|| black_box(black_box(&bytes).to_vec()))
    });
    g.bench_function("decode index", |b| {
        b.iter(|| {
            let idx = ask_index::decode(black_box(&bytes)).unwrap();
            assert!(idx.section_count() > 9000);
            idx
        })
    });
    g.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
