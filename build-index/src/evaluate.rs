//! `build-index evaluate`: how well an index ranks a docs team's own
//! questions, each graded by the pages that answer it, with the words alone
//! and mixed with the sentence model at each weight, so a team can see
//! whether `ask.retriever: hybrid` helps on its site before it sets it.
//!
//! The questions are JSON lines, as the project's golden sets:
//! `{"q": "…", "expected": ["page.mdx"], "partial": ["other.mdx"]}`;
//! `expected` pages answer (grade 2), `partial` ones help (grade 1), and a
//! line with `"unanswerable": true` is left out. The figure is page-level
//! nDCG@10: the pages of the first ten sections, each counted once.

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// The weights of the sentence model measured (0 is the words alone).
pub const WEIGHTS: [f32; 8] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0];

/// One graded question.
#[derive(Debug, Deserialize)]
pub struct Question {
    /// The question as a reader asks it.
    pub q: String,
    /// Pages that answer it.
    #[serde(default)]
    pub expected: Vec<String>,
    /// Pages that answer part of it.
    #[serde(default)]
    pub partial: Vec<String>,
    /// Left out when true: no page answers it.
    #[serde(default)]
    pub unanswerable: bool,
}

/// The answerable questions of a JSON-lines text, and how many lines were
/// marked unanswerable; a line that is not a question, or names no page
/// that answers it, is an error naming its line.
pub fn read_questions(text: &str) -> Result<(Vec<Question>, usize)> {
    let (mut questions, mut unanswerable) = (Vec::new(), 0);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: Question = serde_json::from_str(line).with_context(|| {
            format!(
                "line {}: expected {{\"q\": \"...\", \"expected\": [\"page.mdx\"], \"partial\": [...]}}",
                n + 1
            )
        })?;
        if q.unanswerable {
            unanswerable += 1;
        } else if q.expected.is_empty() || q.q.trim().is_empty() {
            bail!(
                "line {}: a question needs its text and at least one page in \"expected\" (or \"unanswerable\": true)",
                n + 1
            );
        } else {
            questions.push(q);
        }
    }
    Ok((questions, unanswerable))
}

/// `pages` in order with repeats left out (a page counts once, at its
/// first section).
pub fn distinct<'a>(pages: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for p in pages {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen
}

/// Each of `pages`' grade for `q`: 2 if expected, 1 if partial, else 0.
pub fn gains(pages: &[&str], q: &Question) -> Vec<f64> {
    let grade = |p: &str| {
        if q.expected.iter().any(|e| e == p) {
            2.0
        } else if q.partial.iter().any(|e| e == p) {
            1.0
        } else {
            0.0
        }
    };
    pages.iter().map(|p| grade(p)).collect()
}

/// Graded DCG of `gains` (in rank order) at 10.
pub fn dcg10(gains: &[f64]) -> f64 {
    gains
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, g)| (2f64.powf(*g) - 1.0) / ((i + 2) as f64).log2())
        .sum()
}

/// Page-level nDCG@10 of one ranking: `pages` are the pages of the hits in
/// order (repeats count once), graded by [`gains`]; the ideal ranks every
/// expected page, then every partial one.
pub fn ndcg10(pages: &[&str], q: &Question) -> f64 {
    let ideal: Vec<f64> = q
        .expected
        .iter()
        .map(|_| 2.0)
        .chain(q.partial.iter().map(|_| 1.0))
        .collect();
    dcg10(&gains(&distinct(pages.iter().copied()), q)) / dcg10(&ideal)
}

/// The Markdown table of the rankings measured: `rows` are (ranking, mean
/// nDCG@10), the words alone first; then which did best, and by how much.
pub fn table(rows: &[(String, f64)], questions: usize, unanswerable: usize) -> String {
    let mut out = format!(
        "{questions} questions ({unanswerable} marked unanswerable left out), page-level nDCG@10:\n\n| ranking | nDCG@10 |\n|---|---|\n"
    );
    for (name, v) in rows {
        out.push_str(&format!("| {name} | {v:.3} |\n"));
    }
    if let Some((best, v)) = rows
        .iter()
        .skip(1)
        .fold(None::<&(String, f64)>, |b, r| match b {
            Some(b) if b.1 >= r.1 => Some(b),
            _ => Some(r),
        })
    {
        let bm25 = rows[0].1;
        out.push_str(&format!(
            "\nBest mix: {best}, {v:.3} against the words' {bm25:.3} ({:+.3}). It was chosen on these questions, so it flatters them: check it on questions you did not choose it with before you set ask.retriever: hybrid.\n",
            v - bm25
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(expected: &[&str], partial: &[&str]) -> Question {
        Question {
            q: "a question".into(),
            expected: expected.iter().map(|s| s.to_string()).collect(),
            partial: partial.iter().map(|s| s.to_string()).collect(),
            unanswerable: false,
        }
    }

    #[test]
    fn ndcg_is_one_for_the_ideal_order_and_counts_a_page_once() {
        let g = q(&["a.mdx"], &["b.mdx"]);
        assert_eq!(ndcg10(&["a.mdx", "a.mdx", "b.mdx"], &g), 1.0);
        assert_eq!(ndcg10(&["c.mdx"], &g), 0.0);
        // The partial page first, the answer second: 1 + 3/log2(3) over the
        // ideal 3 + 1/log2(3).
        let want = (1.0 + 3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
        assert!((ndcg10(&["b.mdx", "a.mdx"], &g) - want).abs() < 1e-12);
    }

    #[test]
    fn unanswerable_lines_are_left_out_and_bad_lines_named() {
        let text =
            "{\"q\": \"x\", \"expected\": [\"a.mdx\"]}\n\n{\"q\": \"y\", \"unanswerable\": true}\n";
        let (qs, skipped) = read_questions(text).unwrap();
        assert_eq!((qs.len(), skipped), (1, 1));
        let e = read_questions("{\"q\": \"x\"}\n").unwrap_err().to_string();
        assert!(e.starts_with("line 1: a question needs"), "{e}");
        let e = read_questions("{\"q\": \"x\", \"expected\": [\"a\"]}\nnot json\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 2: expected"), "{e}");
    }

    #[test]
    fn the_table_names_the_best_mix_and_its_margin() {
        let rows = vec![
            ("bm25".to_string(), 0.80),
            ("hybrid 0.3".to_string(), 0.85),
            ("hybrid 0.4".to_string(), 0.83),
        ];
        let t = table(&rows, 12, 2);
        assert!(t.contains("| hybrid 0.3 | 0.850 |"), "{t}");
        assert!(
            t.contains("Best mix: hybrid 0.3, 0.850 against the words' 0.800 (+0.050)"),
            "{t}"
        );
        assert!(!table(&rows[..1], 12, 0).contains("Best mix"));
    }
}
