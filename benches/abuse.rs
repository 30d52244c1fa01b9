//! What does the costliest request of each kind cost, per token it spends,
//! beside a typical `/ask`? Each request goes through the handler in
//! process (a saved HTTP API event, over this project's own docs); the CPU
//! time is this thread's own (`CLOCK_THREAD_CPUTIME_ID`), the tokens
//! are what the `RateLimit` header says the request took. Prints a Markdown
//! table (scripts/bench.sh puts it in BENCHMARKS.md).

use std::path::Path;

use ask_index::{Analyzer, BuildOptions, Weights};
use nlweb_ask::app::respond;
use nlweb_ask::config::EMBEDDED_CONFIG;
use nlweb_ask::state::State;
use serde_json::{Value, json};

const BUCKET: u32 = 1_000_000;

fn state() -> State {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = build_index::read_mdx_files(&repo.join("docs/content/docs"), &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .expect("the bundled docs");
    let pages = build_index::corpus::pages(&files).pages;
    let opts = BuildOptions {
        docs_base_url: "https://nlweb-ask.example.com/docs".into(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "bench".into(),
        built_at_unix: 0,
        settings: String::new(),
    };
    let index = ask_index::build(&pages, &opts, &Analyzer::new()).unwrap();
    let jwks = std::fs::read_to_string(repo.join("tests/data/auth/jwks.json")).unwrap();
    let bucket = BUCKET.to_string();
    let env = move |k: &str| match k {
        "ASK_ENABLED" => Some("true".to_string()),
        "ASK_INDEX" => Some("unused.idx".into()),
        "ASK_RATE_LIMIT_PER_MINUTE" => Some(bucket.clone()),
        "ASK_AUTH" => Some("optional".into()),
        "ASK_AUTH_JWKS" => Some(jwks.trim().to_string()),
        "ASK_AUTH_ISSUER" => Some("https://auth.example.com/".into()),
        "ASK_AUTH_AUDIENCE" => Some("https://nlweb-ask.example.com".into()),
        _ => None,
    };
    State::with_clock(
        nlweb_ask::config::load_yaml(EMBEDDED_CONFIG, &env).unwrap(),
        index,
        Box::new(|| 0.0),
    )
}

fn event(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("events")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn with_body(mut v: Value, body: &str) -> Value {
    v["headers"]["content-length"] = json!(body.len().to_string());
    v["body"] = json!(body);
    v
}

fn mcp(body: String) -> Value {
    let mut v = with_body(event("http-post-mcp-tools-list.json"), &body);
    v["headers"]["mcp-protocol-version"] = json!("2025-03-26");
    v
}

fn batch(n: usize, message: &str) -> String {
    let m: Vec<String> = (0..n)
        .map(|i| message.replace("\"id\":1", &format!("\"id\":{i}")))
        .collect();
    format!("[{}]", m.join(","))
}

/// This thread's CPU time so far, in nanoseconds.
fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn main() {
    let heavy = |salt: usize| {
        let mut q: String = std::iter::repeat_n('\u{FDFA}', 60).collect();
        for w in 0..18 {
            q.push_str(&format!(" w{salt}y{w}"));
        }
        q
    };
    let tools_list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let tools_call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"how do I configure the rate limit","mode":"summarize"}}}"#;
    let mut crafted = event("http-post-mcp-tools-list.json");
    crafted["headers"]["authorization"] =
        json!("Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6IgcKIn0.e30.c2ln");
    let cases: Vec<(&str, Value)> = vec![
        ("typical: GET /ask, list", event("http-get-json.json")),
        (
            "typical: POST /ask, summarize",
            event("http-post-summarize.json"),
        ),
        ("GET /who", event("http-get-who.json")),
        (
            "/mcp batch of 10 tools/list (the most a batch holds)",
            mcp(batch(10, tools_list)),
        ),
        (
            "/mcp batch of 10 tools/call ask",
            mcp(batch(10, tools_call)),
        ),
        (
            "/mcp batch of 300 tools/list (refused)",
            mcp(batch(300, tools_list)),
        ),
        (
            "/ask, heaviest text served: query and 10 prev just under the transliteration limit, summarize",
            with_body(
                event("http-post-v055.json"),
                &json!({"query": {"text": heavy(0)}, "context": {"prev": (1..=10).map(heavy).collect::<Vec<_>>()}, "prefer": {"streaming": false, "mode": "summarize"}}).to_string(),
            ),
        ),
        (
            "/ask, 480 of U+FDFA in query and 10 prev (refused)",
            with_body(
                event("http-post-v055.json"),
                &json!({"query": {"text": "\u{FDFA}".repeat(480)}, "context": {"prev": vec!["\u{FDFA}".repeat(480); 10]}}).to_string(),
            ),
        ),
        ("/mcp with a crafted bearer token (401)", crafted),
    ];
    println!(
        "| request | status | tokens | CPU µs | CPU µs a token | × typical | bytes | bytes a token |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut typical = 0.0;
    for (what, v) in cases {
        let req = nlweb_ask::event::request_from_str(&v.to_string()).unwrap();
        // Tokens: a fresh bucket, one request, what RateLimit says is left.
        let s = state();
        let first = respond(&s, &req);
        let left: u32 = first
            .headers()
            .get("ratelimit")
            .and_then(|h| h.to_str().ok())
            .and_then(|h| {
                h.split(';')
                    .find_map(|p| p.strip_prefix("r="))?
                    .parse()
                    .ok()
            })
            .unwrap_or(BUCKET);
        let tokens = (BUCKET - left).max(1);
        let bytes = first.body().as_ref().len();
        let runs = 200;
        let start = cpu_ns();
        for _ in 0..runs {
            std::hint::black_box(respond(&s, &req));
        }
        let us = (cpu_ns() - start) as f64 / runs as f64 / 1e3;
        let per_token = us / f64::from(tokens);
        if typical == 0.0 {
            typical = per_token;
        }
        println!(
            "| {what} | {} | {tokens} | {us:.0} | {per_token:.0} | {:.1} | {bytes} | {} |",
            first.status().as_u16(),
            per_token / typical,
            bytes / tokens as usize
        );
    }
}
