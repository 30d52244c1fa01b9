//! Revision 2026-07-28: no handshake, one request or notification a POST,
//! checked rung by rung against its headers, then `server/discover`,
//! `tools/list` or `tools/call`.

use super::handshake::{capabilities, params, required_params, tools_call};
use super::pages;
use super::server::{Asker, Headers, Reply, instructions, pages_scope, stamp};
use crate::protocol::mcp::CacheScope;
use crate::protocol::mcp::{
    ALL_VERSIONS, DiscoverResult, ErrorObject, Id, JsonRpcVersion, McpResult, Message, Response,
    STATELESS_VERSIONS, ToolsList, UnsupportedVersion, code, meta,
};
use crate::protocol::mcp::{ResourceNotFound, TemplatesList};
use crate::protocol::pages::ReadParams;

/// Revision 2026-07-28 (`version` is the `MCP-Protocol-Version` header,
/// empty when absent): one request or notification a POST, checked in the
/// order its SDKs check it (`_meta`, then the headers, then the version),
/// then `server/discover`, `tools/list` or `tools/call`.
pub(super) async fn stateless(
    asker: &(impl Asker + Sync),
    headers: &Headers<'_>,
    version: &str,
    value: serde_json::Value,
) -> Reply {
    let served = STATELESS_VERSIONS.contains(&version);
    let is_object = value.is_object();
    let has_id = value.get("id").is_some();
    if is_object && !has_id {
        // A notification: nothing to answer, unless it cannot be one.
        let valid = value.get("jsonrpc").and_then(|v| v.as_str()) == Some("2.0")
            && value.get("method").is_some_and(|m| m.is_string());
        return if !valid {
            Reply::rejected(code::INVALID_REQUEST, SINGLE_MESSAGE)
        } else if !served {
            unsupported(None, version)
        } else {
            Reply::accepted()
        };
    }
    let message: Option<Message> = serde_json::from_value(value).ok();
    let Some(m) = message.filter(|m| {
        m.id.is_some() && matches!(m.params, None | Some(serde_json::Value::Object(_)))
    }) else {
        return Reply::rejected(code::INVALID_REQUEST, SINGLE_MESSAGE);
    };
    let id = m.id.clone();
    let refuse = |code: i32, text: String| stateless_error(id.clone(), code, text, None);
    if let Some(name) = headers.repeated {
        return refuse(
            code::HEADER_MISMATCH,
            format!("{name} header appears more than once"),
        );
    }
    // Rung 1: the envelope.
    let envelope = m.params.as_ref().and_then(|p| p.get("_meta"));
    let missing: Vec<&str> = [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|k| envelope.and_then(|e| e.get(k)).is_none())
        .collect();
    if !missing.is_empty() {
        if !served && envelope.is_none() {
            // Neither a handshake nor a 2026-07-28 request: say which
            // revisions are served.
            return unsupported(id, version);
        }
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta is missing the required key(s) {} (protocol 2026-07-28)",
                missing.join(", ")
            ),
        );
    }
    let envelope = envelope.cloned().unwrap_or_default();
    // A version that is not a string matches no header: rung 2 says so.
    let asked = envelope[meta::PROTOCOL_VERSION].as_str();
    // Rung 2: the headers say what the body says.
    let Some(asked) = asked.filter(|a| headers.version.map(str::trim) == Some(*a)) else {
        return refuse(
            code::HEADER_MISMATCH,
            "MCP-Protocol-Version header does not match the request's _meta protocol version"
                .into(),
        );
    };
    if let Some(text) = routing_mismatch(headers, &m) {
        return refuse(code::HEADER_MISMATCH, text.into());
    }
    // Rung 3: the revision; then the request's own parameters.
    if !STATELESS_VERSIONS.contains(&asked) {
        return unsupported(id, asked);
    }
    if !envelope[meta::CLIENT_CAPABILITIES].is_object() {
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta[{:?}] is not an object",
                meta::CLIENT_CAPABILITIES
            ),
        );
    }
    // clientInfo is optional; when sent it names the client.
    if let Some(info) = envelope.get(meta::CLIENT_INFO)
        && !(info["name"].is_string() && info["version"].is_string())
    {
        return refuse(
            code::INVALID_PARAMS,
            format!(
                "params._meta[{:?}] needs a string name and version",
                meta::CLIENT_INFO
            ),
        );
    }
    let id = id.unwrap_or(Id::Number(0.into()));
    serve(asker, id, asked, &m).await
}

/// Rung 2 for the method and the name: `Mcp-Method` says the body's
/// method and, for `tools/call`, `Mcp-Name` its tool's name; the mismatch
/// found first, if any, as the message to refuse with.
fn routing_mismatch(headers: &Headers<'_>, m: &Message) -> Option<&'static str> {
    if headers.method != Some(m.method.as_str()) {
        return Some("Mcp-Method header does not match the request body's method");
    }
    // `Mcp-Name`: the tool's name, or the resource's URI.
    let named = match m.method.as_str() {
        "tools/call" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(member) = named {
        let name = m
            .params
            .as_ref()
            .and_then(|p| p.get(member))
            .and_then(|n| n.as_str());
        if name.is_some() && headers.name.and_then(decode_header) != name.map(str::to_string) {
            return Some("Mcp-Name header does not match the request body's name");
        }
    }
    None
}

/// A 2026-07-28 request that passed every rung, at revision `asked`:
/// `server/discover`, `tools/list` or `tools/call`.
async fn serve(asker: &(impl Asker + Sync), id: Id, asked: &str, m: &Message) -> Reply {
    let result = match m.method.as_str() {
        "server/discover" => Ok(McpResult::Discover(DiscoverResult {
            supported_versions: STATELESS_VERSIONS.iter().map(|v| v.to_string()).collect(),
            capabilities: capabilities(),
            instructions: instructions(&asker.product()),
            stamp: stamp(asker, Some(CacheScope::Public)),
        })),
        "tools/list" => Ok(McpResult::Tools(ToolsList {
            tools: asker.tools(),
            stamp: Some(stamp(asker, Some(CacheScope::Public))),
        })),
        "resources/list" => params(m).and_then(|p| pages::list(asker, p)).map(|mut r| {
            r.stamp = Some(stamp(asker, Some(pages_scope(asker))));
            McpResult::Resources(r)
        }),
        "resources/templates/list" => Ok(McpResult::Templates(TemplatesList {
            resource_templates: Vec::new(),
            stamp: Some(stamp(asker, Some(pages_scope(asker)))),
        })),
        "resources/read" => match required_params::<ReadParams>(m) {
            Ok(p) => match pages::read(asker, &p) {
                Ok(mut r) => {
                    r.stamp = Some(stamp(asker, Some(pages_scope(asker))));
                    Ok(McpResult::Read(r))
                }
                // 2026-07-28: -32602, the URI in `data`.
                Err(uri) => {
                    return stateless_error(
                        Some(id),
                        code::INVALID_PARAMS,
                        "Resource not found".into(),
                        serde_json::to_value(ResourceNotFound { uri }).ok(),
                    );
                }
            },
            Err(e) => Err(e),
        },
        "tools/call" => tools_call(asker, asked, m).await.map(|mut r| {
            r.stamp = Some(stamp(asker, None));
            McpResult::CallTool(Box::new(r))
        }),
        other => {
            return stateless_error(
                Some(id),
                code::METHOD_NOT_FOUND,
                format!(
                    "method {other:?} is not served in protocol {asked}; use server/discover, \
                     tools/list, tools/call, resources/list or resources/read"
                ),
                Some(serde_json::Value::String(other.to_string())),
            );
        }
    };
    match result {
        Ok(r) => Reply::json(200, &Response::result(id, r)),
        Err((code, text)) => stateless_error(Some(id), code, text, None),
    }
}

/// What 2026-07-28 answers a body that is not one request or notification.
const SINGLE_MESSAGE: &str = "protocol 2026-07-28: the body must be a single JSON-RPC request or \
                              notification object";

/// A 2026-07-28 error at the status its transport gives the code: 404 for
/// a method not found, 200 for an internal error, else 400.
fn stateless_error(
    id: Option<Id>,
    code: i32,
    message: String,
    data: Option<serde_json::Value>,
) -> Reply {
    let status = match code {
        code::METHOD_NOT_FOUND => 404,
        code::INTERNAL_ERROR => 200,
        _ => 400,
    };
    Reply::json(
        status,
        &Response::Error {
            jsonrpc: JsonRpcVersion::V2,
            id,
            error: ErrorObject {
                code,
                message,
                data,
            },
        },
    )
}

/// -32022: the revision asked for is not served; `data` names those that
/// are, handshake ones included, so that a client can fall back.
fn unsupported(id: Option<Id>, requested: &str) -> Reply {
    stateless_error(
        id,
        code::UNSUPPORTED_VERSION,
        format!(
            "protocol version {requested:?} is not supported; use one of {}",
            ALL_VERSIONS.join(", ")
        ),
        serde_json::to_value(UnsupportedVersion {
            supported: &ALL_VERSIONS,
            requested: requested.to_string(),
        })
        .ok(),
    )
}

/// A routing header's value: as sent, or decoded from `=?base64?…?=`
/// (2026-07-28's encoding of values that are not plain ASCII); `None` when
/// that encoding is malformed.
fn decode_header(v: &str) -> Option<String> {
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(v.to_string()),
    }
}
