//! What the function's log may hold, whatever level it runs at.
//!
//! `AWS_LAMBDA_LOG_LEVEL` (or `RUST_LOG`) sets the level, and at `debug`
//! or `trace` the libraries underneath log what a request carries: the
//! Lambda runtime the raw event (its `Authorization` header, the
//! question), the HTTP and AWS SDK crates the signed requests and their
//! headers. So only this project's own crates log below `info`; every
//! other crate stops at `info`, which none of them uses for a request's
//! contents. The project's own code never logs a header, and logs a
//! question only as an analytics line under `ask.log_queries`.

use tracing_subscriber::filter::{LevelFilter, Targets};

/// The crates that may log below `info`: this project's.
pub const OWN_CRATES: [&str; 6] = [
    "ask",
    "nlweb_ask",
    "ask_index",
    "ask_embed",
    "ask_settings",
    "ask_store",
];

/// The filter that keeps every other crate at `info` or above (a second
/// filter beside the level's: both must let an event through).
pub fn own_code_below_info() -> Targets {
    OWN_CRATES
        .iter()
        .fold(Targets::new().with_default(LevelFilter::INFO), |t, c| {
            t.with_target(*c, LevelFilter::TRACE)
        })
}
