//! The `<nlweb-ask>` widget in headless Chromium against the binary.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::docs;
use crate::support::http::{free_port, wait_for_port};
use crate::{Proc, run_with, serve_docs_logging};

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
