//! Which pages does a docs folder hold, at which routes, with which sections?
//!
//! Pure: takes the files' paths and contents, returns [`PageInput`]s and the
//! files it had to skip. The walk over the disk is in `main.rs`.
//!
//! - A file that another file imports is a fragment: it is inlined where it
//!   is rendered and is not a page of its own (`<include>` inlines too, but
//!   leaves the included file a page if it is one). So are files
//!   under `fragments/`, `snippets/`, `partials/` or `includes/` folders (with
//!   or without a leading `_`), and files whose name starts with `_` or `.`.
//! - Routes follow fumadocs: `a/b.mdx` → `/a/b`, `a/index.mdx` → `/a`,
//!   `(group)` folders vanish; other folder names (`[platform]`) stay as they
//!   are, percent-encoded where a URL needs it.
//! - Sections start at each heading; anchors follow GitHub's slugger, or an
//!   explicit `[#id]`. A section's text is the Markdown of
//!   [`ask_index::markdown`].

use std::collections::{BTreeMap, HashMap, HashSet};

use ask_index::markdown::tidy_markdown;
use ask_index::{PageInput, SectionInput};
use rayon::prelude::*;

use crate::mdx::{self, Block, MdxFile};

/// A file that was skipped, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// Path relative to the corpus root.
    pub path: String,
    /// 1-based line, when known.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The pages of a corpus.
#[derive(Debug, Default)]
pub struct Corpus {
    /// Pages in path order.
    pub pages: Vec<PageInput>,
    /// Each page's metadata ([`crate::mdx::MdxFile::meta`]), in the same
    /// order.
    pub meta: Vec<BTreeMap<String, Vec<String>>>,
    /// Files that could not be read as MDX.
    pub skipped: Vec<Skipped>,
    /// Number of fragment files (inlined, not pages).
    pub fragments: usize,
}

const FRAGMENT_DIRS: &[&str] = &["fragments", "snippets", "partials", "includes"];
const MAX_INCLUDE_DEPTH: usize = 8;

/// Builds pages from `(relative path, contents)` pairs of `.mdx` files.
pub fn pages(files: &BTreeMap<String, String>) -> Corpus {
    let mut parsed: HashMap<&str, MdxFile> = HashMap::new();
    let mut skipped = Vec::new();
    // Parsed on every core, in path order.
    let results: Vec<_> = files
        .par_iter()
        .map(|(path, src)| (path, mdx::parse(src)))
        .collect();
    for (path, result) in results {
        match result {
            Ok(f) => {
                parsed.insert(path.as_str(), f);
            }
            Err(e) => skipped.push(Skipped {
                path: path.clone(),
                line: e.line,
                message: e.message,
            }),
        }
    }

    // Everything a parsed file imports is a fragment. A file that is only
    // `<include>`d stays a page if it is one by its path (fumadocs includes
    // whole pages into others).
    let mut imported: HashSet<String> = HashSet::new();
    for (path, f) in &parsed {
        for (name, imp) in &f.imports {
            if name.starts_with("<include>") {
                continue;
            }
            if let Some(target) = resolve(path, &imp.specifier, files) {
                imported.insert(target);
            }
        }
    }

    let mut corpus = Corpus {
        skipped,
        ..Corpus::default()
    };
    let paths: Vec<&String> = files
        .keys()
        .filter(|path| parsed.contains_key(path.as_str()))
        .collect();
    let (pages, fragments): (Vec<&String>, Vec<&String>) = paths
        .into_iter()
        .partition(|path| !imported.contains(*path) && !is_fragment_path(path));
    corpus.fragments = fragments.len();
    corpus.meta = pages
        .iter()
        .map(|path| parsed[path.as_str()].meta.clone())
        .collect();
    // Pages assembled on every core; collect keeps path order.
    corpus.pages = pages
        .par_iter()
        .map(|path| {
            let f = &parsed[path.as_str()];
            let mut blocks = Vec::new();
            let mut stack = vec![(*path).clone()];
            inline(path, f, &parsed, files, &mut stack, &mut blocks);
            page(path, f, blocks)
        })
        .collect();
    corpus
}

/// Sets each page's sites under `rules` (`ask.sites`) from its path and
/// its metadata (`meta`, in the pages' order), and checks them: a glob
/// that matches no page, or a site that holds none, is refused. Returns
/// each site's page count.
pub fn assign_sites(
    rules: &ask_index::sites::SiteRules,
    pages: &mut [PageInput],
    meta: &[BTreeMap<String, Vec<String>>],
) -> Result<Vec<usize>, ask_index::sites::SiteError> {
    for (page, meta) in pages.iter_mut().zip(meta) {
        page.sites = rules.bits(&page.path, meta);
    }
    let paths: Vec<&str> = pages.iter().map(|p| p.path.as_str()).collect();
    let bits: Vec<u32> = pages.iter().map(|p| p.sites).collect();
    rules.check(&paths, &bits)
}

/// Is this path a fragment by its location or name?
pub fn is_fragment_path(path: &str) -> bool {
    let mut parts = path.split('/').peekable();
    while let Some(p) = parts.next() {
        if parts.peek().is_none() {
            return p.starts_with('_') || p.starts_with('.');
        }
        let bare = p.trim_start_matches('_');
        if FRAGMENT_DIRS.contains(&bare) || p.starts_with('.') {
            return true;
        }
    }
    false
}

/// Resolves an import specifier from `from` to a corpus path.
pub fn resolve(from: &str, specifier: &str, files: &BTreeMap<String, String>) -> Option<String> {
    let spec = specifier.split(['?', '#']).next()?.trim();
    let candidates: Vec<String> = if let Some(abs) = spec
        .strip_prefix("@/")
        .or_else(|| spec.strip_prefix("~/"))
        .or_else(|| spec.strip_prefix('/'))
    {
        // Absolute from some root above the corpus: try each suffix
        // (`/src/fragments/a.mdx` → `src/fragments/a.mdx`, `fragments/a.mdx`, …).
        let parts: Vec<&str> = abs.split('/').collect();
        (0..parts.len()).map(|k| parts[k..].join("/")).collect()
    } else {
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        vec![normalize(&format!("{dir}/{spec}"))?]
    };
    candidates.into_iter().find(|c| files.contains_key(c))
}

fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

fn inline(
    path: &str,
    f: &MdxFile,
    parsed: &HashMap<&str, MdxFile>,
    files: &BTreeMap<String, String>,
    stack: &mut Vec<String>,
    out: &mut Vec<Block>,
) {
    for b in &f.blocks {
        let Block::Include(name) = b else {
            out.push(b.clone());
            continue;
        };
        if let Some(text) = f.exports.get(name) {
            out.push(Block::Text(text.clone()));
            continue;
        }
        let Some(imp) = f.imports.get(name) else {
            continue;
        };
        let Some(target) = resolve(path, &imp.specifier, files) else {
            continue;
        };
        let Some(frag) = parsed.get(target.as_str()) else {
            continue;
        };
        if stack.contains(&target) || stack.len() > MAX_INCLUDE_DEPTH {
            continue;
        }
        match &imp.export {
            Some(export) => {
                if let Some(text) = frag.exports.get(export) {
                    out.push(Block::Text(text.clone()));
                }
            }
            None => {
                stack.push(target.clone());
                inline(&target, frag, parsed, files, stack, out);
                stack.pop();
            }
        }
    }
}

/// The route of a page: `a/(g)/b/index.mdx` → `/a/b`; a top-level
/// `pages/` folder is the root (`pages/a.mdx` → `/a`).
pub fn route(path: &str) -> String {
    let stem = path
        .strip_suffix(".mdx")
        .or_else(|| path.strip_suffix(".md"))
        .unwrap_or(path);
    // A top-level `pages/` folder is Next.js's pages router: the routes'
    // root (`pages/react/start.mdx` → `/react/start`).
    let stem = stem.strip_prefix("pages/").unwrap_or(stem);
    let mut parts: Vec<&str> = stem
        .split('/')
        .filter(|p| !(p.starts_with('(') && p.ends_with(')')))
        .collect();
    if parts.last() == Some(&"index") {
        parts.pop();
    }
    let mut r = String::new();
    for p in parts {
        r.push('/');
        r.push_str(&encode_segment(p));
    }
    if r.is_empty() {
        r.push('/');
    }
    r
}

/// What a URL path segment keeps as is: RFC 3986 unreserved characters,
/// sub-delims, `:` and `@`. Everything else, non-ASCII too, is
/// percent-encoded.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@');

/// Percent-encodes what may not stand in a URL path segment.
fn encode_segment(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// GitHub's heading slugger (github-slugger): lower-case, drop punctuation
/// and symbols except `-` and `_`, spaces to `-`, and `-1`, `-2`, … for
/// repeats within a page.
#[derive(Default)]
pub struct Slugger {
    seen: HashMap<String, usize>,
}

impl Slugger {
    /// The slug of `text` without de-duplication.
    pub fn slugify(text: &str) -> String {
        text.to_lowercase()
            .chars()
            .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    /// A slug for `text` unique within this slugger.
    pub fn slug(&mut self, text: &str) -> String {
        let original = Self::slugify(text);
        self.unique(original)
    }

    /// Registers an explicit id (or makes it unique).
    pub fn unique(&mut self, original: String) -> String {
        let mut slug = original.clone();
        while self.seen.contains_key(&slug) {
            let n = self.seen.get_mut(&original).expect("original registered");
            *n += 1;
            slug = format!("{original}-{n}");
        }
        self.seen.insert(slug.clone(), 0);
        slug
    }
}

fn file_stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let name = name.strip_suffix(".mdx").unwrap_or(name);
    let name = if name == "index" {
        path.rsplit('/').nth(1).unwrap_or(name)
    } else {
        name
    };
    name.replace(['-', '_'], " ")
}

/// Is a page with these headings (whether each starts with inline code) a
/// generated reference (API, CLI, settings)? At least three headings, and
/// at least half of them code: `` ### `create_flow` ``.
pub fn is_reference(headings: &[bool]) -> bool {
    let code = headings.iter().filter(|c| **c).count();
    headings.len() >= 3 && code * 2 >= headings.len()
}

fn page(path: &str, f: &MdxFile, blocks: Vec<Block>) -> PageInput {
    let headings: Vec<bool> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    let mut title = f.title.clone();
    let mut blocks = blocks.into_iter().peekable();
    let mut intro = String::new();
    // A leading h1 is the page's title (the intro), not a section.
    while let Some(b) = blocks.peek() {
        match b {
            Block::Text(t) => {
                intro.push_str(t);
                blocks.next();
            }
            Block::Heading { level: 1, text, .. }
                if title.is_none() || title.as_deref() == Some(text.as_str()) =>
            {
                title.get_or_insert_with(|| text.clone());
                blocks.next();
            }
            _ => break,
        }
    }
    let title = title
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| file_stem(path));

    let mut intro_text = String::new();
    for part in [f.description.as_deref(), f.extra.as_deref()]
        .into_iter()
        .flatten()
    {
        intro_text.push_str(part);
        intro_text.push_str("\n\n");
    }
    intro_text.push_str(&intro);

    let mut slugger = Slugger::default();
    let mut sections = vec![SectionInput {
        heading: title.clone(),
        anchor: String::new(),
        level: 0,
        text: tidy_markdown(&intro_text),
    }];
    for b in blocks {
        match b {
            Block::Heading {
                level, text, id, ..
            } => {
                let anchor = match id {
                    Some(id) => slugger.unique(id),
                    None => slugger.slug(&text),
                };
                sections.push(SectionInput {
                    heading: text,
                    anchor,
                    level,
                    text: String::new(),
                });
            }
            Block::Text(t) => {
                let s = sections.last_mut().expect("intro exists");
                s.text.push_str(&t);
            }
            Block::Include(_) => {}
        }
    }
    for s in sections.iter_mut().skip(1) {
        s.text = tidy_markdown(&s.text);
    }
    // Drop an empty intro when the page has other sections.
    if sections.len() > 1 && sections[0].text.is_empty() {
        sections.remove(0);
    }
    PageInput {
        path: path.to_string(),
        route: route(path),
        title,
        description: f.description.clone().unwrap_or_default(),
        sections,
        boost: f.boost,
        reference: is_reference(&headings),
        sites: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_table() {
        for (path, want) in [
            ("index.mdx", "/"),
            ("a/b.mdx", "/a/b"),
            ("a/index.mdx", "/a"),
            ("(framework)/integrations/llms.mdx", "/integrations/llms"),
            ("(root)/index.mdx", "/"),
            ("pages/[platform]/start/index.mdx", "/%5Bplatform%5D/start"),
            ("guides/pages/a.mdx", "/guides/pages/a"),
            (
                "gen1/[platform]/build-a-backend/index.mdx",
                "/gen1/%5Bplatform%5D/build-a-backend",
            ),
            (
                "v3/api-ref/python/prefect.mdx",
                "/v3/api-ref/python/prefect",
            ),
            ("a b.mdx", "/a%20b"),
        ] {
            assert_eq!(route(path), want, "{path}");
        }
    }

    #[test]
    fn slugger_table() {
        let mut s = Slugger::default();
        for (text, want) in [
            ("Hello World", "hello-world"),
            ("Hello World", "hello-world-1"),
            ("Hello World", "hello-world-2"),
            ("hello-world-1", "hello-world-1-1"),
            ("`createMDX` options", "createmdx-options"),
            ("What's new?", "whats-new"),
            ("Café & Crème", "café--crème"),
            ("snake_case", "snake_case"),
            ("C++ / Rust", "c--rust"),
            ("", ""),
            ("", "-1"),
        ] {
            assert_eq!(s.slug(text), want, "{text:?}");
        }
    }

    #[test]
    fn fragment_paths() {
        for (p, want) in [
            ("fragments/lib/a.mdx", true),
            ("snippets/x.mdx", true),
            ("docs/_partials/x.mdx", true),
            ("a/_hidden.mdx", true),
            ("headless/search/.static-route-example.mdx", true),
            ("pages/gen1/index.mdx", false),
            ("guides/snippets-guide.mdx", false),
        ] {
            assert_eq!(is_fragment_path(p), want, "{p}");
        }
    }

    fn corpus(files: &[(&str, &str)]) -> Corpus {
        let map: BTreeMap<String, String> = files
            .iter()
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        pages(&map)
    }

    #[test]
    fn inlines_fragments_and_excludes_them_as_pages() {
        let c = corpus(&[
            (
                "pages/hub.mdx",
                "export const meta = { title: 'Hub', description: 'Eventing' };\n\nimport common from '/src/fragments/hub/common.mdx';\n\n<Fragments fragments={{ ios: common, android: common }} />\n",
            ),
            (
                "fragments/hub/common.mdx",
                "Hub is a pub/sub system.\n\n## Listening\n\nCall `Hub.listen`.\n",
            ),
            (
                "guide/setup.mdx",
                "---\ntitle: Setup\n---\n<include>../pages/inc.mdx</include>\n",
            ),
            ("pages/inc.mdx", "Included text.\n"),
        ]);
        let paths: Vec<&str> = c.pages.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            vec!["guide/setup.mdx", "pages/hub.mdx", "pages/inc.mdx"]
        );
        let hub = &c.pages[1];
        assert_eq!(hub.title, "Hub");
        // `pages/` is the root of Next.js's routes.
        assert_eq!(hub.route, "/hub");
        assert_eq!(hub.sections.len(), 2);
        assert_eq!(hub.sections[0].text, "Eventing\n\nHub is a pub/sub system.");
        assert_eq!(hub.sections[1].heading, "Listening");
        assert_eq!(hub.sections[1].anchor, "listening");
        assert_eq!(hub.sections[1].text, "Call Hub.listen.");
        assert_eq!(c.pages[0].sections[0].text, "Included text.");
        assert_eq!(c.fragments, 1);
    }

    #[test]
    fn malformed_file_is_skipped_with_its_line() {
        let c = corpus(&[
            ("ok.mdx", "# OK\n\ntext\n"),
            ("bad.mdx", "---\ntitle: x\n\nno closing fence\n"),
        ]);
        assert_eq!(c.pages.len(), 1);
        assert_eq!(c.skipped.len(), 1);
        assert_eq!(c.skipped[0].path, "bad.mdx");
        assert_eq!(c.skipped[0].line, 1);
    }

    #[test]
    fn stub_page_is_indexed_by_title_and_description() {
        let c = corpus(&[(
            "api/csrf.mdx",
            "---\ntitle: Get CSRF token\ndescription: Returns a token\nopenapi: get /csrf-token\n---",
        )]);
        let p = &c.pages[0];
        assert_eq!(p.sections.len(), 1);
        assert_eq!(p.sections[0].heading, "Get CSRF token");
        assert_eq!(p.sections[0].text, "Returns a token\n\nget /csrf-token");
    }

    #[test]
    fn frontmatter_boost_and_reference_shape() {
        let c = corpus(&[
            ("a.mdx", "---\ntitle: A\nboost: 3\n---\n\ntext\n"),
            (
                "b.mdx",
                "---\ntitle: B\nsearch:\n  boost: 0.5\n---\n\ntext\n",
            ),
            ("c.mdx", "---\ntitle: C\nboost: -2\n---\n\ntext\n"),
            ("d.mdx", "---\ntitle: D\nboost: lots\n---\n\ntext\n"),
            (
                "ref.mdx",
                "# `prefect.client`\n\n## Functions\n\n### `get_client` <sup>x</sup>\n\nGets one.\n\n### `close`\n\nCloses.\n",
            ),
            (
                "guide.mdx",
                "# Guide\n\n## Install\n\nRun it.\n\n## Call `get_client`\n\nLike so.\n\n## Next\n\nMore.\n",
            ),
        ]);
        let by = |p: &str| c.pages.iter().find(|x| x.path == p).unwrap();
        assert_eq!(by("a.mdx").boost, Some(3.0));
        assert_eq!(by("b.mdx").boost, Some(0.5));
        assert_eq!(by("c.mdx").boost, None, "negative weights are ignored");
        assert_eq!(by("d.mdx").boost, None);
        assert!(by("ref.mdx").reference);
        assert!(!by("guide.mdx").reference);
        assert!(!by("a.mdx").reference);
    }

    #[test]
    fn reference_needs_three_headings_half_of_them_code() {
        assert!(is_reference(&[true, false, true]));
        assert!(is_reference(&[true, true, false, false]));
        assert!(!is_reference(&[true, false, false]));
        assert!(!is_reference(&[true, true]));
        assert!(!is_reference(&[]));
    }

    #[test]
    fn leading_h1_becomes_title() {
        let c = corpus(&[("x/index.mdx", "# My Title\n\nIntro.\n\n## Part\n\nBody.\n")]);
        let p = &c.pages[0];
        assert_eq!(p.title, "My Title");
        assert_eq!(p.route, "/x");
        assert_eq!(p.sections[0].text, "Intro.");
        assert_eq!(p.sections[1].anchor, "part");
    }
}
