//! Reading one source: its sentences, code blocks and table rows, each scored.

use ask_index::Analyzer;
use ask_index::markdown::{self, Block};

use super::code::{TABLE_ROWS, cut_lines, table_markdown};
use super::parts::{Kind, Params, Part, Source};
use super::sentences::{is_summary_sentence, one_line, paragraph_sentences, sentence_score};

/// A sentence of a source, where it is, and what it scores.
pub(super) struct Candidate {
    pub(super) text: String,
    pub(super) source: usize,
    /// Its place among the source's sentences.
    pub(super) pos: usize,
    /// The sentence before it in its source (a list item or paragraph
    /// before it counts), if any, as a summary may show it.
    pub(super) before: Option<usize>,
    pub(super) score: f32,
    /// Part of the page's one-line description.
    pub(super) description: bool,
}

/// A code block of a source and its score.
pub(super) struct Code {
    pub(super) lang: String,
    pub(super) code: String,
    pub(super) source: usize,
    /// Its place among the source's units (after the one before it).
    pub(super) at: usize,
    pub(super) score: f32,
}

/// What one source offers: its sentences and code, and its tables' rows.
pub(super) struct Read {
    /// Every sentence-like unit in reading order, fit to show or not.
    pub(super) units: Vec<String>,
    pub(super) sentences: Vec<Candidate>,
    pub(super) code: Vec<Code>,
    pub(super) tables: Vec<(f32, String)>,
}

pub(super) fn read(
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
