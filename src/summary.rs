//! Which sentences, and which code, answer the question? The extractive
//! summarizer: pure, sections in, the parts of a summary out, each citing
//! the section it comes from.
//!
//! It reads the top sections' Markdown ([`ask_index::markdown`]) as
//! paragraphs, list items, tables and code, and:
//!
//! - leads with the sentence that shares the most (idf-weighted) question
//!   terms, weighed by its section's share of the best section's score
//!   and by what the question asks for ([`Kind`]: a `how` question is
//!   answered by steps and code, a `what` question by a definition, a
//!   `can` question by what is possible or not, a `why` question by a
//!   cause);
//! - never shows a sentence that opens with a pronoun or connective ("It",
//!   "This", "Therefore", "Also") without the sentence before it, nor a
//!   list item or table row as if it were a sentence;
//! - leaves a page's one-line description out when the page's body
//!   answers;
//! - carries the code block that answers a question of steps (its
//!   language kept, cut to [`Params::code_lines`] lines), and the rows of a
//!   table that name the question's terms, as a table.
//!
//! No language model is involved: the same input always gives the same
//! summary.

use ask_index::Analyzer;
use ask_index::markdown::{self, Block};

/// Sections read for the summary.
pub const SECTIONS: usize = 3;

/// The summarizer's constants, chosen leave-one-corpus-out on the nugget
/// sets (`tests/nuggets.rs`, BENCHMARKS.md "Answers").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Sentences, at most.
    pub sentences: usize,
    /// Characters of sentences, at most (a code block or table comes on
    /// top).
    pub prose_chars: usize,
    /// Lines of code, at most; a longer block is cut, marked by a last
    /// line `…`.
    pub code_lines: usize,
    /// A sentence scores at least this share of the lead's score.
    pub min_share: f32,
    /// Multiplier of a sentence that has what the question's kind asks
    /// for (a definition for `what`, a possibility for `can`, …).
    pub kind_bonus: f32,
    /// Code is carried when its score (its words, and the sentence that
    /// introduces it) is at least this share of the lead sentence's.
    pub code_share: f32,
    /// The first code after the lead sentence in its section is carried
    /// whatever its score.
    pub code_follows_lead: bool,
    /// A section's weight falls by this much a rank (the best weighs 1).
    pub rank_decay: f32,
    /// A long code block shows the lines that hold the most question
    /// terms, not its first lines.
    pub code_window: bool,
    /// Code blocks, at most.
    pub code_blocks: usize,
    /// Multiplier of a sentence that names an identifier (`createMDX`,
    /// `next.config.mjs`, `--dry-run`).
    pub identifier_bonus: f32,
}

impl Default for Params {
    fn default() -> Self {
        PARAMS
    }
}

/// The shipped constants.
pub const PARAMS: Params = Params {
    sentences: 3,
    prose_chars: 300,
    code_lines: 8,
    min_share: 0.5,
    kind_bonus: 1.0,
    code_share: 0.25,
    code_follows_lead: true,
    rank_decay: 0.3,
    code_window: true,
    code_blocks: 3,
    identifier_bonus: 1.5,
};

/// Table rows shown with their header, at most.
const TABLE_ROWS: usize = 3;
/// Characters of one table cell shown, at most.
const CELL_CHARS: usize = 160;

/// What a question asks for, by its first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// "how do I …", "how to …", or a task ("add dark mode to …"): steps,
    /// code.
    How,
    /// "what is …": a definition.
    What,
    /// "why …": a cause.
    Why,
    /// "can I …", "does it …", "is there …": a possibility or its absence.
    Can,
    /// "which …", "where …", "when …": a choice, a place, a time.
    Which,
}

impl Kind {
    /// The kind of `question`.
    pub fn of(question: &str) -> Kind {
        let lower = question.trim().to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        let first = words.first().copied().unwrap_or("");
        let second = words.get(1).copied().unwrap_or("");
        match first {
            "how" if matches!(second, "much" | "many" | "long" | "often" | "big") => Kind::Which,
            "how" => Kind::How,
            "what" | "what's" | "whats" if matches!(second, "command" | "setting" | "option") => {
                Kind::Which
            }
            "what" | "what's" | "whats" | "define" | "explain" => Kind::What,
            "why" => Kind::Why,
            "can" | "could" | "does" | "do" | "is" | "are" | "will" | "should" | "may" => Kind::Can,
            "which" | "where" | "when" | "who" => Kind::Which,
            _ => Kind::How,
        }
    }

    /// Does `sentence` (lower case) have what this kind asks for?
    fn fits(self, lower: &str) -> bool {
        let has = |words: &[&str]| {
            lower
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| words.contains(&w))
        };
        match self {
            Kind::How => has(&[
                "run",
                "add",
                "use",
                "set",
                "create",
                "install",
                "call",
                "pass",
                "import",
                "configure",
                "enable",
                "define",
                "wrap",
                "export",
                "deploy",
                "update",
            ]),
            Kind::What => has(&[
                "is", "are", "means", "refers", "returns", "lets", "provides",
            ]),
            Kind::Why => has(&[
                "because",
                "since",
                "so",
                "when",
                "if",
                "unless",
                "otherwise",
            ]),
            Kind::Can => has(&[
                "can",
                "cannot",
                "can't",
                "only",
                "not",
                "supports",
                "supported",
                "must",
                "may",
                "allows",
                "lets",
            ]),
            Kind::Which => lower.chars().any(|c| c.is_ascii_digit()) || has(&["default"]),
        }
    }

    /// Does this kind of question want code when code answers?
    fn wants_code(self) -> bool {
        matches!(self, Kind::How | Kind::Which | Kind::What)
    }
}

/// A section the summary may quote: its Markdown, its page's description
/// when the section is the page's intro (`""` otherwise), and its weight,
/// its share of the best section's score (1 for the best).
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The section's Markdown.
    pub markdown: &'a str,
    /// Its page's one-line description, if the section is the page's
    /// intro (which opens with it).
    pub description: &'a str,
    /// Its share of the best section's score, in (0, 1].
    pub weight: f32,
}

/// A part of a summary and the source it cites (0-based rank among the
/// sources given).
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// A whole sentence.
    Sentence {
        /// The sentence, whitespace collapsed.
        text: String,
        /// Its source.
        source: usize,
    },
    /// A code block, cut to the line budget.
    Code {
        /// Its language (may be empty).
        lang: String,
        /// Its lines (the last one `…` when cut).
        code: String,
        /// Its source.
        source: usize,
    },
    /// Rows of a table with their header, as a Markdown table.
    Table {
        /// The table, header, separator and rows.
        markdown: String,
        /// Its source.
        source: usize,
    },
}

impl Part {
    /// The source it cites.
    pub fn source(&self) -> usize {
        match self {
            Part::Sentence { source, .. }
            | Part::Code { source, .. }
            | Part::Table { source, .. } => *source,
        }
    }
}

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
fn paragraph_sentences(p: &str) -> Vec<&str> {
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

/// A sentence of a source, where it is, and what it scores.
struct Candidate {
    text: String,
    source: usize,
    /// Its place among the source's sentences.
    pos: usize,
    /// The sentence before it in its source (a list item or paragraph
    /// before it counts), if any, as a summary may show it.
    before: Option<usize>,
    score: f32,
    /// Part of the page's one-line description.
    description: bool,
}

/// A code block of a source and its score.
struct Code {
    lang: String,
    code: String,
    source: usize,
    /// Its place among the source's units (after the one before it).
    at: usize,
    score: f32,
}

/// What one source offers: its sentences and code, and its tables' rows.
struct Read {
    /// Every sentence-like unit in reading order, fit to show or not.
    units: Vec<String>,
    sentences: Vec<Candidate>,
    code: Vec<Code>,
    tables: Vec<(f32, String)>,
}

fn read(
    analyzer: &Analyzer,
    rank: usize,
    src: &Source<'_>,
    terms: &[(String, f32)],
    kind: Kind,
    p: &Params,
) -> Read {
    let mut out = Read {
        units: Vec::new(),
        sentences: Vec::new(),
        code: Vec::new(),
        tables: Vec::new(),
    };
    // Every sentence-like unit in order (whether fit or not), so that "the
    // one before" is the one the reader saw before.
    let mut units: Vec<(String, bool)> = Vec::new();
    let description = one_line(src.description);
    for block in markdown::blocks(src.markdown) {
        match block {
            Block::Paragraph(text) => {
                for s in paragraph_sentences(&text) {
                    units.push((one_line(s), true));
                }
            }
            // A list item is a sentence only when it is one.
            Block::Item { text, .. } => {
                let t = one_line(&text);
                let whole = is_summary_sentence(&t);
                units.push((t, whole));
            }
            Block::Code { lang, code, .. } => {
                let score = sentence_score(analyzer, &code, terms) * src.weight;
                let intro = units.len().checked_sub(1);
                let intro_score = intro
                    .filter(|&i| units[i].1)
                    .map_or(0.0, |i| sentence_score(analyzer, &units[i].0, terms))
                    * src.weight;
                out.code.push(Code {
                    lang,
                    code: cut_lines(analyzer, &code, p.code_lines, p.code_window, terms),
                    source: rank,
                    at: units.len(),
                    score: score.max(intro_score),
                });
                // What follows code may point at it: not at the sentence
                // before it.
                units.push((String::new(), false));
            }
            Block::Table { header, rows } => {
                let mut scored: Vec<(f32, Vec<String>)> = rows
                    .into_iter()
                    .map(|r| (sentence_score(analyzer, &r.join(" "), terms), r))
                    .filter(|(s, r)| *s > 0.0 && r.len() == header.len())
                    .collect();
                if scored.is_empty() {
                    units.push((String::new(), false));
                    continue;
                }
                scored.sort_by(|a, b| b.0.total_cmp(&a.0));
                let best = scored[0].0 * src.weight;
                scored.truncate(TABLE_ROWS);
                let rows: Vec<Vec<String>> = scored.into_iter().map(|(_, r)| r).collect();
                out.tables.push((best, table_markdown(&header, &rows)));
                units.push((String::new(), false));
            }
        }
    }
    for (pos, (text, fit)) in units.iter().enumerate() {
        if !fit || !is_summary_sentence(text) {
            continue;
        }
        let mut score = sentence_score(analyzer, text, terms) * src.weight;
        if score <= 0.0 {
            continue;
        }
        if kind.fits(&text.to_lowercase()) {
            score *= p.kind_bonus;
        }
        if text.split_whitespace().any(|w| {
            ask_index::analyzer::is_identifier(
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'),
            )
        }) {
            score *= p.identifier_bonus;
        }
        let before = pos
            .checked_sub(1)
            .filter(|&b| units[b].1 && is_summary_sentence(&units[b].0));
        out.sentences.push(Candidate {
            text: text.clone(),
            source: rank,
            pos,
            before,
            score,
            description: !description.is_empty() && description.contains(text.as_str()),
        });
    }
    out.units = units.into_iter().map(|(t, _)| t).collect();
    out
}

/// `code` cut to `n` lines: the first `n`, or with `window` the `n` in a
/// row that hold the most question terms (the first such run); a line
/// `…` marks each side that was cut (within the `n`).
fn cut_lines(
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
fn table_markdown(header: &[String], rows: &[Vec<String>]) -> String {
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

/// The parts of the summary of `sources` (best first) for the weighted
/// question `terms`: the lead sentence (with the one before it when it
/// points back), the code or table that answers, then the other sentences
/// that score at least [`Params::min_share`] of the lead, in reading
/// order. Empty when nothing shares a term with the question.
pub fn summarize(
    analyzer: &Analyzer,
    sources: &[Source<'_>],
    terms: &[(String, f32)],
    kind: Kind,
    p: &Params,
) -> Vec<Part> {
    let reads: Vec<Read> = sources
        .iter()
        .take(SECTIONS)
        .enumerate()
        .map(|(rank, src)| read(analyzer, rank, src, terms, kind, p))
        .collect();
    let mut candidates: Vec<&Candidate> = reads.iter().flat_map(|r| &r.sentences).collect();
    // A page's description only when its body does not answer.
    if candidates.iter().any(|c| !c.description) {
        candidates.retain(|c| !c.description);
    }
    // A sentence that points back is shown after the one before it, which
    // must not point back in turn.
    let shows_alone = |c: &Candidate| {
        !points_back(&c.text)
            || c.before
                .is_some_and(|b| !points_back(&reads[c.source].units[b]))
    };
    candidates.retain(|c| shows_alone(c));
    candidates.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.source.cmp(&b.source))
            .then(a.pos.cmp(&b.pos))
    });
    let lead_score = candidates.first().map_or(0.0, |c| c.score);
    // Sentences shown together, each group in reading order: (source,
    // place, text). The first group leads.
    let mut groups: Vec<Vec<(usize, usize, String)>> = Vec::new();
    let (mut count, mut len) = (0, 0);
    for c in &candidates {
        if count >= p.sentences || c.score < lead_score * p.min_share {
            break;
        }
        let shown = groups
            .iter()
            .flatten()
            .any(|x| (x.0 == c.source && x.1 == c.pos) || x.2 == c.text);
        if shown {
            continue;
        }
        // A sentence that points back goes right after the one before it:
        // in the group that shows it (as its last sentence), or with it.
        let mut add = Vec::new();
        let mut after: Option<usize> = None;
        if points_back(&c.text)
            && let Some(b) = c.before
        {
            let holder = groups
                .iter()
                .position(|g| g.iter().any(|x| x.0 == c.source && x.1 == b));
            match holder {
                Some(g) if groups[g].last().is_some_and(|x| x.1 == b) => after = Some(g),
                Some(_) => continue,
                None => add.push((c.source, b, reads[c.source].units[b].clone())),
            }
        }
        add.push((c.source, c.pos, c.text.clone()));
        let add_len: usize = add.iter().map(|x| x.2.len() + 1).sum();
        if count > 0 && len + add_len > p.prose_chars {
            continue;
        }
        len += add_len;
        count += add.len();
        match after {
            Some(g) => groups[g].extend(add),
            None => groups.push(add),
        }
    }
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
    let blocks: Vec<Part> = if code.is_empty() {
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
    };
    let mut groups = groups.into_iter();
    let lead = groups.next().unwrap_or_default();
    let mut rest: Vec<_> = groups.collect();
    rest.sort_by(|a, b| (a[0].0, a[0].1).cmp(&(b[0].0, b[0].1)));
    let sentence = |(source, _, text): (usize, usize, String)| Part::Sentence { text, source };
    let mut parts: Vec<Part> = lead.into_iter().map(sentence).collect();
    parts.extend(blocks);
    parts.extend(rest.into_iter().flatten().map(sentence));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(markdown: &str) -> Source<'_> {
        Source {
            markdown,
            description: "",
            weight: 1.0,
        }
    }

    #[test]
    fn sentences_split() {
        assert_eq!(
            sentences("One two. Three four? v1.2 stays\n\nNew para"),
            vec!["One two.", "Three four?", "v1.2 stays", "New para"]
        );
        assert_eq!(
            paragraph_sentences("Use e.g. Node 20. Then run npm i. version 1.2 is fine."),
            vec!["Use e.g. Node 20.", "Then run npm i. version 1.2 is fine."]
        );
    }

    #[test]
    fn kinds_of_questions() {
        for (q, k) in [
            ("how do I deploy it", Kind::How),
            ("How much does it cost", Kind::Which),
            ("what does the answer look like", Kind::What),
            ("why is my flow stuck", Kind::Why),
            ("can it stream answers", Kind::Can),
            ("which command pauses schedules", Kind::Which),
            ("add dark mode to next.js", Kind::How),
        ] {
            assert_eq!(Kind::of(q), k, "{q}");
        }
    }

    #[test]
    fn summary_sentences() {
        assert!(is_summary_sentence(
            "Each client IP gets a token bucket of twenty tokens."
        ));
        assert!(!is_summary_sentence("limit value what happens beyond it"));
        assert!(!is_summary_sentence("Run it."));
        assert!(points_back("It runs sam build, then deploys."));
        assert!(points_back("Therefore, the bucket refills."));
        assert!(!points_back("Itself is not a word we check."));
        assert!(!points_back("The bucket refills every second."));
    }

    #[test]
    fn prose_detection() {
        assert!(is_prose("Each client IP gets a token bucket."));
        assert!(!is_prose("let x = foo(); // {}"));
        assert!(!is_prose("Yes."));
    }

    #[test]
    fn leads_with_the_answer_and_shows_what_it_points_back_to() {
        let a = Analyzer::new();
        let terms = vec![("deploy".to_string(), 2.0), ("stack".to_string(), 1.0)];
        let md = "Run the script from the repository root each time.\nIt deploys the stack to your account and prints its URL.";
        let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
        assert_eq!(
            got,
            vec![
                Part::Sentence {
                    text: "Run the script from the repository root each time.".into(),
                    source: 0
                },
                Part::Sentence {
                    text: "It deploys the stack to your account and prints its URL.".into(),
                    source: 0
                },
            ]
        );
        // First in its section, with nothing before it: never shown.
        let alone = "It deploys the stack to your account and prints its URL.";
        assert!(summarize(&a, &[src(alone)], &terms, Kind::How, &PARAMS).is_empty());
    }

    #[test]
    fn carries_the_code_that_answers_a_how_question() {
        let a = Analyzer::new();
        let terms = vec![("button".to_string(), 2.0), ("add".to_string(), 1.0)];
        let md = "Use the CLI to add the button to your project.\n\n```bash title=\"Terminal\"\nnpx shadcn@latest add button\n```\n\n- a list item that says add button";
        let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
        assert_eq!(
            got,
            vec![
                Part::Sentence {
                    text: "Use the CLI to add the button to your project.".into(),
                    source: 0
                },
                Part::Code {
                    lang: "bash".into(),
                    code: "npx shadcn@latest add button\n".into(),
                    source: 0
                },
            ]
        );
        // Cut to the budget, marked.
        let terms = vec![("x".to_string(), 1.0)];
        assert_eq!(cut_lines(&a, "a\nb\nc\nd\n", 3, false, &terms), "a\nb\n…\n");
        assert_eq!(
            cut_lines(&a, "a\nb\nc\nd\nx = 1\ne\nf\n", 3, true, &terms),
            "…\nx = 1\n…\n"
        );
    }

    #[test]
    fn a_description_only_when_the_body_does_not_answer() {
        let a = Analyzer::new();
        let terms = vec![("widget".to_string(), 2.0)];
        let intro = Source {
            markdown: "Embed the widget on any page of your site.\n\nThe widget script is served by the function itself.",
            description: "Embed the widget on any page of your site.",
            weight: 1.0,
        };
        let got = summarize(&a, &[intro], &terms, Kind::How, &PARAMS);
        assert_eq!(
            got,
            vec![Part::Sentence {
                text: "The widget script is served by the function itself.".into(),
                source: 0
            }]
        );
    }

    #[test]
    fn table_rows_come_as_a_table() {
        let a = Analyzer::new();
        let terms = vec![("rate_limit_per_minute".to_string(), 3.0)];
        let md = "| key | default | meaning |\n| --- | --- | --- |\n| rate_limit_per_minute | 20 | Requests per minute per client IP. |\n| top_k | 5 | Results. |";
        let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
        assert_eq!(
            got,
            vec![Part::Table {
                markdown: "| key | default | meaning |\n| --- | --- | --- |\n| rate_limit_per_minute | 20 | Requests per minute per client IP. |".into(),
                source: 0
            }]
        );
    }
}
