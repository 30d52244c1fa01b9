//! A page handed over whole (MCP `fetch`, `resources/read`, `/pages/…`,
//! `/llms-full.txt`) reads like its source: every heading and every code
//! block of each `.mdx` file is in its page's Markdown, for all the
//! bundled docs' pages and a sample of each shared corpus's.

use std::path::Path;

mod support;

use ask_index::pages;
use support::docs::{docs_index, index_of, repo, shared_corpora};

/// A heading or a code line as compared: its words, with the inline
/// markup the index reduces to text (emphasis, code marks, links'
/// targets) left out.
fn words(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    // A link keeps its text: `[text](target)` → `text`.
    while let Some(open) = rest.find("](") {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        out.push_str(&rest[..open]);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The headings (outside code fences, with no JSX or expression) and the
/// code blocks' lines of an `.mdx` source.
fn headings_and_code(source: &str) -> (Vec<String>, Vec<String>) {
    let (mut headings, mut code) = (Vec::new(), Vec::new());
    let mut fence: Option<String> = None;
    let mut in_frontmatter = source.starts_with("---");
    for (n, line) in source.lines().enumerate() {
        let t = line.trim_start();
        if in_frontmatter {
            if n > 0 && t.starts_with("---") {
                in_frontmatter = false;
            }
            continue;
        }
        if let Some(f) = &fence {
            if t.starts_with(f.as_str()) && t.trim_start_matches(f.as_str()).trim().is_empty() {
                fence = None;
            } else if !words(t).is_empty() {
                code.push(words(t));
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            let c = t.chars().next().unwrap();
            fence = Some(t.chars().take_while(|&x| x == c).collect());
            continue;
        }
        let hashes = t.chars().take_while(|&c| c == '#').count();
        // A heading's own id (`[#id]`, `{#id}`) is not text.
        let t = match t.rfind(" [#").or_else(|| t.rfind(" {#")) {
            Some(at) if t.ends_with([']', '}']) => &t[..at],
            _ => t,
        };
        if (1..=6).contains(&hashes)
            && t[hashes..].starts_with(' ')
            && !t.contains(['<', '{'])
            && !words(&t[hashes..]).is_empty()
        {
            headings.push(words(&t[hashes..]));
        }
    }
    (headings, code)
}

/// What of `pages` (by index) is missing from their Markdown: one line
/// each.
fn missing(index: &ask_index::Index, root: &Path, every: usize) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut out = Vec::new();
    for p in (0..index.page_count() as u32).step_by(every) {
        let path = index.page(p).path;
        let Ok(source) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        checked += 1;
        let md = words(&pages::markdown(index, p));
        let (headings, code) = headings_and_code(&source);
        for h in headings.iter().filter(|h| !md.contains(h.as_str())) {
            out.push(format!("{path}: heading {h:?}"));
        }
        for c in code.iter().filter(|c| !md.contains(c.as_str())) {
            out.push(format!("{path}: code line {c:?}"));
        }
    }
    (checked, out)
}

#[test]
fn every_heading_and_code_block_of_the_bundled_docs_is_in_their_pages() {
    let index = docs_index();
    let (checked, missing) = missing(&index, &repo().join("docs/content/docs"), 1);
    assert_eq!(checked, 13);
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn every_heading_and_code_block_of_a_sample_of_each_corpus_is_in_its_pages() {
    let names = ["fumadocs", "shadcn-ui", "prefect", "aws-amplify"];
    let Some(dirs) = shared_corpora(
        "every_heading_and_code_block_of_a_sample_of_each_corpus_is_in_its_pages",
        &names,
    ) else {
        return;
    };
    for (name, dir) in names.iter().zip(dirs) {
        let index = index_of(&dir);
        // About 25 pages of each.
        let every = (index.page_count() / 25).max(1);
        let (checked, missing) = missing(&index, &dir, every);
        eprintln!("{name}: {checked} pages checked, {} misses", missing.len());
        assert!(checked >= 20, "{name}: {checked} pages");
        assert!(missing.is_empty(), "{name}: {missing:#?}");
    }
}
