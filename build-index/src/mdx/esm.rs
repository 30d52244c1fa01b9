//! ESM statements: `import` (fragments remembered for includes) and
//! `export` (dropped, but for `meta` and exported JSX).

use std::collections::BTreeMap;
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

/// The top-level properties of the first JS object literal in `src` whose
/// value is a string (`'…'`, `"…"`, `` `…` ``), a number, a boolean or
/// a list of them, each as its values' text: what `ask.sites` matches a
/// page's `export const meta` by. Other values are skipped.
pub(super) fn js_properties(src: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(open) = src.find('{') else {
        return out;
    };
    let mut p = Scanner {
        s: &src.as_bytes()[open + 1..],
        at: 0,
    };
    loop {
        p.skip_space();
        let Some(key) = p.key() else {
            break;
        };
        p.skip_space();
        if !p.eat(b':') {
            break;
        }
        p.skip_space();
        let values = if p.eat(b'[') {
            let mut list = Vec::new();
            loop {
                p.skip_space();
                if p.eat(b']') {
                    break;
                }
                match p.scalar() {
                    Some(v) => list.push(v),
                    None => {
                        list.clear();
                        p.skip_value();
                    }
                }
                p.skip_space();
                p.eat(b',');
                if p.at >= p.s.len() {
                    break;
                }
            }
            list
        } else {
            match p.scalar() {
                Some(v) => vec![v],
                None => {
                    p.skip_value();
                    Vec::new()
                }
            }
        };
        if !values.is_empty() {
            out.insert(key, values);
        }
        p.skip_space();
        if !p.eat(b',') {
            break;
        }
    }
    out
}

/// A cursor over a JS object literal's text.
struct Scanner<'a> {
    s: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.at += usize::from(hit);
        hit
    }

    /// Past white space and comments (`// …`, `/* … */`).
    fn skip_space(&mut self) {
        loop {
            while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
                self.at += 1;
            }
            let rest = &self.s[self.at..];
            let end = if rest.starts_with(b"//") {
                rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())
            } else if rest.starts_with(b"/*") {
                rest.windows(2)
                    .position(|w| w == b"*/")
                    .map_or(rest.len(), |p| p + 2)
            } else {
                return;
            };
            self.at += end;
        }
    }

    /// A property name: an identifier or a quoted string.
    fn key(&mut self) -> Option<String> {
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            return self.quoted();
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    fn quoted(&mut self) -> Option<String> {
        let q = self.peek()?;
        self.at += 1;
        let mut out = Vec::new();
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'\\' => {
                    if let Some(next) = self.peek() {
                        out.push(next);
                        self.at += 1;
                    }
                }
                _ if b == q => return Some(String::from_utf8_lossy(&out).trim().to_string()),
                _ => out.push(b),
            }
        }
        None
    }

    /// A string, number or boolean, as text.
    fn scalar(&mut self) -> Option<String> {
        if matches!(self.peek(), Some(b'"' | b'\'' | b'`')) {
            return self.quoted();
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        {
            self.at += 1;
        }
        let word = std::str::from_utf8(&self.s[start..self.at]).ok()?;
        let literal = matches!(word, "true" | "false") || word.parse::<f64>().is_ok();
        if literal {
            Some(word.to_string())
        } else {
            self.at = start;
            None
        }
    }

    /// Past one value of any kind: to the `,` or closing bracket at its
    /// depth.
    fn skip_value(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'"' | b'\'' | b'`' => {
                    self.quoted();
                    continue;
                }
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' if depth == 0 => return,
                b'}' | b']' | b')' => depth -= 1,
                b',' if depth == 0 => return,
                _ => {}
            }
            self.at += 1;
        }
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
        let mut string = Scanner {
            s: rest.as_bytes(),
            at: 0,
        };
        return string.quoted().filter(|s| !s.is_empty());
    }
    None
}
