//! What answers say: streamed as in JSON, follow-ups, the unanswered, typos, synonyms, boosts.

use lambda_http::Body;
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::Value;

use crate::support::docs::{docs_index, repo};
use crate::support::sse;
use crate::{body_text, event, state, support, test_state};

#[test]
fn streamed_items_equal_the_json_results() {
    let state = state(true);
    let json = respond(&state, &event("http-post-summarize.json"));
    let doc: Value = serde_json::from_str(&body_text(&json)).unwrap();
    let results = doc["results"].as_array().unwrap().clone();
    assert_eq!(results[0]["@type"], "SearchSummary");
    assert_eq!(
        results
            .iter()
            .filter(|r| r["@type"] == "SearchSummary")
            .count(),
        1
    );
    let text = results[0]["text"].as_str().unwrap();
    assert!(!text.is_empty());
    // The same request, streamed.
    let mut req = event("http-post-summarize.json");
    let body = String::from_utf8(req.body().as_ref().to_vec())
        .unwrap()
        .replace("\"streaming\":false", "\"streaming\":true");
    *req.body_mut() = Body::from(body);
    let resp = respond(&state, &req);
    let events = sse::parse(&body_text(&resp)).unwrap();
    let items: Vec<Value> = events
        .iter()
        .filter(|e| e.name == "result")
        .map(|e| e.data["item"].clone())
        .collect();
    // Same items; the summary comes last in the stream.
    let mut expected = results[1..].to_vec();
    expected.push(results[0].clone());
    assert_eq!(items, expected);
}

#[test]
fn a_follow_up_question_uses_the_previous_one() {
    let state = state(true);
    let ask = |body: &str| -> Value {
        let mut req = event("http-post-v055.json");
        *req.body_mut() = Body::from(body.to_string());
        let r = respond(&state, &req);
        serde_json::from_str(&body_text(&r)).unwrap()
    };
    let follow = ask(
        r#"{"query":{"text":"and how do I configure it?"},"context":{"prev":["what is the rate limit?"]},"prefer":{"streaming":false,"mode":"list"}}"#,
    );
    let top = follow["results"][0]["url"].as_str().unwrap().to_string();
    assert!(
        top.contains("rate-limit") || top.contains("configuration"),
        "{top}"
    );
    let text = follow["results"][0]["text"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(
        text.contains("rate_limit_per_minute") || text.contains("rate limit"),
        "{text}"
    );
}

/// The saved not-answered event under the default retriever (hybrid):
/// the confidence carries the meaning's similarity beside the words'
/// coverage, and the summary says plainly that the docs do not answer,
/// then quotes the closest passage, cited.
#[test]
fn the_not_answered_event_under_hybrid_retrieval() {
    let Some(model) = support::docs::model_dir("the_not_answered_event_under_hybrid_retrieval")
    else {
        return;
    };
    let extra = support::docs::events_env();
    let mut env: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let dir = model.to_str().unwrap().to_string();
    env.push(("ASK_RETRIEVER", "hybrid"));
    env.push(("ASK_MODEL_DIR", &dir));
    let config = test_state::config(&env);
    let index = support::docs::docs_index_with_vectors(&model);
    let hybrid = nlweb_ask::built::hybrid(&config, &index, nlweb_ask::built::start_model(&config))
        .unwrap()
        .expect("hybrid");
    let state = State::with_clock(config, index, Box::new(|| 0.0)).with_hybrid(hybrid);
    let r = respond(&state, &event("http-get-not-answered.json"));
    assert_eq!(r.status(), 200);
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    let conf = &doc["_meta"]["answer_confidence"];
    assert_eq!(conf["answered"], false, "{doc}");
    let similarity = conf["similarity"]
        .as_f64()
        .expect("similarity under hybrid");
    assert!((-1.0..=1.0).contains(&similarity), "{conf}");
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("The documentation does not seem to answer this question"),
        "{summary}"
    );
    assert!(
        summary.contains("The closest passage:") && summary.contains("[1]"),
        "{summary}"
    );
}

#[test]
fn a_question_the_docs_do_not_answer_is_said_plainly() {
    let state = state(true);
    let ask = |q: &str| {
        let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["rawQueryString"] = Value::from(format!(
            "query={}&mode=summarize&streaming=false",
            q.replace(' ', "+")
        ));
        v["queryStringParameters"] =
            serde_json::json!({"query": q, "mode": "summarize", "streaming": "false"});
        let r = respond(
            &state,
            &lambda_http::request::from_str(&v.to_string()).unwrap(),
        );
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc
    };
    let doc = ask("deploy the index bucket to azure with terraform");
    let conf = &doc["_meta"]["answer_confidence"];
    assert_eq!(conf["answered"], false, "{doc}");
    assert!(
        conf["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "terraform"),
        "{conf}"
    );
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("The documentation does not seem to answer this question"),
        "{summary}"
    );
    // Then the closest passage, cited.
    let cited = doc["results"][0]["citations"][0]["index"].as_u64().unwrap();
    assert!(summary.contains(&format!("[{cited}]")), "{summary}");

    let doc = ask("how do I configure the rate limit");
    assert_eq!(doc["_meta"]["answer_confidence"]["answered"], true, "{doc}");
    let summary = doc["results"][0]["text"].as_str().unwrap();
    assert!(
        !summary.starts_with("The documentation does not seem"),
        "{summary}"
    );
}

#[test]
fn a_typo_is_corrected_and_the_answer_says_what_was_searched() {
    let state = state(true);
    let r = respond(&state, &event("http-get-typo.json"));
    assert_eq!(r.status(), 200);
    let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
    assert_eq!(
        doc["_meta"]["query_corrections"],
        serde_json::json!([{"from": "chnage", "to": "change"}, {"from": "minuet", "to": "minute"}]),
        "{doc}"
    );
    assert_eq!(
        doc["_meta"]["decontextualized_query"],
        "how do i change the rate limt per minute"
    );
    // The same first result as the question spelled right.
    let text = std::fs::read_to_string(repo().join("events/http-get-typo.json")).unwrap();
    let fixed = text.replace("chnage", "change").replace("minuet", "minute");
    let right = respond(&state, &lambda_http::request::from_str(&fixed).unwrap());
    let right: Value = serde_json::from_str(&body_text(&right)).unwrap();
    assert!(right["_meta"].get("query_corrections").is_none(), "{right}");
    assert_eq!(doc["results"][0]["url"], right["results"][0]["url"]);
}

#[test]
fn ask_synonyms_search_the_docs_word() {
    let top = |synonyms: Option<&str>| {
        let extra: Vec<(&str, &str)> = synonyms.map(|v| ("ASK_SYNONYMS", v)).into_iter().collect();
        let state = test_state::state(docs_index(), &extra);
        let q = "pagination";
        let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["rawQueryString"] = Value::from(format!("query={q}&streaming=false&mode=list"));
        v["queryStringParameters"] =
            serde_json::json!({"query": q, "streaming": "false", "mode": "list"});
        let r = respond(
            &state,
            &lambda_http::request::from_str(&v.to_string()).unwrap(),
        );
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc["results"][0]["url"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| doc["error"]["code"].to_string())
    };
    // The docs say start_num, never "pagination".
    assert_eq!(top(None), r#""NO_RESULTS""#);
    let with = top(Some(r#"[["pagination", "start_num"]]"#));
    assert!(with.contains("/api#"), "{with}");
}

#[test]
fn ask_boost_weighs_pages_down() {
    let top = |boost: Option<&str>| {
        let extra: Vec<(&str, &str)> = boost.map(|v| ("ASK_BOOST", v)).into_iter().collect();
        let state = test_state::state(docs_index(), &extra);
        let r = respond(&state, &event("http-get-json.json"));
        let doc: Value = serde_json::from_str(&body_text(&r)).unwrap();
        doc["results"][1]["url"].as_str().unwrap().to_string()
    };
    let first = top(None);
    assert!(first.contains("/building-the-index"), "{first}");
    // The page that ranked first, weighed down, no longer does.
    let boosted = top(Some(r#"{"building-the-index.mdx": 0.01}"#));
    assert!(!boosted.contains("/building-the-index"), "{boosted}");
}
