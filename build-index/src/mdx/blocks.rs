//! Line-level Markdown: includes, code fences, headings and their ids,
//! rules, tables, list and blockquote markers.

/// The path in a whole-line `<include>path.mdx</include>`.
pub(super) fn include_line(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("<include")?;
    let open_end = rest.find('>')?;
    let inner = rest[open_end + 1..]
        .trim_end()
        .strip_suffix("</include>")?
        .trim();
    let base = inner.split('#').next().unwrap_or(inner);
    (base.ends_with(".mdx") || base.ends_with(".md")).then_some(base)
}

pub(super) use ask_index::markdown::{attribute_in, fence_language, fence_open};

pub(super) fn heading(trimmed: &str) -> Option<(u8, &str)> {
    let n = trimmed.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&n) {
        return None;
    }
    let rest = &trimmed[n..];
    if rest.is_empty() {
        return Some((n as u8, ""));
    }
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    // A closing run of #s is not part of the text.
    let rest = rest.trim();
    let rest = rest.trim_end_matches('#');
    Some((n as u8, rest.trim_end()))
}

/// Removes `[#id]`, `[!toc]` and `{#id}` markers; returns the explicit id.
pub(super) fn heading_id(text: &str) -> (String, Option<String>) {
    let mut t = text.trim().to_string();
    let mut id = None;
    loop {
        let trimmed = t.trim_end();
        // fumadocs markers: `[!toc]` (left out of the TOC), `[step]` (a
        // numbered step); neither is heading text.
        if let Some(stripped) = trimmed
            .strip_suffix("[!toc]")
            .or_else(|| trimmed.strip_suffix("[step]"))
        {
            t = stripped.to_string();
            continue;
        }
        if trimmed.ends_with(']')
            && let Some(open) = trimmed.rfind("[#")
        {
            id = Some(trimmed[open + 2..trimmed.len() - 1].trim().to_string());
            t = trimmed[..open].to_string();
            continue;
        }
        if trimmed.ends_with('}')
            && let Some(open) = trimmed.rfind("{#")
        {
            id = Some(trimmed[open + 2..trimmed.len() - 1].trim().to_string());
            t = trimmed[..open].to_string();
            continue;
        }
        break;
    }
    (t.trim().to_string(), id.filter(|s| !s.is_empty()))
}

pub(super) fn is_rule(t: &str) -> bool {
    let t = t.trim();
    t.len() >= 3
        && ['-', '*', '_'].iter().any(|&c| {
            t.chars().all(|x| x == c || x == ' ') && t.chars().filter(|&x| x == c).count() >= 3
        })
}

pub use ask_index::markdown::CELL_SEPARATOR;
pub(super) use ask_index::markdown::is_table_separator;

/// The cells of a Markdown table row (`| a | b |`), split at pipes that are
/// neither escaped (`\|`) nor inside inline code; `None` if the line is not
/// a row of at least two cells.
pub(super) fn table_cells(t: &str) -> Option<Vec<&str>> {
    let t = t.trim_end();
    let inner = t.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = Vec::new();
    let (mut start, mut in_code, mut escaped) = (0, false, false);
    for (i, c) in inner.char_indices() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '`' if !escaped => in_code = !in_code,
            '|' if !escaped && !in_code => {
                cells.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        escaped = false;
    }
    cells.push(inner[start..].trim());
    (cells.len() >= 2).then_some(cells)
}

/// A line's list item: blockquote markers and admonition fences dropped,
/// the first list marker met (`- ` for a bullet, `N. ` for a number) and
/// the text after every marker.
pub(super) fn list_item(t: &str) -> (Option<String>, &str) {
    let mut t = t;
    let mut marker = None;
    loop {
        let before = t;
        if let Some(r) = t.strip_prefix('>') {
            t = r.trim_start();
        }
        for m in ["- ", "* ", "+ "] {
            if let Some(r) = t.strip_prefix(m) {
                marker.get_or_insert_with(|| "- ".to_string());
                t = r.trim_start();
            }
        }
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && digits < 10 {
            let (number, r) = t.split_at(digits);
            if let Some(r) = r.strip_prefix(". ").or_else(|| r.strip_prefix(") ")) {
                marker.get_or_insert_with(|| format!("{number}. "));
                t = r.trim_start();
            }
        }
        if let Some(r) = t.strip_prefix(":::") {
            t = r
                .trim_start_matches(|c: char| c.is_alphanumeric())
                .trim_start();
        }
        if t == before {
            return (marker, t);
        }
    }
}

/// A table's separator row as stored: `| --- |` once a column of `t`.
pub(super) fn separator_row(t: &str) -> String {
    let columns = t.trim().trim_matches('|').split('|').count().max(1);
    format!("|{}", " --- |".repeat(columns))
}

pub(super) fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
