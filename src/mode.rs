//! The answer modes: a word of the settings (`ask.default_mode`,
//! `ask.generator_modes`) and of the wire (`mode`, `prefer.mode`), so it
//! lives below both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A response mode.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Ranked sections only.
    List,
    /// Sections plus an extractive SearchSummary.
    Summarize,
    /// Like summarize (extractive, no model): the summary is the answer.
    Generate,
}

impl Mode {
    /// Parses one mode name; `none` is the reference server's name for list.
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "list" | "none" => Some(Mode::List),
            "summarize" | "summary" => Some(Mode::Summarize),
            "generate" => Some(Mode::Generate),
            _ => None,
        }
    }

    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::List => "list",
            Mode::Summarize => "summarize",
            Mode::Generate => "generate",
        }
    }
}
