//! The handshake revisions (2024-11-05 to 2025-11-25): `initialize`,
//! `ping`, `tools/list` and `tools/call`, and batches where the revision
//! has them.

use super::pages;
use super::server::{Asker, MAX_BATCH, Reply, failure_reply, instructions, server_info};
use super::tool::{call_ask, tool_result};
use crate::protocol::mcp::TemplatesList;
use crate::protocol::mcp::{
    AskArguments, CallToolParams, CallToolResult, Capabilities, Empty, HANDSHAKE_VERSIONS, Id,
    InitializeParams, InitializeResult, McpResult, Message, ResourcesCapability, Response,
    ToolsCapability, ToolsList, argument_errors_are_results, batches_allowed, code,
};
use crate::protocol::pages::ReadParams;
use crate::protocol::response::{Document, Echo};
use crate::protocol::{Failure, FailureDocument};

/// The handshake revisions (2024-11-05 to 2025-11-25) at `version`.
pub(super) async fn handshake(
    asker: &(impl Asker + Sync),
    version: &str,
    value: serde_json::Value,
) -> Reply {
    match value {
        serde_json::Value::Array(batch) => {
            if !batches_allowed(version) {
                return Reply::rejected(
                    code::INVALID_REQUEST,
                    format!(
                        "protocol version {version} has no batches: send one message per request"
                    ),
                );
            }
            if batch.is_empty() {
                return Reply::rejected(code::INVALID_REQUEST, "empty batch");
            }
            if batch.len() > MAX_BATCH {
                return Reply::rejected(
                    code::INVALID_REQUEST,
                    format!(
                        "a batch holds at most {MAX_BATCH} messages; this one has {}",
                        batch.len()
                    ),
                );
            }
            // Every request of the batch is one unit of work: one token each
            // (the POST itself paid for the first).
            let requests = batch
                .iter()
                .filter(|m| m.get("method").is_some() && m.get("id").is_some())
                .count() as u32;
            if let Err(f) = asker.spend(requests.saturating_sub(1)) {
                return failure_reply(&f, &Echo::default());
            }
            let mut replies: Vec<Response> = Vec::with_capacity(batch.len());
            for m in batch {
                let request = m.get("method").is_some() && m.get("id").is_some();
                if request && asker.past_deadline() {
                    replies.push(Response::error(
                        id_of(&m),
                        code::DEADLINE_PASSED,
                        "not started: the batch ran out of time before this request; send it again",
                    ));
                    continue;
                }
                replies.extend(one(asker, version, m).await);
            }
            if replies.is_empty() {
                Reply::accepted()
            } else {
                Reply::json(200, &replies)
            }
        }
        single => match one(asker, version, single).await {
            Some(r @ Response::Error { id: None, .. }) => Reply::json(400, &r),
            Some(r) => Reply::json(200, &r),
            None => Reply::accepted(),
        },
    }
}

/// One message of a handshake revision: a response for a request, `None`
/// for a notification or a client's response.
async fn one(
    asker: &(impl Asker + Sync),
    version: &str,
    value: serde_json::Value,
) -> Option<Response> {
    let is_client_response = value.get("method").is_none()
        && (value.get("result").is_some() || value.get("error").is_some());
    if is_client_response {
        return None;
    }
    let message: Message = match serde_json::from_value(value.clone()) {
        Ok(m) => m,
        Err(e) => {
            return Some(Response::error(
                id_of(&value),
                code::INVALID_REQUEST,
                format!("not a JSON-RPC 2.0 message: {e}"),
            ));
        }
    };
    let id = message.id.clone()?;
    Some(match handshake_method(asker, version, &message).await {
        Ok(result) => Response::result(id, result),
        Err((code, text)) => Response::error(Some(id), code, text),
    })
}

fn id_of(v: &serde_json::Value) -> Option<Id> {
    v.get("id")
        .and_then(|i| serde_json::from_value(i.clone()).ok())
}

pub(super) fn params<T: serde::de::DeserializeOwned + Default>(
    m: &Message,
) -> Result<T, (i32, String)> {
    match &m.params {
        None | Some(serde_json::Value::Null) => Ok(T::default()),
        Some(p) => serde_json::from_value(p.clone())
            .map_err(|e| (code::INVALID_PARAMS, format!("{} params: {e}", m.method))),
    }
}

async fn handshake_method(
    asker: &(impl Asker + Sync),
    version: &str,
    m: &Message,
) -> Result<McpResult, (i32, String)> {
    match m.method.as_str() {
        "initialize" => {
            let p: InitializeParams = params(m)?;
            let asked = p.protocol_version.unwrap_or_default();
            // The version asked for if it is served, else the newest.
            let agreed = HANDSHAKE_VERSIONS
                .iter()
                .find(|v| **v == asked)
                .unwrap_or(&HANDSHAKE_VERSIONS[0]);
            let product = asker.product();
            Ok(McpResult::Initialize(InitializeResult {
                protocol_version: agreed.to_string(),
                capabilities: capabilities(),
                server_info: server_info(&product),
                instructions: instructions(&product),
            }))
        }
        "ping" => Ok(McpResult::Empty(Empty {})),
        "tools/list" => Ok(McpResult::Tools(ToolsList {
            tools: asker.tools(),
            stamp: None,
        })),
        "tools/call" => tools_call(asker, version, m)
            .await
            .map(|r| McpResult::CallTool(Box::new(r))),
        "resources/list" => pages::list(asker, params(m)?).map(McpResult::Resources),
        "resources/templates/list" => Ok(McpResult::Templates(TemplatesList {
            resource_templates: Vec::new(),
            stamp: None,
        })),
        "resources/read" => {
            let p: ReadParams = required_params(m)?;
            pages::read(asker, &p).map(McpResult::Read).map_err(|uri| {
                (
                    code::RESOURCE_NOT_FOUND,
                    format!("Resource not found: {uri}"),
                )
            })
        }
        other => Err((
            code::METHOD_NOT_FOUND,
            format!(
                "method {other:?} is not served; use initialize, ping, tools/list, tools/call, \
                 resources/list or resources/read"
            ),
        )),
    }
}

pub(super) fn capabilities() -> Capabilities {
    Capabilities {
        tools: ToolsCapability {
            list_changed: false,
        },
        resources: ResourcesCapability {
            subscribe: false,
            list_changed: false,
        },
    }
}

/// A method's params that it cannot do without.
pub(super) fn required_params<T: serde::de::DeserializeOwned>(
    m: &Message,
) -> Result<T, (i32, String)> {
    match &m.params {
        Some(p) => serde_json::from_value(p.clone())
            .map_err(|e| (code::INVALID_PARAMS, format!("{} params: {e}", m.method))),
        None => Err((code::INVALID_PARAMS, format!("{} needs params", m.method))),
    }
}

/// `tools/call` of `ask` at `version`: an unknown tool is -32602; bad
/// arguments are too, or from 2025-11-25 a result with `isError` and the
/// INVALID_QUERY document.
pub(super) async fn tools_call(
    asker: &(impl Asker + Sync),
    version: &str,
    m: &Message,
) -> Result<CallToolResult, (i32, String)> {
    let p: CallToolParams = required_params(m)?;
    if p.name != "ask" {
        return pages::call(asker, p, argument_errors_are_results(version)).await;
    }
    let args = serde_json::from_value::<AskArguments>(p.arguments.unwrap_or_default())
        .map_err(|e| format!("ask arguments: {e}"))
        .and_then(|a| match a.num_results {
            Some(n) if !(1..=10).contains(&n) => {
                Err("ask arguments: num_results is between 1 and 10".to_string())
            }
            _ => Ok(a),
        });
    match args {
        Ok(args) => Ok(call_ask(asker, args).await),
        Err(text) if argument_errors_are_results(version) => {
            let doc = Document::Failure(FailureDocument::new(
                &Failure::InvalidQuery(text),
                None,
                &Echo::default(),
            ));
            Ok(tool_result(doc))
        }
        Err(text) => Err((code::INVALID_PARAMS, text)),
    }
}
