//! `ask.retriever: hybrid` as the Lambda serves it: the state built from
//! the configuration loads the pinned sentence model and ranks with the
//! index's vectors; an index without vectors, or a setting that is not
//! one, stops the cold start with a message that says what to run.

mod support;
#[path = "support/state.rs"]
mod test_state;

use nlweb_ask::app::respond;
use serde_json::{Value, json};
use support::docs::{docs_index, docs_index_with_vectors, model_dir as model, repo};

fn ask(state: &nlweb_ask::state::State, query: &str) -> Value {
    let text = std::fs::read_to_string(repo().join("events/http-get-sites.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["rawPath"] = json!("/ask");
    v["requestContext"]["http"]["path"] = json!("/ask");
    // Plain ASCII words: `+` is the only encoding needed.
    v["rawQueryString"] = json!(format!(
        "query={}&mode=list&streaming=false",
        query.replace(' ', "+")
    ));
    v["queryStringParameters"] = json!({"query": query, "mode": "list", "streaming": "false"});
    let r = respond(
        state,
        &lambda_http::request::from_str(&v.to_string()).unwrap(),
    );
    serde_json::from_slice(r.body().as_ref()).unwrap()
}

#[test]
fn a_hybrid_state_ranks_as_build_index_search_does() {
    let Some(model) = model("a_hybrid_state_ranks_as_build_index_search_does") else {
        return;
    };
    let dir = model.to_str().unwrap();
    let config = test_state::config(&[("ASK_RETRIEVER", "hybrid"), ("ASK_MODEL_DIR", dir)]);
    let index = docs_index_with_vectors(&model);
    let hybrid = nlweb_ask::built::hybrid(&config, &index, nlweb_ask::built::start_model(&config))
        .unwrap()
        .expect("hybrid");
    assert_eq!(hybrid.weight, ask_index::search::HYBRID_WEIGHT);
    let rules = ask_index::search::Rules {
        hybrid: Some(hybrid.clone()),
        ..Default::default()
    };
    let state =
        nlweb_ask::state::State::with_clock(config, index, Box::new(|| 0.0)).with_hybrid(hybrid);
    let q = "stop one caller from using up every request";
    let answer = ask(&state, q);
    let served: Vec<&str> = answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    // The offline path with the same rules: the same sections, in order.
    let a = ask_index::Analyzer::new();
    let (hits, _) =
        ask_index::search::retrieve_corrected(&state.index, &a, q, &[], served.len(), &rules);
    let offline: Vec<String> = hits
        .iter()
        .map(|h| ask_index::search::section_url(&state.index, h.section))
        .collect();
    assert_eq!(served, offline);
    // And not the words' ranking alone: the vectors changed it.
    let (words, _) = ask_index::search::retrieve_corrected(
        &state.index,
        &a,
        q,
        &[],
        served.len(),
        &Default::default(),
    );
    assert_ne!(
        hits.iter().map(|h| h.section).collect::<Vec<_>>(),
        words.iter().map(|h| h.section).collect::<Vec<_>>()
    );
    // Words the docs never use find nothing, as with BM25 alone.
    let none = ask(&state, "zqxv wjkp");
    assert_eq!(none["error"]["code"], "NO_RESULTS", "{none}");
}

#[test]
fn an_index_without_vectors_is_served_with_the_words_alone() {
    let config = test_state::config(&[("ASK_RETRIEVER", "hybrid")]);
    assert_eq!(config.retriever, nlweb_ask::config::Retriever::Hybrid);
    assert!(
        nlweb_ask::built::hybrid(
            &config,
            &docs_index(),
            nlweb_ask::built::start_model(&config),
        )
        .unwrap()
        .is_none()
    );
    let bm25 = test_state::config(&[("ASK_RETRIEVER", "bm25")]);
    assert!(
        nlweb_ask::built::hybrid(&bm25, &docs_index(), nlweb_ask::built::start_model(&bm25))
            .unwrap()
            .is_none()
    );
}

#[test]
fn retriever_settings_are_checked() {
    for (k, v, says) in [
        ("ASK_RETRIEVER", "vector", "`bm25` or `hybrid`"),
        ("ASK_HYBRID_WEIGHT", "1.5", "between 0 and 1"),
        ("ASK_HYBRID_WEIGHT", "much", "ASK_HYBRID_WEIGHT"),
    ] {
        let e = test_state::load(&[("ASK_ENABLED", "true"), ("ASK_INDEX", "x.idx"), (k, v)])
            .unwrap_err();
        assert!(e.0.contains(says), "{k}={v}: {}", e.0);
    }
}
