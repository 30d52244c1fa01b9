//! What does a reader see in an `.mdx` file?
//!
//! A line-driven scanner, not a full MDX compiler: it keeps what a reader of
//! the rendered page sees and drops the rest.
//!
//! - YAML frontmatter (`title`, `description`, Mintlify's `openapi`) or an
//!   `export const meta = {…}` object give the page's title and description.
//! - `import` statements are dropped; imports of `.mdx`/`.md` files are
//!   remembered, so that `<X />` and `<Fragments fragments={{a: X}} />` become
//!   [`Block::Include`] for the corpus to inline.
//! - `export` statements are dropped; `export const X = (…) => (<jsx/>)`
//!   keeps its JSX text for pages that render `<X />`.
//! - JSX tags are dropped but their children kept, as are the attributes a
//!   reader sees (`title="…"`, `description`, `label`, …). `{expressions}`,
//!   `{/* comments */}` and `<!-- comments -->` are dropped.
//! - Code fences are kept as text (with a `title="…"` from the fence line).
//! - Headings (`#`…`######`) start sections; fumadocs `[#custom-id]` and
//!   `[!toc]` markers and `{#custom-id}` are read and removed.
//! - Markdown syntax (links, emphasis, tables, list markers, entities) is
//!   reduced to its text.
//!
//! Anything that cannot be closed (a frontmatter without its `---`, a tag or
//! expression still open at the end of the file, bad YAML) is a
//! [`ParseError`] with the line where it started.

use std::collections::HashMap;

/// One piece of a page, in reading order.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A heading.
    Heading {
        /// 1–6.
        level: u8,
        /// Plain text of the heading.
        text: String,
        /// An explicit id (`[#id]` or `{#id}`), if given.
        id: Option<String>,
        /// The heading starts with inline code (`` ### `create_flow` ``), as
        /// generated API, CLI and settings references do.
        code: bool,
    },
    /// Plain text (paragraphs separated by blank lines).
    Text(String),
    /// A component that renders an imported file (or a local export) here.
    Include(String),
}

/// How an imported name refers to a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// The specifier as written (`/src/fragments/a.mdx`, `./b.mdx`).
    pub specifier: String,
    /// `None` for a default import, `Some(name)` for `{ name }` / `{ name as x }`.
    pub export: Option<String>,
}

/// A parsed `.mdx` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MdxFile {
    /// Title from frontmatter or `export const meta`.
    pub title: Option<String>,
    /// Description from frontmatter or `export const meta`.
    pub description: Option<String>,
    /// Extra frontmatter text a reader sees on the page (Mintlify `openapi`).
    pub extra: Option<String>,
    /// The page's search weight (frontmatter `search.boost`, a number ≥ 0).
    pub boost: Option<f32>,
    /// The body.
    pub blocks: Vec<Block>,
    /// Local names imported from `.mdx`/`.md` files.
    pub imports: HashMap<String, Import>,
    /// Text of `export const X = … => (jsx)` components, by name.
    pub exports: HashMap<String, String>,
}

/// A file that cannot be read as MDX, with the 1-based line where the
/// problem starts.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

/// Attributes whose values a reader sees on the rendered page.
const VISIBLE_ATTRIBUTES: &[&str] = &[
    "title",
    "description",
    "label",
    "alt",
    "caption",
    "heading",
    "summary",
];

/// Parses one file.
pub fn parse(source: &str) -> Result<MdxFile, ParseError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let lines: Vec<&str> = source.lines().collect();
    let mut file = MdxFile::default();
    let mut i = 0usize;

    // Frontmatter.
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        let Some(end) = lines
            .iter()
            .skip(1)
            .position(|l| matches!(l.trim_end(), "---" | "..."))
        else {
            return err(1, "frontmatter opened with `---` is never closed");
        };
        let yaml = lines[1..=end].join("\n");
        read_frontmatter(&yaml, &mut file).map_err(|(line, m)| ParseError {
            line: line + 1,
            message: m,
        })?;
        i = end + 2;
    }

    let mut body = Body::new(&mut file);
    while i < lines.len() {
        i = body.line(&lines, i)?;
    }
    body.finish()?;
    Ok(file)
}

/// The frontmatter members read; others are ignored.
#[derive(serde::Deserialize, Default)]
struct Frontmatter {
    #[serde(default)]
    title: Option<YamlText>,
    #[serde(default, rename = "sidebarTitle")]
    sidebar_title: Option<YamlText>,
    #[serde(default)]
    description: Option<YamlText>,
    #[serde(default)]
    openapi: Option<YamlText>,
    #[serde(default)]
    search: Option<SearchFrontmatter>,
    #[serde(default)]
    boost: Option<YamlText>,
}

/// Frontmatter `search:` — `boost` weighs the page's sections (1 = as is).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum SearchFrontmatter {
    Map {
        #[serde(default)]
        boost: Option<YamlText>,
    },
    Other(serde::de::IgnoredAny),
}

/// Frontmatter that is a mapping, or anything else (read as empty).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum FrontmatterDoc {
    Map(Frontmatter),
    Other(serde::de::IgnoredAny),
}

/// A scalar read as text; lists and mappings are not text.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum YamlText {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Other(serde::de::IgnoredAny),
}

impl YamlText {
    fn text(self) -> Option<String> {
        match self {
            YamlText::Text(s) => Some(s.trim().to_string()),
            YamlText::Int(n) => Some(n.to_string()),
            YamlText::Float(n) => Some(n.to_string()),
            YamlText::Bool(b) => Some(b.to_string()),
            YamlText::Other(_) => None,
        }
        .filter(|s| !s.is_empty())
    }
}

fn read_frontmatter(yaml: &str, file: &mut MdxFile) -> Result<(), (usize, String)> {
    if yaml.trim().is_empty() {
        return Ok(());
    }
    let doc: FrontmatterDoc = serde_saphyr::from_str(yaml).map_err(|e| {
        let line = e.location().map(|l| l.line() as usize).unwrap_or(1);
        (line, format!("frontmatter is not valid YAML: {e}"))
    })?;
    let FrontmatterDoc::Map(fm) = doc else {
        return Ok(());
    };
    file.title = fm
        .title
        .and_then(YamlText::text)
        .or_else(|| fm.sidebar_title.and_then(YamlText::text));
    file.description = fm.description.and_then(YamlText::text);
    file.extra = fm.openapi.and_then(YamlText::text);
    // A weight that is not a number ≥ 0 is ignored (the page weighs 1).
    // Mintlify's `boost:`, or `search: {boost: …}`.
    let boost = fm.boost.or(match fm.search {
        Some(SearchFrontmatter::Map { boost }) => boost,
        _ => None,
    });
    file.boost = match boost {
        Some(YamlText::Int(n)) => Some(n as f32),
        Some(YamlText::Float(x)) => Some(x as f32),
        _ => None,
    }
    .filter(|b| b.is_finite() && *b >= 0.0);
    Ok(())
}

struct Body<'f> {
    file: &'f mut MdxFile,
    text: String,
    inline: Inline,
    /// Line where the current multi-line construct started.
    open_since: usize,
    /// A paragraph is running: `import`/`export` lines continue it as prose.
    in_paragraph: bool,
}

impl<'f> Body<'f> {
    fn new(file: &'f mut MdxFile) -> Self {
        Self {
            file,
            text: String::new(),
            inline: Inline::default(),
            open_since: 0,
            in_paragraph: false,
        }
    }

    fn flush(&mut self) {
        let t = std::mem::take(&mut self.text);
        if !t.trim().is_empty() {
            self.file.blocks.push(Block::Text(t));
        }
    }

    fn push_event(&mut self, ev: Event) {
        match ev {
            Event::Text(t) => self.text.push_str(&t),
            Event::Include(name) => {
                self.flush();
                self.file.blocks.push(Block::Include(name));
            }
        }
    }

    fn feed(&mut self, s: &str) {
        let events = self.inline.feed(s, &self.file.imports, &self.file.exports);
        for ev in events {
            self.push_event(ev);
        }
    }

    /// Handles the line at `i` (and any it continues into); returns the next.
    fn line(&mut self, lines: &[&str], i: usize) -> Result<usize, ParseError> {
        let line = lines[i];
        if !self.inline.is_idle() {
            self.feed(line);
            self.feed("\n");
            return Ok(i + 1);
        }
        let trimmed = line.trim_start();
        let continues_paragraph = std::mem::replace(&mut self.in_paragraph, false);
        if trimmed.is_empty() {
            self.text.push('\n');
            return Ok(i + 1);
        }

        // Code fence: kept as text.
        if let Some((fence_char, fence_len, info)) = fence_open(trimmed) {
            if let Some(title) = attribute_in(info, "title") {
                self.text.push_str(&title);
                self.text.push('\n');
            }
            let mut j = i + 1;
            while j < lines.len() {
                let t = lines[j].trim();
                if t.len() >= fence_len && t.chars().all(|c| c == fence_char) {
                    break;
                }
                self.text.push_str(lines[j].trim_end());
                self.text.push('\n');
                j += 1;
            }
            self.text.push('\n');
            return Ok(j + 1);
        }

        // ESM: import / export statements, unindented and not inside a paragraph.
        let esm = !continues_paragraph && trimmed.len() == line.len();
        if esm && (trimmed.starts_with("import ") || trimmed.starts_with("import{")) {
            let (stmt, next) = statement(lines, i);
            if let Some(next) = next {
                read_import(&stmt, &mut self.file.imports);
                return Ok(next);
            }
            return err(i + 1, "`import` statement is never closed");
        }
        if esm && trimmed.starts_with("export ") {
            let (stmt, next) = statement(lines, i);
            let Some(next) = next else {
                return err(i + 1, "`export` statement is never closed");
            };
            self.read_export(&stmt);
            return Ok(next);
        }

        // fumadocs `<include>../other.mdx</include>`: the file's content, here.
        if let Some(spec) = include_line(trimmed) {
            let name = format!("<include>{spec}");
            self.file.imports.insert(
                name.clone(),
                Import {
                    specifier: spec.to_string(),
                    export: None,
                },
            );
            self.flush();
            self.file.blocks.push(Block::Include(name));
            return Ok(i + 1);
        }

        // Heading.
        if let Some((level, rest)) = heading(trimmed) {
            self.flush();
            let (rest, id) = heading_id(rest);
            let code = rest.trim_start().starts_with('`');
            let mut h = Inline::default();
            let mut text = String::new();
            for ev in h.feed(&rest, &self.file.imports, &self.file.exports) {
                if let Event::Text(t) = ev {
                    text.push_str(&t);
                }
            }
            if !h.is_idle() {
                return err(i + 1, "heading has an unclosed `<tag` or `{expression`");
            }
            self.file.blocks.push(Block::Heading {
                level,
                text: collapse_spaces(&text),
                id,
                code,
            });
            return Ok(i + 1);
        }

        // Block-level markdown markers reduced to their text.
        // A table's header and rows stay on consecutive lines.
        if is_table_separator(trimmed) {
            return Ok(i + 1);
        }
        if is_rule(trimmed) {
            self.text.push('\n');
            return Ok(i + 1);
        }
        // A table row: its cells stay apart (" | ") so a summary can read
        // a row with its header.
        if let Some(cells) = table_cells(trimmed) {
            self.open_since = i + 1;
            for (n, cell) in cells.iter().enumerate() {
                if n > 0 {
                    if self.inline.is_idle() {
                        self.text.push_str(CELL_SEPARATOR);
                    } else {
                        self.feed(" ");
                    }
                }
                self.feed(cell);
            }
            self.feed("\n");
            return Ok(i + 1);
        }
        let content = strip_block_markers(trimmed);
        self.open_since = i + 1;
        self.in_paragraph = true;
        self.feed(content);
        self.feed("\n");
        Ok(i + 1)
    }

    fn read_export(&mut self, stmt: &str) {
        let rest = stmt.trim_start().trim_start_matches("export").trim_start();
        let Some(decl) = rest
            .strip_prefix("const ")
            .or_else(|| rest.strip_prefix("let "))
        else {
            return;
        };
        let name: String = decl
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if name == "meta" || name == "frontmatter" {
            if self.file.title.is_none() {
                self.file.title = js_string_property(decl, "title");
            }
            if self.file.description.is_none() {
                self.file.description = js_string_property(decl, "description");
            }
            return;
        }
        if let Some(arrow) = decl.find("=>") {
            let jsx = &decl[arrow + 2..];
            if jsx.contains('<') {
                let mut inline = Inline::default();
                let mut text = String::new();
                for ev in inline.feed(jsx, &HashMap::new(), &HashMap::new()) {
                    if let Event::Text(t) = ev {
                        text.push_str(&t);
                    }
                }
                let text =
                    collapse_spaces(text.trim_matches(|c: char| {
                        c == '(' || c == ')' || c == ';' || c.is_whitespace()
                    }));
                if !text.is_empty() {
                    self.file.exports.insert(name, text);
                }
            }
        }
    }

    fn finish(mut self) -> Result<(), ParseError> {
        if !self.inline.is_idle() {
            return err(
                self.open_since.max(1),
                format!(
                    "{} opened here is never closed",
                    self.inline.describe_open()
                ),
            );
        }
        self.flush();
        Ok(())
    }
}

/// Reads an ESM statement starting at line `i`: until brackets balance at a
/// line end (and, for imports, the module specifier is seen). Returns the
/// text and the next line, or `None` if the file ends first.
fn statement(lines: &[&str], i: usize) -> (String, Option<usize>) {
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

fn import_is_complete(s: &str) -> bool {
    let t = s.trim();
    let t = t.trim_end_matches(';').trim_end();
    (t.ends_with('"') || t.ends_with('\''))
        && (t.contains(" from ") || t.contains("from\"") || t.contains("from'") || !t.contains('{'))
}

/// Net change in `({[` depth over a line, skipping string literals.
fn bracket_delta(line: &str) -> i64 {
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

fn read_import(stmt: &str, imports: &mut HashMap<String, Import>) {
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
fn js_string_property(src: &str, key: &str) -> Option<String> {
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

/// The path in a whole-line `<include>path.mdx</include>`.
fn include_line(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("<include")?;
    let open_end = rest.find('>')?;
    let inner = rest[open_end + 1..]
        .trim_end()
        .strip_suffix("</include>")?
        .trim();
    let base = inner.split('#').next().unwrap_or(inner);
    (base.ends_with(".mdx") || base.ends_with(".md")).then_some(base)
}

fn fence_open(trimmed: &str) -> Option<(char, usize, &str)> {
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

/// `key="value"` (or `'value'`) in a fence info string or tag.
fn attribute_in(info: &str, key: &str) -> Option<String> {
    let at = info.find(&format!("{key}="))?;
    let rest = &info[at + key.len() + 1..];
    let q = rest.chars().next()?;
    if q != '"' && q != '\'' {
        return None;
    }
    let end = rest[1..].find(q)?;
    Some(rest[1..1 + end].to_string())
}

fn heading(trimmed: &str) -> Option<(u8, &str)> {
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
fn heading_id(text: &str) -> (String, Option<String>) {
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

fn is_rule(t: &str) -> bool {
    let t = t.trim();
    t.len() >= 3
        && ['-', '*', '_'].iter().any(|&c| {
            t.chars().all(|x| x == c || x == ' ') && t.chars().filter(|&x| x == c).count() >= 3
        })
}

/// What separates the cells of a table row in a section's text.
pub const CELL_SEPARATOR: &str = " | ";

/// The cells of a Markdown table row (`| a | b |`), split at pipes that are
/// neither escaped (`\|`) nor inside inline code; `None` if the line is not
/// a row of at least two cells.
fn table_cells(t: &str) -> Option<Vec<&str>> {
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

fn is_table_separator(t: &str) -> bool {
    let t = t.trim();
    t.contains('-') && t.contains('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Drops list markers, blockquote markers and admonition fences.
fn strip_block_markers(t: &str) -> &str {
    let mut t = t;
    loop {
        let before = t;
        if let Some(r) = t.strip_prefix('>') {
            t = r.trim_start();
        }
        for m in ["- ", "* ", "+ "] {
            if let Some(r) = t.strip_prefix(m) {
                t = r.trim_start();
            }
        }
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && digits < 10 {
            let r = &t[digits..];
            if let Some(r) = r.strip_prefix(". ").or_else(|| r.strip_prefix(") ")) {
                t = r.trim_start();
            }
        }
        if let Some(r) = t.strip_prefix(":::") {
            t = r
                .trim_start_matches(|c: char| c.is_alphanumeric())
                .trim_start();
        }
        if t == before {
            return t;
        }
    }
}

fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Output of the inline scanner.
#[derive(Debug, PartialEq)]
enum Event {
    Text(String),
    Include(String),
}

#[derive(Default, Debug)]
enum Mode {
    #[default]
    Text,
    /// Inside `<tag …`, collecting attributes.
    Tag(Box<Tag>),
    /// Inside `{…}` in text.
    Expr { depth: usize, quote: Option<char> },
    /// Inside `<!-- … -->`.
    Comment,
}

#[derive(Default, Debug)]
struct Tag {
    name: String,
    closing: bool,
    /// Attribute name being read, or being given a value.
    attr: String,
    /// Inside a quoted value: its quote.
    quote: Option<char>,
    /// Inside a `{…}` value: its depth.
    depth: usize,
    /// Inside a string within a `{…}` value.
    expr_quote: Option<char>,
    value: String,
    visible: Vec<String>,
    expr_values: Vec<String>,
    saw_equals: bool,
}

/// The inline scanner: JSX tags, expressions, comments and markdown inline
/// syntax, with state that carries across lines.
#[derive(Default, Debug)]
struct Inline {
    mode: Mode,
}

/// An HTML character reference at the start of `chars` (`&amp;`, `&#123;`,
/// `&nbsp;`, …): its text and its length in chars. A no-break space reads
/// as a space.
fn entity(chars: &[char]) -> Option<(String, usize)> {
    // `&`, then letters, digits or `#` (the longest name has 31), then `;`.
    let end = 1 + chars
        .iter()
        .skip(1)
        .take(32)
        .position(|&c| !(c.is_ascii_alphanumeric() || c == '#'))?;
    if end == 1 || chars[end] != ';' {
        return None;
    }
    let reference: String = chars[..=end].iter().collect();
    match htmlize::unescape(&reference) {
        std::borrow::Cow::Owned(text) if text != reference => {
            Some((text.replace('\u{a0}', " "), end + 1))
        }
        _ => None,
    }
}

/// What the scanner has made of a line so far.
struct Scan<'a> {
    imports: &'a HashMap<String, Import>,
    exports: &'a HashMap<String, String>,
    /// Visible text not yet emitted.
    text: String,
    out: Vec<Event>,
}

impl Inline {
    fn is_idle(&self) -> bool {
        matches!(self.mode, Mode::Text)
    }

    fn describe_open(&self) -> String {
        match &self.mode {
            Mode::Text => "nothing".into(),
            Mode::Tag(t) => format!("JSX tag `<{}`", t.name),
            Mode::Expr { .. } => "expression `{`".into(),
            Mode::Comment => "comment `<!--`".into(),
        }
    }

    /// Scans one piece of text, carrying state into the next.
    fn feed(
        &mut self,
        s: &str,
        imports: &HashMap<String, Import>,
        exports: &HashMap<String, String>,
    ) -> Vec<Event> {
        let chars: Vec<char> = s.chars().collect();
        let mut scan = Scan {
            imports,
            exports,
            text: String::new(),
            out: Vec::new(),
        };
        let mut i = 0;
        while i < chars.len() {
            i = match self.mode {
                Mode::Comment => self.comment_char(&chars, i),
                Mode::Expr { .. } => self.expr_char(&chars, i),
                Mode::Tag(_) => self.tag_char(&chars, i, &mut scan),
                Mode::Text => self.text_char(&chars, i, &mut scan.text),
            };
        }
        if !scan.text.is_empty() {
            scan.out.push(Event::Text(scan.text));
        }
        scan.out
    }

    /// Inside `<!-- … -->`: only its end matters.
    fn comment_char(&mut self, chars: &[char], i: usize) -> usize {
        if chars[i..].starts_with(&['-', '-', '>']) {
            self.mode = Mode::Text;
            return i + 3;
        }
        i + 1
    }

    /// Inside `{…}` in text: track nesting and strings until it closes.
    fn expr_char(&mut self, chars: &[char], i: usize) -> usize {
        let Mode::Expr { depth, quote } = &mut self.mode else {
            return i + 1;
        };
        let c = chars[i];
        if let Some(q) = *quote {
            if c == '\\' {
                return i + 2;
            }
            if c == q || (c == '\n' && q != '`') {
                *quote = None;
            }
            return i + 1;
        }
        match c {
            '"' | '`' => *quote = Some(c),
            '\'' if i == 0 || !chars[i - 1].is_alphanumeric() => *quote = Some(c),
            '{' => *depth += 1,
            '}' => {
                *depth -= 1;
                if *depth == 0 {
                    self.mode = Mode::Text;
                }
            }
            _ => {}
        }
        i + 1
    }

    /// Inside `<tag …`: attributes, quoted and `{…}` values, and `>`.
    fn tag_char(&mut self, chars: &[char], i: usize, scan: &mut Scan) -> usize {
        let Mode::Tag(tag) = &mut self.mode else {
            return i + 1;
        };
        if tag.depth > 0 {
            return tag.expression_value_char(chars, i);
        }
        let c = chars[i];
        if let Some(q) = tag.quote {
            if c == q {
                tag.quote = None;
                tag.end_quoted_value();
            } else {
                tag.value.push(c);
            }
            return i + 1;
        }
        match c {
            '>' => {
                if let Mode::Tag(tag) = std::mem::take(&mut self.mode) {
                    close_tag(*tag, scan);
                }
            }
            '=' => tag.saw_equals = true,
            '"' | '\'' if tag.saw_equals => tag.quote = Some(c),
            '{' => {
                tag.depth = 1;
                tag.value.clear();
            }
            c if c.is_whitespace() || c == '/' => {
                if !tag.saw_equals {
                    tag.attr.clear();
                }
            }
            // An unquoted value is not JSX: ignored.
            _ if tag.saw_equals => {}
            c => tag.attr.push(c),
        }
        i + 1
    }

    /// Plain text: markdown inline syntax, and the starts of tags,
    /// expressions and comments.
    fn text_char(&mut self, chars: &[char], i: usize, text: &mut String) -> usize {
        let c = chars[i];
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    text.push(n);
                }
                return i + 2;
            }
            '`' => return code_span(chars, i, text),
            '{' => {
                self.mode = Mode::Expr {
                    depth: 1,
                    quote: None,
                };
                text.push(' ');
            }
            '<' => return self.angle(chars, i, text),
            '&' => {
                if let Some((v, n)) = entity(&chars[i..]) {
                    text.push_str(&v);
                    return i + n;
                }
                text.push(c);
            }
            '!' if chars.get(i + 1) == Some(&'[') => {}
            '[' => {}
            ']' => {
                // [text](url) and [text][ref]: keep the text only.
                let close = match chars.get(i + 1) {
                    Some('(') => Some(')'),
                    Some('[') => Some(']'),
                    _ => None,
                };
                if let Some(close) = close
                    && let Some(end) = chars[i + 2..].iter().position(|&x| x == close)
                {
                    return i + 2 + end + 1;
                }
            }
            '*' | '|' => text.push(' '),
            '~' if chars.get(i + 1) == Some(&'~') => return i + 2,
            _ => text.push(c),
        }
        i + 1
    }

    /// A `<` in text: a comment, a fragment, a closing or opening tag, an
    /// autolink, or just the character.
    fn angle(&mut self, chars: &[char], i: usize, text: &mut String) -> usize {
        if chars[i + 1..].starts_with(&['!', '-', '-']) {
            self.mode = Mode::Comment;
            return i + 4;
        }
        let name_end = |from: usize| {
            from + chars[from..]
                .iter()
                .take_while(|&&c| is_name_char(c))
                .count()
        };
        match chars.get(i + 1).copied() {
            // `<>` fragment.
            Some('>') => {
                text.push(' ');
                i + 2
            }
            Some('/')
                if chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_alphabetic() || *c == '>') =>
            {
                let j = name_end(i + 2);
                self.mode = Mode::Tag(Box::new(Tag {
                    closing: true,
                    name: chars[i + 2..j].iter().collect(),
                    ..Tag::default()
                }));
                j
            }
            Some(n) if n.is_alphabetic() => {
                let j = name_end(i + 1);
                let after = chars.get(j).copied();
                if after == Some(':') || after == Some('@') {
                    // Autolink <https://…> or <me@example.com>: keep the text.
                    if let Some(end) = chars[i..].iter().position(|&x| x == '>') {
                        text.extend(&chars[i + 1..i + end]);
                        return i + end + 1;
                    }
                    text.push('<');
                } else if after.is_none_or(|a| a.is_whitespace() || a == '>' || a == '/') {
                    self.mode = Mode::Tag(Box::new(Tag {
                        name: chars[i + 1..j].iter().collect(),
                        ..Tag::default()
                    }));
                    return j;
                } else {
                    text.push('<');
                }
                i + 1
            }
            _ => {
                text.push('<');
                i + 1
            }
        }
    }
}

impl Tag {
    /// Inside a `{…}` attribute value: collect it until its brace closes.
    fn expression_value_char(&mut self, chars: &[char], i: usize) -> usize {
        let c = chars[i];
        if let Some(q) = self.expr_quote {
            if c == '\\' {
                self.value.push(c);
                if let Some(&n) = chars.get(i + 1) {
                    self.value.push(n);
                }
                return i + 2;
            }
            if c == q || (c == '\n' && q != '`') {
                self.expr_quote = None;
            }
        } else {
            match c {
                '"' | '\'' | '`' => self.expr_quote = Some(c),
                '{' => self.depth += 1,
                '}' => self.depth -= 1,
                _ => {}
            }
        }
        if self.depth == 0 {
            let v = std::mem::take(&mut self.value);
            self.expr_values.push(v);
            self.attr.clear();
            self.saw_equals = false;
        } else {
            self.value.push(c);
        }
        i + 1
    }

    /// A quoted value ended: keep it when the attribute is one readers see.
    fn end_quoted_value(&mut self) {
        let v = std::mem::take(&mut self.value);
        let visible = VISIBLE_ATTRIBUTES.contains(&self.attr.as_str())
            || (self.attr == "name" && self.name.ends_with("Field"));
        if visible && !v.trim().is_empty() {
            self.visible.push(v);
        }
        self.attr.clear();
        self.saw_equals = false;
    }
}

/// An inline code span from the run of backticks at `i`: its text, or the
/// backticks themselves when the run never closes.
fn code_span(chars: &[char], i: usize, text: &mut String) -> usize {
    let n = chars[i..].iter().take_while(|&&x| x == '`').count();
    // Find the closing run of exactly n backticks.
    let mut j = i + n;
    while j < chars.len() {
        if chars[j] == '`' {
            let m = chars[j..].iter().take_while(|&&x| x == '`').count();
            if m == n {
                text.extend(&chars[i + n..j]);
                return j + n;
            }
            j += m;
        } else {
            j += 1;
        }
    }
    text.extend(&chars[i..i + n]);
    i + n
}

/// A tag closed with `>`: its visible attributes become text; a component
/// imported from a fragment (or `<Fragments>`) becomes an include.
fn close_tag(tag: Tag, scan: &mut Scan) {
    let text = &mut scan.text;
    if tag.closing {
        text.push(' ');
        return;
    }
    for v in &tag.visible {
        text.push(' ');
        text.push_str(v);
        text.push_str(". ");
    }
    let mut includes: Vec<String> = Vec::new();
    if scan.imports.contains_key(&tag.name) || scan.exports.contains_key(&tag.name) {
        includes.push(tag.name.clone());
    } else if tag.name == "Fragments" {
        // <Fragments fragments={{ ios: a, android: b }} />: each distinct
        // imported file, once, in order.
        for v in &tag.expr_values {
            for word in v.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
                if scan.imports.contains_key(word) && !includes.iter().any(|w| w == word) {
                    includes.push(word.to_string());
                }
            }
        }
    }
    if includes.is_empty() {
        text.push(' ');
        return;
    }
    if !text.is_empty() {
        scan.out.push(Event::Text(std::mem::take(text)));
    }
    for name in includes {
        scan.out.push(Event::Include(name));
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '-' | '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(src: &str) -> String {
        let f = parse(src).unwrap();
        let mut s = String::new();
        for b in f.blocks {
            match b {
                Block::Heading {
                    level, text, id, ..
                } => s.push_str(&format!(
                    "[h{level}{}] {text}\n",
                    id.map(|i| format!("#{i}")).unwrap_or_default()
                )),
                Block::Text(t) => {
                    s.push_str(&collapse_spaces(&t));
                    s.push('\n');
                }
                Block::Include(n) => s.push_str(&format!("[include {n}]\n")),
            }
        }
        s
    }

    #[test]
    fn table_rows_keep_their_cells_apart() {
        assert_eq!(table_cells("| a | b |"), Some(vec!["a", "b"]));
        assert_eq!(
            table_cells("| `a|b` | c \\| d | e"),
            Some(vec!["`a|b`", "c \\| d", "e"])
        );
        assert_eq!(table_cells("| alone |"), None);
        assert_eq!(table_cells("not | a row"), None);
        let f = parse("| Key | Default |\n| --- | --- |\n| `top_k` | **5** |\n").unwrap();
        let Block::Text(t) = &f.blocks[0] else {
            panic!("{:?}", f.blocks)
        };
        let rows: Vec<String> = t
            .lines()
            .map(collapse_spaces)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(rows, vec!["Key | Default", "top_k | 5"]);
    }

    /// Real snippets from the shared corpora (see each case's comment).
    #[test]
    fn reader_visible_text_table() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "fumadocs: frontmatter + Callout + code fence with title",
                "---\ntitle: Next.js\ndescription: Use Fumadocs MDX with Next.js\n---\n\n<Callout title=\"Note\">Requires `createMDX`.</Callout>\n\n```js title=\"next.config.mjs\"\nimport { createMDX } from 'fumadocs-mdx/next';\n```\n",
                "Note. Requires createMDX. next.config.mjs import { createMDX } from 'fumadocs-mdx/next';\n",
            ),
            (
                "fumadocs: heading markers",
                "## Custom Heading [#my-id]\n\nText\n\n### Hidden [!toc]\n\n### CSS [step]\n",
                "[h2#my-id] Custom Heading\nText\n[h3] Hidden\n[h3] CSS\n",
            ),
            (
                "shadcn: ComponentPreview self-closing, Steps with children",
                "<ComponentPreview name=\"button-demo\" />\n\n<Steps>\n\n<Step>Install the package</Step>\n\n```bash\nnpx shadcn@latest add button\n```\n\n</Steps>\n",
                "Install the package npx shadcn@latest add button\n",
            ),
            (
                "prefect: Icon link, HTML entity, expression",
                "## `flow` <sup><a href=\"https://github.com/x\" target=\"_blank\"><Icon icon=\"github\" style={{ width: 14 }} /></a></sup>\n\nReturns a &lt;div&gt; {props.x} value.\n",
                "[h2] flow\nReturns a <div> value.\n",
            ),
            (
                "amplify: export const meta, import fragments, Fragments",
                "import { getCustomStaticPath } from '@/utils/getCustomStaticPath';\n\nexport const meta = {\n  title: 'Hub',\n  description: 'Amplify has a local eventing system called Hub.',\n  platforms: ['swift']\n};\n\nexport function getStaticProps(context) {\n  return { props: { meta } };\n}\n\nimport common_hub from '/src/fragments/lib/hub/common.mdx';\n\n<Fragments fragments={{ android: common_hub, swift: common_hub }} />\n\n<InlineFilter filters={[\"javascript\", \"react\"]}>\n\nAmplify has a local eventing system.\n\n</InlineFilter>\n",
                "[include common_hub]\nAmplify has a local eventing system.\n",
            ),
            (
                "JSX comment, HTML comment, multi-line tag attributes",
                "{/* hidden */}\n<!-- also\nhidden -->\n<Card\n  title=\"Card title\"\n  href=\"/x\"\n>\nBody text\n</Card>\n",
                "Card title. Body text\n",
            ),
            (
                "markdown links, emphasis, lists, tables",
                "- See [the guide](/docs/guide) for **bold** info\n\n| Key | Value |\n| --- | ----- |\n| `top_k` | 5 |\n",
                "See the guide for bold info Key | Value top_k | 5\n",
            ),
            (
                "prefect: frontmatter-only openapi stub without trailing newline",
                "---\nopenapi: get /csrf-token\n---",
                "",
            ),
        ];
        for (name, src, want) in cases {
            assert_eq!(text_of(src), *want, "case: {name}");
        }
    }

    #[test]
    fn frontmatter_fields() {
        let f = parse("---\ntitle: A\ndescription: B\nopenapi: get /x\n---").unwrap();
        assert_eq!(f.title.as_deref(), Some("A"));
        assert_eq!(f.description.as_deref(), Some("B"));
        assert_eq!(f.extra.as_deref(), Some("get /x"));
    }

    #[test]
    fn imports_and_exports() {
        let f = parse(
            "import { TF } from \"/snippets/terraform.mdx\"\nimport Other, { A as B } from './o.mdx';\nimport x from 'react';\n\nexport const TF2 = ({ name }) => (\n<p>You can manage {name} with Terraform.</p>\n);\n\n<TF name=\"x\" />\n",
        )
        .unwrap();
        assert_eq!(f.imports["TF"].export.as_deref(), Some("TF"));
        assert_eq!(f.imports["Other"].export, None);
        assert_eq!(f.imports["B"].export.as_deref(), Some("A"));
        assert!(!f.imports.contains_key("x"));
        assert_eq!(f.exports["TF2"], "You can manage with Terraform.");
        assert_eq!(f.blocks, vec![Block::Include("TF".into())]);
    }

    #[test]
    fn malformed_files_report_a_line() {
        for (src, line) in [
            ("---\ntitle: a\n", 1),
            // The line of the bracket that never closes.
            ("---\ntitle: [unclosed\n---\n", 2),
            ("ok\n\n<Card title=\"x\"\n\nnever closed", 3),
            ("text {unclosed\nmore\n", 1),
        ] {
            let e = parse(src).unwrap_err();
            assert_eq!(e.line, line, "{src:?}: {e}");
        }
    }

    #[test]
    fn import_inside_a_paragraph_is_prose() {
        assert_eq!(
            text_of("Targets are independent of the project's\nimport prefix. For example\n"),
            "Targets are independent of the project's import prefix. For example\n"
        );
        assert_eq!(
            text_of("Example:\n\n    import logging\n"),
            "Example: import logging\n"
        );
    }

    #[test]
    fn headings_and_inline_code_keep_tags_as_text() {
        assert_eq!(
            text_of("Use `<Tabs>` and `{x}` here\n"),
            "Use <Tabs> and {x} here\n"
        );
        assert_eq!(text_of("# Title #\n"), "[h1] Title\n");
        assert_eq!(text_of("#hashtag\n"), "#hashtag\n");
        assert_eq!(
            text_of("a < b and <https://x.dev>\n"),
            "a < b and https://x.dev\n"
        );
    }
}
