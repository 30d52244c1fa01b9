//! Streaming responses: checklist items 33–42.

use nlweb_ask::state::State;
use serde_json::{Value, json};

use crate::support::sse::{self, Event};
use crate::{
    NO_MATCH, VERSION, answer_doc, call, get, names, post, results, saved, state, streamed_items,
    v055,
};

/// Streams of answers over the three modes and the request shapes.
fn answer_streams(st: &State) -> Vec<(String, Vec<Event>, String)> {
    let mut out = Vec::new();
    for mode in ["list", "summarize", "generate"] {
        let r = call(
            st,
            &post(&v055(
                "how do I build the index",
                json!({"mode": mode, "streaming": true}),
            )),
        );
        assert_eq!(r.status, 200);
        out.push((format!("v055 {mode}"), r.events(), r.body.clone()));
        let r = call(st, &get(&[("query", "rate limit"), ("mode", mode)]));
        out.push((format!("GET {mode}"), r.events(), r.body.clone()));
    }
    for file in [
        "http-get-sse.json",
        "rest-get-sse.json",
        "http-post-generate-sse.json",
        "functionurl-post-v055-sse.json",
    ] {
        let r = call(st, &saved(file));
        out.push((file.to_string(), r.events(), r.body.clone()));
    }
    out
}

#[test]
fn item_33_first_event_is_start_with_meta() {
    for (label, events, _) in answer_streams(&state()) {
        let start = &events[0];
        assert_eq!(start.name, "start", "{label}");
        assert_eq!(start.data["_meta"]["response_type"], "answer", "{label}");
        assert_eq!(start.data["_meta"]["version"], VERSION, "{label}");
        assert_eq!(start.data["_meta"]["streaming"], true, "{label}");
        assert_eq!(
            names(&events).iter().filter(|n| **n == "start").count(),
            1,
            "{label}"
        );
    }
}

#[test]
fn item_34_items_are_result_events_with_index_and_item() {
    for (label, events, _) in answer_streams(&state()) {
        let results: Vec<&Event> = events.iter().filter(|e| e.name == "result").collect();
        assert!(!results.is_empty(), "{label}");
        for e in &results {
            assert!(e.data["index"].is_u64(), "{label}: {}", e.data);
            assert!(e.data["item"].is_object(), "{label}");
            assert!(e.data["item"]["@type"].is_string(), "{label}");
        }
        // Only the three answer event names occur.
        for n in names(&events) {
            assert!(["start", "result", "complete"].contains(&n), "{label}: {n}");
        }
        assert_eq!(events.len(), results.len() + 2, "{label}");
    }
}

#[test]
fn item_35_result_indexes_are_unique() {
    for (label, events, _) in answer_streams(&state()) {
        let mut idx: Vec<u64> = events
            .iter()
            .filter(|e| e.name == "result")
            .map(|e| e.data["index"].as_u64().unwrap())
            .collect();
        let n = idx.len();
        idx.sort_unstable();
        idx.dedup();
        assert_eq!(idx.len(), n, "{label}: repeated index");
        // api.mdx, Server-Sent Events: `index` counts events in arrival order.
        assert_eq!(idx, (0..n as u64).collect::<Vec<_>>(), "{label}");
        sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{label}: {e}"));
    }
}

#[test]
fn item_36_exactly_one_complete_and_it_is_last() {
    for (label, events, raw) in answer_streams(&state()) {
        assert_eq!(
            names(&events).iter().filter(|n| **n == "complete").count(),
            1,
            "{label}"
        );
        assert_eq!(events.last().unwrap().name, "complete", "{label}");
        // Nothing at all follows it on the wire.
        let at = raw.find("event: complete\n").expect("complete on the wire");
        let tail = &raw[at..];
        let end = tail.find("\n\n").expect("complete ends with a blank line");
        assert_eq!(&tail[end + 2..], "", "{label}: bytes after complete");
    }
}

#[test]
fn item_37_complete_carries_full_meta_and_session_context() {
    for (label, events, _) in answer_streams(&state()) {
        let c = &events.last().unwrap().data;
        assert_eq!(c["_meta"]["response_type"], "answer", "{label}");
        assert_eq!(c["_meta"]["version"], VERSION, "{label}");
        assert!(c["_meta"]["session_context"].is_object(), "{label}: {c}");
        assert_eq!(
            c["total_items"].as_u64(),
            Some(streamed_items(&events).len() as u64),
            "{label}"
        );
    }
}

#[test]
fn item_38_each_data_is_one_line_of_json_and_events_end_with_a_blank_line() {
    let st = state();
    let mut bodies: Vec<(String, String)> = answer_streams(&st)
        .into_iter()
        .map(|(l, _, raw)| (l, raw))
        .collect();
    let r = call(&st, &post(&v055(NO_MATCH, json!({"streaming": true}))));
    bodies.push(("no-match".into(), r.body));
    for (label, raw) in bodies {
        assert!(!raw.contains('\r'), "{label}");
        assert!(
            raw.ends_with("\n\n"),
            "{label}: no blank line after the last event"
        );
        let blocks: Vec<&str> = raw[..raw.len() - 2].split("\n\n").collect();
        assert!(blocks.len() >= 3, "{label}");
        for block in blocks {
            assert!(!block.is_empty(), "{label}: an empty event block");
            let mut data_lines = 0;
            for line in block.split('\n') {
                if let Some(d) = line.strip_prefix("data: ") {
                    data_lines += 1;
                    let v: Value =
                        serde_json::from_str(d).unwrap_or_else(|e| panic!("{label}: {e}: {d}"));
                    assert!(v.is_object(), "{label}");
                } else {
                    assert!(
                        line.starts_with("event: ") || line.starts_with("id: "),
                        "{label}: unexpected line {line:?}"
                    );
                }
            }
            assert_eq!(data_lines, 1, "{label}: {block}");
        }
    }
}

#[test]
fn item_39_streamed_items_equal_the_json_results() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        for q in ["how do I build the index", "rate limit"] {
            let json_items = results(&answer_doc(
                &st,
                &post(&v055(q, json!({"mode": mode, "streaming": false}))),
            ));
            let r = call(
                &st,
                &post(&v055(q, json!({"mode": mode, "streaming": true}))),
            );
            let streamed = streamed_items(&r.events());
            // api.mdx, Answer documents: same items; the summary is first in JSON and
            // last in the stream.
            let mut expected = json_items.clone();
            if mode != "list" {
                assert_eq!(expected[0]["@type"], "SearchSummary", "{mode} {q}");
                let s = expected.remove(0);
                expected.push(s);
            }
            assert_eq!(streamed, expected, "{mode} {q}");
            // GET gives the same.
            let g = call(
                &st,
                &get(&[("query", q), ("mode", mode), ("streaming", "true")]),
            );
            assert_eq!(streamed_items(&g.events()), expected, "GET {mode} {q}");
        }
    }
}

#[test]
fn item_40_comment_lines_are_ignored_by_a_conforming_client() {
    let st = state();
    let r = call(
        &st,
        &post(&v055(
            "deploy with SAM",
            json!({"mode": "summarize", "streaming": true}),
        )),
    );
    let plain = r.all_events();
    // What a proxy or a keepalive would add: comment lines between and
    // inside events.
    let mut with_comments = String::from(": keepalive\n\n");
    for block in r.body.trim_end_matches('\n').split("\n\n") {
        with_comments.push_str(": ping\n");
        with_comments.push_str(block);
        with_comments.push_str("\n\n: keepalive\n\n");
    }
    assert!(with_comments.matches(": keepalive").count() > plain.len());
    let read = sse::parse(&with_comments).unwrap();
    assert_eq!(read.len(), plain.len());
    for (a, b) in read.iter().zip(&plain) {
        assert_eq!((&a.name, &a.id, &a.data), (&b.name, &b.id, &b.data));
    }
    sse::check_answer_stream(&read).unwrap();
}

#[test]
fn item_41_failure_after_start_still_ends_with_complete_marking_failure() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        for r in [
            call(
                &st,
                &post(&v055(NO_MATCH, json!({"mode": mode, "streaming": true}))),
            ),
            call(&st, &get(&[("query", NO_MATCH), ("mode", mode)])),
        ] {
            assert_eq!(r.status, 200, "{mode}");
            let events = r.events();
            assert_eq!(names(&events), ["start", "error", "complete"], "{mode}");
            let err = &events[1].data;
            assert_eq!(err["_meta"]["response_type"], "failure", "{mode}");
            assert_eq!(err["error"]["code"], "NO_RESULTS", "{mode}");
            assert!(err["error"]["message"].is_string(), "{mode}");
            let c = &events[2].data;
            assert_eq!(c["_meta"]["response_type"], "failure", "{mode}: {c}");
            assert_eq!(c["_meta"]["version"], VERSION, "{mode}");
            assert!(c["_meta"]["session_context"].is_object(), "{mode}");
            // The shared checker's ordering rules hold for a failed stream.
            sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{mode}: {e}"));
        }
    }
}

#[test]
fn item_42_summary_is_delivered_as_a_result_event() {
    let st = state();
    for (mode, label, r) in [
        (
            "summarize",
            "v055",
            call(
                &st,
                &post(&v055(
                    "how do I deploy with SAM",
                    json!({"mode": "summarize", "streaming": true}),
                )),
            ),
        ),
        (
            "summarize",
            "saved",
            call(&st, &saved("functionurl-post-v055-sse.json")),
        ),
        (
            "generate",
            "saved",
            call(&st, &saved("http-post-generate-sse.json")),
        ),
    ] {
        let events = r.events();
        assert!(
            events.iter().all(|e| e.name != "message"),
            "{mode} {label}: an unnamed event"
        );
        let summaries: Vec<&Event> = events
            .iter()
            .filter(|e| e.data["item"]["@type"] == "SearchSummary")
            .collect();
        assert_eq!(summaries.len(), 1, "{mode} {label}");
        assert_eq!(summaries[0].name, "result", "{mode} {label}");
        assert!(
            summaries[0].data["item"]["text"]
                .as_str()
                .is_some_and(|t| !t.trim().is_empty()),
            "{mode} {label}"
        );
        // api.mdx, Answer documents: the answer follows its sources (last result).
        let results: Vec<&Event> = events.iter().filter(|e| e.name == "result").collect();
        assert_eq!(
            results.last().unwrap().data["item"]["@type"],
            "SearchSummary",
            "{mode} {label}"
        );
        // No summary anywhere else in the stream.
        assert!(
            events.iter().all(|e| e.data.get("summary").is_none()),
            "{mode} {label}"
        );
    }
}
