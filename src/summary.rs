//! Which sentences answer the question? The extractive summarizer: pure,
//! sections in, sentences with the section each cites out.
//!
//! It picks the sentences of the top sections that share the most
//! (idf-weighted) query terms, keeps them in reading order, and cites the
//! section each came from. A table row can stand in for a sentence, read
//! with its header ([`render_row`]): "rate_limit_per_minute (default: 20):
//! Requests per minute per client IP." No language model is involved; the
//! same input always gives the same sentences.

use ask_index::Analyzer;

/// Sections read for the summary.
pub const SECTIONS: usize = 3;
/// Sentences in a summary.
const SENTENCES: usize = 3;
/// Characters of summary text, at most.
const CHARS: usize = 700;
/// A sentence scores at least this share of the best one's score.
const MIN_SHARE: f32 = 0.5;

/// A sentence of the summary and the section it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    /// The sentence, whitespace collapsed.
    pub text: String,
    /// 0-based rank of the cited section among those given.
    pub source: usize,
}

/// Splits text into sentences (and lines).
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for para in text.split("\n\n") {
        let mut start = 0;
        let b = para.as_bytes();
        for i in 0..b.len() {
            let end_of_sentence = matches!(b[i], b'.' | b'?' | b'!')
                && b.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
            if end_of_sentence || b[i] == b'\n' {
                let s = para[start..=i].trim();
                if !s.is_empty() {
                    out.push(s);
                }
                start = i + 1;
            }
        }
        let s = para[start..].trim();
        if !s.is_empty() {
            out.push(s);
        }
    }
    out
}

/// What separates the cells of a table row in a section's text (as
/// `build-index` writes it).
pub const CELL_SEPARATOR: &str = " | ";

/// Longest rendered table row used in a summary, in characters.
const ROW_CHARS: usize = 400;

/// The rows of the tables in a section's text, each with its table's
/// header: a table is a run of consecutive lines with the same number (two
/// or more) of cells, and its first line is the header.
pub fn table_rows(text: &str) -> Vec<(Vec<&str>, Vec<&str>)> {
    let mut out = Vec::new();
    let mut header: Option<Vec<&str>> = None;
    for line in text.lines() {
        let line = line.trim();
        if !line.contains(CELL_SEPARATOR) {
            header = None;
            continue;
        }
        let cells: Vec<&str> = line.split(CELL_SEPARATOR).map(str::trim).collect();
        match &header {
            Some(h) if h.len() == cells.len() => out.push((h.clone(), cells)),
            _ => header = Some(cells),
        }
    }
    out
}

/// A table row as a sentence: its first cell, the middle cells each after
/// its header in parentheses, then the last cell (`top_k (environment
/// variable: ASK_TOP_K; default: 5): Sections per answer.`). A two-cell row
/// reads `first: second`. Empty cells are left out.
pub fn render_row(header: &[&str], row: &[&str]) -> String {
    let mut s = row.first().copied().unwrap_or("").to_string();
    if row.len() > 2 {
        let middle: Vec<String> = header[1..row.len() - 1]
            .iter()
            .zip(&row[1..row.len() - 1])
            .filter(|(_, c)| !c.is_empty())
            .map(|(h, c)| {
                if h.is_empty() {
                    c.to_string()
                } else {
                    format!("{h}: {c}")
                }
            })
            .collect();
        if !middle.is_empty() {
            s.push_str(&format!(" ({})", middle.join("; ")));
        }
    }
    if let Some(last) = row.last().filter(|l| row.len() > 1 && !l.is_empty()) {
        s.push_str(": ");
        s.push_str(last);
    }
    one_line(&s)
}

/// Looks like prose (not a code line or a table of symbols).
pub fn is_prose(s: &str) -> bool {
    let letters = s.chars().filter(|c| c.is_alphabetic() || *c == ' ').count();
    let words = s.split_whitespace().count();
    words >= 4 && letters * 10 >= s.chars().count() * 8
}

/// A sentence fit for a summary: punctuated prose of six words or more, not
/// a table row, list fragment or heading, not a wall of text.
fn is_summary_sentence(s: &str) -> bool {
    let words = s.split_whitespace().count();
    let punctuated = s.ends_with(['.', '!', '?']);
    is_prose(s) && s.chars().count() <= 400 && words >= 6 && punctuated
}

/// The summed weight of the query terms a sentence contains.
pub fn sentence_score(analyzer: &Analyzer, s: &str, terms: &[(String, f32)]) -> f32 {
    let toks = analyzer.analyze(s);
    terms
        .iter()
        .filter(|(t, _)| toks.contains(t))
        .map(|(_, w)| *w)
        .sum()
}

/// Collapses runs of whitespace to one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Picks the summary's sentences from `sections` (texts, best first) for
/// the weighted query `terms`. When no sentence shares a term with the
/// question, the summary is `fallback`, citing the best section.
pub fn summarize(
    analyzer: &Analyzer,
    sections: &[&str],
    terms: &[(String, f32)],
    fallback: &str,
) -> Vec<Sentence> {
    // (score, section rank, position in section, sentence)
    let mut candidates: Vec<(f32, usize, usize, String)> = Vec::new();
    for (rank, text) in sections.iter().take(SECTIONS).enumerate() {
        // Rows after the sentences of their section when scores tie.
        for (pos, (header, row)) in table_rows(text).into_iter().enumerate() {
            // The row itself must hold a query term; its header's words
            // then count too.
            if sentence_score(analyzer, &row.join(" "), terms) == 0.0 {
                continue;
            }
            // A row that says something: one cell of four words or more
            // (not a matrix of yes/no or a bare signature).
            let says = row.iter().any(|c| c.split_whitespace().count() >= 4);
            let rendered = render_row(&header, &row);
            if !says || rendered.chars().count() > ROW_CHARS || !is_prose(&rendered) {
                continue;
            }
            let score = sentence_score(analyzer, &rendered, terms) * (1.0 - 0.1 * rank as f32);
            candidates.push((score, rank, usize::MAX / 2 + pos, rendered));
        }
        for (pos, sent) in sentences(text).into_iter().enumerate() {
            if !is_summary_sentence(sent) || sent.contains(CELL_SEPARATOR) {
                continue;
            }
            // Earlier-ranked sections and earlier sentences win ties.
            let score = sentence_score(analyzer, sent, terms) * (1.0 - 0.1 * rank as f32);
            if score > 0.0 {
                candidates.push((score, rank, pos, one_line(sent)));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    // Nothing under half the best sentence's weight: a weak match adds
    // words, not an answer.
    let floor = candidates.first().map_or(0.0, |c| c.0 * MIN_SHARE);
    candidates.retain(|c| c.0 >= floor);
    let mut chosen: Vec<(usize, usize, String)> = Vec::new();
    let mut len = 0;
    for (_, rank, pos, text) in candidates {
        if chosen.len() == SENTENCES {
            break;
        }
        if chosen.iter().any(|x| x.2 == text) || len + text.len() > CHARS {
            continue;
        }
        len += text.len();
        chosen.push((rank, pos, text));
    }
    if chosen.is_empty() {
        return vec![Sentence {
            text: fallback.to_string(),
            source: 0,
        }];
    }
    // Reading order: by source rank, then position.
    chosen.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    chosen
        .into_iter()
        .map(|(source, _, text)| Sentence { text, source })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split() {
        assert_eq!(
            sentences("One two. Three four? v1.2 stays\n\nNew para"),
            vec!["One two.", "Three four?", "v1.2 stays", "New para"]
        );
    }

    #[test]
    fn summary_sentences() {
        assert!(is_summary_sentence(
            "Each client IP gets a token bucket of twenty tokens."
        ));
        assert!(!is_summary_sentence("limit value what happens beyond it"));
        assert!(!is_summary_sentence("Run it."));
        assert!(!is_summary_sentence(
            "Clients tracked by the rate limiter 100,000 the least recently active generation of buckets is dropped"
        ));
    }

    #[test]
    fn table_rows_read_with_their_header() {
        let text = "Intro line.\nkey | environment variable | default | meaning\ntop_k | ASK_TOP_K | 5 | Sections per answer, 1 to 10.\nsite | ASK_SITE |  | The site name.\n\nAfter.";
        let rows = table_rows(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            render_row(&rows[0].0, &rows[0].1),
            "top_k (environment variable: ASK_TOP_K; default: 5): Sections per answer, 1 to 10."
        );
        assert_eq!(
            render_row(&rows[1].0, &rows[1].1),
            "site (environment variable: ASK_SITE): The site name."
        );
        assert_eq!(render_row(&["a", "b"], &["x", "y"]), "x: y");
        let a = Analyzer::new();
        let got = summarize(&a, &[text], &[("ask_top_k".into(), 2.0)], "fallback");
        assert_eq!(
            got[0].text,
            "top_k (environment variable: ASK_TOP_K; default: 5): Sections per answer, 1 to 10."
        );
    }

    #[test]
    fn prose_detection() {
        assert!(is_prose("Each client IP gets a token bucket."));
        assert!(!is_prose("let x = foo(); // {}"));
        assert!(!is_prose("Yes."));
    }

    #[test]
    fn picks_matching_sentences_in_reading_order_with_their_sources() {
        let a = Analyzer::new();
        let terms = vec![("bucket".to_string(), 2.0), ("token".to_string(), 1.0)];
        let sections = [
            "Nothing to see in this first sentence here. Each client gets one token bucket of its own.",
            "A token bucket refills every second for each client. Unrelated words fill this line today.",
        ];
        let got = summarize(&a, &sections, &terms, "fallback");
        assert_eq!(
            got,
            vec![
                Sentence {
                    text: "Each client gets one token bucket of its own.".into(),
                    source: 0
                },
                Sentence {
                    text: "A token bucket refills every second for each client.".into(),
                    source: 1
                },
            ]
        );
        let none = summarize(&a, &sections, &[("zebra".into(), 1.0)], "fallback");
        assert_eq!(
            none,
            vec![Sentence {
                text: "fallback".into(),
                source: 0
            }]
        );
    }
}
