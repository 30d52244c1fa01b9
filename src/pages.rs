//! How is a whole page handed over? Its id (`docs://` and its key, the
//! same for MCP `search`, `fetch` and resources), its Markdown
//! ([`ask_index::pages`]) cut to fit the response cap with a note that
//! says so, and the URLs it is read at: the docs site's, for citation,
//! and this endpoint's `/pages/{key}.md`.

use ask_index::{Index, pages};

use crate::protocol::pages::{PageDocument, PageMetadata, Resource};
use crate::protocol::paths::PAGES_PREFIX;

/// The scheme of page ids and resource URIs.
pub const SCHEME: &str = "docs://";

/// Bytes a response keeps for what surrounds a page's Markdown (JSON-RPC,
/// the title and URLs, the metadata).
const ENVELOPE: usize = 8 * 1024;

/// What a key keeps as is in an id or a path: RFC 3986's unreserved
/// characters and `/`; the rest (`[platform]` → `%5Bplatform%5D`, non-ASCII
/// too) is percent-encoded.
const KEY: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

fn encode(key: &str) -> String {
    percent_encoding::utf8_percent_encode(key, KEY).to_string()
}

/// Page `page`'s id: `docs://` and its key, percent-encoded.
pub fn id(index: &Index, page: u32) -> String {
    format!("{SCHEME}{}", encode(pages::key(index, page)))
}

/// The path of page `page`'s Markdown on this endpoint.
pub fn markdown_path(index: &Index, page: u32) -> String {
    format!("{PAGES_PREFIX}{}.md", encode(pages::key(index, page)))
}

/// The page an id names: `docs://` and a key, or the URL or path of its
/// Markdown on this endpoint (`…/pages/{key}.md`), or the bare key.
pub fn find(index: &Index, id: &str) -> Option<u32> {
    let id = id.trim();
    let key = if let Some(k) = id.strip_prefix(SCHEME) {
        k
    } else if let Some(at) = id.rfind(PAGES_PREFIX) {
        id[at + PAGES_PREFIX.len()..].strip_suffix(".md")?
    } else {
        id
    };
    let key = percent_encoding::percent_decode_str(key)
        .decode_utf8()
        .ok()?;
    pages::by_key(index, &key)
}

/// Page `page`'s Markdown, cut at a line so that it is at most `budget`
/// bytes, with a closing note when it is: whether it was cut.
pub fn markdown(index: &Index, page: u32, budget: usize) -> (String, bool) {
    cut(pages::markdown(index, page), budget)
}

/// `md` cut at a line so that it is at most `budget` bytes, with a closing
/// note when it is: whether it was cut.
pub fn cut(md: String, budget: usize) -> (String, bool) {
    if md.len() <= budget {
        return (md, false);
    }
    let note = format!(
        "\n\n[Cut here: the whole is {} bytes, more than a response holds (ask.max_response_bytes). \
         Search its sections with /ask or the search tool.]\n",
        md.len()
    );
    let mut end = budget.saturating_sub(note.len());
    while !md.is_char_boundary(end) {
        end -= 1;
    }
    let end = md[..end].rfind('\n').unwrap_or(end);
    let mut out = md[..end].trim_end().to_string();
    out.push_str(&note);
    (out, true)
}

/// How many bytes of Markdown one response may carry under `cap`, written
/// `copies` times over in JSON (`0`: as it is, not in JSON; JSON escaping
/// counted as doubling).
pub fn budget(cap: usize, copies: usize) -> usize {
    match copies {
        0 => cap.saturating_sub(ENVELOPE),
        n => cap.saturating_sub(ENVELOPE) / (2 * n),
    }
}

/// Every page's Markdown, each followed by its docs-site URL, in the
/// index's order, within `budget` bytes: `llms-full.txt`.
pub fn full_text(index: &Index, url: impl Fn(u32) -> String, budget: usize) -> String {
    let mut out = String::new();
    let n = index.page_count() as u32;
    for p in 0..n {
        let page = format!(
            "{}\nSource: {}\n\n---\n\n",
            pages::markdown(index, p),
            url(p)
        );
        if out.len() + page.len() > budget.saturating_sub(512) {
            out.push_str(&format!(
                "[{} more pages are not in this file: it would pass the response cap \
                 (ask.max_response_bytes). Each page is at {PAGES_PREFIX}{{key}}.md, listed with \
                 resources/list on /mcp.]\n",
                n - p
            ));
            break;
        }
        out.push_str(&page);
    }
    out
}

/// Page `page` as `fetch` gives it, its Markdown within `budget` bytes.
pub fn document(
    index: &Index,
    page: u32,
    site: &str,
    docs_url: String,
    budget: usize,
) -> PageDocument {
    let p = index.page(page);
    let id = id(index, page);
    let (text, cut) = markdown(index, page, budget);
    PageDocument {
        id,
        title: p.title.to_string(),
        text,
        url: docs_url,
        metadata: PageMetadata {
            site: site.to_string(),
            headings: pages::headings(index, page).join("\n"),
            build_id: index.meta.build_id.clone(),
            path: p.path.to_string(),
            truncated: cut.to_string(),
        },
    }
}

/// Page `page` as a resource.
pub fn resource(index: &Index, page: u32) -> Resource {
    let p = index.page(page);
    Resource {
        uri: id(index, page),
        name: pages::key(index, page).to_string(),
        title: p.title.to_string(),
        description: (!p.description.is_empty()).then(|| p.description.to_string()),
        mime_type: MARKDOWN.to_string(),
    }
}

/// The media type of a page's Markdown.
pub const MARKDOWN: &str = "text/markdown";
