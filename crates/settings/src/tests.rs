//! Unit tests: the keys, the environment over the file, and errors naming key, file and line.

use super::table::FIELDS;
use super::*;
use serde_json::{Map, Value};

fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn every_field_is_a_key_in_order_with_a_doc_comment() {
    let schema = schemars::schema_for!(Settings);
    let props = schema.as_value()["properties"].as_object().unwrap().clone();
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    let mut fields: Vec<&str> = FIELDS.to_vec();
    fields.sort();
    assert_eq!(names, fields);
    let defaults = serde_json::to_value(Settings::default()).unwrap();
    let order: Vec<&String> = defaults.as_object().unwrap().keys().collect();
    assert_eq!(order.len(), FIELDS.len());
    for k in keys() {
        assert!(!k.doc.is_empty(), "{} has no doc comment", k.name);
    }
}

#[test]
fn kinds_come_from_the_types() {
    let kind = |n: &str| keys().into_iter().find(|k| k.name == n).unwrap().kind;
    assert_eq!(kind("enabled"), Kind::Bool);
    assert_eq!(kind("top_k"), Kind::Number);
    assert_eq!(kind("hybrid_weight"), Kind::Number);
    assert_eq!(kind("site"), Kind::Text);
    assert_eq!(kind("auth_jwks_url"), Kind::Text);
    assert_eq!(kind("default_mode"), Kind::Text);
    assert_eq!(kind("auth"), Kind::Text);
    assert_eq!(kind("cors_allow_origins"), Kind::List);
    assert_eq!(kind("generator_modes"), Kind::List);
    assert_eq!(kind("boost"), Kind::Json);
    assert_eq!(kind("synonyms"), Kind::Json);
}

#[test]
fn the_environment_overrides_the_file_key_by_key() {
    let file = read_file(
        "ask.yaml",
        "ask:\n  top_k: 8\n  site: guides\n  docs_base_url: https://d.dev\n",
    )
    .unwrap();
    let s = resolve(&file, &env(&[])).unwrap();
    assert_eq!((s.top_k, s.site.as_str()), (8, "guides"));
    let s = resolve(
        &file,
        &env(&[
            ("ASK_TOP_K", "3"),
            ("ASK_CORS_ALLOW_ORIGINS", "https://a.dev, https://b.dev"),
            ("ASK_DEFAULT_MODE", "list"),
            ("ASK_DEFAULT_STREAMING", "off"),
            ("ASK_BOOST", r#"{"gen1/**": 0.6}"#),
            ("ASK_AUTH_ISSUER", ""),
        ]),
    )
    .unwrap();
    assert_eq!(s.top_k, 3);
    assert_eq!(s.site, "guides");
    assert_eq!(s.cors_allow_origins, vec!["https://a.dev", "https://b.dev"]);
    assert_eq!(s.default_mode, Mode::List);
    assert!(!s.default_streaming);
    assert_eq!(s.boost["gen1/**"], 0.6);
    // An empty variable is ignored: the file's value stands.
    let f = read_file("a.yaml", "ask:\n  auth_scope: docs:write\n").unwrap();
    let s = resolve(&f, &env(&[("ASK_AUTH_SCOPE", "")])).unwrap();
    assert_eq!(s.auth_scope, "docs:write");
}

#[test]
fn bad_variables_name_the_variable() {
    for (k, v, says) in [
        ("ASK_TOP_K", "five", "ASK_TOP_K"),
        ("ASK_TOP_K", "11", "ASK_TOP_K: 11 is not between 1 and 10"),
        ("ASK_ENABLED", "maybe", "ASK_ENABLED"),
        ("ASK_DEFAULT_MODE", "recommend", "ASK_DEFAULT_MODE"),
        ("ASK_BOOST", "gen1/**=0.6", "ASK_BOOST"),
        ("ASK_RETRIEVER", "vector", "ASK_RETRIEVER"),
    ] {
        let e = resolve(&Map::new(), &env(&[(k, v)])).unwrap_err();
        assert!(e.message.contains(says), "{k}={v}: {e}");
    }
}

#[test]
fn a_file_with_an_unknown_key_or_a_bad_value_fails_naming_key_file_and_line() {
    let e = read_file("docs/ask.yaml", "ask:\n  top_k: 5\n  top_kk: 8\n").unwrap_err();
    assert!(
        e.message.starts_with("docs/ask.yaml, line 3") && e.message.contains("top_kk"),
        "{e}"
    );
    assert_eq!(e.key.as_deref(), Some("top_kk"));
    let e = read_file("docs/ask.yaml", "ask:\n  site: guides\n  top_k: 11\n").unwrap_err();
    assert_eq!(
        e.message,
        "docs/ask.yaml, line 3: ask.top_k: 11 is not between 1 and 10"
    );
    let e = read_file("a.yaml", "ask:\n  default_mode: fast\n").unwrap_err();
    assert!(
        e.message.starts_with("a.yaml, line 2") && e.message.contains("fast"),
        "{e}"
    );
    let e = read_file("a.yaml", "aks:\n  top_k: 5\n").unwrap_err();
    assert!(
        e.message.starts_with("a.yaml, line 1") && e.message.contains("aks"),
        "{e}"
    );
    let e = read_file("a.yaml", "ask:\n  generator: bedrock\n").unwrap_err();
    assert!(
        e.message
            .contains("line 2: ask.generator: is bedrock but bedrock_model_id"),
        "{e}"
    );
}

#[test]
fn what_a_file_sets_is_what_differs_from_the_defaults() {
    let s = Settings {
        top_k: 8,
        ..Settings::default()
    };
    assert_eq!(Value::Object(s.changed()), serde_json::json!({"top_k": 8}));
}
