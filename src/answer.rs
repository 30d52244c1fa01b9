//! What does the answer hold? Retrieval over the index, one `TechArticle`
//! item per section hit, and in summarize and generate modes the
//! `SearchSummary` made of the summarizer's sentences with their citations.

use ask_index::search::{self, Retriever};
use ask_index::{Analyzer, Hit, Index};

use crate::generate::{Checked, Fallback, Generator, Prompt, Source, cite_check};
use crate::protocol::response::{
    AnswerConfidence, Article, Citation, GeneratorUsed, QueryCorrection, Summary,
};
use crate::protocol::{Answer, AskRequest, Failure, Mode};
use crate::summary::{self, Kind, Part, is_prose, one_line, sentence_score, sentences};

const SNIPPET_CHARS: usize = 240;

/// Below this coverage, a question that names something the docs never
/// mention is taken not to be answered ([`confidence`]). Chosen with
/// [`ANSWERED_SIMILARITY`] on the golden sets' answerable and unanswerable
/// questions, leave-one-corpus-out, for the best of precision and
/// recall's minimum (tests/confidence.rs, BENCHMARKS.md "Can't answer").
pub const ANSWERED_COVERAGE: f32 = 0.6;
/// Under hybrid retrieval, below this similarity of the question's
/// meaning to the best sections, likewise.
pub const ANSWERED_SIMILARITY: f32 = 0.325;
/// Sections whose terms count as covering the question.
const COVERING_SECTIONS: usize = 3;

/// Whether the docs seem to answer, from how much of the question the best
/// sections hold ([`search::Coverage`]) and under hybrid retrieval the
/// `similarity` of the question's meaning to the closest of them. Not
/// answered when the question uses a word the docs never use and either
/// the coverage is under [`ANSWERED_COVERAGE`] or the similarity under
/// [`ANSWERED_SIMILARITY`].
pub fn confidence(coverage: search::Coverage, similarity: Option<f32>) -> AnswerConfidence {
    // The docs may not answer only what names something they never
    // mention; then the words or the meaning must be far from the best
    // sections.
    let far =
        coverage.share < ANSWERED_COVERAGE || similarity.is_some_and(|s| s < ANSWERED_SIMILARITY);
    AnswerConfidence {
        coverage: (coverage.share * 100.0).round() / 100.0,
        similarity: similarity.map(|s| (s * 100.0).round() / 100.0),
        answered: !(coverage.foreign && far),
        missing: coverage.missing,
        other_sites: Vec::new(),
    }
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
    // The best-matching prose sentence; a matching table row or code line
    // only if no prose sentence matches.
    let best = sentences(text)
        .into_iter()
        .map(|s| {
            let prose = is_prose(s) && !s.contains(ask_index::markdown::CELL_SEPARATOR);
            (sentence_score(analyzer, s, terms), prose, s)
        })
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

/// Who may write the summary of an answer: a model (`None`: the
/// extractive summarizer alone), and the product named in its prompt.
#[derive(Clone, Copy, Default)]
pub struct Writer<'a> {
    /// The configured model, for the modes it writes.
    pub model: Option<&'a dyn Generator>,
    /// The product's name.
    pub product: &'a str,
    /// The extractive summarizer's constants.
    pub summary: summary::Params,
    /// When the request's work must be done: a model call gets what is
    /// left, and is not started with less than [`MIN_MODEL_TIME`] (`None`:
    /// the model's own timeout alone).
    pub deadline: Option<std::time::Instant>,
}

/// Least time left for which a model call is started.
pub const MIN_MODEL_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// What retrieval found, before any summary is written: the answer's
/// items (its `summary` and `generator` still `None`), and what the
/// summary is made from.
#[derive(Clone)]
pub struct Found {
    /// The answer so far.
    pub answer: Answer,
    mode: Mode,
    hits: Vec<Hit>,
    /// The indexed question terms, weighted (for summary sentences).
    terms: Vec<(String, f32)>,
    /// The question as asked (a model reads it, not the corrected one).
    asked: String,
    prev: Vec<String>,
}

impl Found {
    /// The sections found, best first (the items' order).
    pub fn sections(&self) -> impl Iterator<Item = u32> + '_ {
        self.hits.iter().map(|h| h.section)
    }

    /// Who is to write the summary: `None` in list mode; the model with
    /// no fallback yet, or the extractive summarizer (what a stream's
    /// `start` event says before the summary is written).
    pub fn writer(&self, writer: Writer<'_>) -> Option<GeneratorUsed> {
        let answered = self.answer.confidence.as_ref().is_some_and(|c| c.answered);
        match (self.mode, writer.model) {
            (Mode::List, _) => None,
            // The model is not asked what the docs do not answer.
            (_, Some(m)) if !answered => Some(GeneratorUsed {
                name: "extractive".into(),
                model: Some(m.model().to_string()),
                fallback: Some(Fallback::NotAnswered),
            }),
            (_, Some(m)) => Some(GeneratorUsed {
                name: m.name().into(),
                model: Some(m.model().to_string()),
                fallback: None,
            }),
            (_, None) => Some(GeneratorUsed {
                name: "extractive".into(),
                model: None,
                fallback: None,
            }),
        }
    }
}

/// What an answer is made from: the index, what retrieves from it, the
/// base URL of its links, and the sites it searches.
#[derive(Clone, Copy)]
pub struct Docs<'a> {
    /// The loaded index.
    pub index: &'a Index,
    /// Its analyzer and the team's rules.
    pub retriever: &'a Retriever,
    /// Base URL of result links.
    pub base_url: &'a str,
    /// The docs' sites.
    pub sites: &'a crate::sites::Sites,
    /// The sites searched (`None`: every page).
    pub scope: ask_index::sites::Scope,
}

impl Docs<'_> {
    /// `url`, a link to page `page`, with its dynamic segments filled for
    /// the sites searched.
    fn filled(&self, url: String, page: u32) -> String {
        let bits = self.index.page_sites(page);
        match self
            .sites
            .segments
            .fill(&url, bits, self.scope.unwrap_or(0))
        {
            std::borrow::Cow::Borrowed(_) => url,
            std::borrow::Cow::Owned(filled) => filled,
        }
    }

    /// The sites outside the ones searched whose pages answer the question
    /// the searched ones do not: the first sections over every page, if
    /// they answer, and their pages' sites. The question's vector, when
    /// the first search made one, is not made again.
    fn elsewhere(&self, question: &str, prev: &[String], meaning: Option<&[f32]>) -> Vec<String> {
        let Some(mask) = self.scope else {
            return Vec::new();
        };
        let ask = search::Ask {
            query: question,
            prev,
            k: COVERING_SECTIONS,
            scope: None,
            meaning,
        };
        let all = self.retriever.find_in(self.index, ask);
        let similarity = all.similarity(self.index, COVERING_SECTIONS);
        let answered = confidence(all.coverage(self.index, 0, COVERING_SECTIONS), similarity);
        if all.hits.is_empty() || !answered.answered {
            return Vec::new();
        }
        let sections: Vec<u32> = all.hits.iter().map(|h| h.section).collect();
        self.sites.elsewhere(self.index, &sections, mask)
    }
}

/// Runs retrieval and builds the items (`top_k` of them, after the
/// request's `offset`), or `NO_RESULTS`.
pub fn find(docs: Docs<'_>, req: &AskRequest, top_k: usize) -> Result<Found, Failure> {
    let Docs {
        index, retriever, ..
    } = docs;
    let (question, prev): (&str, &[String]) = match &req.decontextualized_query {
        Some(d) => (d, &[]),
        None => (&req.query, &req.prev),
    };
    // A model reads the question as asked (its language, its words), not
    // as corrected for the search.
    let asked = question.to_string();
    // Paging: the first `offset + top_k` of the ranking, less the first
    // `offset`. A longer ranking starts with the shorter one (same scores,
    // same order, same two-sections-a-page rule), so pages never overlap.
    let ask = search::Ask {
        query: question,
        prev,
        k: req.offset + top_k,
        scope: docs.scope,
        meaning: None,
    };
    let retrieved = retriever.find_in(index, ask);
    let similarity = retrieved.similarity(index, COVERING_SECTIONS + req.offset);
    let mut confidence = confidence(
        retrieved.coverage(index, req.offset, COVERING_SECTIONS),
        similarity,
    );
    // Nothing found in the sites asked: not answered, whatever words the
    // docs have.
    confidence.answered &= retrieved.hits.len() > req.offset;
    if !confidence.answered {
        // The words as searched (typos corrected) and their vector: the
        // second search corrects and encodes nothing again.
        let searched = retrieved.corrected.query.as_str();
        confidence.other_sites = docs.elsewhere(searched, prev, retrieved.meaning.as_deref());
    }
    // The indexed ones, weighted, for snippets and summary sentences.
    let terms = retrieved.indexed_terms();
    let corrected = retrieved.corrected;
    let hits: Vec<Hit> = retrieved.hits.into_iter().skip(req.offset).collect();
    let question = corrected.query.as_str();
    let corrections: Vec<QueryCorrection> = corrected
        .corrections
        .iter()
        .map(|c| QueryCorrection {
            from: c.from.clone(),
            to: c.to.clone(),
        })
        .collect();
    let searched = (!corrections.is_empty()).then(|| {
        if prev.is_empty() {
            question.to_string()
        } else {
            format!("{question} (after: {})", prev.join("; "))
        }
    });
    // Nothing here, and nothing in another site either.
    if hits.is_empty() && confidence.other_sites.is_empty() {
        return Err(Failure::NoResults {
            query: req.query.clone(),
        });
    }
    let items: Vec<Article> = hits.iter().map(|h| article(docs, h, &terms)).collect();
    Ok(Found {
        answer: Answer {
            items,
            summary: None,
            confidence: Some(confidence),
            corrections,
            searched,
            generator: None,
            sites: docs.scope.map(|mask| docs.sites.names_in(mask).join(",")),
        },
        mode: req.mode,
        hits,
        terms,
        asked,
        prev: prev.to_vec(),
    })
}

/// The answer with its summary in summarize and generate modes: the
/// model's, its citations checked, or the extractive summarizer's (when no
/// model writes, or as its fallback).
pub async fn summarize(docs: Docs<'_>, found: Found, writer: Writer<'_>) -> Answer {
    let Docs {
        index,
        retriever,
        base_url,
        ..
    } = docs;
    let analyzer = &retriever.analyzer;
    let Found {
        mut answer,
        mode,
        hits,
        terms,
        asked,
        prev,
    } = found;
    if mode == Mode::List {
        return answer;
    }
    if answer.items.is_empty() {
        // Only another site has pages for it: the summary says which.
        let other = answer
            .confidence
            .as_ref()
            .map_or(Vec::new(), |c| c.other_sites.clone());
        answer.summary = Some(Summary::new(
            elsewhere_text(&other),
            elsewhere_text(&other),
            Vec::new(),
            base_url.to_string(),
        ));
        answer.generator = Some(GeneratorUsed {
            name: "extractive".into(),
            model: writer.model.map(|m| m.model().to_string()),
            fallback: writer.model.map(|_| Fallback::NotAnswered),
        });
        return answer;
    }
    let items = &answer.items;
    let confidence = answer.confidence.clone();
    let answered = confidence.as_ref().is_some_and(|c| c.answered);
    // Built only when no model answers.
    let extractive = || {
        let read: Vec<_> = hits
            .iter()
            .take(summary::SECTIONS)
            .map(|h| index.section(h.section))
            .collect();
        let sources: Vec<summary::Source<'_>> = read
            .iter()
            .enumerate()
            .map(|(rank, s)| summary::Source {
                markdown: &s.text,
                description: if s.anchor.is_empty() {
                    index.page(s.page).description
                } else {
                    ""
                },
                weight: (1.0 - writer.summary.rank_decay * rank as f32).max(0.1),
            })
            .collect();
        let parts = summary::summarize(
            analyzer,
            &sources,
            &terms,
            Kind::of(&asked),
            &writer.summary,
        );
        let caveat = confidence
            .as_ref()
            .filter(|c| !c.answered)
            .map(not_answered);
        summary_item(caveat, &parts, items, base_url)
    };
    let (summary, used) = match writer.model {
        None => (
            extractive(),
            GeneratorUsed {
                name: "extractive".into(),
                model: None,
                fallback: None,
            },
        ),
        Some(model) => {
            let written = if answered {
                // The sections as Markdown: the model sees code as code,
                // and can quote a block whole.
                let markdown: Vec<_> = hits.iter().map(|h| index.section_text(h.section)).collect();
                // The earlier questions retrieval read, no more.
                let context = &prev[prev.len().saturating_sub(search::MAX_CONTEXT)..];
                let prompt = Prompt {
                    product: writer.product,
                    question: &asked,
                    prev: context,
                    sources: items
                        .iter()
                        .zip(&markdown)
                        .map(|(a, md)| Source {
                            name: &a.name,
                            url: &a.url,
                            text: if md.is_empty() { &a.text } else { md },
                        })
                        .collect(),
                };
                model_item(model, &prompt, items, base_url, writer.deadline).await
            } else {
                Err(Fallback::NotAnswered)
            };
            let used = |name: &str, fallback| GeneratorUsed {
                name: name.into(),
                model: Some(model.model().to_string()),
                fallback,
            };
            match written {
                Ok(s) => (s, used(model.name(), None)),
                Err(f) => (extractive(), used("extractive", Some(f))),
            }
        }
    };
    answer.summary = Some(summary);
    answer.generator = Some(used);
    answer
}

/// The summary a model writes from the items, its citations checked.
async fn model_item(
    model: &dyn Generator,
    prompt: &Prompt<'_>,
    items: &[Article],
    site: &str,
    deadline: Option<std::time::Instant>,
) -> Result<Summary, Fallback> {
    let t = std::time::Instant::now();
    let written = match deadline.map(|d| d.saturating_duration_since(t)) {
        None => model.write(prompt).await?,
        Some(left) if left < MIN_MODEL_TIME => {
            tracing::warn!(
                left_ms = left.as_millis() as u64,
                "the request's deadline is too near to ask the model"
            );
            return Err(Fallback::Timeout);
        }
        Some(left) => match tokio::time::timeout(left, model.write(prompt)).await {
            Ok(w) => w?,
            Err(_) => {
                tracing::warn!(
                    generator = model.name(),
                    "no answer by the request's deadline"
                );
                return Err(Fallback::Timeout);
            }
        },
    };
    let checked = cite_check(&written.text, prompt.sources.len(), written.truncated);
    tracing::info!(
        generator = model.name(),
        model = model.model(),
        ms = t.elapsed().as_secs_f64() * 1e3,
        input_tokens = written.input_tokens,
        output_tokens = written.output_tokens,
        cited = checked.as_ref().map_or(0, |c| c.cited.len()),
        "model answer"
    );
    let Checked {
        text,
        mut cited,
        first,
    } = checked?;
    cited.sort_unstable();
    let citations = cited
        .into_iter()
        .map(|n| Citation {
            index: n,
            // cite_check keeps n in 1..=sources, one source per item.
            name: items[n - 1].name.clone(),
            url: items[n - 1].url.clone(),
        })
        .collect();
    Ok(Summary::new(
        text,
        truncate_chars(&first, SNIPPET_CHARS),
        citations,
        site.to_string(),
    ))
}

/// `url` (made from the index's docs base URL) under `base_url`: a
/// serve-time base URL replaces the one the index was built with.
pub fn served_url(index: &Index, base_url: &str, url: String) -> String {
    if index.meta.source != "jsonl" && base_url != index.meta.docs_base_url {
        format!("{}{}", base_url, &url[index.meta.docs_base_url.len()..])
    } else {
        url
    }
}

/// The docs site's URL of page `page`.
pub fn page_url(docs: Docs<'_>, page: u32) -> String {
    let (_, route) = docs.index.page_path_route(page);
    let url = served_url(
        docs.index,
        docs.base_url,
        search::url_of(docs.index, route, ""),
    );
    docs.filled(url, page)
}

/// The item of one hit.
fn article(docs: Docs<'_>, h: &Hit, terms: &[(String, f32)]) -> Article {
    let (index, analyzer, base_url) = (docs.index, &docs.retriever.analyzer, docs.base_url);
    let s = index.section(h.section);
    let p = index.page(s.page);
    let url = served_url(index, base_url, search::section_url(index, h.section));
    let url = docs.filled(url, s.page);
    let name = if s.anchor.is_empty() || s.heading == p.title {
        p.title.to_string()
    } else {
        format!("{} — {}", p.title, s.heading)
    };
    let plain = s.plain();
    let description = snippet(analyzer, &plain, p.description, terms);
    let text = if plain.is_empty() {
        p.description
    } else {
        &plain
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

/// What a summary says first when the docs do not seem to answer: so,
/// plainly, with the question's words no best section holds, and the
/// sites whose pages do answer.
fn not_answered(confidence: &AnswerConfidence) -> String {
    let mut text = String::from(NOT_ANSWERED);
    if !confidence.missing.is_empty() {
        let words: Vec<&str> = confidence
            .missing
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        text.pop();
        text.push_str(&format!(" (no section covers: {}).", words.join(", ")));
    }
    if !confidence.other_sites.is_empty() {
        text.push(' ');
        text.push_str(&other_sites_text(&confidence.other_sites));
    }
    text.push_str(" The closest passage:");
    text
}

/// The summary when only sites not asked have pages for the question.
fn elsewhere_text(other: &[String]) -> String {
    format!(
        "The documentation asked has no page for this question. {}",
        other_sites_text(other)
    )
}

/// Which sites have pages for the question, and how to ask them.
fn other_sites_text(other: &[String]) -> String {
    let names: Vec<&str> = other.iter().take(5).map(String::as_str).collect();
    format!(
        "Pages of {} match it (ask with site={}).",
        names.join(", "),
        names.first().copied().unwrap_or("all")
    )
}

/// The first sentence of a summary when the docs do not seem to answer.
pub const NOT_ANSWERED: &str = "The documentation does not seem to answer this question.";

/// The SearchSummary: each sentence followed by `[n]`, n the 1-based rank
/// of the item it comes from, a code block or table as fenced Markdown
/// after the sentences that lead, and the cited items listed once each.
/// With no sentence to lead, the best item's snippet leads when it is a
/// whole sentence, else the name of the section that answers, as a label.
/// A `caveat` (the docs do not seem to answer) comes first, and is the
/// summary's description.
fn summary_item(caveat: Option<String>, parts: &[Part], items: &[Article], site: &str) -> Summary {
    let mut lead: Vec<Part> = Vec::new();
    let mut label = None;
    if !parts.iter().any(|p| matches!(p, Part::Sentence { .. })) {
        let source = parts.first().map_or(0, Part::source);
        let snippet = &items[source].description;
        if summary::is_summary_sentence(snippet) && !summary::points_back(snippet) {
            lead.push(Part::Sentence {
                text: snippet.clone(),
                source,
            });
        } else {
            label = Some(source);
        }
    }
    let mut text = caveat.clone().unwrap_or_default();
    if let Some(source) = label {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("{} [{}]", items[source].name, source + 1));
    }
    let mut citations: Vec<Citation> = Vec::new();
    let mut after_block = label.is_some();
    // Sources whose `[n]` the text shows so far.
    let mut shown: Vec<usize> = label.into_iter().collect();
    if let Some(source) = label {
        citations.push(Citation {
            index: source + 1,
            name: items[source].name.clone(),
            url: items[source].url.clone(),
        });
    }
    for part in lead.iter().chain(parts) {
        match part {
            Part::Sentence { text: t, source } => {
                if after_block {
                    text.push_str("\n\n");
                } else if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(t);
                text.push_str(&format!(" [{}]", source + 1));
                shown.push(*source);
                after_block = false;
            }
            Part::Code { lang, code, .. } => {
                // A fence longer than any run of backticks that opens a
                // line of the code.
                let longest = code
                    .lines()
                    .map(|l| l.trim_start().chars().take_while(|&c| c == '`').count())
                    .max()
                    .unwrap_or(0);
                let fence = "`".repeat((longest + 1).max(3));
                text.push_str(&format!("\n\n{fence}{lang}\n{code}{fence}"));
                after_block = true;
            }
            Part::Table { markdown, .. } => {
                text.push_str("\n\n");
                text.push_str(markdown);
                after_block = true;
            }
        }
        // A block from a section no sentence cites yet says where it is
        // from, on a line of its own after it.
        if !matches!(part, Part::Sentence { .. }) && !shown.contains(&part.source()) {
            text.push_str(&format!("\n\n[{}]", part.source() + 1));
            shown.push(part.source());
        }
        let n = part.source() + 1;
        if !citations.iter().any(|c| c.index == n) {
            let item = &items[part.source()];
            citations.push(Citation {
                index: n,
                name: item.name.clone(),
                url: item.url.clone(),
            });
        }
    }
    citations.sort_by_key(|c| c.index);
    let description = lead
        .iter()
        .chain(parts)
        .find_map(|p| match p {
            Part::Sentence { text, .. } => Some(text.clone()),
            _ => None,
        })
        .or(label.map(|s| items[s].name.clone()))
        .unwrap_or_default();
    let description = if caveat.is_some() {
        NOT_ANSWERED.to_string()
    } else {
        description
    };
    Summary::new(
        text.trim().to_string(),
        description,
        citations,
        site.to_string(),
    )
}
