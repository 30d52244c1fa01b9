//! NLWeb's older in-band headers, in a JSON answer and in a stream.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::version::Version;

/// One of NLWeb's older in-band "headers" (`{"message": …}`), as the
/// reference's non-streaming answers carry them at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegacyHeader {
    /// The header's text.
    pub message: String,
}

/// NLWeb's older in-band headers in a stream: unnamed events (no `event:`
/// line, so a client that listens for the named 0.55 events never sees
/// them) right after `start`, in the reference's legacy shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "message_type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LegacyMessage {
    /// `{"message_type":"api_version","api_version":"0.55"}`.
    ApiVersion {
        /// `0.55`.
        api_version: Version,
    },
    /// `{"message_type":"data_freshness","content":…}`: when the index was
    /// built.
    DataFreshness {
        /// The header's text.
        content: String,
    },
    /// `{"message_type":"rate_limits","content":…}`: the token bucket.
    RateLimits {
        /// The header's text.
        content: String,
    },
}
