//! The `ask` Lambda: an NLWeb 0.55 `/ask` endpoint over a prebuilt index.
//!
//! - [`event`]: events `lambda_http` would panic on, made readable;
//! - [`mode`]: the answer modes, a word of both the settings and the wire;
//! - [`config`]: settings from `common/global_config.yaml` and `ASK_*`;
//! - [`source`]: loading the index (S3 or file, through `ask_store`) at cold start;
//! - [`protocol`]: request shapes, failures, response documents, SSE framing, MCP
//!   messages, the OpenAPI document;
//! - [`answer`]: retrieval → items, and the summary item;
//! - [`summary`]: the extractive summarizer (sections in, cited sentences out);
//! - [`mcp`]: the `/mcp` JSON-RPC exchange and the `ask` tool;
//! - [`rate_limit`]: per-client token buckets;
//! - [`auth`]: optional bearer-token (JWT) authentication;
//! - [`built`]: the runtime objects (token checker, model) the config describes;
//! - [`state`]: what every request shares, built once per cold start;
//! - [`app`]: the router and its layers, applied in one place;
//! - [`routes`]: one module per route; [`layers`]: what every route gets;
//! - [`exchange`]: what the layers tell a route; [`reply`]: documents → responses;
//! - [`analytics`]: a log line (and metrics) a question, rating and 429.
#![deny(missing_docs)]

pub mod analytics;
pub mod answer;
pub mod app;
pub mod auth;
pub mod built;
pub mod config;
pub mod event;
pub mod exchange;
pub mod generate;
pub mod layers;
pub mod logs;
pub mod mcp;
pub mod mode;
pub mod pages;
pub mod protocol;
pub mod query_id;
pub mod rate_limit;
pub mod reply;
pub mod routes;
pub mod sites;
pub mod source;
pub mod state;
pub mod summary;
