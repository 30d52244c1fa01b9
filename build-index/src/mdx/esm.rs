//! ESM statements: `import` (fragments remembered for includes) and
//! `export` (dropped, but for `meta` and exported JSX).

use std::collections::HashMap;

use super::types::Import;

/// Reads an ESM statement starting at line `i`: until brackets balance at a
/// line end (and, for imports, the module specifier is seen). Returns the
/// text and the next line, or `None` if the file ends first.
pub(super) fn statement(lines: &[&str], i: usize) -> (String, Option<usize>) {
    let mut depth: i64 = 0;
    let mut s = String::new();
    let is_import = lines[i].trim_start().starts_with("import");
    for (j, line) in lines.iter().enumerate().skip(i) {
        s.push_str(line);
        s.push('\n');
        depth += bracket_delta(line);
        let complete = depth <= 0
            && (!is_import || import_is_complete(&s))
            && !line.trim_end().ends_with("=>")
            && !line.trim_end().ends_with('=');
        if complete {
            return (s, Some(j + 1));
        }
        if j - i > 2000 {
            break;
        }
    }
    (s, None)
}

pub(super) fn import_is_complete(s: &str) -> bool {
    let t = s.trim();
    let t = t.trim_end_matches(';').trim_end();
    (t.ends_with('"') || t.ends_with('\''))
        && (t.contains(" from ") || t.contains("from\"") || t.contains("from'") || !t.contains('{'))
}

/// Net change in `({[` depth over a line, skipping string literals.
pub(super) fn bracket_delta(line: &str) -> i64 {
    let mut d = 0i64;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut prev = ' ';
    for c in line.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '`' => quote = Some(c),
            // An apostrophe between letters is prose inside JSX, not a string.
            '\'' if !prev.is_alphanumeric() => quote = Some(c),
            '(' | '{' | '[' => d += 1,
            ')' | '}' | ']' => d -= 1,
            _ => {}
        }
        prev = c;
    }
    d
}

pub(super) fn read_import(stmt: &str, imports: &mut HashMap<String, Import>) {
    let s = stmt.trim().trim_end_matches(';').trim();
    let Some(from) = s.rfind("from") else {
        return;
    };
    let spec = s[from + 4..]
        .trim()
        .trim_matches(|c| c == '"' || c == '\'' || c == ';')
        .to_string();
    let base = spec.split(['?', '#']).next().unwrap_or("");
    if !(base.ends_with(".mdx") || base.ends_with(".md")) {
        return;
    }
    let clause = s["import".len()..from].trim();
    let (default, named) = match clause.find('{') {
        Some(b) => (
            clause[..b].trim().trim_end_matches(',').trim(),
            clause[b + 1..].trim_end().trim_end_matches('}'),
        ),
        None => (clause, ""),
    };
    if !default.is_empty() && !default.starts_with('*') {
        imports.insert(
            default.to_string(),
            Import {
                specifier: spec.clone(),
                export: None,
            },
        );
    }
    for item in named.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (orig, local) = match item.split_once(" as ") {
            Some((o, l)) => (o.trim(), l.trim()),
            None => (item, item),
        };
        imports.insert(
            local.to_string(),
            Import {
                specifier: spec.clone(),
                export: Some(orig.to_string()).filter(|o| o != "default"),
            },
        );
    }
}

/// `title: "…"` (or `'…'`, `` `…` ``) inside a JS object literal.
pub(super) fn js_string_property(src: &str, key: &str) -> Option<String> {
    let bytes = src.as_bytes();
    let mut from = 0;
    while let Some(pos) = src[from..].find(key) {
        let at = from + pos;
        from = at + key.len();
        let before_ok =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let rest = src[at + key.len()..].trim_start();
        let rest = rest
            .strip_prefix(['"', '\''])
            .map(|r| r.trim_start_matches(':'))
            .unwrap_or(rest);
        if !before_ok {
            continue;
        }
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        let q = rest.chars().next()?;
        if !matches!(q, '"' | '\'' | '`') {
            continue;
        }
        let mut out = String::new();
        let mut escaped = false;
        for c in rest[1..].chars() {
            if escaped {
                out.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                return Some(out.trim().to_string()).filter(|s| !s.is_empty());
            } else {
                out.push(c);
            }
        }
        return None;
    }
    None
}
