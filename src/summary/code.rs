//! Code blocks and table rows carried into the answer: cut to the budget, and chosen.

use ask_index::Analyzer;

use super::sentences::{one_line, sentence_score};

/// Table rows shown with their header, at most.
pub(super) const TABLE_ROWS: usize = 3;
/// Characters of one table cell shown, at most.
const CELL_CHARS: usize = 160;

/// `code` cut to `n` lines: the first `n`, or with `window` the `n` in a
/// row that hold the most question terms (the first such run); a line
/// `…` marks each side that was cut (within the `n`).
pub(super) fn cut_lines(
    analyzer: &Analyzer,
    code: &str,
    n: usize,
    window: bool,
    terms: &[(String, f32)],
) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let n = n.max(3);
    if lines.len() <= n {
        return lines.iter().map(|l| format!("{l}\n")).collect();
    }
    let start = if window {
        let scores: Vec<f32> = lines
            .iter()
            .map(|l| sentence_score(analyzer, l, terms))
            .collect();
        let span = n - 2;
        (0..=lines.len() - span)
            .max_by(|&a, &b| {
                let sum = |s: usize| scores[s..s + span].iter().sum::<f32>();
                sum(a).total_cmp(&sum(b)).then(b.cmp(&a))
            })
            .unwrap_or(0)
    } else {
        0
    };
    let mut out = String::new();
    let mut room = n;
    if start > 0 {
        out.push_str("…\n");
        room -= 1;
    }
    let end = (start + room).min(lines.len());
    let end = if end < lines.len() { end - 1 } else { end };
    for l in &lines[start..end] {
        out.push_str(l);
        out.push('\n');
    }
    if end < lines.len() {
        out.push_str("…\n");
    }
    out
}

/// A Markdown table of `rows` under `header`, each cell on one line and
/// cut to [`CELL_CHARS`].
pub(super) fn table_markdown(header: &[String], rows: &[Vec<String>]) -> String {
    let cell = |c: &str| {
        let c = one_line(c).replace('|', "\\|");
        if c.chars().count() > CELL_CHARS {
            let mut s: String = c.chars().take(CELL_CHARS - 1).collect();
            s.push('…');
            s
        } else {
            c
        }
    };
    let line = |cells: &[String]| {
        format!(
            "| {} |",
            cells
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    };
    let mut out = line(header);
    out.push('\n');
    out.push_str(&format!("|{}", " --- |".repeat(header.len())));
    for r in rows {
        out.push('\n');
        out.push_str(&line(r));
    }
    out
}
