//! The analytics lines (`nlweb_ask::analytics`, docs/content/docs/analytics.mdx)
//! of saved events replayed through the real handler: one query line a
//! question on `/ask` and MCP `tools/call`, a feedback line a rating, a
//! throttled line a 429; each a valid Embedded Metric Format record; never
//! the client's address; the reader's words only with `ask.log_queries`.
//! And the template's dashboard reads only metrics the lines carry.

mod support;
#[path = "support/state.rs"]
mod test_state;

use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::Value;
use support::docs::{docs_index, repo};

fn state(extra: &[(&str, &str)]) -> State {
    let env = support::docs::events_env();
    let mut pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    pairs.extend_from_slice(extra);
    test_state::state(docs_index(), &pairs)
}

fn event(name: &str) -> (String, lambda_http::Request) {
    let text = std::fs::read_to_string(repo().join("events").join(name)).unwrap();
    let req = lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (text, req)
}

/// The addresses an event carries (its source IP, `X-Forwarded-For`).
fn addresses(event: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(event).unwrap();
    let mut out = Vec::new();
    if let Some(ip) = v
        .pointer("/requestContext/http/sourceIp")
        .and_then(Value::as_str)
    {
        out.push(ip.to_string());
    }
    if let Some(xff) = v
        .pointer("/headers/x-forwarded-for")
        .and_then(Value::as_str)
    {
        out.extend(xff.split(',').map(|s| s.trim().to_string()));
    }
    assert!(!out.is_empty(), "the event has an address");
    out
}

/// Each event's lines, parsed; every line checked as an EMF record and
/// for the event's addresses.
fn replay(state: &State, names: &[&str]) -> Vec<Vec<Value>> {
    let mut seen = 0;
    names
        .iter()
        .map(|name| {
            let (text, _) = event(name);
            let text = test_state::rateable(state, &text);
            respond(
                state,
                &lambda_http::request::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}")),
            );
            let lines = state.analytics.lines();
            let new: Vec<Value> = lines[seen..]
                .iter()
                .map(|l| {
                    for ip in addresses(&text) {
                        assert!(!l.contains(&ip), "{name}: the address {ip} in {l}");
                    }
                    assert!(!l.contains('\n'), "one line");
                    let v: Value = serde_json::from_str(l).unwrap();
                    check_emf(&v);
                    v
                })
                .collect();
            seen = lines.len();
            new
        })
        .collect()
}

/// An Embedded Metric Format record: `_aws.Timestamp` in milliseconds,
/// one directive in the `nlweb-ask` namespace whose metrics are numbers
/// and whose dimensions are strings, all members of the line.
fn check_emf(line: &Value) {
    let aws = &line["_aws"];
    assert!(
        aws["Timestamp"].as_u64().unwrap() > 1_700_000_000_000,
        "{line}"
    );
    let d = &aws["CloudWatchMetrics"][0];
    assert_eq!(d["Namespace"], "nlweb-ask");
    for set in d["Dimensions"].as_array().unwrap() {
        for dim in set.as_array().unwrap() {
            let dim = dim.as_str().unwrap();
            assert!(line[dim].is_string(), "dimension {dim} in {line}");
        }
    }
    let metrics = d["Metrics"].as_array().unwrap();
    assert!(!metrics.is_empty());
    for m in metrics {
        let name = m["Name"].as_str().unwrap();
        assert!(line[name].is_number(), "metric {name} in {line}");
        assert!(["Count", "Milliseconds"].contains(&m["Unit"].as_str().unwrap()));
    }
}

const WORDS: [&str; 3] = ["question", "missing", "comment"];

#[test]
fn each_question_and_rating_is_one_line_without_the_address_or_the_words() {
    let state = state(&[]);
    let lines = replay(
        &state,
        &[
            "http-get-json.json",
            "http-get-no-results.json",
            "http-get-not-answered.json",
            "http-post-mcp-2026-tools-call.json",
            "http-post-mcp-tools-call.json",
            "http-post-ask-feedback.json",
            "http-post-ask-feedback-bad-rating.json",
            "http-post-ask-feedback-forged.json",
            "http-get-sites.json",
        ],
    );
    let counts: Vec<usize> = lines.iter().map(Vec::len).collect();
    // A question each, a rating, then nothing for a bad rating, a rating
    // of an id never issued, or /sites.
    assert_eq!(counts, [1, 1, 1, 1, 1, 1, 0, 0, 0]);
    for l in lines.iter().flatten() {
        for w in WORDS {
            assert!(l.get(w).is_none(), "{w} without ask.log_queries: {l}");
        }
    }
    let answered = &lines[0][0];
    assert_eq!(answered["event"], "query");
    assert_eq!(answered["route"], "/ask");
    assert_eq!(answered["client"], "http");
    assert_eq!(answered["answered"], true);
    assert_eq!(answered["unanswered"], 0);
    assert_eq!(answered["requests"], 1);
    assert!(answered["results"].as_u64().unwrap() >= 1);
    assert!(answered["confidence"].as_f64().unwrap() >= 0.55);
    let urls = answered["top_urls"].as_array().unwrap();
    assert!(!urls.is_empty() && urls.len() <= 3);
    assert!(urls[0].as_str().unwrap().starts_with("https://"));
    assert!(answered["request_id"].is_string());
    assert!(answered["query_id"].is_string());
    assert_eq!(answered["cold_start"], true, "the first request");
    assert!(answered["latency_ms"].as_f64().unwrap() >= 0.0);

    let none = &lines[1][0];
    assert_eq!(none["answered"], false);
    assert_eq!(none["unanswered"], 1);
    assert_eq!(none["failure"], "NO_RESULTS");
    assert_eq!(none["results"], 0);
    assert_eq!(none["cold_start"], false);

    // Sections found, but the docs do not seem to answer: the closest
    // pages are kept.
    let weak = &lines[2][0];
    assert_eq!(weak["answered"], false);
    assert_eq!(weak["unanswered"], 1);
    assert!(weak.get("failure").is_none());
    assert!(!weak["top_urls"].as_array().unwrap().is_empty());

    let modern = &lines[3][0];
    assert_eq!(modern["route"], "/mcp");
    assert_eq!(modern["client"], "mcp");
    assert_eq!(modern["client_name"], "mcp", "2026-07-28's clientInfo");
    let handshake = &lines[4][0];
    assert_eq!(handshake["client"], "mcp");
    assert!(handshake.get("client_name").is_none());

    let rating = &lines[5][0];
    assert_eq!(rating["event"], "feedback");
    assert_eq!(rating["client"], "widget");
    assert_eq!(rating["rating"], "down");
    let id = rating["query_id"].as_str().unwrap();
    assert_eq!(
        state
            .query_ids
            .verify(id, nlweb_ask::query_id::now())
            .map(|_| ()),
        Ok(())
    );
    assert_eq!(
        (&rating["feedback_up"], &rating["feedback_down"]),
        (&0.into(), &1.into())
    );
}

#[test]
fn with_log_queries_the_lines_carry_the_words_but_never_the_address() {
    let state = state(&[("ASK_LOG_QUERIES", "true")]);
    let lines = replay(
        &state,
        &[
            "http-get-no-results.json",
            "http-get-not-answered.json",
            "http-post-ask-feedback.json",
        ],
    );
    let none = &lines[0][0];
    assert_eq!(none["question"], "zzqxv blorptangle");
    let weak = &lines[1][0];
    assert!(weak["question"].as_str().is_some_and(|q| !q.is_empty()));
    assert!(
        !weak["missing"].as_array().unwrap().is_empty(),
        "the words the docs lack: {weak}"
    );
    assert_eq!(
        lines[2][0]["comment"],
        "It did not say how to rotate the API key"
    );
}

#[test]
fn a_429_is_a_throttled_line_for_its_route() {
    let state = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1")]);
    let lines = replay(
        &state,
        &[
            "http-get-json.json",
            "http-get-json.json",
            "http-post-ask-feedback.json",
            "http-post-ask-feedback.json",
        ],
    );
    assert_eq!(lines[0][0]["event"], "query");
    let throttled = &lines[1][0];
    assert_eq!(throttled["event"], "throttled");
    assert_eq!(throttled["route"], "/ask");
    assert_eq!(throttled["throttled"], 1);
    // Ratings spend tokens too: a refused one is not recorded.
    assert_eq!(lines[2][0]["event"], "feedback");
    assert_eq!(lines[3].len(), 1);
    assert_eq!(lines[3][0]["event"], "throttled");
    assert_eq!(lines[3][0]["route"], "/ask/feedback");
}

/// The dashboard's metrics, as the template names them: `["nlweb-ask",
/// metric, "function", …, dimension, …]`, and the metric of its SEARCH.
fn dashboard_metrics(template: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for piece in template.split("[\"nlweb-ask\", ").skip(1) {
        let row = &piece[..piece.find(']').unwrap()];
        let strings: Vec<String> = row
            .split(", ")
            .map_while(|s| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
            .map(str::to_string)
            .collect();
        let dims = strings[1..].iter().step_by(2).cloned().collect();
        out.push((strings[0].clone(), dims));
    }
    for piece in template.split("{\\\"nlweb-ask\\\",").skip(1) {
        let dims = piece[..piece.find('}').unwrap()]
            .split(',')
            .map(str::to_string)
            .collect();
        let metric = piece.split("MetricName=\\\"").nth(1).unwrap();
        out.push((metric[..metric.find('\\').unwrap()].to_string(), dims));
    }
    out
}

#[test]
fn the_dashboard_reads_only_metrics_the_lines_carry() {
    let state = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1")]);
    let lines = replay(
        &state,
        &[
            "http-get-json.json",
            "http-get-json.json",
            "http-post-ask-feedback.json",
        ],
    );
    let state = self::state(&[]);
    let more = replay(&state, &["http-post-ask-feedback.json"]);
    // (metric, dimension set) of every directive written.
    let mut written: Vec<(String, Vec<String>)> = Vec::new();
    for l in lines.iter().chain(&more).flatten() {
        let d = &l["_aws"]["CloudWatchMetrics"][0];
        for m in d["Metrics"].as_array().unwrap() {
            for set in d["Dimensions"].as_array().unwrap() {
                let dims = set
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect();
                written.push((m["Name"].as_str().unwrap().to_string(), dims));
            }
        }
    }
    let template = std::fs::read_to_string(repo().join("template.yaml")).unwrap();
    // The dimension values it names: routes that write questions, and the
    // client kinds.
    use nlweb_ask::protocol::analytics::ClientKind;
    for piece in template.split("[\"nlweb-ask\", ").skip(1) {
        let row = &piece[..piece.find(']').unwrap()];
        let strings: Vec<&str> = row
            .split(", ")
            .map_while(|s| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
            .collect();
        for pair in strings[1..].chunks(2) {
            match pair {
                ["route", v] => assert!(["/ask", "/mcp"].contains(v), "route {v}"),
                ["client", v] => assert!(
                    [ClientKind::Widget, ClientKind::Mcp, ClientKind::Http]
                        .iter()
                        .any(|k| k.as_str() == *v),
                    "client {v}"
                ),
                ["function", v] => assert_eq!(*v, "${Fn}"),
                other => panic!("dimension {other:?}"),
            }
        }
    }
    let read = dashboard_metrics(&template);
    assert!(read.len() >= 10, "{read:?}");
    for metric in &read {
        assert!(
            written.contains(metric),
            "the dashboard reads {metric:?}, which no line writes: {written:?}"
        );
    }
    for metric in [
        "requests",
        "unanswered",
        "latency_ms",
        "throttled",
        "feedback_down",
    ] {
        assert!(
            read.iter().any(|(m, _)| m == metric),
            "{metric} on the dashboard"
        );
    }
}

/// A saved event, changed by `f` (its JSON), as a request.
fn changed(name: &str, f: impl FnOnce(&mut Value)) -> lambda_http::Request {
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("events").join(name)).unwrap())
            .unwrap();
    f(&mut v);
    lambda_http::request::from_str(&v.to_string()).unwrap()
}

#[test]
fn a_rating_must_be_json_name_an_id_and_keeps_only_a_name_of_the_client() {
    let state = state(&[("ASK_LOG_QUERIES", "true")]);
    let rate = |f: &dyn Fn(&mut Value)| {
        let before = state.analytics.lines().len();
        let r = respond(
            &state,
            &changed("http-post-ask-feedback.json", |v| {
                let body = v["body"].as_str().unwrap();
                v["body"] = test_state::rateable(&state, body).into();
                f(v)
            }),
        );
        let new = state.analytics.lines()[before..].to_vec();
        (r.status().as_u16(), new)
    };
    // A form or text/plain post, which needs no preflight: refused.
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ] {
        let (status, lines) = rate(&|v| v["headers"]["content-type"] = ct.into());
        assert_eq!((status, lines.len()), (415, 0), "{ct}");
    }
    let (status, _) =
        rate(&|v| v["headers"]["content-type"] = "application/json; charset=utf-8".into());
    assert_eq!(status, 204);
    // An id /ask would never have given, or one it did not give: a
    // client's own, a forged one.
    let forged = format!("{}0", &test_state::SAVED_RATED_ID[..57]);
    for id in [
        "",
        "a b",
        "<script>",
        "\u{202e}abc",
        &"x".repeat(65),
        "q-1",
        test_state::SAVED_RATED_ID,
        &forged,
    ] {
        let body = serde_json::json!({"query_id": id, "rating": "up"}).to_string();
        let (status, lines) = rate(&|v| v["body"] = body.clone().into());
        assert_eq!((status, lines.len()), (400, 0), "{id:?}");
    }
    // A client's name is a name: no free text in the line.
    let (status, lines) = rate(&|v| v["headers"]["x-ask-client"] = "My Docs <b>site</b>".into());
    assert_eq!(status, 204);
    let line: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(line["client"], "http");
    // The same answer rated the same way again: answered alike, counted
    // once; rated the other way: counted.
    let id = state.new_query_id();
    for (rating, counted) in [("up", 1), ("up", 0), ("down", 1), ("down", 0)] {
        let body = serde_json::json!({"query_id": id, "rating": rating}).to_string();
        let (status, lines) = rate(&|v| v["body"] = body.clone().into());
        assert_eq!((status, lines.len()), (204, counted), "{rating}");
    }
    let (_, lines) = {
        let before = state.analytics.lines().len();
        let r = respond(
            &state,
            &changed("http-get-json.json", |v| {
                v["headers"]["x-ask-client"] = "My Docs <b>site</b>".into()
            }),
        );
        (r.status(), state.analytics.lines()[before..].to_vec())
    };
    let line: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(line["client_name"], "My-Docs-bsiteb");
}

#[test]
fn a_later_page_and_who_write_their_lines_and_an_unknown_site_is_no_gap() {
    let state = state(&[]);
    let lines = replay(
        &state,
        &[
            "http-get-page-2.json",
            "http-post-unknown-site.json",
            "http-get-who.json",
        ],
    );
    assert_eq!(lines[0].len(), 1, "{:?}", lines[0]);
    assert!(
        lines[0][0]["start_num"].as_u64().unwrap() > 0,
        "a later page says so: {}",
        lines[0][0]
    );
    assert_eq!(lines[1][0]["failure"], "UNKNOWN_SITE");
    assert_eq!(lines[2].len(), 1, "{:?}", lines[2]);
    assert_eq!(lines[2][0]["route"], "/who");
}
