//! Every saved event under `cargo lambda invoke`, its response checked against the OpenAPI document.

use std::process::Command;

use serde_json::Value;

use crate::support::{self, docs};
use crate::{get, run_client, serve_docs};

/// The id `events/http-post-ask-feedback.json` rates (tests/support/state.rs).
const SAVED_RATED_ID: &str = "6b14e396.3e4e3b1a47a64bac.f5e0132294e671a534518f0f4fec26ac";

#[test]
fn every_saved_event_works_with_cargo_lambda_invoke() {
    let env = docs::events_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (_emu, _ask, port) = serve_docs("events", &env);
    let mut responses = String::new();
    // The saved rating names an id this binary issued (a saved id never
    // verifies): one from an answer, in a copy of the event.
    let answer = get(port, "/ask?query=rate+limit&streaming=false", &[]);
    let issued = serde_json::from_slice::<Value>(&answer.body).unwrap()["query_id"]
        .as_str()
        .unwrap()
        .to_string();
    let rated = std::env::temp_dir().join(format!("ask-e2e-rated-{}", std::process::id()));
    std::fs::create_dir_all(&rated).unwrap();
    for (file, status, ..) in support::event_table::expectations() {
        let mut path = docs::repo().join("events").join(&file);
        if file == "http-post-ask-feedback.json" {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.contains(SAVED_RATED_ID));
            path = rated.join(&file);
            std::fs::write(&path, text.replace(SAVED_RATED_ID, &issued)).unwrap();
        }
        let out = Command::new("cargo")
            .args([
                "lambda",
                "invoke",
                "_",
                "-A",
                "127.0.0.1",
                "-P",
                &port.to_string(),
                "--data-file",
            ])
            .arg(&path)
            .current_dir(docs::repo())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(v["statusCode"], status, "{file}");
        responses.push_str(&serde_json::json!({"event": file, "response": v}).to_string());
        responses.push('\n');
    }

    // Every response body against the served OpenAPI document's schema for
    // its path, method, status and content type.
    let spec = get(port, "/openapi.json", &[]);
    assert_eq!(spec.status, 200);
    let dir = std::env::temp_dir().join(format!("ask-openapi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.json"), spec.text()).unwrap();
    std::fs::write(dir.join("responses.jsonl"), responses).unwrap();
    let path = |p: std::path::PathBuf| p.display().to_string();
    run_client(
        "openapi_check.py",
        &[
            path(dir.join("openapi.json")),
            path(dir.join("responses.jsonl")),
            path(docs::repo().join("events")),
        ],
        " 0 problems",
    );
}
