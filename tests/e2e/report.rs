//! The analytics report over the log of a few hundred mixed requests to the binary.

use serde_json::Value;

use crate::support::{docs, http, sse};
use crate::{get, post, serve_docs_logging};

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

/// What an answer said: (question, query_id, answered).
type Asked = (String, String, bool);

/// An unanswerable question sent: (topic, question, times).
type Sent = (&'static str, &'static str, usize);

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
    let golden = golden_questions();
    let mut asked: Vec<Asked> = Vec::new();
    let mut requests = ask_golden(port, &golden, &mut asked);
    let (sent, sent_requests) = ask_unanswerable(port, &mut asked);
    requests += sent_requests;
    // Ratings: the first ten answered questions up, the next five down
    // (with a comment), and two unanswered ones down.
    let answered: Vec<&Asked> = asked.iter().filter(|a| a.2).collect();
    let unanswered: Vec<&Asked> = asked.iter().filter(|a| !a.2).collect();
    let (down, rated_requests) = rate(port, &answered, &unanswered);
    requests += rated_requests;
    assert!(requests >= 250, "{requests} requests");
    drop(ask);

    // The report, from the binary's log.
    let (report, md) = build_report(tmp, std::slice::from_ref(&log));
    let questions = asked.len();
    assert_eq!(report["questions"], questions, "one line a question");
    assert_eq!(report["answered"], answered.len());
    assert_eq!(report["malformed_lines"], 0);
    check_unanswered_groups(&report, &sent, unanswered.len());
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

/// The golden questions the docs answer.
fn golden_questions() -> Vec<String> {
    std::fs::read_to_string(docs::repo().join("tests/golden/nlweb-ask-docs.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|q| q["unanswerable"] != true)
        .map(|q| q["q"].as_str().unwrap().to_string())
        .collect()
}

/// A question as a query-string value.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b' ' => "+".into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// What an answer document said about question `q`.
fn said(q: &str, doc: &Value) -> Asked {
    let answered = doc["_meta"]["answer_confidence"]["answered"] == true;
    (
        q.to_string(),
        doc["query_id"].as_str().unwrap().to_string(),
        answered,
    )
}

/// `q` asked over MCP (`tools/call ask`, list mode), in the 2026-07-28
/// regime if `modern`: the result's structured content.
fn mcp(port: u16, q: &str, modern: bool, id: usize) -> Value {
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
    let r = http::request(port, "POST", "/lambda-url/_/mcp", &headers, body.as_bytes()).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let msg: Value = serde_json::from_str(&r.text()).unwrap();
    msg["result"]["structuredContent"].clone()
}

/// Each golden question over GET, POST SSE from the widget, the legacy
/// POST, and every third over MCP; what each answer said pushed on
/// `asked`. Returns the number of requests.
fn ask_golden(port: u16, golden: &[String], asked: &mut Vec<Asked>) -> usize {
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
            asked.push(said(q, &mcp(port, q, i % 2 == 0, i)));
            requests += 1;
        }
        requests += 3;
    }
    requests
}

/// The [`UNANSWERABLE`] questions, each as often as its count, over GET,
/// POST and MCP in turn; none may be answered. Returns what was sent
/// (topic, question, times) and the number of requests.
fn ask_unanswerable(port: u16, asked: &mut Vec<Asked>) -> (Vec<Sent>, usize) {
    let mut requests = 0;
    let mut sent: Vec<Sent> = Vec::new();
    let mut n = 0;
    for (topic, questions) in UNANSWERABLE {
        for (q, times) in questions {
            for _ in 0..*times {
                n += 1;
                let doc = match n % 3 {
                    0 => mcp(port, q, n % 2 == 0, 1000 + n),
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
    (sent, requests)
}

/// The first ten answered questions rated up, the next five down (with a
/// comment), and two unanswered ones down, from the widget. Returns the
/// questions rated down and the number of requests.
fn rate(port: u16, answered: &[&Asked], unanswered: &[&Asked]) -> (Vec<String>, usize) {
    let mut requests = 0;
    let mut down: Vec<String> = Vec::new();
    for (k, (q, id, _)) in answered
        .iter()
        .take(15)
        .chain(unanswered.iter().take(2))
        .enumerate()
    {
        let rating = if k < 10 { "up" } else { "down" };
        if rating == "down" {
            down.push(q.clone());
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
    (down, requests)
}

/// The report of the binary's `logs`, written under `tmp`: the JSON
/// report and the Markdown one's path.
fn build_report(tmp: &std::path::Path, logs: &[std::path::PathBuf]) -> (Value, std::path::PathBuf) {
    let index = tmp.join("analytics.idx");
    std::fs::write(&index, docs::docs_index_bytes()).unwrap();
    let (md, json) = (
        tmp.join("analytics-report.md"),
        tmp.join("analytics-report.json"),
    );
    // What `build-index report LOG --index IDX --out MD --json JSON` runs.
    build_index::report::run(logs, Some(&index), Some(&md), Some(&json)).unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, md)
}

/// Each topic sent is one group, with its count and most asked examples;
/// every unanswered question is in some group, once.
fn check_unanswered_groups(report: &Value, sent: &[Sent], unanswered: usize) {
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
    assert_eq!(grouped as usize, unanswered);
}
