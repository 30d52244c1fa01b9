//! The `ask` Lambda: an NLWeb 0.55 `/ask` endpoint over a prebuilt index.
//!
//! - [`config`]: settings from `common/global_config.yaml` and `ASK_*`;
//! - [`source`]: fetching the index (S3 or file) at cold start;
//! - [`protocol`]: parsing the three request shapes into an [`protocol::AskRequest`];
//! - [`answer`]: retrieval, items, the extractive summary, JSON and SSE documents;
//! - [`rate_limit`]: per-client token buckets;
//! - [`handler`]: routing, CORS, limits, failures → HTTP responses.
#![deny(missing_docs)]

pub mod answer;
pub mod config;
pub mod handler;
pub mod protocol;
pub mod rate_limit;
pub mod source;
