//! The subcommands' bodies, one module each; `main.rs` parses the command line and dispatches here.

pub(crate) mod build;
pub(crate) mod check;
pub(crate) mod evaluate;
pub(crate) mod model;
mod rules;
pub(crate) mod search;
