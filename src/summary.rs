//! Which sentences answer the question? The extractive summarizer: pure,
//! sections in, sentences with the section each cites out.
//!
//! It picks the sentences of the top sections that share the most
//! (idf-weighted) query terms, keeps them in reading order, and cites the
//! section each came from. No language model is involved; the same input
//! always gives the same sentences.

use ask_index::Analyzer;

/// Sections read for the summary.
pub const SECTIONS: usize = 3;
/// Sentences in a summary.
const SENTENCES: usize = 3;
/// Characters of summary text, at most.
const CHARS: usize = 700;

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
        for (pos, sent) in sentences(text).into_iter().enumerate() {
            if !is_summary_sentence(sent) {
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
