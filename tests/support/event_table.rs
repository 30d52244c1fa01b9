//! The expectations table of `events/README.md`, read by the event tests.

#![allow(dead_code)]

use super::docs::repo;

/// Rows of the table in events/README.md: (file, status, kind, code).
pub fn expectations() -> Vec<(String, u16, String, Option<String>)> {
    let readme = std::fs::read_to_string(repo().join("events/README.md")).unwrap();
    let rows: Vec<_> = readme
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains(".json`"))
        .map(|l| {
            let cells: Vec<String> = l
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect();
            // | file | source | method | what | status | content-type | code |
            let code = cells[7]
                .trim_matches('`')
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            let code = code.trim_matches('`').to_string();
            (
                cells[1].clone(),
                cells[5].parse().unwrap(),
                cells[6].clone(),
                Some(code).filter(|c| {
                    !c.is_empty()
                        && (c.chars().all(|x| x.is_ascii_uppercase() || x == '_')
                            || c.parse::<i32>().is_ok())
                }),
            )
        })
        .collect();
    rows
}
