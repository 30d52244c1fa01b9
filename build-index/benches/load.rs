//! Loading an index (bytes in memory → ready to search: checksum, decode,
//! validation; the index shares the bytes, as the Lambda's does) next to a
//! plain copy of the same bytes, for every shared corpus. Throughput is in
//! bytes/s.

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn load(c: &mut Criterion) {
    for name in [
        "fumadocs",
        "shadcn-ui",
        "prefect",
        "aws-amplify",
        "beir-scifact",
    ] {
        let (pages, weights) = common::pages(name);
        let sections: usize = pages.iter().map(|p| p.sections.len()).sum();
        let bytes = ask_index::encode(&common::build(&pages, weights)).unwrap();
        let shared: ask_index::Bytes = bytes.clone().into();
        let mut g = c.benchmark_group(format!("load/{name}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("plain copy", |b| {
            b.iter(|| black_box(black_box(&bytes).to_vec()))
        });
        g.bench_function("decode index", |b| {
            b.iter(|| {
                let idx = ask_index::decode_bytes(black_box(&shared).clone()).unwrap();
                assert_eq!(idx.section_count(), sections);
                idx
            })
        });
        g.finish();
    }
}

criterion_group!(benches, load);
criterion_main!(benches);
