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
mod parts;
mod read;
mod sentences;
#[cfg(test)]
mod tests;

use ask_index::Analyzer;

pub use parts::{Kind, PARAMS, Params, Part, SECTIONS, Source};
use read::{Candidate, Read, answer_blocks, read};
pub use sentences::{
    is_prose, is_summary_sentence, one_line, points_back, sentence_score, sentences,
};

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
