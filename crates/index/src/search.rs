//! Which sections answer a question, given what was asked before?
//!
//! The one retrieval path: `build-index search` and the Lambda both call
//! [`retrieve`], so relevance measured offline is relevance served.
//!
//! - The question's terms weigh 1.0.
//! - Terms of earlier questions (`prev`, most recent first) are added with a
//!   lower weight ([`CONTEXT_WEIGHT`], halving for each older question), so a
//!   follow-up such as "and how do I configure it?" after "what is the rate
//!   limit?" looks for rate-limit configuration. A term already in the
//!   question keeps weight 1.0.
//! - A word of the question that the docs never use is corrected to the
//!   docs' closest word first ([`retrieve_corrected`], [`crate::typo`]).
//! - At most [`MAX_PER_PAGE`] sections of one page are returned, so that one
//!   long page does not crowd out the others.

use crate::analyzer::Analyzer;
use crate::index::{Hit, Index};
use crate::synonyms::Synonyms;
use crate::typo::Corrected;

/// Weight of the terms of the most recent earlier question.
pub const CONTEXT_WEIGHT: f32 = 0.5;
/// Sections of one page in one answer, at most.
pub const MAX_PER_PAGE: usize = 2;
/// Earlier questions taken into account, at most.
pub const MAX_CONTEXT: usize = 3;
/// Weight of a generated reference page (API, CLI, settings) for a
/// question-like query ([`is_question`]): how-to questions are answered by
/// guides, which such pages outrank by sheer volume of matching terms.
pub const REFERENCE_WEIGHT: f32 = 0.7;

/// Words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "why", "when", "where", "which", "who", "can", "could", "should", "does", "do",
    "is", "are", "will", "would", "i", "my",
];

/// Is `query` phrased as a question, with no identifier in it? It opens
/// with a question word ("how do I …", "why is my …", "my flow …") or ends
/// with `?`, and names no identifier (`rate_limit`, `createMDX`), which
/// asks for the reference.
pub fn is_question(query: &str) -> bool {
    let q = query.trim();
    let first = q
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_lowercase();
    let asks = q.ends_with('?') || QUESTION_WORDS.contains(&first.as_str());
    asks && !q
        .split_whitespace()
        .any(|w| crate::analyzer::is_identifier(w.trim_matches(|c: char| !c.is_alphanumeric())))
}

/// The weighted query terms for `query` after the earlier questions `prev`
/// (oldest first, as clients send them).
pub fn query_terms(analyzer: &Analyzer, query: &str, prev: &[String]) -> Vec<(String, f32)> {
    with_context(analyzer, analyzer.analyze(query), prev)
}

/// The question's own terms (weight 1.0) with those of the earlier
/// questions `prev` added (see [`query_terms`]).
fn with_context(analyzer: &Analyzer, question: Vec<String>, prev: &[String]) -> Vec<(String, f32)> {
    let mut terms: Vec<(String, f32)> = Vec::with_capacity(question.len().min(MAX_QUESTION_TERMS));
    // Adds a term (its highest weight kept); the number of distinct terms.
    let mut add = |t: String, w: f32| {
        match terms.iter_mut().find(|(x, _)| *x == t) {
            Some((_, old)) => *old = old.max(w),
            None => terms.push((t, w)),
        }
        terms.len()
    };
    for t in question {
        if add(t, 1.0) >= MAX_QUESTION_TERMS {
            break;
        }
    }
    let mut w = CONTEXT_WEIGHT;
    for p in prev.iter().rev().take(MAX_CONTEXT) {
        let mut seen: Vec<String> = Vec::new();
        for t in analyzer.analyze(p) {
            if seen.len() >= MAX_CONTEXT_TERMS {
                break;
            }
            if !seen.contains(&t) {
                seen.push(t.clone());
                add(t, w);
            }
        }
        w /= 2.0;
    }
    terms
}

/// Most distinct terms read from a question. A real one has far fewer;
/// text that analyses into many words (a character that transliterates
/// into several, repeated) then costs no more than a long question.
pub const MAX_QUESTION_TERMS: usize = 64;

/// Most distinct terms read from each earlier question.
pub const MAX_CONTEXT_TERMS: usize = 32;

/// The `k` best sections for `query` after `prev`, best first, at most
/// [`MAX_PER_PAGE`] a page.
pub fn retrieve(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
) -> Vec<Hit> {
    retrieve_weighted(index, analyzer, query, prev, k, &Rules::default())
}

/// [`retrieve_weighted`] after correcting the question's typos against
/// the docs' words ([`crate::typo`]): the path the Lambda and
/// `build-index search` serve. Returns the hits and what was searched.
pub fn retrieve_corrected(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
    rules: &Rules,
) -> (Vec<Hit>, Corrected) {
    let r = find(index, analyzer, query, prev, k, rules);
    (r.hits, r.corrected)
}

/// What retrieval found for a question: what an answer is made from.
#[derive(Clone, Debug)]
pub struct Found {
    /// The best sections, best first.
    pub hits: Vec<Hit>,
    /// The question as searched, its typos corrected.
    pub corrected: Corrected,
    /// The question's distinct terms as analysed (the first
    /// [`MAX_QUESTION_TERMS`]), each with its idf (`None`: not indexed,
    /// or in no section of the sites searched).
    pub terms: Vec<(String, Option<f32>)>,
    /// The question's sentence vector, under hybrid retrieval.
    pub meaning: Option<Vec<f32>>,
}

/// How much of a question the best sections hold ([`Found::coverage`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// The idf-weighted share of the question's terms the sections have (a
    /// term the index lacks weighs as much as the rarest one it has).
    pub share: f32,
    /// The terms they lack, heaviest first.
    pub missing: Vec<String>,
    /// The question has a term the docs never use.
    pub foreign: bool,
}

impl Found {
    /// The question's indexed terms with their idf (for snippets and
    /// summary sentences).
    pub fn indexed_terms(&self) -> Vec<(String, f32)> {
        self.terms
            .iter()
            .filter_map(|(t, idf)| idf.map(|w| (t.clone(), w)))
            .collect()
    }

    /// How much of the question the `n` hits after the first `skip` hold
    /// (title, heading and text, as indexed: the postings say).
    pub fn coverage(&self, index: &Index, skip: usize, n: usize) -> Coverage {
        let rare = crate::index::idf(index.section_count() as u32, 1);
        let sections: Vec<u32> = self
            .hits
            .iter()
            .skip(skip)
            .take(n)
            .map(|h| h.section)
            .collect();
        let covered = |t: &str| sections.iter().any(|s| index.section_has_term(t, *s));
        let (mut total, mut found) = (0.0f32, 0.0f32);
        let mut missing: Vec<(&str, f32)> = Vec::new();
        for (t, idf) in &self.terms {
            let w = idf.unwrap_or(rare);
            total += w;
            if covered(t) {
                found += w;
            } else {
                missing.push((t, w));
            }
        }
        missing.sort_by(|a, b| b.1.total_cmp(&a.1));
        Coverage {
            share: if total > 0.0 { found / total } else { 0.0 },
            missing: missing.into_iter().map(|(t, _)| t.to_string()).collect(),
            foreign: self.terms.iter().any(|(_, idf)| idf.is_none()),
        }
    }

    /// The highest similarity (cosine, -1 to 1) of the question's meaning
    /// to one of the first `n` hits' sections; `None` without hybrid
    /// retrieval.
    pub fn similarity(&self, index: &Index, n: usize) -> Option<f32> {
        let q = self.meaning.as_deref()?;
        self.hits
            .iter()
            .take(n)
            .map(|h| index.vectors().similarity(q, h.section as usize))
            .max_by(f32::total_cmp)
    }
}

/// [`retrieve_corrected`] with the question's meaning kept: the path the
/// Lambda serves.
pub fn find(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
    rules: &Rules,
) -> Found {
    let ask = Ask {
        query,
        prev,
        k,
        ..Ask::default()
    };
    find_in(index, analyzer, rules, ask)
}

/// A question as [`find_in`] takes it: its words, the earlier questions,
/// how many sections, among which sites.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ask<'a> {
    /// The question.
    pub query: &'a str,
    /// The earlier questions, oldest first.
    pub prev: &'a [String],
    /// Sections wanted.
    pub k: usize,
    /// The sites searched (`None`: every page).
    pub scope: crate::sites::Scope,
    /// The question's sentence vector, when a search of the same words
    /// made it already ([`Found::meaning`]): not made again.
    pub meaning: Option<&'a [f32]>,
}

/// [`find`] among the sections of the sites in `ask.scope` alone:
/// restricted before ranking, in the words' ranking and the meaning's
/// alike, so a site's best `k` are its own.
pub fn find_in(index: &Index, analyzer: &Analyzer, rules: &Rules, ask: Ask<'_>) -> Found {
    let Ask {
        query,
        prev,
        k,
        scope,
        meaning,
    } = ask;
    let mut question = analyzer.analyze(query);
    // Nearly every question only has words the docs use: nothing to correct.
    let corrected = if question.iter().all(|t| index.term_id(t).is_some()) {
        Corrected {
            query: query.to_string(),
            corrections: Vec::new(),
        }
    } else {
        let c = crate::typo::correct(index, analyzer, query);
        if !c.corrections.is_empty() {
            question = analyzer.analyze(&c.query);
        }
        c
    };
    let mut terms: Vec<(String, Option<f32>)> = Vec::new();
    for t in &question {
        if terms.len() >= MAX_QUESTION_TERMS {
            break;
        }
        if !terms.iter().any(|(x, _)| x == t) {
            // A word no page of the sites searched has is not indexed for
            // this question: the sites asked never use it.
            let idf = index
                .idf(t)
                .filter(|_| scope.is_none_or(|mask| index.term_in_sites(t, mask)));
            terms.push((t.clone(), idf));
        }
    }
    let asked = Asked {
        searched: &corrected.query,
        prev,
        k,
        scope,
        meaning,
    };
    let (hits, meaning) = rank(index, analyzer, question, asked, rules);
    Found {
        hits,
        corrected,
        terms,
        meaning,
    }
}

/// What the Lambda retrieves with, built once at cold start: the analyzer
/// of the build and the team's rules (page weights, synonyms, hybrid).
#[derive(Default)]
pub struct Retriever {
    /// The analyzer (the one the index was built with).
    pub analyzer: Analyzer,
    /// `ask.boost`, `ask.synonyms` and the sentence model.
    pub rules: Rules,
}

impl Retriever {
    /// [`find`]: the best `k` sections for `query` after the earlier
    /// questions `prev`, with what an answer needs besides.
    pub fn find(&self, index: &Index, query: &str, prev: &[String], k: usize) -> Found {
        find(index, &self.analyzer, query, prev, k, &self.rules)
    }

    /// [`find_in`]: [`Retriever::find`] of a question among the sites it
    /// names.
    pub fn find_in(&self, index: &Index, ask: Ask<'_>) -> Found {
        find_in(index, &self.analyzer, &self.rules, ask)
    }
}

/// What a ranking is asked: the words searched (typos corrected), the
/// earlier questions, how many sections, among which sites.
#[derive(Clone, Copy)]
struct Asked<'a> {
    searched: &'a str,
    prev: &'a [String],
    k: usize,
    scope: crate::sites::Scope,
    meaning: Option<&'a [f32]>,
}

/// The question's terms (analyzed from `searched`), with the earlier
/// questions' and the synonyms', ranked under the team's rules; and the
/// question's vector when the sentence model ranked too.
fn rank(
    index: &Index,
    analyzer: &Analyzer,
    question: Vec<String>,
    asked: Asked<'_>,
    rules: &Rules,
) -> (Vec<Hit>, Option<Vec<f32>>) {
    let Asked {
        searched,
        prev,
        k,
        scope,
        meaning,
    } = asked;
    let mut terms = with_context(analyzer, question, prev);
    rules.synonyms.expand(&mut terms);
    let weighing = Weighing {
        page_weights: &rules.page_weights,
        question: is_question(searched),
        scope,
    };
    if let Some(h) = &rules.hybrid {
        // The question's meaning, read from the words searched (typos
        // corrected); earlier questions reach the ranking through their
        // terms only.
        let v = match meaning {
            Some(v) => Some(v.to_vec()),
            None => h.encoder.encode(searched),
        };
        if let Some(v) = v
            && v.len() == index.vectors().dim()
        {
            let hits = fused_in(index, &terms, &v, k, weighing, h.weight);
            return (hits, Some(v));
        }
    }
    let candidates = candidates(index, &terms, pool(index, k), weighing);
    (diversify(index, candidates, k), None)
}

/// How a ranking weighs and admits pages: the team's page weights, whether
/// the query is a question ([`REFERENCE_WEIGHT`]), and the sites searched.
#[derive(Clone, Copy)]
struct Weighing<'a> {
    page_weights: &'a [f32],
    question: bool,
    scope: crate::sites::Scope,
}

/// Default weight of the sentence model's ranking in hybrid retrieval
/// (`ask.hybrid_weight`), chosen leave-one-corpus-out on the golden sets
/// (BENCHMARKS.md, "Hybrid retrieval").
pub const HYBRID_WEIGHT: f32 = 0.4;

/// Turns a question into its sentence vector (unit length), for hybrid
/// retrieval; `None` when it cannot (the words alone then rank).
pub trait Encoder: Send + Sync {
    /// The unit vector of `text`.
    fn encode(&self, text: &str) -> Option<Vec<f32>>;
}

/// Hybrid retrieval (`ask.retriever: hybrid`): the sentence model's
/// ranking mixed into the words' one.
#[derive(Clone)]
pub struct Hybrid {
    /// The question's encoder (the model the index's vectors came from).
    pub encoder: std::sync::Arc<dyn Encoder>,
    /// Weight `w` of the vector ranking: each section scores
    /// `(1 − w)·words + w·meaning`, both min–max normalised over their
    /// own candidates ([`fused`]).
    pub weight: f32,
}

impl std::fmt::Debug for Hybrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hybrid {{ weight: {} }}", self.weight)
    }
}

impl PartialEq for Hybrid {
    fn eq(&self, o: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.encoder, &o.encoder) && self.weight == o.weight
    }
}

/// How many candidates a ranking of `k` looks at: only pages with several
/// sections need extra ones to diversify.
fn pool(index: &Index, k: usize) -> usize {
    if index.section_count() == index.page_count() {
        k
    } else {
        k.saturating_mul(4).saturating_add(8)
    }
}

/// `(min, max)` of the hits' scores.
fn span(hits: &[Hit]) -> (f32, f32) {
    hits.iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
            (lo.min(h.score), hi.max(h.score))
        })
}

/// Min–max normalised: the best of the list 1, its worst 0 (a list of one,
/// or of equal scores, 1).
fn normalised(score: f32, (lo, hi): (f32, f32)) -> f32 {
    if hi > lo {
        (score - lo) / (hi - lo)
    } else {
        1.0
    }
}

/// The convex mix of the words' ranking (the BM25 candidates, weighted as
/// [`retrieve_terms`] weighs them) and the meaning's (the sections whose
/// vectors are nearest the question's, weighted the same way),
/// each min–max normalised over its own candidates; a section missing from
/// one list scores 0 there. A question none of whose words the docs use has
/// no results, as with the words alone: the vectors re-rank and add to
/// what the words found, they do not answer alone.
pub fn fused(
    index: &Index,
    terms: &[(String, f32)],
    query: &[f32],
    k: usize,
    page_weights: &[f32],
    question: bool,
    weight: f32,
) -> Vec<Hit> {
    let weighing = Weighing {
        page_weights,
        question,
        scope: None,
    };
    fused_in(index, terms, query, k, weighing, weight)
}

/// [`fused`], weighing and admitting pages per `weighing`.
fn fused_in(
    index: &Index,
    terms: &[(String, f32)],
    query: &[f32],
    k: usize,
    weighing: Weighing<'_>,
    weight: f32,
) -> Vec<Hit> {
    let pool = pool(index, k);
    let lexical = candidates(index, terms, pool, weighing);
    if lexical.is_empty() {
        return lexical;
    }
    let admitted = weighing.scope.map(|mask| (index.section_sites(), mask));
    let mut dense = index.vectors().top_in(query, pool, admitted);
    for h in dense.iter_mut() {
        h.score *= page_weight(
            index,
            weighing.page_weights,
            index.section_page(h.section),
            weighing.question,
        );
    }
    let (l_span, d_span) = (span(&lexical), span(&dense));
    let mut mixed: Vec<Hit> = lexical
        .iter()
        .map(|h| Hit {
            section: h.section,
            score: (1.0 - weight) * normalised(h.score, l_span),
        })
        .collect();
    for h in &dense {
        let add = weight * normalised(h.score, d_span);
        match mixed.iter_mut().find(|m| m.section == h.section) {
            Some(m) => m.score += add,
            // At weight 0 the words rank alone.
            None if add > 0.0 => mixed.push(Hit {
                section: h.section,
                score: add,
            }),
            None => {}
        }
    }
    mixed.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.section.cmp(&b.section)));
    diversify(index, mixed, k)
}

/// What a docs team sets that changes ranking.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rules {
    /// Each page's weight from `ask.boost` (empty: all 1; see
    /// [`crate::boost`]).
    pub page_weights: Vec<f32>,
    /// `ask.synonyms`.
    pub synonyms: Synonyms,
    /// `ask.retriever: hybrid`: the sentence model's part (`None`: the
    /// words alone, BM25).
    pub hybrid: Option<Hybrid>,
}

/// [`retrieve`] with the docs team's rules (page weights, synonyms), and no
/// typo correction.
pub fn retrieve_weighted(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
    rules: &Rules,
) -> Vec<Hit> {
    let asked = Asked {
        searched: query,
        prev,
        k,
        scope: None,
        meaning: None,
    };
    rank(index, analyzer, analyzer.analyze(query), asked, rules).0
}

/// Page `page`'s weight: `page_weights[page]` (the config's globs), its
/// own `search.boost`, and for a `question` [`REFERENCE_WEIGHT`] if it is
/// a generated reference page.
fn page_weight(index: &Index, page_weights: &[f32], page: u32, question: bool) -> f32 {
    let mut w = page_weights.get(page as usize).copied().unwrap_or(1.0) * index.page_boost(page);
    if question && index.page_is_reference(page) {
        w *= REFERENCE_WEIGHT;
    }
    w
}

/// The `k` best sections for weighted terms, at most [`MAX_PER_PAGE`] a
/// page, each page's score multiplied by its weight: `page_weights[page]`
/// (the config's globs), the page's own `search.boost`, and for a
/// `question` [`REFERENCE_WEIGHT`] if it is a generated reference page.
pub fn retrieve_terms(
    index: &Index,
    terms: &[(String, f32)],
    k: usize,
    page_weights: &[f32],
    question: bool,
) -> Vec<Hit> {
    let weighing = Weighing {
        page_weights,
        question,
        scope: None,
    };
    let candidates = candidates(index, terms, pool(index, k), weighing);
    diversify(index, candidates, k)
}

/// The `pool` best sections for weighted terms, each page's score
/// multiplied by its weight (see [`retrieve_terms`]), best first.
fn candidates(
    index: &Index,
    terms: &[(String, f32)],
    pool: usize,
    weighing: Weighing<'_>,
) -> Vec<Hit> {
    let Weighing {
        page_weights,
        question,
        scope,
    } = weighing;
    let mut candidates = index.search_terms_in(terms, pool, scope);
    let mut reweighed = false;
    for h in candidates.iter_mut() {
        let w = page_weight(index, page_weights, index.section_page(h.section), question);
        if w != 1.0 {
            h.score *= w;
            reweighed = true;
        }
    }
    if reweighed {
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.section.cmp(&b.section)));
    }
    candidates
}

/// The first `k` of ranked `candidates`, at most [`MAX_PER_PAGE`] a page.
fn diversify(index: &Index, candidates: Vec<Hit>, k: usize) -> Vec<Hit> {
    let mut per_page: Vec<(u32, usize)> = Vec::with_capacity(k.min(candidates.len()));
    let mut out = Vec::with_capacity(k);
    for h in candidates {
        if out.len() == k {
            break;
        }
        let page = index.section_page(h.section);
        match per_page.iter_mut().find(|(p, _)| *p == page) {
            Some((_, n)) if *n >= MAX_PER_PAGE => continue,
            Some((_, n)) => *n += 1,
            None => per_page.push((page, 1)),
        }
        out.push(h);
    }
    out
}

/// The absolute URL of a section: base URL + route + `#anchor` (for JSONL
/// corpora, the document's own `url`).
pub fn section_url(index: &Index, section: u32) -> String {
    let (_, route) = index.page_path_route(index.section_page(section));
    url_of(index, route, index.section_heading_anchor(section).1)
}

/// [`section_url`] from the route of the section's page and its anchor.
pub fn url_of(index: &Index, route: &str, anchor: &str) -> String {
    if index.meta.source == "jsonl" {
        return route.to_string();
    }
    let base = &index.meta.docs_base_url;
    let mut url = String::with_capacity(base.len() + route.len() + anchor.len() + 1);
    url.push_str(base);
    url.push_str(route);
    if !anchor.is_empty() {
        url.push('#');
        url.push_str(anchor);
    }
    url
}

#[cfg(test)]
mod tests;
