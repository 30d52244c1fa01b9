//! What does `llms.txt` say about these docs? The file of the llms.txt
//! proposal (an H1 with the product's name, a blockquote with its
//! description, H2 sections of links), made from the index alone so that
//! the copy `build-index` writes and the one the Lambda serves cannot
//! disagree with the index or with each other.

use crate::index::Index;

/// The product's name and description: the root page's (route `/`), else
/// the first page's, else a plain default.
pub fn product(index: &Index) -> (String, String) {
    let pages = (0..index.meta.pages).map(|i| index.page(i));
    let root = pages
        .clone()
        .find(|p| p.route == "/")
        .or_else(|| pages.clone().next());
    match root {
        Some(p) if !p.title.is_empty() => (p.title.to_string(), p.description.to_string()),
        _ => ("Documentation".to_string(), String::new()),
    }
}

/// One line of text: no line breaks, no brackets that would end a link.
fn inline(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['[', ']'], "")
}

/// `llms.txt` for `index`: page links joined to `docs_base_url`, endpoint
/// links joined to `api_base_url` (empty: paths only, as `/ask`).
pub fn llms_txt(index: &Index, docs_base_url: &str, api_base_url: &str) -> String {
    let (name, description) = product(index);
    let mut out = format!("# {}\n\n", inline(&name));
    if !description.is_empty() {
        out.push_str(&format!("> {}\n\n", inline(&description)));
    }
    out.push_str(&format!(
        "Every page below is searchable through the endpoints at the end: ask a question in \
         plain language and get the matching sections with links{}.\n\n## Docs\n\n",
        if index.meta.source == "jsonl" {
            ""
        } else {
            " and an extractive answer"
        }
    ));
    for i in 0..index.meta.pages {
        let p = index.page(i);
        let url = if index.meta.source == "jsonl" {
            p.route.to_string()
        } else {
            format!("{docs_base_url}{}", p.route)
        };
        let title = if p.title.is_empty() { p.route } else { p.title };
        out.push_str(&format!("- [{}]({url})", inline(title)));
        if !p.description.is_empty() {
            out.push_str(&format!(": {}", inline(p.description)));
        }
        out.push('\n');
    }
    let api = api_base_url.trim_end_matches('/');
    let first = if index.meta.pages > 0 {
        crate::pages::key(index, 0)
    } else {
        "index"
    };
    out.push_str(&format!(
        "\n## API\n\n\
         - [Ask]({api}/ask): NLWeb 0.55 `/ask` — GET `?query=…` or POST `{{\"query\":{{\"text\":…}}}}`; JSON or Server-Sent Events; modes list, summarize, generate\n\
         - [MCP]({api}/mcp): Model Context Protocol over Streamable HTTP (POST, JSON responses; revisions 2024-11-05 to 2026-07-28): tools `ask`, `search` and `fetch`, and each page as a resource\n\
         - [Feedback]({api}/ask/feedback): POST `{{\"query_id\":…,\"rating\":\"up\"}}` (or `\"down\"`) to rate an answer by its `query_id`; 204\n\
         - [MCP server card]({api}/mcp/server-card): the MCP server's card (name, version, where it answers, the revisions it serves)\n\
         - [OpenAPI]({api}/openapi.json): the OpenAPI 3.1 description of these endpoints\n\
         - [Sites]({api}/sites): the sites this index serves (name it as `site`), each with its page and section counts, and the build id\n\
         - [Full text]({api}/llms-full.txt): every page as Markdown in one file\n\
         - [Pages as Markdown]({api}/pages/{first}.md): each page at `/pages/` and its path in the docs without `.mdx`, as Markdown\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyzer::Analyzer;
    use crate::build::build;
    use crate::index::{BuildOptions, PageInput, SectionInput, Weights};

    fn page(path: &str, route: &str, title: &str, description: &str) -> PageInput {
        PageInput {
            path: path.into(),
            route: route.into(),
            title: title.into(),
            description: description.into(),
            sections: vec![SectionInput {
                heading: title.into(),
                anchor: String::new(),
                level: 1,
                text: format!("{title} text"),
            }],
            ..PageInput::default()
        }
    }

    #[test]
    fn root_page_names_the_product_and_every_page_has_a_line() {
        let pages = vec![
            page("a.mdx", "/a", "Alpha [beta]", "First\npage."),
            page("index.mdx", "/", "Widget Docs", "Docs of Widget."),
            page("b.mdx", "/b", "Bravo", ""),
        ];
        let opts = BuildOptions {
            docs_base_url: "https://x.dev/docs".into(),
            weights: Weights::DOCS,
            source: "mdx".into(),
            corpus_fingerprint: "t".into(),
            built_at_unix: 0,
            settings: String::new(),
            sites: Vec::new(),
        };
        let index = build(&pages, &opts, &Analyzer::new()).unwrap();
        let txt = llms_txt(&index, "https://x.dev/docs", "https://api.x.dev/prod/");
        let lines: Vec<&str> = txt.lines().collect();
        assert_eq!(lines[0], "# Widget Docs");
        assert_eq!(lines[2], "> Docs of Widget.");
        assert!(
            txt.contains("- [Alpha beta](https://x.dev/docs/a): First page.\n"),
            "{txt}"
        );
        assert!(txt.contains("- [Bravo](https://x.dev/docs/b)\n"), "{txt}");
        assert!(
            txt.contains("- [Ask](https://api.x.dev/prod/ask): "),
            "{txt}"
        );
        assert!(
            txt.contains("- [MCP](https://api.x.dev/prod/mcp): "),
            "{txt}"
        );
        assert!(
            txt.contains("- [MCP server card](https://api.x.dev/prod/mcp/server-card): "),
            "{txt}"
        );
        assert!(
            txt.contains("- [Feedback](https://api.x.dev/prod/ask/feedback): "),
            "{txt}"
        );
        assert_eq!(txt.matches("\n- [").count(), 3 + 8);
        assert_eq!(txt.matches("\n## ").count(), 2);
    }
}
