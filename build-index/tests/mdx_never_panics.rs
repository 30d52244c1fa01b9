//! Any input to the MDX parser and the corpus builder gives a value or an
//! error, never a panic: random bytes, and random mixes of MDX syntax.

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
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

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
