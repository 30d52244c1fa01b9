//! What does a whole page say? Its Markdown, rebuilt from its sections
//! (what MCP's `fetch` and `resources/read`, `/pages/…` and
//! `/llms-full.txt` hand over), and the key a page is known by.
//!
//! The Markdown is the page's title as an H1, its description as a
//! blockquote, then each section: its heading at its level (the intro has
//! none) and its body as `build-index` stored it ([`crate::markdown`]:
//! paragraphs, lists, tables, code fences with their language; no JSX, no
//! HTML, inline markup reduced to its text).

use crate::index::Index;
use crate::markdown::heading;

/// The sections of page `page`: a range of section numbers (sections are
/// stored page by page, in order).
pub fn sections(index: &Index, page: u32) -> std::ops::Range<u32> {
    let n = index.section_count() as u32;
    let first = |p: u32| {
        let (mut lo, mut hi) = (0u32, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if index.section_page(mid) < p {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    first(page)..first(page + 1)
}

/// The key page `page` is known by: its path in the docs folder without
/// its `.mdx` or `.md` extension (`quickstart`, `guides/auth/index`), or a
/// JSONL page's `_id`.
pub fn key(index: &Index, page: u32) -> &str {
    let path = index.page_path_route(page).0;
    path.strip_suffix(".mdx")
        .or_else(|| path.strip_suffix(".md"))
        .unwrap_or(path)
}

/// The page whose key is `key`.
pub fn by_key(index: &Index, key: &str) -> Option<u32> {
    (0..index.page_count() as u32).find(|&p| self::key(index, p) == key)
}

/// The headings of page `page`, in order (the intro has none).
pub fn headings(index: &Index, page: u32) -> Vec<&str> {
    sections(index, page)
        .map(|s| index.section_heading_anchor(s))
        .filter(|(_, anchor)| !anchor.is_empty())
        .map(|(heading, _)| heading)
        .collect()
}

/// Page `page` as Markdown.
pub fn markdown(index: &Index, page: u32) -> String {
    let p = index.page(page);
    let mut out = String::new();
    if !p.title.is_empty() {
        out.push_str(&heading(1, p.title));
        out.push_str("\n\n");
    }
    if !p.description.is_empty() {
        for line in p.description.lines() {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    for s in sections(index, page) {
        let section = index.section(s);
        // A section whose heading is the page's title (a source's own H1)
        // is not said twice.
        let title_again = section.level == 1 && section.heading == p.title;
        if !section.anchor.is_empty() && !title_again {
            out.push_str(&heading(section.level, section.heading));
            out.push_str("\n\n");
        }
        let body = section.text.trim_end();
        if !body.is_empty() {
            out.push_str(body);
            out.push_str("\n\n");
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}
