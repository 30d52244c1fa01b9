//! Splitting Markdown into sentences, and which sentences are fit to show and what they score.

use ask_index::Analyzer;

/// Splits text into sentences: at `.`, `?` or `!` before a space, and at
/// line ends.
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

/// Splits a paragraph (its lines already joined) into sentences: at `.`,
/// `?` or `!` followed by a space and a capital letter, a digit, a quote
/// or a bracket, not after a common abbreviation (`e.g.`, `i.e.`, `etc.`).
pub(super) fn paragraph_sentences(p: &str) -> Vec<&str> {
    const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."];
    let mut out = Vec::new();
    let b = p.as_bytes();
    let mut start = 0;
    for i in 0..b.len() {
        if !matches!(b[i], b'.' | b'?' | b'!') || b.get(i + 1) != Some(&b' ') {
            continue;
        }
        let next = p[i + 2..].chars().next();
        let opens = next.is_some_and(|c| {
            c.is_uppercase() || c.is_ascii_digit() || matches!(c, '"' | '\'' | '(' | '`' | '[')
        });
        let word_start = p[..=i].rfind(' ').map_or(0, |w| w + 1);
        let abbreviation = ABBREVIATIONS
            .iter()
            .any(|a| p[word_start..=i].eq_ignore_ascii_case(a));
        if opens && !abbreviation {
            let s = p[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + 1;
        }
    }
    let s = p[start..].trim();
    if !s.is_empty() {
        out.push(s);
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
/// a wall of text.
pub fn is_summary_sentence(s: &str) -> bool {
    let words = s.split_whitespace().count();
    let punctuated = s.ends_with(['.', '!', '?']);
    is_prose(s) && s.chars().count() <= 400 && words >= 6 && punctuated
}

/// Words that, opening a sentence, point back at the one before it.
const POINTS_BACK: &[&str] = &[
    "it",
    "it's",
    "its",
    "this",
    "these",
    "that",
    "those",
    "they",
    "them",
    "their",
    "he",
    "she",
    "such",
    "here",
    "also",
    "therefore",
    "thus",
    "hence",
    "however",
    "but",
    "and",
    "or",
    "so",
    "then",
    "otherwise",
    "instead",
    "additionally",
    "moreover",
    "furthermore",
    "similarly",
    "likewise",
    "alternatively",
    "finally",
    "besides",
    "still",
    "yet",
    "nevertheless",
    "consequently",
    "accordingly",
    "meanwhile",
    "both",
    "either",
    "neither",
    "another",
    "other",
    "same",
];

/// Does `s` open with a word that points back at the sentence before it?
pub fn points_back(s: &str) -> bool {
    let first = s
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_lowercase();
    POINTS_BACK.contains(&first.as_str())
}

/// The summed weight of the query terms a text contains.
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
