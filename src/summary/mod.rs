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

mod code;
mod read;
mod sentences;
#[cfg(test)]
mod tests;

use ask_index::Analyzer;

use read::{Candidate, Read, answer_blocks, read};
pub use sentences::{
    is_prose, is_summary_sentence, one_line, points_back, sentence_score, sentences,
};

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
    let groups = sentence_groups(&reads, &candidates, lead_score, p);
    let blocks = answer_blocks(&reads, &groups, kind, lead_score, p);
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

/// The sentences shown, in groups: the candidates (best first) that score
/// at least [`Params::min_share`] of the lead, each that points back with
/// the one before it, within [`Params::sentences`] and
/// [`Params::prose_chars`].
fn sentence_groups(
    reads: &[Read],
    candidates: &[&Candidate],
    lead_score: f32,
    p: &Params,
) -> Vec<Vec<(usize, usize, String)>> {
    // Sentences shown together, each group in reading order: (source,
    // place, text). The first group leads.
    let mut groups: Vec<Vec<(usize, usize, String)>> = Vec::new();
    let (mut count, mut len) = (0, 0);
    for c in candidates {
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
    groups
}
