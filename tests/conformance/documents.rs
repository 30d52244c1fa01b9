//! Non-streaming answer documents: checklist items 16–26 and 32, and the protocol types.

use serde_json::{Value, json};

use crate::{
    BASE, RESPONSE_TYPES, VERSION, all_items, all_metas, answer_doc, assert_failure, call, corpus,
    count_summaries, get, nlweb_replies, post, results, saved, state, streamed_items, v055,
};

#[test]
fn item_16_top_level_is_an_object_with_meta() {
    let mut json_seen = 0;
    for (label, r) in corpus() {
        if r.status == 404 {
            // Only an unknown path; api.mdx (its opening): API Gateway's own body.
            assert_eq!(label, "http-get-other-path.json");
            assert_eq!(r.json(), json!({"message": "Not Found"}));
            continue;
        }
        if r.status == 204 {
            // A preflight, and a rating (POST /ask/feedback, no body).
            assert!(
                ["http-options-preflight.json", "http-post-ask-feedback.json"]
                    .contains(&label.as_str()),
                "{label}"
            );
            assert!(r.body.is_empty());
            continue;
        }
        if r.status == 304 {
            assert_eq!(label, "http-get-if-none-match.json");
            assert!(r.body.is_empty());
            continue;
        }
        assert!(r.is_json() || r.is_sse(), "{label}: {}", r.content_type());
        if r.is_json() {
            json_seen += 1;
            let doc = r.json();
            assert!(doc.is_object(), "{label}");
            assert!(doc["_meta"].is_object(), "{label}: {doc}");
        } else {
            let events = r.events();
            assert!(events.iter().all(|e| e.data.is_object()), "{label}");
            assert!(events[0].data["_meta"].is_object(), "{label}");
            assert!(events.last().unwrap().data["_meta"].is_object(), "{label}");
        }
    }
    assert!(json_seen >= 30, "{json_seen}");
}

#[test]
fn item_17_no_top_level_meta_key() {
    let mut docs = 0;
    for (label, r) in corpus() {
        for d in r.docs() {
            docs += 1;
            assert!(d.get("meta").is_none(), "{label}: {d}");
        }
    }
    assert!(docs >= 60, "{docs}");
}

#[test]
fn item_18_response_type_is_one_of_four_lower_case() {
    let metas = all_metas();
    assert!(metas.len() >= 60);
    let mut seen: Vec<String> = Vec::new();
    for (label, m) in &metas {
        let t = m["response_type"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {m}"));
        assert!(RESPONSE_TYPES.contains(&t), "{label}: {t:?}");
        if !seen.contains(&t.to_string()) {
            seen.push(t.to_string());
        }
    }
    seen.sort();
    assert_eq!(seen, ["answer", "failure"]);
}

#[test]
fn item_19_meta_version_is_a_string() {
    for (label, m) in all_metas() {
        assert!(m["version"].is_string(), "{label}: {m}");
        assert_eq!(m["version"], VERSION, "{label}");
    }
}

#[test]
fn item_20_answers_contain_a_results_array() {
    let mut answers = 0;
    for (label, r) in nlweb_replies() {
        if !r.is_json() {
            continue;
        }
        let doc = r.json();
        if doc["_meta"]["response_format"] == "chatgpt_app" {
            // The other answer format: the items are `structuredData`.
            assert!(doc["structuredData"].is_array(), "{label}: {doc}");
            continue;
        }
        if doc["_meta"]["response_type"] == "answer" {
            answers += 1;
            let items = doc["results"]
                .as_array()
                .unwrap_or_else(|| panic!("{label}: {doc}"));
            assert!(!items.is_empty(), "{label}");
            assert_eq!(r.status, 200, "{label}");
        } else {
            assert!(
                doc.get("results").is_none(),
                "{label}: a failure with results"
            );
        }
    }
    assert!(answers >= 15, "{answers}");
}

#[test]
fn item_21_every_result_has_a_string_type() {
    let items = all_items();
    assert!(items.len() >= 50, "{}", items.len());
    for (label, item) in items {
        let t = item["@type"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(
            ["TechArticle", "SearchSummary"].contains(&t),
            "{label}: {t}"
        );
        assert_eq!(item["@context"], "https://schema.org", "{label}");
        assert_eq!(item["schema_object"]["@type"], t, "{label}");
    }
}

#[test]
fn item_22_document_items_have_url_and_name() {
    let mut n = 0;
    for (label, item) in all_items() {
        if item["@type"] == "SearchSummary" {
            continue;
        }
        n += 1;
        let url = item["url"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(url.starts_with(&format!("{BASE}/")), "{label}: {url}");
        let name = item["name"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {item}"));
        assert!(!name.trim().is_empty(), "{label}");
        assert_eq!(item["schema_object"]["url"], url, "{label}");
        assert_eq!(item["schema_object"]["name"], name, "{label}");
    }
    assert!(n >= 40, "{n}");
}

#[test]
fn item_23_grounding_when_present_is_an_object() {
    let mut grounded = 0;
    for (label, item) in all_items() {
        let Some(g) = item.get("grounding") else {
            continue;
        };
        grounded += 1;
        assert!(g.is_object(), "{label}: {g}");
        let urls = g["source_urls"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: {g}"));
        assert_eq!(urls, &vec![item["url"].clone()], "{label}");
    }
    assert!(grounded >= 40, "{grounded}");
}

#[test]
fn item_24_summarize_gives_exactly_one_search_summary_with_text() {
    let st = state();
    for prefer in [
        json!({"mode": "summarize", "streaming": false}),
        json!({"mode": "list, summarize", "streaming": false}),
        // api.mdx, Answer documents: generate answers with the summary too.
        json!({"mode": "generate", "streaming": false}),
    ] {
        let items = results(&answer_doc(
            &st,
            &post(&v055("how do I deploy with SAM", prefer.clone())),
        ));
        assert_eq!(count_summaries(&items), 1, "{prefer}");
        let s = &items[0];
        assert_eq!(s["@type"], "SearchSummary", "{prefer}: summary not first");
        let text = s["text"].as_str().unwrap_or("");
        assert!(!text.trim().is_empty(), "{prefer}");
        assert!(items.len() >= 2, "{prefer}: no sources");
    }
    let items = results(&answer_doc(&st, &saved("http-post-summarize.json")));
    assert_eq!(count_summaries(&items), 1);
}

#[test]
fn item_25_list_mode_gives_no_search_summary() {
    let st = state();
    for req in [
        post(&v055(
            "how do I deploy with SAM",
            json!({"mode": "list", "streaming": false}),
        )),
        get(&[
            ("query", "deploy with SAM"),
            ("mode", "list"),
            ("streaming", "false"),
        ]),
        saved("http-post-v055.json"),
    ] {
        let items = results(&answer_doc(&st, &req));
        assert!(!items.is_empty());
        assert_eq!(count_summaries(&items), 0, "{items:?}");
        assert!(items.iter().all(|i| i["@type"] == "TechArticle"));
    }
    let r = call(
        &st,
        &post(&v055(
            "how do I deploy with SAM",
            json!({"mode": "list", "streaming": true}),
        )),
    );
    assert_eq!(count_summaries(&streamed_items(&r.events())), 0);
}

#[test]
fn item_26_response_format_names_the_format_used() {
    let mut present = 0;
    for (label, m) in all_metas() {
        if let Some(f) = m.get("response_format") {
            present += 1;
            // chatgpt_app only where the request asked for it.
            let asked = if label.contains("chatgpt") || label.contains("reference") {
                f.as_str().unwrap_or("")
            } else {
                "conversational_search"
            };
            assert_eq!(f, asked, "{label}");
        }
    }
    // api.mdx (Answer documents) names it in every answer document and in `start` (not in
    // `complete`, whose example `_meta` has none).
    for (label, r) in nlweb_replies() {
        let first = r.docs().into_iter().next();
        if let Some(d) = first.filter(|d| d["_meta"]["response_type"] == "answer") {
            let want = if label.contains("chatgpt") {
                "chatgpt_app"
            } else {
                "conversational_search"
            };
            assert_eq!(d["_meta"]["response_format"], want, "{label}: {d}");
        }
    }
    assert!(present >= 20, "{present}");
    // Asked by either accepted name, the same format is named back.
    let st = state();
    for fmt in ["conversational_search", "conv_search"] {
        let doc = answer_doc(
            &st,
            &post(&v055(
                "rate limit",
                json!({"response_format": fmt, "streaming": false}),
            )),
        );
        assert_eq!(
            doc["_meta"]["response_format"], "conversational_search",
            "{fmt}"
        );
    }
    assert_failure(
        &call(&st, &saved("http-post-unsupported-format.json")),
        200,
        "UNSUPPORTED_FORMAT",
    );
}

/// A protocol value written as JSON text and read back, as a client sees it.
fn rewritten(v: &impl serde::Serialize) -> Value {
    serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
}

/// Every document of every reply reads back into the protocol types
/// (which refuse unknown members) and writes out as the same JSON: the
/// types are the whole wire format.
#[test]
fn every_document_is_a_protocol_type() {
    use nlweb_ask::protocol::{Document, StreamEvent};
    let mut checked = 0;
    for (label, r) in nlweb_replies() {
        if r.is_json() {
            let v = r.json();
            let doc: Document =
                serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{label}: {e}: {v}"));
            let failure = matches!(doc, Document::Failure(_));
            assert_eq!(failure, v["_meta"]["response_type"] == "failure", "{label}");
            assert_eq!(rewritten(&doc), v, "{label}");
            checked += 1;
        } else if r.is_sse() {
            for e in r.events() {
                let ev: StreamEvent = serde_json::from_value(e.data.clone())
                    .unwrap_or_else(|err| panic!("{label}: {err}: {}", e.data));
                assert_eq!(ev.name(), e.name, "{label}");
                assert_eq!(rewritten(&ev), e.data, "{label}");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn item_32_session_context_when_returned_is_an_object() {
    let mut seen = 0;
    for (label, m) in all_metas() {
        if let Some(sc) = m.get("session_context") {
            seen += 1;
            assert!(sc.is_object(), "{label}: {sc}");
        }
    }
    // api.mdx, Server-Sent Events: every stream's complete carries it.
    assert!(seen >= 10, "{seen}");
}
