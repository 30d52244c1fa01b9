//! `/pages/{key}.md` and `/llms-full.txt`: the docs' pages as Markdown
//! over HTTP, each at a stable URL (its key: its path in the docs folder
//! without the extension), and all of them in one file. `ETag`s are keyed
//! to the index build, so a revalidation after a rebuild gets the new
//! text and before it a 304.

use axum::body::Body;
use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::http::request::Parts;

use crate::pages;
use crate::protocol::openapi::{self as oa, get_protected, obj, revalidated, s, text};
use crate::protocol::paths::PAGES_PREFIX;
use crate::reply;
use crate::state::State;

/// The page a `/pages/{key}.md` path names.
fn page_of(state: &State, path: &str) -> Option<u32> {
    let key = path.strip_prefix(PAGES_PREFIX)?.strip_suffix(".md")?;
    pages::find(&state.index, key)
}

fn markdown_reply(content_type: &str, body: String) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", content_type)
        .body(Body::from(body))
        .expect("valid response")
}

/// The page [`validator`] found, left for the route.
#[derive(Clone, Copy)]
struct Found(u32);

/// GET `/pages/{key}.md`: the page as `text/markdown`, or 404.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let found = req.extensions().get::<Found>().map(|f| f.0);
    let Some(page) = found.or_else(|| page_of(&state, req.uri().path())) else {
        return reply::not_found();
    };
    let budget = pages::budget(state.config.max_response_bytes, 0);
    let (md, _) = pages::markdown(&state.index, page, budget);
    markdown_reply("text/markdown; charset=utf-8", md)
}

/// The page's validator: the build and the page (none for a page that
/// is not there: the 404 is not validated).
pub fn validator(state: &State, parts: &mut Parts) -> Option<u64> {
    let page = page_of(state, parts.uri.path())?;
    parts.extensions.insert(Found(page));
    let key = format!("{}/{}", state.index.meta.build_id, page);
    Some(ask_index::index::fnv1a64(key.as_bytes(), 0x7061_6765))
}

/// GET `/llms-full.txt`: every page's Markdown, then its URL.
pub async fn full(Ctx(state): Ctx<State>) -> Response {
    let docs = state.docs();
    let body = pages::full_text(
        &state.index,
        |p| crate::answer::page_url(docs, p),
        pages::budget(state.config.max_response_bytes, 0),
    );
    markdown_reply("text/plain; charset=utf-8", body)
}

/// `/llms-full.txt`'s validator: the build.
pub fn full_validator(state: &State, _: &mut Parts) -> Option<u64> {
    Some(ask_index::index::fnv1a64(
        state.index.meta.build_id.as_bytes(),
        0x6675_6c6c,
    ))
}

/// `/pages/{key}.md`'s OpenAPI path item.
pub fn fragment(p: &oa::Parts) -> serde_json::Value {
    let mut item = get_protected(
        p,
        "pageMarkdown",
        "One page of the docs as Markdown (headings, paragraphs, lists, tables, code fences with their language), at its key: its path in the docs folder without .mdx (resources/list on /mcp lists them); ETag keyed to the index build; 404 for a page that is not there",
        text("Markdown", "text/markdown"),
        vec![],
        vec![],
    );
    // A path parameter, for every operation of the path.
    item["parameters"] = serde_json::Value::Array(vec![obj(&[
        ("name", s("page")),
        ("in", s("path")),
        ("required", serde_json::Value::Bool(true)),
        (
            "description",
            s("The page's key and .md, such as quickstart.md or guides/auth/index.md"),
        ),
        ("schema", obj(&[("type", s("string"))])),
    ])]);
    revalidated(item)
}

/// `/llms-full.txt`'s OpenAPI path item.
pub fn full_fragment(p: &oa::Parts) -> serde_json::Value {
    let item = get_protected(
        p,
        "llmsFullTxt",
        "Every page of the docs as Markdown in one file, each followed by its URL (cut, with a closing line that says so, at ask.max_response_bytes); ETag keyed to the index build",
        text("llms-full.txt", "text/plain"),
        vec![],
        vec![],
    );
    revalidated(item)
}
