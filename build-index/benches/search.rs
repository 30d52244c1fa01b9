//! Top-10 query latency, ours (`search::retrieve`, the Lambda's path,
//! analysis included) next to tantivy (query parsing included) on the same
//! sections and queries: prefect, aws-amplify, SciFact. Each iteration runs
//! the whole query set; criterion reports time per set. Then what a site
//! costs: aws-amplify divided as `examples/sites/aws-amplify.yaml` divides
//! it, the same queries asked of every page, of Gen 2 (351 of 971 pages)
//! and of React (299), in the same run (`search::find_in`).

mod common;

use std::hint::black_box;

use ask_index::{Analyzer, search};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    for name in ["prefect", "aws-amplify", "beir-scifact"] {
        let (pages, weights) = common::pages(name);
        let ours = common::build(&pages, weights);
        let peer = common::peer_build(&pages, 1);
        let parser = peer.parser();
        let queries = common::queries(name, &pages);
        assert!(queries.len() >= 100, "{name}: {} queries", queries.len());
        println!("queries {name} {}", queries.len());
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

        if name == "beir-scifact" {
            // Equal or better relevance is part of the comparison.
            let ours_ndcg = common::scifact_ndcg(&pages, &|q| {
                search::retrieve(&ours, &analyzer, q, &[], 10)
                    .iter()
                    .map(|h| ours.section_page(h.section) as usize)
                    .collect()
            });
            let peer_ndcg = common::scifact_ndcg(&pages, &|q| {
                peer.search_sections(&parser, q, 10)
                    .into_iter()
                    .map(|s| s as usize)
                    .collect()
            });
            println!("scifact nDCG@10: ours {ours_ndcg:.4}, tantivy {peer_ndcg:.4}");
            assert!(ours_ndcg >= 0.68, "ours {ours_ndcg}");
            assert!(peer_ndcg >= 0.6, "tantivy {peer_ndcg}: peer misconfigured");
        }
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
    sites(c);
}

/// The same queries over every page and restricted to a site.
fn sites(c: &mut Criterion) {
    let corpus = common::corpus("aws-amplify");
    let (mut pages, meta) = (corpus.pages, corpus.meta);
    let settings = build_index::settings::TeamSettings::read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/sites/aws-amplify.yaml"),
        true,
    )
    .expect("the example's settings");
    let rules = ask_index::sites::SiteRules::new(&settings.settings.site_defs()).unwrap();
    build_index::corpus::assign_sites(&rules, &mut pages, &meta).unwrap();
    let index = common::build_with_sites(&pages, ask_index::Weights::DOCS, rules.names());
    let queries = common::queries("aws-amplify", &pages);
    let analyzer = Analyzer::new();
    let rules = search::Rules::default();
    let mask = |name: &str| ask_index::sites::mask_of(index.site_names(), [name]).unwrap();
    let mut g = c.benchmark_group("sites/aws-amplify");
    g.throughput(Throughput::Elements(queries.len() as u64));
    for (name, scope) in [
        ("every page", None),
        ("gen2", Some(mask("gen2"))),
        ("react", Some(mask("react"))),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for q in &queries {
                    let ask = search::Ask {
                        query: q,
                        k: 10,
                        scope,
                        ..search::Ask::default()
                    };
                    black_box(search::find_in(&index, &analyzer, &rules, ask));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
