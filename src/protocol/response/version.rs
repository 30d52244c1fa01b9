//! The protocol version every document carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The protocol version on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Version {
    /// NLWeb 0.55.
    #[default]
    #[serde(rename = "0.55")]
    V055,
}
