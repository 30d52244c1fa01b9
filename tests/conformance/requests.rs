//! Request handling: checklist items 1–15.

use nlweb_ask::state::State;
use serde_json::{Value, json};

use crate::support::sse;
use crate::{
    NO_MATCH, RESPONSE_TYPES, Reply, VERSION, answer_doc, assert_failure, call, count_summaries,
    get, get_h, post, post_with, results, saved, state, state_with, streamed_items, v055,
};

#[test]
fn item_01_post_prefer_streaming_false_gives_json_object() {
    let st = state();
    // The checklist's literal body: "x" matches nothing, which is an
    // application-level failure: still a JSON object, HTTP 200.
    let r = call(
        &st,
        &post(r#"{"query":{"text":"x"},"prefer":{"streaming":false}}"#),
    );
    assert_eq!(r.content_type(), "application/json");
    assert_eq!(r.status, 200, "{}", r.body);
    let doc = r.json();
    assert!(doc.is_object(), "{doc}");
    assert_eq!(doc["_meta"]["version"], VERSION);
    assert!(
        RESPONSE_TYPES.contains(&doc["_meta"]["response_type"].as_str().unwrap_or("")),
        "{doc}"
    );
    // The same shape with a question the docs answer.
    let r = call(
        &st,
        &post(r#"{"query":{"text":"rate limit"},"prefer":{"streaming":false}}"#),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/json");
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    assert!(!results(&doc).is_empty());
}

#[test]
fn item_02_missing_or_empty_query_text_is_400_failure() {
    let st = state();
    let bodies = [
        r#"{"query":{}}"#,
        r#"{"query":{"site":"docs","itemType":"TechArticle"}}"#,
        r#"{"query":{"text":""}}"#,
        r#"{"query":{"text":"   "}}"#,
        r#"{"query":{"text":null}}"#,
        r#"{"prefer":{"streaming":false}}"#,
        r#"{}"#,
        // Streaming asked for: validation still fails before any stream.
        r#"{"query":{"text":""},"prefer":{"streaming":true}}"#,
        r#"{"query":{},"prefer":{"streaming":true}}"#,
    ];
    for body in bodies {
        let r = call(&st, &post(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        let doc = r.json();
        assert_eq!(doc["_meta"]["response_type"], "failure", "{body}");
        assert!(doc["error"]["code"].is_string(), "{body}: {doc}");
        assert_eq!(doc["error"]["code"], "INVALID_QUERY", "{body}");
        assert!(doc["error"]["message"].is_string(), "{body}");
        assert!(doc.get("results").is_none(), "{body}: {doc}");
    }
    for file in ["http-get-missing-query.json", "http-get-empty-query.json"] {
        assert_failure(&call(&st, &saved(file)), 400, "INVALID_QUERY");
    }
}

#[test]
fn item_03_unknown_query_filters_are_accepted_and_ignored() {
    let st = state();
    let plain = answer_doc(
        &st,
        &post(r#"{"query":{"text":"deploy with SAM"},"prefer":{"streaming":false,"mode":"list"}}"#),
    );
    let filtered = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM","itemType":"TechArticle","location":"Paris","price":{"max":10},"inLanguage":["en"]},"prefer":{"streaming":false,"mode":"list"}}"#,
        ),
    );
    assert!(!results(&plain).is_empty());
    assert_eq!(results(&filtered), results(&plain));
    // The saved event with query.site and query.itemType.
    let doc = answer_doc(&st, &saved("rest-post-v055.json"));
    assert!(!results(&doc).is_empty());
}

#[test]
fn item_04_context_prev_array_is_accepted_and_used() {
    let st = state();
    let q = "and how do I configure it?";
    let without = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": q}, "prefer": {"streaming": false, "mode": "list"}})
                .to_string(),
        ),
    );
    let with = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": q}, "context": {"prev": ["what is the rate limit?", "how do I deploy with SAM"]},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    let with = results(&with);
    assert!(!with.is_empty());
    assert_ne!(with, results(&without), "context.prev had no effect");
    // An empty array is fine too.
    let empty = answer_doc(
        &st,
        &post(&json!({"query": {"text": q}, "context": {"prev": []}, "prefer": {"streaming": false, "mode": "list"}}).to_string()),
    );
    assert_eq!(results(&empty), results(&without));
}

#[test]
fn item_05_context_without_type_is_conversational_context() {
    let st = state();
    let prev = json!(["what is the rate limit?"]);
    let typed = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": "how do I change it"}, "context": {"@type": "ConversationalContext", "prev": prev},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    let untyped = answer_doc(
        &st,
        &post(
            &json!({"query": {"text": "how do I change it"}, "context": {"prev": prev},
                    "prefer": {"streaming": false, "mode": "list"}})
            .to_string(),
        ),
    );
    assert!(!results(&typed).is_empty());
    assert_eq!(results(&untyped), results(&typed));
    for context in [
        json!({}),
        json!({"text": "I am deploying to AWS"}),
        json!({"memory": ["likes SAM"]}),
    ] {
        let doc = answer_doc(
            &st,
            &post(
                &json!({"query": {"text": "deploy with SAM"}, "context": context, "prefer": {"streaming": false}})
                    .to_string(),
            ),
        );
        assert!(!results(&doc).is_empty(), "{context}");
    }
}

#[test]
fn item_06_prefer_streaming_true_gives_event_stream() {
    let st = state();
    for mode in ["list", "summarize", "generate"] {
        let r = call(
            &st,
            &post(&v055(
                "deploy with SAM",
                json!({"streaming": true, "mode": mode}),
            )),
        );
        assert_eq!(r.status, 200, "{mode}");
        assert_eq!(r.content_type(), "text/event-stream", "{mode}");
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{mode}");
        let events = r.events();
        sse::check_answer_stream(&events).unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert!(!streamed_items(&events).is_empty(), "{mode}");
    }
    // Even with `Accept: application/json` (the template's header).
    let r = call(&st, &post(&v055("rate limit", json!({"streaming": true}))));
    assert_eq!(r.content_type(), "text/event-stream");
}

#[test]
fn item_07_streaming_omitted_applies_the_default_consistently() {
    // The documented default (api.mdx, Streaming and mode; config `default_streaming`) is true.
    let omitted = |st: &State| -> Vec<Reply> {
        vec![
            call(st, &post(r#"{"query":{"text":"build the index"}}"#)),
            call(
                st,
                &post(r#"{"query":{"text":"build the index"},"prefer":{"mode":"list"}}"#),
            ),
            call(st, &post(r#"{"query":"build the index","mode":"list"}"#)),
            call(st, &get(&[("query", "build the index")])),
            call(
                st,
                &get(&[("query", "build the index"), ("mode", "summarize")]),
            ),
        ]
    };
    let st = state();
    for r in omitted(&st) {
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.content_type(), "text/event-stream", "{}", r.body);
        sse::check_answer_stream(&r.events()).unwrap();
    }
    // Configured the other way, the same requests all answer JSON.
    let st = state_with(&[("ASK_DEFAULT_STREAMING", "false")]);
    for r in omitted(&st) {
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.content_type(), "application/json", "{:.200}", r.body);
        assert_eq!(r.json()["_meta"]["response_type"], "answer");
    }
}

/// api.mdx (Streaming and mode) orders the streaming decision: explicit `prefer.streaming`,
/// explicit `streaming`, then `Accept: text/event-stream`, then the default.
/// The checklist's wording (SSE Accept beats `streaming=false`) follows the
/// reference server; the contract makes an explicit `false` win.
#[test]
fn item_08_accept_event_stream_gives_sse_unless_streaming_is_explicitly_false() {
    let sse_accept = [("accept", "text/event-stream")];
    // With the default turned off, only the Accept header can ask for SSE.
    let st = state_with(&[("ASK_DEFAULT_STREAMING", "false")]);
    let r = call(&st, &get(&[("query", "build the index")]));
    assert_eq!(r.content_type(), "application/json", "control");
    for req in [
        get_h(&[("query", "build the index")], &sse_accept),
        post_with(&[], &sse_accept, r#"{"query":{"text":"build the index"}}"#),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":"build the index","mode":"list"}"#,
        ),
        get_h(
            &[("query", "build the index")],
            &[("accept", "application/json, text/event-stream;q=0.9")],
        ),
    ] {
        let r = call(&st, &req);
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type(), "text/event-stream", "{:.200}", r.body);
        sse::check_answer_stream(&r.events()).unwrap();
    }
    // The saved events that ask for SSE only through Accept.
    let st = state();
    for file in ["http-get-sse.json", "rest-get-sse.json"] {
        let r = call(&st, &saved(file));
        assert_eq!(r.content_type(), "text/event-stream", "{file}");
    }
    // An explicit false still wins over the header (api.mdx, Streaming and mode).
    for req in [
        get_h(
            &[("query", "build the index"), ("streaming", "false")],
            &sse_accept,
        ),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":{"text":"build the index"},"prefer":{"streaming":false}}"#,
        ),
        post_with(
            &[],
            &sse_accept,
            r#"{"query":"build the index","streaming":false}"#,
        ),
    ] {
        let r = call(&st, &req);
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type(), "application/json", "{:.200}", r.body);
    }
}

#[test]
fn item_09_get_with_streaming_false_gives_json() {
    let st = state();
    let r = call(&st, &get(&[("query", "x"), ("streaming", "false")]));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.content_type(), "application/json");
    assert!(r.json()["_meta"].is_object());
    let r = call(&st, &saved("http-get-json.json"));
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type(), "application/json");
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer");
    assert!(!results(&doc).is_empty());
    // Control: the same GET without the parameter streams (default true).
    let r = call(&st, &get(&[("query", "how do I build the index")]));
    assert_eq!(r.content_type(), "text/event-stream");
}

#[test]
fn item_10_false_zero_and_json_false_disable_streaming() {
    let st = state();
    let q = "build the index";
    // URL parameter strings.
    for v in ["0", "false", "False", "FALSE", "no", "off"] {
        let r = call(&st, &get(&[("query", q), ("streaming", v)]));
        assert_eq!(r.status, 200, "streaming={v}");
        assert_eq!(r.content_type(), "application/json", "streaming={v}");
    }
    // Flat (legacy) body: strings and the JSON boolean false (the
    // reference server's quirk streams on a JSON false; we must not).
    for v in [
        json!(false),
        json!("false"),
        json!("False"),
        json!("0"),
        json!(0),
    ] {
        let body = json!({"query": q, "streaming": v}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.status, 200, "{body}");
        assert_eq!(r.content_type(), "application/json", "{body}");
        assert_eq!(r.json()["_meta"]["response_type"], "answer", "{body}");
    }
    let r = call(&st, &saved("http-post-legacy.json"));
    assert_eq!(r.content_type(), "application/json");
    // 0.55 body.
    for v in [json!(false), json!("false")] {
        let body = json!({"query": {"text": q}, "prefer": {"streaming": v}}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.content_type(), "application/json", "{body}");
    }
    // Controls: true values stream.
    for v in [json!(true), json!("true"), json!("1")] {
        let body = json!({"query": q, "streaming": v}).to_string();
        let r = call(&st, &post(&body));
        assert_eq!(r.content_type(), "text/event-stream", "{body}");
    }
}

#[test]
fn item_11_legacy_prev_comma_string_is_two_queries() {
    let st = state();
    let q = "and how do I configure it?";
    let (a, b) = ("what is the rate limit", "how do I deploy with SAM");
    let list = |prev: Value| -> Vec<Value> {
        results(&answer_doc(
            &st,
            &post(
                &json!({"query": q, "prev": prev, "mode": "list", "streaming": false}).to_string(),
            ),
        ))
    };
    let two = list(json!([a, b]));
    let one = list(json!([format!("{a},{b}")]));
    let none = list(json!([]));
    assert_ne!(two, none, "prev had no effect");
    // Two entries weigh differently from one combined entry; the test
    // needs them to be told apart.
    assert_ne!(two, one, "cannot tell one entry from two");
    // The comma string, in a flat body and as a URL parameter, is the array.
    assert_eq!(list(json!(format!("{a},{b}"))), two);
    assert_eq!(list(json!(format!("[{a},{b}]"))), two);
    let via_get = results(&answer_doc(
        &st,
        &get(&[
            ("query", q),
            ("prev", &format!("{a},{b}")),
            ("mode", "list"),
            ("streaming", "false"),
        ]),
    ));
    assert_eq!(via_get, two);
}

#[test]
fn item_12_mode_and_generate_mode_are_honoured_mode_wins() {
    let st = state();
    let summaries = |params: &[(&str, &str)]| -> usize {
        let mut p = vec![("query", "rate limit"), ("streaming", "false")];
        p.extend_from_slice(params);
        count_summaries(&results(&answer_doc(&st, &get(&p))))
    };
    assert_eq!(summaries(&[("mode", "list")]), 0);
    assert_eq!(summaries(&[("mode", "summarize")]), 1);
    assert_eq!(summaries(&[("generate_mode", "list")]), 0);
    assert_eq!(summaries(&[("generate_mode", "summarize")]), 1);
    assert_eq!(summaries(&[("generate_mode", "generate")]), 1);
    assert_eq!(
        summaries(&[("mode", "list"), ("generate_mode", "summarize")]),
        0
    );
    assert_eq!(
        summaries(&[("mode", "summarize"), ("generate_mode", "list")]),
        1
    );
    // The same in a flat body.
    let flat = |body: Value| count_summaries(&results(&answer_doc(&st, &post(&body.to_string()))));
    assert_eq!(
        flat(
            json!({"query": "rate limit", "streaming": false, "mode": "list", "generate_mode": "summarize"})
        ),
        0
    );
    assert_eq!(
        flat(json!({"query": "rate limit", "streaming": false, "generate_mode": "summarize"})),
        1
    );
    let r = call(&st, &saved("http-get-alias-q.json"));
    assert_eq!(count_summaries(&results(&r.json())), 0);
}

#[test]
fn item_13_body_fields_override_url_parameters() {
    let st = state();
    // Saved: the URL has a no-match query, summarize and streaming=true;
    // the flat body a real query, list and "false".
    let doc = answer_doc(&st, &saved("http-post-body-overrides-query.json"));
    let items = results(&doc);
    assert!(!items.is_empty());
    assert_eq!(count_summaries(&items), 0);
    // Crafted, one field at a time.
    let url = [
        ("query", NO_MATCH),
        ("mode", "summarize"),
        ("streaming", "true"),
    ];
    let r = call(
        &st,
        &post_with(
            &url,
            &[],
            r#"{"query":"deploy with SAM","streaming":false}"#,
        ),
    );
    let doc = r.json();
    assert_eq!(doc["_meta"]["response_type"], "answer", "body query lost");
    assert_eq!(
        count_summaries(&results(&doc)),
        1,
        "URL mode applies when the body has none"
    );
    let r = call(
        &st,
        &post_with(
            &[
                ("query", "deploy with SAM"),
                ("mode", "list"),
                ("streaming", "false"),
            ],
            &[],
            r#"{"query":{"text":"rate limit"},"prefer":{"mode":"summarize","streaming":true}}"#,
        ),
    );
    let events = r.events();
    let items = streamed_items(&events);
    assert_eq!(count_summaries(&items), 1);
    let plain = results(&answer_doc(
        &st,
        &post(&v055(
            "rate limit",
            json!({"mode": "list", "streaming": false}),
        )),
    ));
    assert_eq!(
        items[..items.len() - 1].to_vec(),
        plain,
        "the body's query was not the one answered"
    );
}

#[test]
fn item_14_meta_version_or_absent_meta_gives_0_55() {
    let st = state();
    for body in [
        r#"{"query":{"text":"rate limit"},"meta":{"version":"0.55"},"prefer":{"streaming":false}}"#,
        r#"{"query":{"text":"rate limit"},"prefer":{"streaming":false}}"#,
        r#"{"query":{"text":"rate limit"},"meta":{},"prefer":{"streaming":false}}"#,
        r#"{"query":"rate limit","streaming":false}"#,
    ] {
        let doc = answer_doc(&st, &post(body));
        assert_eq!(doc["_meta"]["version"], VERSION, "{body}");
    }
    // Streams and failures carry it too.
    for body in [
        r#"{"query":{"text":"rate limit"},"prefer":{"streaming":true}}"#,
        r#"{"query":{"text":"rate limit"},"meta":{"version":"0.55"},"prefer":{"streaming":true}}"#,
    ] {
        let events = call(&st, &post(body)).events();
        assert_eq!(events[0].data["_meta"]["version"], VERSION);
        assert_eq!(events.last().unwrap().data["_meta"]["version"], VERSION);
    }
    let r = call(&st, &post(r#"{"query":{"text":""}}"#));
    assert_eq!(r.json()["_meta"]["version"], VERSION);
}

#[test]
fn item_15_meta_api_version_is_a_synonym() {
    let st = state();
    let with_version = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM"},"meta":{"version":"0.55"},"prefer":{"streaming":false}}"#,
        ),
    );
    let with_api_version = answer_doc(
        &st,
        &post(
            r#"{"query":{"text":"deploy with SAM"},"meta":{"api_version":"0.55"},"prefer":{"streaming":false}}"#,
        ),
    );
    assert_eq!(with_api_version["_meta"], with_version["_meta"]);
    assert_eq!(with_api_version["_meta"]["version"], VERSION);
    assert_eq!(results(&with_api_version), results(&with_version));
}
