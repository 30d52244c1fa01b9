//! The `<nlweb-ask>` widget in headless Chromium against the binary.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::docs;
use crate::support::http::{free_port, wait_for_port};
use crate::support::sites::{GUIDES_AND_REFERENCE as SITES, docs_index_with_sites};
use crate::{Proc, ask, emulator, get, run_with, serve_docs_logging};

/// The `<nlweb-ask>` widget in Debian's headless Chromium, driven over the
/// DevTools protocol (tests/clients/widget_browser.mjs): the demo page
/// (widget/demo.html, served on its own origin as a docs site would, with
/// the component /ask/widget.js serves) asks the release binary; the bundled
/// docs' index has one site, so no site picker shows and no `site` is sent;
/// a question typed with the keyboard gets its summary, citation links and
/// sources, and is rated down (the binary logs the rating, from the
/// widget); then NO_RESULTS, and the 429 of an empty bucket (6 requests a
/// minute: each page's /sites may spend one). The answered page is written
/// to target/tmp/widget-answer.png.
#[test]
fn the_widget_answers_fails_and_waits_in_headless_chromium() {
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("widget-ask.log");
    let (_emu, binary, port) =
        serve_docs_logging("widget", &[("ASK_RATE_LIMIT_PER_MINUTE", "6")], Some(&log));
    let (_site, demo_port) = demo_site();
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
    drop(binary);
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

/// The widget over an index divided into sites ([`SITES`]), in headless
/// Chromium (tests/clients/widget_browser.mjs `sites`): `/sites` lists
/// both in order, the guides the default; the widget's picker, labelled
/// "Docs", lists them and "All" and starts on the guides; with the
/// reference picked, a question sends `site=reference` and every source
/// is a reference page; the next page starts on the reference, a `site`
/// attribute comes before it, and with no `/sites` to read there is no
/// picker.
#[test]
fn the_widget_picks_and_remembers_a_site_in_headless_chromium() {
    let index =
        std::env::temp_dir().join(format!("ask-e2e-widget-sites-{}.idx", std::process::id()));
    std::fs::write(&index, docs_index_with_sites("widget", SITES)).unwrap();
    let (_emu, port) = emulator();
    let _ask = ask(
        port,
        &[
            ("ASK_ENABLED", "true".to_string()),
            ("ASK_INDEX", index.display().to_string()),
        ],
    );
    let r = get(port, "/sites", &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    let names: Vec<&str> = SITES.iter().map(|s| s.name).collect();
    assert_eq!(doc["sites"], json!(names), "{doc}");
    let details = doc["details"].as_array().unwrap();
    assert_eq!(details.len(), SITES.len(), "{doc}");
    for (detail, site) in details.iter().zip(SITES) {
        assert_eq!(detail["site"], site.name, "{detail}");
        assert_eq!(detail["description"], site.description, "{detail}");
        assert_eq!(
            detail["default"].as_bool() == Some(true),
            site.default,
            "{detail}"
        );
    }
    let (_site, demo_port) = demo_site();
    let spec = json!({
        "sites": SITES
            .iter()
            .map(|s| json!({"site": s.name, "description": s.description, "default": s.default}))
            .collect::<Vec<_>>(),
        "pick": "reference",
        "pages": r"^https://nlweb-ask\.example\.com/docs/(api|configuration)(#|$)",
        "question": "how do I configure the rate limit",
    });
    run_with(
        &["node", "--experimental-websocket"],
        "widget_browser.mjs",
        &[
            "sites".to_string(),
            format!(
                "http://127.0.0.1:{demo_port}/demo.html?api=http://127.0.0.1:{port}/lambda-url/_"
            ),
            spec.to_string(),
        ],
        "widget sites in chromium: ok",
    );
    std::fs::remove_file(&index).unwrap();
}

/// The demo page's folder (widget/) served on a port of its own, as a docs
/// site would serve it.
fn demo_site() -> (Proc, u16) {
    let port = free_port();
    let server = Proc(
        Command::new("python3")
            .args([
                "-m",
                "http.server",
                &port.to_string(),
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
    wait_for_port(port, "the demo page's server");
    (server, port)
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
