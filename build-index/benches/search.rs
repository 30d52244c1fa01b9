//! Top-10 query latency, ours (`search::retrieve`, the Lambda's path,
//! analysis included) next to tantivy (query parsing included) on the same
//! sections and queries: prefect, aws-amplify, SciFact. Each iteration runs
//! the whole query set; criterion reports time per set.

mod common;

use std::hint::black_box;

use ask_index::{Analyzer, search};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    for name in ["prefect", "aws-amplify", "beir-scifact"] {
        let (pages, weights) = common::pages(name);
        let ours = common::build(&pages, weights);
        let peer = common::peer_build(&pages);
        let parser = peer.parser();
        let queries = common::queries(name, &pages);
        assert!(queries.len() >= 100, "{name}: {} queries", queries.len());
        let analyzer = Analyzer::new();
        // Both engines must answer nearly every query, or the bench is broken.
        let answered = queries
            .iter()
            .filter(|q| !search::retrieve(&ours, &analyzer, q, &[], 10).is_empty())
            .count();
        assert!(
            answered * 10 >= queries.len() * 9,
            "{name}: ours answered {answered}"
        );
        let answered = queries
            .iter()
            .filter(|q| peer.search(&parser, q, 10) > 0)
            .count();
        assert!(
            answered * 10 >= queries.len() * 9,
            "{name}: tantivy answered {answered}"
        );

        let mut g = c.benchmark_group(format!("search/{name}"));
        g.throughput(Throughput::Elements(queries.len() as u64));
        g.bench_function("ours", |b| {
            b.iter(|| {
                for q in &queries {
                    black_box(search::retrieve(&ours, &analyzer, q, &[], 10));
                }
            })
        });
        g.bench_function("tantivy", |b| {
            b.iter(|| {
                for q in &queries {
                    black_box(peer.search(&parser, q, 10));
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
