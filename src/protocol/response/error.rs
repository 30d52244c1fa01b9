//! The failure document and its `error` member.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::meta::{Echo, Meta};
use crate::protocol::failure::{Failure, FailureCode};

/// `error` of a failure document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// What kind of failure.
    pub code: FailureCode,
    /// What went wrong and what to do.
    pub message: String,
}

impl From<&Failure> for ErrorBody {
    fn from(f: &Failure) -> ErrorBody {
        ErrorBody {
            code: f.code(),
            message: f.to_string(),
        }
    }
}

/// A failure document: the body of every non-answer (and of `NO_RESULTS`,
/// `UNSUPPORTED_*` at 200).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailureDocument {
    /// Document metadata.
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// The failure.
    pub error: ErrorBody,
    /// Present when the request got as far as having one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_id: Option<String>,
}

impl FailureDocument {
    /// The document for `f`.
    pub fn new(f: &Failure, query_id: Option<&str>, echo: &Echo) -> FailureDocument {
        FailureDocument {
            meta: Meta::failure(echo),
            error: f.into(),
            query_id: query_id.map(str::to_string),
        }
    }
}
