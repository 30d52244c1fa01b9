//! What does the answer hold? Retrieval over the index, one `TechArticle`
//! item per section hit, and in summarize and generate modes the
//! `SearchSummary` made of the summarizer's sentences with their citations.

use ask_index::{Analyzer, Hit, Index, search};

use crate::protocol::response::{Article, Citation, Summary};
use crate::protocol::{Answer, AskRequest, Failure, Mode};
use crate::summary::{self, Sentence, is_prose, one_line, sentence_score, sentences};

const SNIPPET_CHARS: usize = 240;

/// The query terms with their idf, for sentence scoring.
fn weighted_terms(index: &Index, analyzer: &Analyzer, text: &str) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = Vec::new();
    for t in analyzer.analyze(text) {
        if out.iter().any(|(x, _)| *x == t) {
            continue;
        }
        if let Some(idf) = index.idf(&t) {
            out.push((t, idf));
        }
    }
    out
}

fn truncate_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n).collect();
    if let Some(cut) = out.rfind(' ')
        && cut > n / 2
    {
        out.truncate(cut);
    }
    out.push('…');
    out
}

/// A short, query-relevant snippet of a section.
fn snippet(analyzer: &Analyzer, text: &str, fallback: &str, terms: &[(String, f32)]) -> String {
    // The best-matching prose sentence; a matching code line only if no
    // prose sentence matches.
    let best = sentences(text)
        .into_iter()
        .map(|s| (sentence_score(analyzer, s, terms), is_prose(s), s))
        .filter(|(score, _, _)| *score > 0.0)
        .reduce(|best, c| {
            if (c.1, c.0) > (best.1, best.0) {
                c
            } else {
                best
            }
        });
    match best {
        Some((_, _, s)) => truncate_chars(&one_line(s), SNIPPET_CHARS),
        None if !fallback.is_empty() => truncate_chars(fallback, SNIPPET_CHARS),
        None => truncate_chars(&one_line(text), SNIPPET_CHARS),
    }
}

/// Runs retrieval and builds the items (`top_k` of them, after the
/// request's `offset`), or `NO_RESULTS`.
pub fn answer(
    index: &Index,
    analyzer: &Analyzer,
    req: &AskRequest,
    base_url: &str,
    top_k: usize,
) -> Result<Answer, Failure> {
    let (question, prev): (&str, &[String]) = match &req.decontextualized_query {
        Some(d) => (d, &[]),
        None => (&req.query, &req.prev),
    };
    // Paging: the first `offset + top_k` of the ranking, less the first
    // `offset`. A longer ranking starts with the shorter one (same scores,
    // same order, same two-sections-a-page rule), so pages never overlap.
    let hits: Vec<Hit> = search::retrieve(index, analyzer, question, prev, req.offset + top_k)
        .into_iter()
        .skip(req.offset)
        .collect();
    if hits.is_empty() {
        return Err(Failure::NoResults {
            query: req.query.clone(),
        });
    }
    let terms = weighted_terms(index, analyzer, question);
    let items: Vec<Article> = hits
        .iter()
        .map(|h| article(index, analyzer, h, base_url, &terms))
        .collect();
    let summary = match req.mode {
        Mode::List => None,
        Mode::Summarize | Mode::Generate => {
            let texts: Vec<&str> = hits
                .iter()
                .take(summary::SECTIONS)
                .map(|h| index.section(h.section).text)
                .collect();
            let sentences = summary::summarize(analyzer, &texts, &terms, &items[0].description);
            Some(summary_item(&sentences, &items, base_url))
        }
    };
    Ok(Answer { items, summary })
}

/// The item of one hit.
fn article(
    index: &Index,
    analyzer: &Analyzer,
    h: &Hit,
    base_url: &str,
    terms: &[(String, f32)],
) -> Article {
    let s = index.section(h.section);
    let p = index.page(s.page);
    let mut url = search::section_url(index, h.section);
    if index.meta.source != "jsonl" && base_url != index.meta.docs_base_url {
        // A serve-time base URL replaces the one the index was built with.
        url = format!("{}{}", base_url, &url[index.meta.docs_base_url.len()..]);
    }
    let name = if s.anchor.is_empty() || s.heading == p.title {
        p.title.to_string()
    } else {
        format!("{} — {}", p.title, s.heading)
    };
    let description = snippet(analyzer, s.text, p.description, terms);
    let text = if s.text.is_empty() {
        p.description
    } else {
        s.text
    };
    let score = (h.score * 100.0).round() / 100.0;
    Article::new(
        name,
        url,
        base_url.to_string(),
        score,
        description,
        text.to_string(),
    )
}

/// The SearchSummary: each sentence followed by `[n]`, n the 1-based rank
/// of the item it comes from, and the cited items listed once each.
fn summary_item(sentences: &[Sentence], items: &[Article], site: &str) -> Summary {
    let mut text = String::new();
    let mut citations: Vec<Citation> = Vec::new();
    for s in sentences {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&s.text);
        text.push_str(&format!(" [{}]", s.source + 1));
        if !citations.iter().any(|c| c.index == s.source + 1) {
            let item = &items[s.source];
            citations.push(Citation {
                index: s.source + 1,
                name: item.name.clone(),
                url: item.url.clone(),
            });
        }
    }
    citations.sort_by_key(|c| c.index);
    let description = sentences
        .first()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    Summary::new(text, description, citations, site.to_string())
}
