//! `build-index report`: an export read from a file or stdin, the page and the JSON written.

use std::io::Write;
use std::process::Stdio;

use crate::{bin, run, tmp};

/// `build-index report` reads an export from a file or stdin (a line cut
/// short and the function's other log lines are counted and skipped) and
/// writes the Markdown page and the JSON.
#[test]
fn report_reads_an_export_and_writes_markdown_and_json() {
    let line = |id: &str, q: &str, answered: bool| {
        serde_json::json!({
            "_aws": {"Timestamp": 1_764_867_600_000u64, "CloudWatchMetrics": []},
            "event": "query", "function": "f", "route": "/ask", "client": "mcp",
            "client_name": "claude-code", "query_id": id, "mode": "list", "streaming": false,
            "results": 0, "answered": answered, "failure": "NO_RESULTS", "top_urls": [],
            "latency_ms": 0.5, "cold_start": false, "question": q, "missing": [],
            "requests": 1, "unanswered": u32::from(!answered),
        })
        .to_string()
    };
    let rating = serde_json::json!({
        "_aws": {"Timestamp": 1_764_867_601_000u64, "CloudWatchMetrics": []},
        "event": "feedback", "function": "f", "client": "widget", "query_id": "b",
        "rating": "down", "comment": "nothing on cancelling", "feedback_up": 0, "feedback_down": 1,
    });
    // `sam logs --output json` wraps each line.
    let wrapped =
        serde_json::json!({"timestamp": 1, "message": line("b", "cancelling runs", false)});
    let log = format!(
        "{}\n{wrapped}\nINFO answered query_id=b\n{rating}\n{{\"_aws\":{{\"Timest\n",
        line("a", "how do I cancel a run", false)
    );
    let dir = tmp("report");
    let file = dir.join("export.jsonl");
    std::fs::write(&file, &log).unwrap();
    let (md, json) = (dir.join("report.md"), dir.join("report.json"));
    run(bin()
        .arg("report")
        .arg(&file)
        .arg("--out")
        .arg(&md)
        .arg("--json")
        .arg(&json));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["questions"], 2);
    assert_eq!(report["answered"], 0);
    assert_eq!(report["other_lines"], 1);
    assert_eq!(report["malformed_lines"], 1);
    // One group: "cancel a run" and "cancelling runs" share their words.
    assert_eq!(report["unanswered"].as_array().unwrap().len(), 1);
    assert_eq!(report["unanswered"][0]["count"], 2);
    assert_eq!(report["unanswered"][0]["no_results"], 2);
    assert_eq!(
        report["down_rated"][0]["comments"][0],
        "nothing on cancelling"
    );
    assert_eq!(report["clients"][0]["names"][0][0], "claude-code");
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("### 1. cancel run — 2 questions (2 with no result)"),
        "{text}"
    );
    // The same from stdin, the page on stdout.
    let mut child = bin()
        .arg("report")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(log.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 other and 1 malformed lines"));
}
