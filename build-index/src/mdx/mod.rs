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
//! - Headings (`#`…`######`) start sections; fumadocs `[#custom-id]` and
//!   `[!toc]` markers and `{#custom-id}` are read and removed.
//! - What is kept is written as the small Markdown of
//!   [`ask_index::markdown`]: code fences with their language (and a
//!   `title="…"` from the fence line), tables as `| a | b |` rows, list
//!   items with their markers; inline syntax (links, emphasis, inline code,
//!   entities) is reduced to its text, blockquote and admonition markers
//!   are dropped.
//!
//! Anything that cannot be closed (a frontmatter without its `---`, a tag or
//! expression still open at the end of the file, bad YAML) is a
//! [`ParseError`] with the line where it started.
//!
//! The parts: [`frontmatter`] (YAML and `export const meta`), [`esm`]
//! (import and export statements), [`blocks`] (line-level Markdown:
//! headings, fences, tables, list markers), [`inline`] (JSX, expressions,
//! comments and inline Markdown across lines); this module walks a file's
//! lines with them.

mod blocks;
mod esm;
mod frontmatter;
mod inline;
mod types;

use blocks::*;
use esm::*;
use frontmatter::*;
use inline::*;

pub use blocks::CELL_SEPARATOR;
use types::err;
pub use types::{Block, Import, MdxFile, ParseError};

use std::collections::HashMap;

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

        // Code fence: kept as a fence, with its language and title.
        if let Some(open) = fence_open(trimmed) {
            return Ok(self.fence(lines, i, open));
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
            self.heading_block(level, rest, i)?;
            return Ok(i + 1);
        }

        // Block-level markdown: tables as `| a | b |` rows, the header's
        // separator after it; list items with their marker.
        if is_table_separator(trimmed) {
            self.text.push_str(&separator_row(trimmed));
            self.text.push('\n');
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
            self.table_row(&cells);
            return Ok(i + 1);
        }
        let (marker, content) = list_item(trimmed);
        self.open_since = i + 1;
        self.in_paragraph = true;
        let events = self
            .inline
            .feed(content, &self.file.imports, &self.file.exports);
        // A list item keeps its marker (indented as written) when it shows
        // any text.
        if let Some(m) = marker
            && events
                .iter()
                .any(|e| matches!(e, Event::Text(t) if !t.trim().is_empty()))
        {
            let indent = (line.len() - trimmed.len()).min(12);
            self.text.push_str(&" ".repeat(indent));
            self.text.push_str(&m);
        }
        for ev in events {
            self.push_event(ev);
        }
        self.feed("\n");
        Ok(i + 1)
    }

    /// The code fence opening at line `i` (`open`: its character, length
    /// and info string), kept as a fence with its language and title;
    /// returns the line after it.
    fn fence(&mut self, lines: &[&str], i: usize, open: (char, usize, &str)) -> usize {
        let (fence_char, fence_len, info) = open;
        let fence: String = std::iter::repeat_n(fence_char, fence_len).collect();
        self.text.push_str(&fence);
        self.text.push_str(fence_language(info));
        if let Some(title) = attribute_in(info, "title") {
            let q = if title.contains('"') { '\'' } else { '"' };
            self.text.push_str(&format!(" title={q}{title}{q}"));
        }
        self.text.push('\n');
        let mut j = i + 1;
        while j < lines.len() {
            if ask_index::markdown::fence_closes(lines[j], fence_char, fence_len) {
                break;
            }
            self.text.push_str(lines[j].trim_end());
            self.text.push('\n');
            j += 1;
        }
        self.text.push_str(&fence);
        self.text.push_str("\n\n");
        j + 1
    }

    /// A heading of `level` whose text is `rest`, at line `i`.
    fn heading_block(&mut self, level: u8, rest: &str, i: usize) -> Result<(), ParseError> {
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
        Ok(())
    }

    /// A table row, its cells apart (" | ") so that a summary can read a
    /// row with its header.
    fn table_row(&mut self, cells: &[&str]) {
        self.text.push_str("| ");
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
        if self.inline.is_idle() {
            self.text.push_str(" |");
        }
        self.feed("\n");
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
            if self.file.meta.is_empty() {
                self.file.meta = js_properties(decl);
            }
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
                    s.push_str(&collapse_spaces(&ask_index::markdown::plain(&t)));
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
        assert_eq!(
            rows,
            vec!["| Key | Default |", "| --- | --- |", "| top_k | 5 |"]
        );
    }

    /// What is kept as Markdown: fences with their language and title,
    /// list markers (indented as written), tables with their separator.
    #[test]
    fn kept_as_markdown() {
        let f = parse(
            "Intro with **bold** and `code`.\n\n```ts twoslash title=\"a.ts\"\nconst  x = 1;\n```\n\n- one\n  - nested [link](/x)\n1. first\n\n> quoted\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n",
        )
        .unwrap();
        let Block::Text(t) = &f.blocks[0] else {
            panic!("{:?}", f.blocks)
        };
        assert_eq!(
            ask_index::markdown::tidy_markdown(t),
            "Intro with bold and code.\n\n```ts title=\"a.ts\"\nconst  x = 1;\n```\n\n- one\n  - nested link\n1. first\n\nquoted\n\n| a | b |\n| --- | --- |\n| 1 | 2 |"
        );
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
    fn metadata_values_for_the_sites() {
        let meta = |pairs: &[(&str, &[&str])]| -> std::collections::BTreeMap<String, Vec<String>> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.iter().map(|x| x.to_string()).collect()))
                .collect()
        };
        let f =
            parse("---\ntitle: A\nplatforms: [web, ios]\nversion: 2\nsearch: {boost: 2}\n---\n")
                .unwrap();
        assert_eq!(
            f.meta,
            meta(&[
                ("platforms", &["web", "ios"]),
                ("title", &["A"]),
                ("version", &["2"])
            ])
        );
        assert_eq!(f.boost, Some(2.0));
        let f = parse(
            "export const meta = {\n  // the platforms\n  title: 'Hub', /* shown */ platforms: [\"swift\", 'android'],\n  route: getRoute(['x', 'y']),\n  nested: { version: 'v1' },\n  beta: true\n};\n",
        )
        .unwrap();
        assert_eq!(
            f.meta,
            meta(&[
                ("beta", &["true"]),
                ("platforms", &["swift", "android"]),
                ("title", &["Hub"])
            ])
        );
        assert_eq!(f.title.as_deref(), Some("Hub"));
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
