//! Code blocks and table rows carried into the answer: cut to the budget, and chosen.

use ask_index::Analyzer;

use super::read::{Code, Read};
use super::sentences::{one_line, sentence_score};
use super::{Kind, Params, Part};

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

/// The code or the table that answers, after the lead group of `groups`.
pub(super) fn answer_blocks(
    reads: &[Read],
    groups: &[Vec<(usize, usize, String)>],
    kind: Kind,
    lead_score: f32,
    p: &Params,
) -> Vec<Part> {
    // The code or the table that answers: the first code after the lead
    // sentence in its section (the step it describes), and the code that
    // scores best, up to `code_blocks`; else the table rows that do.
    let mut code: Vec<&Code> = Vec::new();
    if kind.wants_code() {
        if p.code_follows_lead
            && let Some(&(s, pos, _)) = groups.first().and_then(|g| g.last())
            && let Some(c) = reads[s].code.iter().find(|c| c.at > pos)
        {
            code.push(c);
        }
        let mut scored: Vec<&Code> = reads
            .iter()
            .flat_map(|r| &r.code)
            .filter(|c| c.score > 0.0 && c.score >= lead_score * p.code_share)
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.source.cmp(&b.source)));
        for c in scored {
            if code.len() >= p.code_blocks {
                break;
            }
            if !code.iter().any(|x| std::ptr::eq(*x, c) || x.code == c.code) {
                code.push(c);
            }
        }
        code.truncate(p.code_blocks);
    }
    if code.is_empty() {
        reads
            .iter()
            .enumerate()
            .flat_map(|(rank, r)| r.tables.iter().map(move |t| (rank, t)))
            .filter(|(_, (score, _))| *score > 0.0 && *score >= lead_score * p.min_share)
            .max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.0.cmp(&a.0)))
            .map(|(rank, (_, table))| Part::Table {
                markdown: table.clone(),
                source: rank,
            })
            .into_iter()
            .collect()
    } else {
        code.into_iter()
            .map(|c| Part::Code {
                lang: c.lang.clone(),
                code: c.code.clone(),
                source: c.source,
            })
            .collect()
    }
}
