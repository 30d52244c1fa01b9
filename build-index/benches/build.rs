//! Building the index of aws-amplify's sections, ours (analysis, postings,
//! impacts, encoding; on every core, through rayon) next to tantivy
//! (indexing in RAM with as many indexing threads as cores, commit).
//! MDX parsing is outside both: they get the same sections.

mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let (pages, weights) = common::pages("aws-amplify");
    let sections: usize = pages.iter().map(|p| p.sections.len()).sum();
    assert!(sections > 9000);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = c.benchmark_group("build/aws-amplify");
    g.sample_size(10);
    g.bench_function("ours", |b| {
        b.iter(|| {
            let idx = common::build(black_box(&pages), weights);
            assert_eq!(idx.section_count(), sections);
            ask_index::encode(&idx).unwrap()
        })
    });
    g.bench_function("tantivy", |b| {
        b.iter(|| {
            let peer = common::peer_build(black_box(&pages), threads);
            assert_eq!(peer.reader.searcher().num_docs() as usize, sections);
            peer
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
