//! Any input to the MDX parser and the corpus builder gives a value or an
//! error, never a panic: random bytes, and random mixes of MDX syntax.
//! `FUZZ_CASES` sets the cases of each (10,000 by default; `scripts/fuzz.sh`
//! runs 1,000,000).

use std::collections::BTreeMap;

use build_index::{corpus, mdx};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "---\n",
    "title: x\n",
    "# ",
    "## Head [#id]",
    "[!toc]",
    "{",
    "}",
    "<",
    ">",
    "</",
    "/>",
    "<Callout title=\"t\">",
    "</Callout>",
    "<Fragments fragments={{ a: frag }} />",
    "import frag from './f.mdx';\n",
    "export const meta = {",
    "title: 'T'",
    "};\n",
    "```",
    "~~~",
    "`",
    "\n",
    "\n\n",
    "text ",
    "&lt;",
    "[link](url)",
    "![alt](src)",
    "|",
    "---|",
    "<!--",
    "-->",
    "{/*",
    "*/}",
    "'",
    "\"",
    "\\",
    "<include>./f.mdx</include>\n",
    "é",
    "=>",
    "(",
    ")",
    "| a | b |\n",
    "| `x|y` | \\| |\n",
    "### `code` [step]\n",
    "\u{0}",
    "\r\n",
];

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        let _ = mdx::parse(&s);
    }

    #[test]
    fn mdx_like_text_never_panics(parts in prop::collection::vec(prop::sample::select(PIECES), 0..60)) {
        let s: String = parts.concat();
        let _ = mdx::parse(&s);
        let mut files = BTreeMap::new();
        files.insert("a/page.mdx".to_string(), s.clone());
        files.insert("a/f.mdx".to_string(), s);
        let c = corpus::pages(&files);
        prop_assert!(c.pages.len() + c.skipped.len() + c.fragments <= 2);
    }
}
