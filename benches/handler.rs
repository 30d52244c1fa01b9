//! The handler end to end in process: a saved API Gateway event in, response
//! bytes out, per mode, over the prefect docs' index. After the criterion
//! groups it prints p50 and p99 of single list-mode requests, measured one by
//! one (criterion reports means and medians of batches).

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use ask_index::{Analyzer, BuildOptions, Weights};
use criterion::{Criterion, criterion_group, criterion_main};
use nlweb_ask::app::{respond_on, service};
use nlweb_ask::config::EMBEDDED_CONFIG;
use nlweb_ask::state::State;

const QUESTIONS: &[&str] = &[
    "how do I schedule a deployment with cron",
    "retry a failed task automatically",
    "run flows on kubernetes with a work pool",
    "what is a block and how do I store secrets",
    "cache task results between runs",
    "set the log level for flow runs",
    "deploy a flow from a github repository",
    "limit concurrency with tags",
];

fn state() -> State {
    let root = std::env::var_os("ASK_CORPORA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"));
    let files = build_index::read_mdx_files(&root.join("prefect"), &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .expect("shared corpora");
    let pages = build_index::corpus::pages(&files).pages;
    let opts = BuildOptions {
        docs_base_url: "https://docs.prefect.io".into(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "bench".into(),
        built_at_unix: 0,
        settings: String::new(),
        sites: Vec::new(),
    };
    let index = ask_index::build(&pages, &opts, &Analyzer::new()).unwrap();
    let env = |k: &str| match k {
        "ASK_ENABLED" => Some("true".to_string()),
        "ASK_INDEX" => Some("bench".to_string()),
        "ASK_RATE_LIMIT_PER_MINUTE" => Some("4000000000".to_string()),
        _ => None,
    };
    State::new(
        nlweb_ask::config::load_yaml(EMBEDDED_CONFIG, &env).unwrap(),
        index,
    )
}

/// A saved HTTP API event asking `q` in `mode`, as JSON or SSE.
fn event(q: &str, mode: &str, streaming: bool) -> lambda_http::Request {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("events/http-get-json.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let raw = format!(
        "query={}&mode={mode}&streaming={streaming}",
        q.replace(' ', "+")
    );
    v["rawQueryString"] = raw.into();
    v["queryStringParameters"] = serde_json::json!({
        "query": q, "mode": mode, "streaming": streaming.to_string()
    });
    lambda_http::request::from_str(&v.to_string()).unwrap()
}

fn bench(c: &mut Criterion) {
    // Built once, as the Lambda builds it once per cold start.
    let service = service(state());
    let mut g = c.benchmark_group("handler/prefect");
    for (name, mode, streaming) in [
        ("list", "list", false),
        ("summarize", "summarize", false),
        ("generate", "generate", false),
        ("generate-sse", "generate", true),
    ] {
        let events: Vec<_> = QUESTIONS
            .iter()
            .map(|q| event(q, mode, streaming))
            .collect();
        for e in &events {
            let r = respond_on(&service, e);
            assert_eq!(r.status(), 200, "{name}");
            assert!(r.body().len() > 500, "{name}: a real answer");
        }
        g.bench_function(name, |b| {
            b.iter(|| {
                for e in &events {
                    black_box(respond_on(&service, black_box(e)).into_body());
                }
            })
        });
    }
    g.finish();

    // p50 / p99 of one list-mode request, event to response bytes.
    let events: Vec<_> = QUESTIONS.iter().map(|q| event(q, "list", false)).collect();
    let mut times = Vec::with_capacity(4000);
    for i in 0..4000 {
        let e = &events[i % events.len()];
        let t = Instant::now();
        let r = respond_on(&service, e);
        let bytes = r.into_body();
        times.push(t.elapsed());
        assert!(bytes.len() > 500);
    }
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
    println!(
        "handler/prefect/list single requests: p50 {:.1} µs, p99 {:.1} µs",
        p(0.5),
        p(0.99)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
