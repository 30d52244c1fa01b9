//! What does `/mcp` answer? MCP over Streamable HTTP, stateless, with JSON
//! responses, in two regimes on the one endpoint:
//! - revisions 2024-11-05 to 2025-11-25: `initialize` (version
//!   negotiation), `ping`, `tools/list` and `tools/call`, batches where the
//!   revision has them; notifications and client responses get 202;
//! - revision 2026-07-28, chosen by its `MCP-Protocol-Version` header (or
//!   by a body that carries its `_meta`): no handshake, `server/discover`,
//!   each request's `_meta` checked against the `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` headers, `resultType` and cache hints on
//!   results, and what it removed (`initialize`, `ping`, batches) refused
//!   as it says.
//!
//! The `ask` tool runs the `/ask` pipeline and returns its NLWeb document
//! as `structuredContent`, and the same as text; `search`, `fetch` and the
//! resources hand pages over ([`pages`]).

mod handshake;
pub mod pages;
mod server;
mod stateless;
mod tool;

pub use server::{Asker, Headers, MAX_BATCH, Reply, ask_tool, failure_reply, server_info};
pub use tool::document;

use crate::protocol::mcp::{DEFAULT_VERSION, HANDSHAKE_VERSIONS, code, meta};

/// Answers a POST to `/mcp`. A `MCP-Protocol-Version` that is not a
/// handshake revision is served as 2026-07-28 would (as the official SDKs
/// route it); so is a request whose body carries 2026-07-28's `_meta`.
pub async fn handle(asker: &(impl Asker + Sync), headers: &Headers<'_>, body: &[u8]) -> Reply {
    let version = headers.version.map(str::trim);
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Reply::rejected(code::PARSE_ERROR, format!("body is not JSON: {e}"));
        }
    };
    match version {
        Some(v) if !HANDSHAKE_VERSIONS.contains(&v) => {
            stateless::stateless(asker, headers, v, value).await
        }
        _ if carries_stateless_meta(&value) => {
            stateless::stateless(asker, headers, version.unwrap_or(""), value).await
        }
        _ => handshake::handshake(asker, version.unwrap_or(DEFAULT_VERSION), value).await,
    }
}

/// A request (not `initialize`) whose `params._meta` names a protocol
/// version: a 2026-07-28 request, whatever its headers say.
fn carries_stateless_meta(value: &serde_json::Value) -> bool {
    value.get("method").and_then(|m| m.as_str()) != Some("initialize")
        && value
            .pointer("/params/_meta")
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .is_some()
}

#[cfg(test)]
mod pages_tests;
#[cfg(test)]
mod stateless_tests;
#[cfg(test)]
mod tests;
