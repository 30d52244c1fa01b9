//! Do the docs say what the code does, where a test can tell? Every
//! setting is in the configuration page's table exactly as the settings
//! type describes it ([`ask_settings::table`]); every `ASK_*` variable the
//! function reads is documented there, and every one documented is read;
//! every route the router serves is in the API page's list; the home page
//! links every page; and the user docs tell no history.

mod support;

use std::path::Path;

use support::docs::repo;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every `ASK_…` name in `text`.
fn variables(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("ASK_").map(|a| a + i) {
        let end = at
            + 4
            + b[at + 4..]
                .iter()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b'_')
                .count();
        let before_ok = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        if before_ok && end > at + 4 {
            out.insert(text[at..end].trim_end_matches('_').to_string());
        }
        i = end;
    }
    out
}

/// The variables the function reads besides the settings' own.
const OTHER_RUNTIME_VARIABLES: &[&str] = &["ASK_S3_PART_BYTES", "ASK_QUERY_ID_SECRET"];

#[test]
fn the_configuration_page_has_every_setting_as_the_code_describes_it() {
    let page = read("docs/content/docs/configuration.mdx");
    let table = ask_settings::table();
    assert!(
        page.contains(&table),
        "docs/content/docs/configuration.mdx must hold the settings table as ask_settings::table() writes it:\n\n{table}"
    );
    // The variables the function's code names are documented, and the
    // page documents no variable the function does not read.
    let read_by_code: std::collections::BTreeSet<String> = ask_settings::keys()
        .into_iter()
        .map(|k| k.env)
        .chain(OTHER_RUNTIME_VARIABLES.iter().map(|v| v.to_string()))
        .collect();
    let mut named_in_code = std::collections::BTreeSet::new();
    for dir in ["src", "crates/store/src", "crates/settings/src"] {
        for entry in walk(&repo().join(dir)) {
            named_in_code.extend(variables(&std::fs::read_to_string(entry).unwrap()));
        }
    }
    for v in &named_in_code {
        assert!(
            read_by_code.contains(v),
            "{v} is named in the code but read by none of the settings"
        );
    }
    let documented = variables(&page);
    for v in &read_by_code {
        assert!(
            documented.contains(v),
            "{v} is read by the function but not in configuration.mdx"
        );
    }
    for v in &documented {
        assert!(
            read_by_code.contains(v),
            "configuration.mdx documents {v}, which the function does not read"
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_api_page_lists_every_route_the_router_serves() {
    let page = read("docs/content/docs/api.mdx");
    for path in nlweb_ask::app::paths() {
        assert!(
            page.contains(&format!("`{path}`")),
            "api.mdx does not list the route {path}"
        );
    }
}

#[test]
fn the_home_page_links_every_page() {
    let index = read("docs/content/docs/index.mdx");
    for e in std::fs::read_dir(repo().join("docs/content/docs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".mdx") else {
            continue;
        };
        if stem == "index" {
            continue;
        }
        assert!(
            index.contains(&format!("(/docs/{stem})")),
            "index.mdx does not link {name}"
        );
    }
}

#[test]
fn the_user_docs_tell_no_history() {
    let ordinals = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    let mut files: Vec<String> = ["README.md", "BENCHMARKS.md", "ARCHITECTURE.md"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for e in std::fs::read_dir(repo().join("docs/content/docs")).unwrap() {
        files.push(format!(
            "docs/content/docs/{}",
            e.unwrap().file_name().to_string_lossy()
        ));
    }
    for f in files {
        let text = read(&f).to_lowercase();
        for (n, line) in text.lines().enumerate() {
            for o in ordinals {
                assert!(
                    !line.contains(&format!("{o} session")),
                    "{f}:{}: {o} session",
                    n + 1
                );
            }
            let mut rest = line;
            while let Some(at) = rest.find("issue ") {
                let after = &rest[at + 6..];
                assert!(
                    !after.starts_with(|c: char| c.is_ascii_digit()),
                    "{f}:{}: {}",
                    n + 1,
                    line.trim()
                );
                rest = after;
            }
        }
    }
}
