//! The pinned sentence model's folder for the tests, the one helper every
//! test crate that needs the model uses (crates/embed's tests include this
//! file by path).

#![allow(dead_code)]

use std::path::PathBuf;

/// The pinned sentence model's folder (`ASK_TEST_MODEL_DIR`, set by
/// scripts/test.sh from scripts/model.sh), or `None` to skip, said out
/// loud (a failure under `ASK_REQUIRE_CORPORA`, as CI runs).
pub fn model_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("ASK_TEST_MODEL_DIR").map(PathBuf::from) {
        Some(d) if d.join("model.safetensors").is_file() => Some(d),
        _ => {
            assert!(
                !std::env::var("ASK_REQUIRE_CORPORA").is_ok_and(|v| v != "0"),
                "{test}: ASK_TEST_MODEL_DIR does not name the sentence model (scripts/model.sh)"
            );
            eprintln!("SKIPPED {test}: no sentence model (ASK_TEST_MODEL_DIR)");
            None
        }
    }
}
