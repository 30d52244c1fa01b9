//! End to end: the release `ask` binary under `cargo lambda watch`
//! (`--only-lambda-apis`: cargo-lambda's Runtime API and function-URL
//! emulator, with our already-built binary attached), its index fetched at
//! cold start from a real S3-protocol server (moto) on loopback, spoken to
//! over HTTP. Needs `cargo lambda` and `moto_server` on PATH
//! (`scripts/prereqs.sh`).

#[path = "../support/mod.rs"]
mod support;

mod bedrock;
mod boundary;
mod clients;
mod conformance;
mod hybrid;
mod quickstart;
mod report;
mod saved_events;
mod serving;
mod widget;

use std::process::{Child, Command, Stdio};

use support::docs;
use support::http::{self, free_port, wait_for_port};

pub(crate) struct Proc(pub(crate) Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `cargo lambda watch --only-lambda-apis` on a free port.
pub(crate) fn emulator() -> (Proc, u16) {
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
pub(crate) fn ask(port: u16, env: &[(&str, String)]) -> Proc {
    ask_logging(port, env, None)
}

/// The same, its standard output (the log, analytics lines among it)
/// written to `log`.
pub(crate) fn ask_logging(
    port: u16,
    env: &[(&str, String)],
    log: Option<&std::path::Path>,
) -> Proc {
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
pub(crate) fn post(port: u16, body: &[u8]) -> http::Response {
    http::request(
        port,
        "POST",
        "/lambda-url/_/ask",
        &[("content-type", "application/json")],
        body,
    )
    .unwrap()
}

pub(crate) fn get(port: u16, path_and_query: &str, headers: &[(&str, &str)]) -> http::Response {
    http::request(
        port,
        "GET",
        &format!("/lambda-url/_{path_and_query}"),
        headers,
        b"",
    )
    .unwrap()
}

/// The release `ask` binary under the emulator, enabled, with the index of
/// the bundled docs in a file named after `name`, plus `extra` settings.
/// Returns both processes (kept alive while held) and the port.
pub(crate) fn serve_docs(name: &str, extra: &[(&str, &str)]) -> (Proc, Proc, u16) {
    serve_docs_logging(name, extra, None)
}

/// [`serve_docs`], the binary's standard output written to `log`.
pub(crate) fn serve_docs_logging(
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
pub(crate) fn run_client(script: &str, args: &[String], expect: &str) {
    run_with(&["python3"], script, args, expect)
}

/// Runs `tests/clients/<script>` with `program` (python3, or node and its
/// flags) and checks that it succeeds and prints `expect`.
pub(crate) fn run_with(program: &[&str], script: &str, args: &[String], expect: &str) {
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

/// A POST to `path` on the binary with `headers` (no `Content-Type` unless
/// they give one).
pub(crate) fn post_raw(
    port: u16,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> http::Response {
    http::request(
        port,
        "POST",
        &format!("/lambda-url/_{path}"),
        headers,
        body.as_bytes(),
    )
    .unwrap()
}
