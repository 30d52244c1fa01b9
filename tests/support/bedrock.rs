//! The hand-written Converse responses of `tests/data/bedrock/` (see its
//! README) and what Bedrock sends with an error.

#![allow(dead_code)]

use serde_json::Value;

use super::docs::repo;

/// The response file `name` of `tests/data/bedrock/`.
pub fn recorded(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/data/bedrock").join(name)).unwrap()
}

/// The text the model wrote in the response file `name`.
pub fn model_text(name: &str) -> String {
    let v: Value = serde_json::from_str(&recorded(name)).unwrap();
    v["output"]["message"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The `x-amzn-errortype` header Bedrock names an error of `status` in
/// (the SDK reads it before the body).
pub fn error_type(status: u16) -> Option<String> {
    let e = match status {
        429 => "ThrottlingException",
        408 => "ModelTimeoutException",
        _ => return None,
    };
    Some(format!(
        "{e}:http://internal.amazon.com/coral/com.amazon.bedrock/"
    ))
}
