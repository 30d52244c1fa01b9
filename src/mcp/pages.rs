//! The tools and methods that hand pages over, the same in both regimes:
//! `search` and `fetch` (OpenAI's connector shapes: one text item holding
//! the result as JSON, and the same value as `structuredContent`), and
//! `resources/list` and `resources/read` (each page a `text/markdown`
//! resource whose URI is its id).

use super::server::Asker;
use crate::protocol::mcp::{
    CallToolParams, CallToolResult, Structured, TextContent, Tool, ToolAnnotations, code,
    inline_schema,
};
use crate::protocol::mcp::{ReadResult, ResourceText, ResourcesList};
use crate::protocol::pages::{
    FetchArguments, ListParams, PageDocument, ReadParams, SearchArguments, SearchResults,
};
use crate::protocol::response::TextType;

/// Pages a `resources/list` result holds.
pub const RESOURCES_PER_LIST: usize = 100;

fn read_only() -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: true,
        idempotent_hint: true,
        open_world_hint: false,
    }
}

/// The `search` tool.
pub fn search_tool(product: &str) -> Tool {
    Tool {
        name: "search".into(),
        title: format!("Search the {product} docs"),
        description: format!(
            "Search {product}'s documentation: the pages that best match a query (plain \
             language or keywords), best first, each with its id, title, URL and a snippet. \
             Read a whole page with `fetch` and its id."
        ),
        input_schema: inline_schema::<SearchArguments>(),
        output_schema: inline_schema::<SearchResults>(),
        annotations: read_only(),
    }
}

/// The `fetch` tool.
pub fn fetch_tool(product: &str) -> Tool {
    Tool {
        name: "fetch".into(),
        title: format!("Read a {product} docs page"),
        description: format!(
            "Read one page of {product}'s documentation whole, as Markdown (headings, lists, \
             tables, code with its language), by the id `search` or `resources/list` gave; \
             with its title, URL and metadata (site, headings, build id)."
        ),
        input_schema: inline_schema::<FetchArguments>(),
        output_schema: inline_schema::<PageDocument>(),
        annotations: read_only(),
    }
}

/// A result whose text item is `value` as JSON, and whose
/// `structuredContent` is `value`.
fn json_result(value: Structured) -> CallToolResult {
    CallToolResult {
        content: vec![TextContent {
            kind: TextType::Text,
            text: serde_json::to_string(&value).unwrap_or_default(),
        }],
        structured_content: Some(value),
        is_error: false,
        stamp: None,
    }
}

/// A tool's error result: text only.
fn error_result(text: String) -> CallToolResult {
    CallToolResult {
        content: vec![TextContent {
            kind: TextType::Text,
            text,
        }],
        structured_content: None,
        is_error: true,
        stamp: None,
    }
}

/// `tools/call` of `search` or `fetch`; bad arguments are -32602 (as for
/// `ask` before 2025-11-25) unless `as_results`.
pub(super) async fn call(
    asker: &(impl Asker + Sync),
    p: CallToolParams,
    as_results: bool,
) -> Result<CallToolResult, (i32, String)> {
    let args = p.arguments.unwrap_or_default();
    let bad = |e: serde_json::Error| {
        let text = format!("{} arguments: {e}", p.name);
        if as_results {
            Ok(error_result(format!("INVALID_QUERY: {text}")))
        } else {
            Err((code::INVALID_PARAMS, text))
        }
    };
    match p.name.as_str() {
        "search" => match serde_json::from_value::<SearchArguments>(args) {
            Ok(a) => Ok(match asker.search(a).await {
                Ok(results) => json_result(Structured::Search(results)),
                Err(f) => error_result(format!("{}: {}", f.error.code.as_str(), f.error.message)),
            }),
            Err(e) => bad(e),
        },
        "fetch" => match serde_json::from_value::<FetchArguments>(args) {
            Ok(a) => Ok(match asker.page(&a.id, 2) {
                Some(page) => json_result(Structured::Page(page)),
                None => error_result(format!(
                    "NOT_FOUND: no page has the id {:?}; ids come from search or resources/list",
                    a.id
                )),
            }),
            Err(e) => bad(e),
        },
        other => Err((
            code::INVALID_PARAMS,
            format!("unknown tool {other:?}; the tools are ask, search and fetch"),
        )),
    }
}

/// `resources/list`: [`RESOURCES_PER_LIST`] pages from the cursor's.
pub(super) fn list(asker: &impl Asker, p: ListParams) -> Result<ResourcesList, (i32, String)> {
    let from = match p.cursor.as_deref() {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= asker.page_count())
            .ok_or((
                code::INVALID_PARAMS,
                format!("cursor {c:?} is not one this server gave"),
            ))?,
    };
    let to = (from + RESOURCES_PER_LIST).min(asker.page_count());
    Ok(ResourcesList {
        resources: asker.resources(from..to),
        next_cursor: (to < asker.page_count()).then(|| to.to_string()),
        stamp: None,
    })
}

/// `resources/read`: `Err` with the URI when no page has it.
pub(super) fn read(asker: &impl Asker, p: &ReadParams) -> Result<ReadResult, String> {
    let page = asker.page(&p.uri, 1).ok_or_else(|| p.uri.clone())?;
    Ok(ReadResult {
        contents: vec![ResourceText {
            uri: page.id,
            mime_type: crate::pages::MARKDOWN.into(),
            text: page.text,
        }],
        stamp: None,
    })
}
