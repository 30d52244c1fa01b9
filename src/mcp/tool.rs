//! The `ask` tool's call and its result, the same in both regimes.

use super::server::Asker;
use crate::protocol::mcp::{AskArguments, CallToolResult, Structured, TextContent};
use crate::protocol::response::{Document, Echo, TextType};
use crate::protocol::{FailureDocument, ResultItem, wire};

/// Runs `ask` through the `/ask` pipeline, as the URL parameters of a
/// GET with `streaming=false`.
pub(super) async fn call_ask(asker: &(impl Asker + Sync), args: AskArguments) -> CallToolResult {
    let mut params = vec![
        ("query".to_string(), args.query),
        ("streaming".to_string(), "false".to_string()),
    ];
    if let Some(mode) = args.mode {
        params.push(("mode".into(), mode.as_str().into()));
    }
    if let Some(site) = args.site {
        params.push(("site".into(), site));
    }
    if let Some(prev) = args.prev.filter(|p| !p.is_empty()) {
        // A JSON array string keeps entries that contain commas whole.
        params.push((
            "prev".into(),
            serde_json::to_string(&prev).unwrap_or_default(),
        ));
    }
    tool_result(asker.ask(params, args.num_results.map(usize::from)).await)
}

/// The tool's result for a document: the document as text and as
/// `structuredContent`, `isError` when it is a failure.
pub(super) fn tool_result(doc: Document) -> CallToolResult {
    let (text, is_error) = match &doc {
        Document::Answer(a) => (answer_text(&a.results), false),
        Document::ChatAnswer(a) => (answer_text(&a.structured_data), false),
        Document::Failure(f) => (failure_text(f), true),
    };
    CallToolResult {
        content: vec![TextContent {
            kind: TextType::Text,
            text,
        }],
        structured_content: Some(Structured::Document(Box::new(doc))),
        is_error,
        stamp: None,
    }
}

/// The summary (if any), then the sources, numbered as the summary cites
/// them.
fn answer_text(results: &[ResultItem]) -> String {
    let mut out = String::new();
    for item in results {
        if let ResultItem::Summary(s) = item {
            out.push_str(&s.text);
            out.push_str("\n\nSources:\n");
        }
    }
    let articles = results.iter().filter_map(|i| match i {
        ResultItem::Article(a) => Some(a),
        ResultItem::Summary(_) => None,
    });
    for (n, a) in articles.enumerate() {
        out.push_str(&format!("[{}] {} — {}\n", n + 1, a.name, a.url));
    }
    out
}

fn failure_text(f: &FailureDocument) -> String {
    format!("{}: {}", f.error.code.as_str(), f.error.message)
}

/// The answer document of `/ask` for a finished answer or failure.
pub fn document(
    result: &Result<wire::Answer, crate::protocol::Failure>,
    query_id: &str,
    echo: &Echo,
) -> Document {
    match result {
        Ok(a) => wire::answer_document(a, query_id, echo),
        Err(f) => Document::Failure(FailureDocument::new(f, Some(query_id), echo)),
    }
}
