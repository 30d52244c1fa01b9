//! What does a section's Markdown say? Its plain text (what is analysed,
//! embedded and shown as an item's `text`) and its blocks (what a summary
//! quotes and a page's Markdown shows).
//!
//! `build-index` stores each section's body as a small Markdown:
//!
//! - paragraphs as lines of text, their inline markup already reduced to
//!   its text (no emphasis, links or inline code marks);
//! - list items with their marker (`- ` or `1. `), indented to their depth;
//! - tables as `| a | b |` rows, the header's separator row (`| --- |`)
//!   after it;
//! - code as fences with their language, and `title="…"` when the source
//!   had one.
//!
//! Nothing else: no headings (a section's heading is stored beside it), no
//! HTML, no JSX. [`plain`] turns it into the text analysed at build time;
//! [`blocks`] reads its structure.

/// What separates the cells of a table row in plain text.
pub const CELL_SEPARATOR: &str = " | ";

/// A code fence opening at the start of `trimmed`: its character, its
/// length and the info string after it (`js title="a.js"`).
pub fn fence_open(trimmed: &str) -> Option<(char, usize, &str)> {
    let c = trimmed.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = trimmed.chars().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    let info = &trimmed[n..];
    if c == '`' && info.contains('`') {
        return None;
    }
    Some((c, n, info))
}

/// Does `line` close a fence of `n` characters `c`?
pub fn fence_closes(line: &str, c: char, n: usize) -> bool {
    let t = line.trim();
    t.len() >= n && t.chars().all(|x| x == c)
}

/// `key="value"` (or `'value'`) in a fence info string or tag.
pub fn attribute_in(info: &str, key: &str) -> Option<String> {
    let at = info.find(&format!("{key}="))?;
    let rest = &info[at + key.len() + 1..];
    let q = rest.chars().next()?;
    if q != '"' && q != '\'' {
        return None;
    }
    let end = rest[1..].find(q)?;
    Some(rest[1..1 + end].to_string())
}

/// The language of a fence's info string: its first word, unless that
/// word is an attribute or a line-highlight range (`{1,3}`).
pub fn fence_language(info: &str) -> &str {
    let first = info.split_whitespace().next().unwrap_or("");
    if first.contains('=') || first.starts_with('{') {
        ""
    } else {
        first.trim_end_matches(['{', ','])
    }
}

/// Is the (trimmed) line a table's separator row (`| --- | :-: |`)?
pub fn is_table_separator(t: &str) -> bool {
    let t = t.trim();
    t.contains('-') && t.contains('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The length of a list item's marker and its space at the start of
/// `t` (`- `, `* `, `+ `, `12. `, `3) `), if it has one.
pub fn list_marker(t: &str) -> Option<usize> {
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
        return Some(2);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 10 {
        let r = &t[digits..];
        if r.starts_with(". ") || r.starts_with(") ") {
            return Some(digits + 2);
        }
    }
    None
}

/// A table row as stored (`| a | b |`): its cells' text, joined by
/// [`CELL_SEPARATOR`] (the row's outer pipes removed).
fn row_text(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("| ")?;
    Some(inner.strip_suffix(" |").unwrap_or(inner))
}

/// The plain text of a section's Markdown: fences give their title (if
/// any) and their lines, table rows their cells joined by
/// [`CELL_SEPARATOR`], list items their text; separator rows and fence
/// lines go. Then [`tidy`]. What `build-index` analyses and embeds.
pub fn plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<(char, usize)> = None;
    for line in md.lines() {
        if let Some((c, n)) = fence {
            if fence_closes(line, c, n) {
                fence = None;
                out.push('\n');
            } else {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        if let Some((c, n, info)) = fence_open(line) {
            fence = Some((c, n));
            if let Some(title) = attribute_in(info, "title") {
                out.push_str(&title);
                out.push('\n');
            }
            continue;
        }
        let t = line.trim_start();
        if t.starts_with('|') && is_table_separator(t) {
            continue;
        }
        if let Some(row) = row_text(line) {
            out.push_str(row);
        } else if let Some(n) = list_marker(t) {
            out.push_str(&t[n..]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    tidy(&out)
}

/// Trims lines, collapses runs of blank lines to one and runs of spaces
/// to one (indentation kept, up to 8 columns).
pub fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let l = line.trim_end();
        let l = if l.trim().is_empty() { "" } else { l };
        if l.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        // Collapse runs of spaces left by removed markup, keep indentation.
        let indent = l.len() - l.trim_start().len();
        out.push_str(&l[..indent.min(8)]);
        let mut prev_space = false;
        for c in l.trim_start().chars() {
            if c == ' ' {
                if !prev_space {
                    out.push(c);
                }
                prev_space = true;
            } else {
                out.push(c);
                prev_space = false;
            }
        }
    }
    out
}

/// Trims the ends of lines, collapses runs of blank lines to one (none at
/// the start or end) and, outside code, runs of spaces after a line's
/// indentation to one (left by removed markup); code is left as written:
/// how a section's Markdown is stored.
pub fn tidy_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = false;
    let mut fence: Option<(char, usize)> = None;
    for line in s.lines() {
        let l = line.trim_end();
        if l.is_empty() {
            blank = true;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank { "\n\n" } else { "\n" });
        }
        blank = false;
        if let Some((c, n)) = fence {
            if fence_closes(l, c, n) {
                fence = None;
            }
            out.push_str(l);
            continue;
        }
        if let Some((c, n, _)) = fence_open(l) {
            fence = Some((c, n));
            out.push_str(l);
            continue;
        }
        let body = l.trim_start();
        out.push_str(&l[..l.len() - body.len()]);
        let mut space = false;
        for ch in body.chars() {
            if ch == ' ' {
                if !space {
                    out.push(ch);
                }
                space = true;
            } else {
                out.push(ch);
                space = false;
            }
        }
    }
    out
}

/// A part of a section's Markdown, in reading order.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A paragraph, its lines joined by spaces.
    Paragraph(String),
    /// One list item with its continuation lines: its depth (indentation
    /// columns) and whether it is numbered.
    Item {
        /// Whether the list is numbered.
        ordered: bool,
        /// Columns of indentation of the marker.
        depth: usize,
        /// The item's text, lines joined by spaces.
        text: String,
    },
    /// A table: its header's cells and its rows' cells.
    Table {
        /// The header's cells.
        header: Vec<String>,
        /// Each row's cells.
        rows: Vec<Vec<String>>,
    },
    /// A fenced code block.
    Code {
        /// Its language (`bash`, `ts`; empty when the fence names none).
        lang: String,
        /// Its `title="…"`, if any.
        title: Option<String>,
        /// Its lines, as written.
        code: String,
    },
}

fn cells(row: &str) -> Vec<String> {
    row.split(CELL_SEPARATOR)
        .map(|c| c.trim().to_string())
        .collect()
}

/// The blocks of a section's Markdown.
pub fn blocks(md: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    // The block being read: a paragraph or an item (joined lines).
    let mut open: Option<Block> = None;
    let mut lines = md.lines().peekable();
    let close = |open: &mut Option<Block>, out: &mut Vec<Block>| {
        if let Some(b) = open.take() {
            out.push(b);
        }
    };
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.is_empty() {
            close(&mut open, &mut out);
            continue;
        }
        if let Some((c, n, info)) = fence_open(line) {
            close(&mut open, &mut out);
            let mut code = String::new();
            for l in lines.by_ref() {
                if fence_closes(l, c, n) {
                    break;
                }
                code.push_str(l);
                code.push('\n');
            }
            out.push(Block::Code {
                lang: fence_language(info).to_string(),
                title: attribute_in(info, "title"),
                code,
            });
            continue;
        }
        if let Some(row) = row_text(line) {
            close(&mut open, &mut out);
            let header = cells(row);
            let mut rows = Vec::new();
            if lines.peek().is_some_and(|l| is_table_separator(l)) {
                lines.next();
            }
            while let Some(r) = lines.peek().and_then(|l| row_text(l)) {
                rows.push(cells(r));
                lines.next();
            }
            out.push(Block::Table { header, rows });
            continue;
        }
        if let Some(n) = list_marker(t) {
            close(&mut open, &mut out);
            open = Some(Block::Item {
                ordered: t.as_bytes()[0].is_ascii_digit(),
                depth: line.len() - t.len(),
                text: t[n..].trim().to_string(),
            });
            continue;
        }
        match &mut open {
            Some(Block::Paragraph(p)) | Some(Block::Item { text: p, .. }) => {
                p.push(' ');
                p.push_str(t.trim_end());
            }
            _ => open = Some(Block::Paragraph(t.trim_end().to_string())),
        }
    }
    close(&mut open, &mut out);
    out
}

/// A heading line of `level` (1–6) for a page's Markdown.
pub fn heading(level: u8, text: &str) -> String {
    format!("{} {}", "#".repeat(level.clamp(1, 6) as usize), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: &str = "Install it first.\nThen run it.\n\n```bash title=\"Terminal\"\nnpm  install x\n  --save\n```\n\n| Key | Default |\n| --- | --- |\n| top_k | 5 |\n\n- one\nmore\n  - nested\n1. first";

    #[test]
    fn plain_text_drops_the_marks() {
        assert_eq!(
            plain(SECTION),
            "Install it first.\nThen run it.\n\nTerminal\nnpm install x\n  --save\n\nKey | Default\ntop_k | 5\n\none\nmore\nnested\nfirst"
        );
        // Text without marks is its own plain text, tidied.
        assert_eq!(plain("a  b\n\n\nc"), "a b\n\nc");
    }

    #[test]
    fn blocks_are_read_in_order() {
        let b = blocks(SECTION);
        assert_eq!(
            b,
            vec![
                Block::Paragraph("Install it first. Then run it.".into()),
                Block::Code {
                    lang: "bash".into(),
                    title: Some("Terminal".into()),
                    code: "npm  install x\n  --save\n".into()
                },
                Block::Table {
                    header: vec!["Key".into(), "Default".into()],
                    rows: vec![vec!["top_k".into(), "5".into()]]
                },
                Block::Item {
                    ordered: false,
                    depth: 0,
                    text: "one more".into()
                },
                Block::Item {
                    ordered: false,
                    depth: 2,
                    text: "nested".into()
                },
                Block::Item {
                    ordered: true,
                    depth: 0,
                    text: "first".into()
                },
            ]
        );
    }

    #[test]
    fn fences_languages_and_longer_fences() {
        assert_eq!(fence_language("ts twoslash"), "ts");
        assert_eq!(fence_language("title=\"a.js\""), "");
        assert_eq!(fence_language("{1,3}"), "");
        assert_eq!(fence_language(""), "");
        let md = "````md\n```js\nx\n```\n````\nafter";
        assert_eq!(plain(md), "```js\nx\n```\n\nafter");
        assert!(
            matches!(&blocks(md)[0], Block::Code { lang, code, .. } if lang == "md" && code == "```js\nx\n```\n")
        );
    }

    #[test]
    fn tidy_markdown_keeps_code_spacing() {
        assert_eq!(
            tidy_markdown("\n\na  b  \n\n\n```\n  x  y\n```\n\n  - c  d"),
            "a b\n\n```\n  x  y\n```\n\n  - c d"
        );
    }
}
