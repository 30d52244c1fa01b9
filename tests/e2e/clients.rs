//! The official MCP clients (Python and TypeScript) and the reference models against the binary.

use crate::{run_client, run_with, serve_docs};

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
