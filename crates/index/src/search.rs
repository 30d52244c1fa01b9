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

use crate::typo::Corrected;
use crate::{Analyzer, Hit, Index};

/// Weight of the terms of the most recent earlier question.
pub const CONTEXT_WEIGHT: f32 = 0.5;
/// Sections of one page in one answer, at most.
pub const MAX_PER_PAGE: usize = 2;
/// Earlier questions taken into account, at most.
pub const MAX_CONTEXT: usize = 3;

/// The weighted query terms for `query` after the earlier questions `prev`
/// (oldest first, as clients send them).
pub fn query_terms(analyzer: &Analyzer, query: &str, prev: &[String]) -> Vec<(String, f32)> {
    with_context(analyzer, analyzer.analyze(query), prev)
}

/// The question's own terms (weight 1.0) with those of the earlier
/// questions `prev` added (see [`query_terms`]).
fn with_context(analyzer: &Analyzer, question: Vec<String>, prev: &[String]) -> Vec<(String, f32)> {
    let mut terms: Vec<(String, f32)> = Vec::new();
    let mut add = |t: String, w: f32| match terms.iter_mut().find(|(x, _)| *x == t) {
        Some((_, old)) => *old = old.max(w),
        None => terms.push((t, w)),
    };
    for t in question {
        add(t, 1.0);
    }
    let mut w = CONTEXT_WEIGHT;
    for p in prev.iter().rev().take(MAX_CONTEXT) {
        let mut seen: Vec<String> = Vec::new();
        for t in analyzer.analyze(p) {
            if !seen.contains(&t) {
                seen.push(t.clone());
                add(t, w);
            }
        }
        w /= 2.0;
    }
    terms
}

/// The `k` best sections for `query` after `prev`, best first, at most
/// [`MAX_PER_PAGE`] a page.
pub fn retrieve(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
) -> Vec<Hit> {
    retrieve_weighted(index, analyzer, query, prev, k, &[])
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
    page_weights: &[f32],
) -> (Vec<Hit>, Corrected) {
    let mut question = analyzer.analyze(query);
    // Nearly every question only has words the docs use: nothing to correct.
    let corrected = if question.iter().all(|t| index.term_id(t).is_some()) {
        Corrected {
            query: query.to_string(),
            corrections: Vec::new(),
        }
    } else {
        let c = index.correct(analyzer, query);
        if !c.corrections.is_empty() {
            question = analyzer.analyze(&c.query);
        }
        c
    };
    let terms = with_context(analyzer, question, prev);
    (retrieve_terms(index, &terms, k, page_weights), corrected)
}

/// [`retrieve`] with each page's score multiplied by its weight
/// (`page_weights[page]`; an empty slice weighs every page 1, see
/// [`crate::boost`]).
pub fn retrieve_weighted(
    index: &Index,
    analyzer: &Analyzer,
    query: &str,
    prev: &[String],
    k: usize,
    page_weights: &[f32],
) -> Vec<Hit> {
    retrieve_terms(index, &query_terms(analyzer, query, prev), k, page_weights)
}

/// The `k` best sections for weighted terms, at most [`MAX_PER_PAGE`] a
/// page, each page's score multiplied by its weight.
pub fn retrieve_terms(
    index: &Index,
    terms: &[(String, f32)],
    k: usize,
    page_weights: &[f32],
) -> Vec<Hit> {
    // Only pages with several sections need extra candidates to diversify.
    let pool = if index.section_count() == index.page_count() {
        k
    } else {
        k.saturating_mul(4).saturating_add(8)
    };
    let mut candidates = index.search_terms(terms, pool);
    if !page_weights.is_empty() {
        for h in candidates.iter_mut() {
            let page = index.section_page(h.section) as usize;
            h.score *= page_weights.get(page).copied().unwrap_or(1.0);
        }
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.section.cmp(&b.section)));
    }
    let mut per_page: Vec<(u32, usize)> = Vec::new();
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
    let s = index.section(section);
    let p = index.page(s.page);
    if index.meta.source == "jsonl" {
        return p.route.to_string();
    }
    let mut url = format!("{}{}", index.meta.docs_base_url, p.route);
    if !s.anchor.is_empty() {
        url.push('#');
        url.push_str(s.anchor);
    }
    url
}
