//! What does the answer say? Schema.org items for the best sections, an
//! extractive SearchSummary, and the NLWeb 0.55 documents (JSON or SSE).
//!
//! The summary is **extractive**: it picks the sentences of the top sections
//! that share the most (idf-weighted) query terms, keeps them in reading
//! order, and cites the item each came from. No language model is involved;
//! the same request always gives the same answer.

use ask_index::{Analyzer, Hit, Index, search};
use serde_json::{Value, json};

use crate::config::Mode;
use crate::protocol::{AskRequest, Failure};

/// The protocol version on the wire.
pub const VERSION: &str = "0.55";
/// The response format served.
pub const FORMAT: &str = "conversational_search";

const SNIPPET_CHARS: usize = 240;
const SUMMARY_SECTIONS: usize = 3;
const SUMMARY_SENTENCES: usize = 3;
const SUMMARY_CHARS: usize = 700;

/// The items of an answer: document items in rank order, and the summary.
#[derive(Debug, Clone)]
pub struct Answer {
    /// `TechArticle` items, best first.
    pub items: Vec<Value>,
    /// The `SearchSummary` item (summarize and generate modes).
    pub summary: Option<Value>,
}

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

/// Splits text into sentences (and lines), with their byte offsets.
fn sentences(text: &str) -> Vec<&str> {
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
fn is_prose(s: &str) -> bool {
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

fn sentence_score(analyzer: &Analyzer, s: &str, terms: &[(String, f32)]) -> f32 {
    let toks = analyzer.analyze(s);
    terms
        .iter()
        .filter(|(t, _)| toks.contains(t))
        .map(|(_, w)| *w)
        .sum()
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
    let scored: Vec<(f32, bool, &str)> = sentences(text)
        .into_iter()
        .map(|s| (sentence_score(analyzer, s, terms), is_prose(s), s))
        .filter(|(score, _, _)| *score > 0.0)
        .collect();
    let best = scored
        .iter()
        .copied()
        .reduce(|best, c| {
            let better = (c.1, c.0) > (best.1, best.0);
            if better { c } else { best }
        })
        .map(|(score, _, s)| (score, s));
    match best {
        Some((_, s)) => truncate_chars(
            &s.split_whitespace().collect::<Vec<_>>().join(" "),
            SNIPPET_CHARS,
        ),
        None if !fallback.is_empty() => truncate_chars(fallback, SNIPPET_CHARS),
        None => truncate_chars(
            &text.split_whitespace().collect::<Vec<_>>().join(" "),
            SNIPPET_CHARS,
        ),
    }
}

/// Runs retrieval and builds the items, or `NO_RESULTS`.
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
    let hits: Vec<Hit> = search::retrieve(index, analyzer, question, prev, top_k);
    if hits.is_empty() {
        return Err(Failure::new(
            "NO_RESULTS",
            format!("nothing in the documentation matches {:?}", req.query),
        ));
    }
    let terms = weighted_terms(index, analyzer, question);
    let site = base_url;
    let mut items = Vec::with_capacity(hits.len());
    for h in &hits {
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
        let description = snippet(analyzer, s.text, p.description, &terms);
        let text = if s.text.is_empty() {
            p.description
        } else {
            s.text
        };
        let score = (h.score * 100.0).round() / 100.0;
        items.push(json!({
            "@type": "TechArticle",
            "@context": "https://schema.org",
            "name": name,
            "url": url,
            "site": site,
            "score": score,
            "description": description,
            "text": text,
            "schema_object": {
                "@type": "TechArticle",
                "@context": "https://schema.org",
                "name": name,
                "url": url,
                "description": description,
                "text": text,
            },
            "grounding": {"source_urls": [url]},
        }));
    }
    let summary = match req.mode {
        Mode::List => None,
        Mode::Summarize | Mode::Generate => {
            Some(summarize(index, analyzer, &hits, &items, &terms, site))
        }
    };
    Ok(Answer { items, summary })
}

/// The extractive SearchSummary over the top sections.
fn summarize(
    index: &Index,
    analyzer: &Analyzer,
    hits: &[Hit],
    items: &[Value],
    terms: &[(String, f32)],
    site: &str,
) -> Value {
    // (score, item rank, position in section, sentence)
    let mut candidates: Vec<(f32, usize, usize, String)> = Vec::new();
    for (rank, h) in hits.iter().take(SUMMARY_SECTIONS).enumerate() {
        let s = index.section(h.section);
        for (pos, sent) in sentences(s.text).into_iter().enumerate() {
            if !is_summary_sentence(sent) {
                continue;
            }
            // Earlier-ranked sections and earlier sentences win ties.
            let score = sentence_score(analyzer, sent, terms) * (1.0 - 0.1 * rank as f32);
            if score > 0.0 {
                candidates.push((
                    score,
                    rank,
                    pos,
                    sent.split_whitespace().collect::<Vec<_>>().join(" "),
                ));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut chosen: Vec<(f32, usize, usize, String)> = Vec::new();
    let mut len = 0;
    for c in candidates {
        if chosen.len() == SUMMARY_SENTENCES {
            break;
        }
        if chosen.iter().any(|x| x.3 == c.3) || len + c.3.len() > SUMMARY_CHARS {
            continue;
        }
        len += c.3.len();
        chosen.push(c);
    }
    if chosen.is_empty() {
        // No sentence shares a term with the question: lead with the best
        // section's snippet.
        let d = items[0]["description"].as_str().unwrap_or("").to_string();
        chosen.push((0.0, 0, 0, d));
    }
    // Reading order: by source rank, then position.
    chosen.sort_by(|a, b| a.1.cmp(&b.1).then(a.2.cmp(&b.2)));
    let mut text = String::new();
    let mut citations: Vec<Value> = Vec::new();
    for (_, rank, _, sent) in &chosen {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(sent);
        text.push_str(&format!(" [{}]", rank + 1));
        let item = &items[*rank];
        if !citations.iter().any(|c| c["index"] == json!(rank + 1)) {
            citations.push(json!({
                "index": rank + 1,
                "name": item["name"],
                "url": item["url"],
            }));
        }
    }
    citations.sort_by_key(|c| c["index"].as_u64());
    let description = chosen[0].3.clone();
    json!({
        "@type": "SearchSummary",
        "@context": "https://schema.org",
        "text": text,
        "name": "Answer",
        "url": "",
        "site": site,
        "score": 1.0,
        "description": description,
        "citations": citations,
        "schema_object": {
            "@type": "SearchSummary",
            "@context": "https://schema.org",
            "text": text,
        },
    })
}

fn answer_meta() -> Value {
    json!({"response_type": "answer", "version": VERSION, "response_format": FORMAT})
}

/// The non-streaming answer document.
pub fn answer_document(answer: &Answer, query_id: &str) -> Value {
    let mut results: Vec<Value> = Vec::new();
    if let Some(s) = &answer.summary {
        results.push(s.clone());
    }
    results.extend(answer.items.iter().cloned());
    json!({"_meta": answer_meta(), "query_id": query_id, "results": results})
}

/// A failure document.
pub fn failure_document(f: &Failure, query_id: Option<&str>) -> Value {
    let mut doc = json!({
        "_meta": {"response_type": "failure", "version": VERSION},
        "error": {"code": f.code, "message": f.message},
    });
    if let Some(q) = query_id {
        doc["query_id"] = json!(q);
    }
    doc
}

fn sse_event(out: &mut String, name: &str, id: usize, data: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\nid: ");
    out.push_str(&id.to_string());
    out.push_str("\ndata: ");
    // serde_json never writes a raw newline: one data line per event.
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// The streamed answer: `start`, one `result` per item (the summary last),
/// `complete`. Buffered into one body.
pub fn answer_stream(answer: &Answer, query_id: &str) -> String {
    let mut out = String::new();
    let mut id = 0;
    let mut meta = answer_meta();
    meta["streaming"] = json!(true);
    sse_event(
        &mut out,
        "start",
        id,
        &json!({"message_type": "start", "_meta": meta, "query_id": query_id}),
    );
    let items: Vec<&Value> = answer.items.iter().chain(answer.summary.iter()).collect();
    for (index, item) in items.iter().enumerate() {
        id += 1;
        sse_event(
            &mut out,
            "result",
            id,
            &json!({"message_type": "result", "index": index, "item": item}),
        );
    }
    id += 1;
    sse_event(
        &mut out,
        "complete",
        id,
        &json!({
            "message_type": "complete",
            "_meta": {"response_type": "answer", "version": VERSION, "session_context": {"conversation_id": query_id}},
            "query_id": query_id,
            "total_items": items.len(),
        }),
    );
    out
}

/// A failure after the stream started: `start`, `error`, `complete`.
pub fn failure_stream(f: &Failure, query_id: &str) -> String {
    let mut out = String::new();
    sse_event(
        &mut out,
        "start",
        0,
        &json!({"message_type": "start", "_meta": {"response_type": "answer", "version": VERSION, "response_format": FORMAT, "streaming": true}, "query_id": query_id}),
    );
    let mut err = failure_document(f, Some(query_id));
    err["message_type"] = json!("error");
    sse_event(&mut out, "error", 1, &err);
    sse_event(
        &mut out,
        "complete",
        2,
        &json!({
            "message_type": "complete",
            "_meta": {"response_type": "failure", "version": VERSION, "session_context": {"conversation_id": query_id}},
            "query_id": query_id,
            "error": {"code": f.code, "message": f.message},
            "total_items": 0,
        }),
    );
    out
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
}
