//! What a parsed `.mdx` file is made of.

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
    /// Its metadata's top-level values that are text, numbers, booleans or
    /// lists of them (frontmatter, else `export const meta`), as text: what
    /// `ask.sites` matches by.
    pub meta: std::collections::BTreeMap<String, Vec<String>>,
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

pub(super) fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

/// Attributes whose values a reader sees on the rendered page.
pub(super) const VISIBLE_ATTRIBUTES: &[&str] = &[
    "title",
    "description",
    "label",
    "alt",
    "caption",
    "heading",
    "summary",
];
