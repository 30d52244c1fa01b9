//! What does the costliest request of each kind cost, per token it spends,
//! beside a typical `/ask`? Each request goes through the handler in
//! process (a saved HTTP API event, over this project's own docs); the CPU
//! time is this thread's own (`CLOCK_THREAD_CPUTIME_ID`), the tokens
//! are what the `RateLimit` header says the request took. Prints a Markdown
//! table (scripts/bench.sh puts it in BENCHMARKS.md).

use std::path::Path;

use ask_index::sites::{SiteDef, SiteRules};
use ask_index::{Analyzer, BuildOptions, Weights};
use nlweb_ask::app::respond;
use nlweb_ask::config::EMBEDDED_CONFIG;
use nlweb_ask::state::State;
use serde_json::{Value, json};

const BUCKET: u32 = 1_000_000;

fn state() -> State {
    state_env(&[])
}

/// [`state`] with more variables (later ones win).
fn state_env(extra: &[(&'static str, &'static str)]) -> State {
    state_of(extra, &[])
}

/// [`state`] over the docs divided into `sites` (`ask.sites`).
fn state_of(extra: &[(&'static str, &'static str)], sites: &[SiteDef]) -> State {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = build_index::read_mdx_files(&repo.join("docs/content/docs"), &|_, _| {
        indicatif::ProgressBar::hidden()
    })
    .expect("the bundled docs");
    let corpus = build_index::corpus::pages(&files);
    let mut pages = corpus.pages;
    let rules = SiteRules::new(sites).unwrap();
    if !sites.is_empty() {
        build_index::corpus::assign_sites(&rules, &mut pages, &corpus.meta).unwrap();
    }
    let opts = BuildOptions {
        docs_base_url: "https://nlweb-ask.example.com/docs".into(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "bench".into(),
        built_at_unix: 0,
        settings: String::new(),
        sites: rules.names(),
    };
    let index = ask_index::build(&pages, &opts, &Analyzer::new()).unwrap();
    let jwks = std::fs::read_to_string(repo.join("tests/data/auth/jwks.json")).unwrap();
    let bucket = BUCKET.to_string();
    let extra = extra.to_vec();
    let env = move |k: &str| match k {
        _ if extra.iter().any(|(n, _)| *n == k) => extra
            .iter()
            .rev()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string()),
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
    let fetch_api = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"docs://api"}}}"#;
    let get = |path: &str| {
        let mut v = event("http-get-llms-txt.json");
        v["rawPath"] = json!(path);
        v["requestContext"]["http"]["path"] = json!(path);
        v
    };
    let mut crafted = event("http-post-mcp-tools-list.json");
    crafted["headers"]["authorization"] =
        json!("Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6IgcKIn0.e30.c2ln");
    // The docs as two sites: a question the one named does not answer is
    // asked of every page too, to name the site that does.
    let sites = [
        SiteDef {
            name: "guides".into(),
            paths: vec!["!api.mdx".into(), "!configuration.mdx".into()],
            ..SiteDef::default()
        },
        SiteDef {
            name: "reference".into(),
            paths: vec!["api.mdx".into(), "configuration.mdx".into()],
            ..SiteDef::default()
        },
    ];
    let mut elsewhere = event("http-get-json.json");
    let q = "query=what+leeway+does+jsonwebtoken+allow+when+checking+a+token&mode=summarize&streaming=false&site=guides";
    elsewhere["rawQueryString"] = json!(q);
    elsewhere["queryStringParameters"] = json!({"query": "what leeway does jsonwebtoken allow when checking a token", "mode": "summarize", "streaming": "false", "site": "guides"});
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
        (
            "/mcp tools/call search",
            mcp(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"how do I configure the rate limit"}}}"#.into()),
        ),
        (
            "/mcp tools/call fetch, the largest page (api)",
            mcp(fetch_api.into()),
        ),
        (
            "/mcp batch of 10 tools/call fetch of the largest page",
            mcp(batch(10, fetch_api)),
        ),
        ("GET /pages/api.md, the largest page", get("/pages/api.md")),
        ("GET /llms-full.txt, every page", get("/llms-full.txt")),
        (
            "/ask of a site that does not answer (summarize; every page asked too)",
            elsewhere,
        ),
    ];
    println!(
        "| request | status | tokens | CPU µs | CPU µs a token | × typical | bytes | bytes a token |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut typical = 0.0;
    for (what, v) in cases {
        let req = nlweb_ask::event::request_from_str(&v.to_string()).unwrap();
        // Tokens: a fresh bucket, one request, what RateLimit says is left.
        let asks_a_site = what.starts_with("/ask of a site");
        let s = if asks_a_site {
            state_of(&[], &sites)
        } else {
            state()
        };
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
        if asks_a_site {
            let body = String::from_utf8_lossy(first.body().as_ref());
            assert!(body.contains(r#""other_sites":["reference"]"#), "{body}");
        }
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
    deadline_row(tools_call, typical);
}

/// A batch of 10 `generate` calls to a model that never answers (its own
/// timeout the longest allowed, 8 s), in an invocation with 2.2 s left:
/// the request's deadline (0.7 s away) ends the first call, and the other
/// nine are not started. CPU time as above, and the wall time and model
/// calls a request.
fn deadline_row(tools_call: &str, typical: f64) {
    use aws_sdk_bedrockruntime::config::{BehaviorVersion, Credentials, Region};
    use lambda_http::RequestExt;
    let never = aws_smithy_http_client::test_util::NeverClient::new();
    let sdk = aws_sdk_bedrockruntime::config::Builder::new()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new(
            "AKIDTEST",
            "test-secret",
            None,
            None,
            "bench",
        ))
        .http_client(never.clone());
    let config = nlweb_ask::generate::BedrockConfig {
        model_id: "amazon.nova-micro-v1:0".into(),
        region: None,
        max_tokens: 500,
        timeout: std::time::Duration::from_millis(nlweb_ask::config::MAX_GENERATOR_TIMEOUT_MS),
    };
    let s = state_env(&[
        ("ASK_GENERATOR", "bedrock"),
        ("ASK_BEDROCK_MODEL_ID", "amazon.nova-micro-v1:0"),
        ("ASK_CORS_ALLOW_ORIGINS", "https://docs.example.com"),
    ])
    .with_generator(Box::new(nlweb_ask::generate::Bedrock::new(config, sdk)));
    let body = batch(10, &tools_call.replace("summarize", "generate"));
    let request = || {
        let mut ctx = lambda_http::Context::default();
        ctx.deadline = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
            + 2_200;
        nlweb_ask::event::request_from_str(&mcp(body.clone()).to_string())
            .unwrap()
            .with_lambda_context(ctx)
    };
    let runs = 5;
    let (start, wall) = (cpu_ns(), std::time::Instant::now());
    let mut last = None;
    for _ in 0..runs {
        last = Some(respond(&s, &request()));
    }
    let us = (cpu_ns() - start) as f64 / runs as f64 / 1e3;
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3 / runs as f64;
    let last = last.unwrap();
    let bytes = last.body().as_ref().len();
    let v: Value = serde_json::from_slice(last.body().as_ref()).unwrap();
    let not_started = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["error"]["code"] == -32004)
        .count();
    println!(
        "| /mcp batch of 10 tools/call generate, a model that never answers, 2.2 s of the invocation left | {} | 10 | {us:.0} | {:.0} | {:.1} | {bytes} | {} |",
        last.status().as_u16(),
        us / 10.0,
        us / 10.0 / typical,
        bytes / 10
    );
    println!(
        "\nThat batch: {wall_ms:.0} ms of wall time a request (its deadline, 0.7 s away), {} model calls started a request, {not_started} of 10 calls not started (JSON-RPC -32004); without the deadline, 10 calls of up to 8 s each.",
        never.num_calls() / runs
    );
}
