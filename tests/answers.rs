//! Does the answer carry the facts its sources hold? Nugget recall, as
//! TREC's nugget evaluations measure an answer: each question of
//! `tests/golden/nuggets/<corpus>.jsonl` lists the few facts (names,
//! commands, numbers, short phrases) that a good answer contains, copied
//! from the page that answers it before any summary was read. A nugget is
//! in a text when its analysed terms (the index's analyzer) appear there
//! in a row.
//!
//! For every MDX corpus and the bundled docs, with the default retriever
//! (hybrid), this measures the share of nuggets held by
//! - the `summarize` answer's summary;
//! - LEAD, the baseline of summarization research: the start of the
//!   answer's sections as written, best first, cut to the summary's length
//!   (its text without citation marks and fence lines);
//! - the summary plus the whole text of the sections it cites.
//!
//! `every_nugget_is_on_its_page` checks the sets themselves.
//! `summary_nugget_recall` prints the figures and fails under the floors.
//! With `ASK_NUGGETS_LOCO=1` it also chooses the summarizer's constants
//! leave-one-corpus-out over a grid and prints the held-out figures.

mod support;
#[path = "support/state.rs"]
mod test_state;

use std::path::PathBuf;

use ask_index::search::Retriever;
use ask_index::{Analyzer, Index};
use nlweb_ask::answer::{Docs, Found, Writer, find, summarize};
use nlweb_ask::protocol::{RawRequest, parse};
use nlweb_ask::summary::{PARAMS, Params};
use serde_json::Value;
use support::docs::{index_of, model_dir, repo, shared_corpora, with_vectors};

/// A question of a nugget set.
struct Question {
    q: String,
    page: String,
    nuggets: Vec<String>,
}

fn questions(name: &str) -> Vec<Question> {
    let path = repo().join(format!("tests/golden/nuggets/{name}.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Question {
                q: v["q"].as_str().unwrap().into(),
                page: v["page"].as_str().unwrap().into(),
                nuggets: v["nuggets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
            }
        })
        .collect()
}

/// The terms of `text` in text order, punctuation read as space (so
/// `fd-steps` in a nugget meets `className="fd-steps"` in a page).
fn terms(a: &Analyzer, text: &str) -> Vec<String> {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut out = Vec::new();
    a.for_each_term(&spaced, |t| out.push(t.to_string()));
    out
}

/// Does `hay` (analysed) hold `needle`'s analysed terms in a row?
fn holds(a: &Analyzer, hay: &[String], needle: &str) -> bool {
    let n = terms(a, needle);
    !n.is_empty() && hay.windows(n.len()).any(|w| w == n.as_slice())
}

/// The share of `nuggets` that `text` holds.
fn recall(a: &Analyzer, text: &str, nuggets: &[String]) -> f64 {
    let hay = terms(a, text);
    let found = nuggets.iter().filter(|n| holds(a, &hay, n)).count();
    found as f64 / nuggets.len().max(1) as f64
}

/// The corpora with nugget sets: the four shared MDX corpora and the
/// bundled docs.
const CORPORA: [&str; 5] = [
    "fumadocs",
    "shadcn-ui",
    "prefect",
    "aws-amplify",
    "nlweb-ask-docs",
];

fn folders(test: &str) -> Option<Vec<(&'static str, PathBuf)>> {
    let shared = shared_corpora(test, &CORPORA[..4])?;
    let mut out: Vec<(&str, PathBuf)> = CORPORA[..4].iter().copied().zip(shared).collect();
    out.push(("nlweb-ask-docs", repo().join("docs/content/docs")));
    Some(out)
}

#[test]
fn every_nugget_is_on_its_page() {
    let Some(folders) = folders("every_nugget_is_on_its_page") else {
        return;
    };
    let a = Analyzer::new();
    let mut missing = Vec::new();
    for (name, dir) in folders {
        let index = index_of(&dir);
        let qs = questions(name);
        assert!(qs.len() >= 30, "{name}: {} questions", qs.len());
        for q in &qs {
            assert!(
                (2..=5).contains(&q.nuggets.len()),
                "{name}: {:?} has {} nuggets",
                q.q,
                q.nuggets.len()
            );
            let page = (0..index.page_count() as u32)
                .find(|&p| index.page(p).path == q.page)
                .unwrap_or_else(|| panic!("{name}: no page {}", q.page));
            let text: String = (0..index.section_count() as u32)
                .filter(|&s| index.section_page(s) == page)
                .map(|s| {
                    let s = index.section(s);
                    format!("{}\n{}\n", s.heading, s.plain())
                })
                .collect();
            let hay = terms(&a, &format!("{}\n{}", index.page(page).title, text));
            for n in &q.nuggets {
                if !holds(&a, &hay, n) {
                    missing.push(format!("{name}: {n:?} is not on {}", q.page));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

/// The corpora are asked whole (no `ask.sites`).
static NO_SITES: std::sync::LazyLock<nlweb_ask::sites::Sites> =
    std::sync::LazyLock::new(nlweb_ask::sites::Sites::default);

/// One corpus ready to be asked: its index (with vectors) and the rules of
/// the default retriever.
struct Corpus {
    name: &'static str,
    index: Index,
    retriever: Retriever,
    questions: Vec<Question>,
}

impl Corpus {
    /// What an answer over this corpus is made from, its links under `base_url`.
    fn docs<'a>(&'a self, base_url: &'a str) -> Docs<'a> {
        Docs {
            index: &self.index,
            retriever: &self.retriever,
            base_url,
            sites: &NO_SITES,
            scope: None,
        }
    }
}

fn corpora(test: &str) -> Option<Vec<Corpus>> {
    let folders = folders(test)?;
    let model = model_dir(test)?;
    let config = test_state::config(&[
        ("ASK_RETRIEVER", "hybrid"),
        ("ASK_MODEL_DIR", model.to_str().unwrap()),
    ]);
    let mut out = Vec::new();
    for (name, dir) in folders {
        let index = with_vectors(index_of(&dir), &model);
        let hybrid =
            nlweb_ask::built::hybrid(&config, &index, nlweb_ask::built::start_model(&config))
                .unwrap();
        out.push(Corpus {
            name,
            index,
            retriever: Retriever {
                rules: ask_index::search::Rules {
                    hybrid,
                    ..Default::default()
                },
                ..Default::default()
            },
            questions: questions(name),
        });
    }
    Some(out)
}

/// What retrieval finds for each question (summarize mode, 5 sections).
fn found(c: &Corpus) -> Vec<Option<Found>> {
    let config = test_state::config(&[]);
    c.questions
        .iter()
        .map(|q| {
            let raw = RawRequest {
                params: vec![
                    ("query".into(), q.q.clone()),
                    ("mode".into(), "summarize".into()),
                ],
                ..RawRequest::default()
            };
            let req = parse(&raw, &nlweb_ask::built::limits(&config)).unwrap();
            find(c.docs("https://docs.example.com"), &req, 5).ok()
        })
        .collect()
}

/// Mean nugget recall of the summary, of LEAD at the summary's length, of
/// the summary with its cited sections; and the summary's mean length.
#[derive(Clone, Copy, Debug, Default)]
struct Figures {
    summary: f64,
    lead: f64,
    cited: f64,
    chars: f64,
}

/// The summary's text as a reader sees it: no citation marks, no fence
/// lines.
fn visible(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            continue;
        }
        let mut l = line.to_string();
        while let Some(open) = l.find(" [") {
            let Some(close) = l[open..].find(']').map(|c| c + open) else {
                break;
            };
            if l[open + 2..close].parse::<usize>().is_err() {
                break;
            }
            l.replace_range(open..=close, "");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out.trim().to_string()
}

fn measure(c: &Corpus, found: &[Option<Found>], params: Params) -> Figures {
    let a = Analyzer::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut f = Figures::default();
    for (q, found) in c.questions.iter().zip(found) {
        let Some(found) = found.clone() else {
            continue;
        };
        let writer = Writer {
            summary: params,
            ..Writer::default()
        };
        let answer = rt.block_on(summarize(c.docs("https://docs.example.com"), found, writer));
        let summary = answer.summary.expect("summarize mode");
        let shown = visible(&summary.text);
        let n = shown.chars().count();
        let sources: String = answer
            .items
            .iter()
            .map(|i| i.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        let lead: String = sources.chars().take(n).collect();
        let cited: String = summary
            .citations
            .iter()
            .map(|c| answer.items[c.index - 1].text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        if std::env::var("ASK_NUGGETS_DEBUG").is_ok_and(|v| v == c.name) {
            eprintln!(
                "--- {:?}\nsummary {:.2} LEAD {:.2} nuggets {:?}\n{}\n",
                q.q,
                recall(&a, &shown, &q.nuggets),
                recall(&a, &lead, &q.nuggets),
                q.nuggets,
                summary.text
            );
        }
        f.summary += recall(&a, &shown, &q.nuggets);
        f.lead += recall(&a, &lead, &q.nuggets);
        f.cited += recall(&a, &format!("{shown}\n{cited}"), &q.nuggets);
        f.chars += n as f64;
    }
    let n = c.questions.len() as f64;
    Figures {
        summary: f.summary / n,
        lead: f.lead / n,
        cited: f.cited / n,
        chars: f.chars / n,
    }
}

/// Floors: the summary's recall with the shipped constants when they
/// were set (2026-12-06: 0.300, 0.458, 0.347, 0.274, 0.397 after the docs
/// were rewritten; BENCHMARKS.md,
/// "Answers"), less 0.03.
const FLOORS: [(&str, f64); 5] = [
    ("fumadocs", 0.27),
    ("shadcn-ui", 0.42),
    ("prefect", 0.31),
    ("aws-amplify", 0.24),
    ("nlweb-ask-docs", 0.36),
];

#[test]
fn summary_nugget_recall() {
    let Some(corpora) = corpora("summary_nugget_recall") else {
        return;
    };
    let found: Vec<Vec<Option<Found>>> = corpora.iter().map(found).collect();
    let mut report = String::from(
        "| corpus | questions | summary | LEAD, same length | summary + cited sections | summary chars |\n|---|---|---|---|---|---|\n",
    );
    let mut failures = Vec::new();
    for (c, found) in corpora.iter().zip(&found) {
        let f = measure(c, found, PARAMS);
        report.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.0} |\n",
            c.name,
            c.questions.len(),
            f.summary,
            f.lead,
            f.cited,
            f.chars
        ));
        let floor = FLOORS.iter().find(|(n, _)| *n == c.name).unwrap().1;
        if f.summary < floor {
            failures.push(format!("{}: {:.3} < {floor}", c.name, f.summary));
        }
    }
    eprintln!("nugget recall, shipped constants:\n{report}");
    if std::env::var("ASK_NUGGETS_LOCO").is_ok_and(|v| v == "1") {
        loco(&corpora, &found);
    }
    assert!(failures.is_empty(), "{failures:?}\n{report}");
}

/// The grid the constants are chosen from.
fn grid() -> Vec<Params> {
    let mut out = Vec::new();
    for prose_chars in [200, 300] {
        for code_lines in [8, 12] {
            for code_blocks in [2, 3] {
                for min_share in [0.3, 0.5] {
                    for code_follows_lead in [false, true] {
                        for identifier_bonus in [1.0, 1.5] {
                            out.push(Params {
                                prose_chars,
                                code_lines,
                                code_blocks,
                                min_share,
                                code_follows_lead,
                                identifier_bonus,
                                ..PARAMS
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// For each corpus, the constants that maximise the mean gain over LEAD
/// on the others, and its figures with them.
fn loco(corpora: &[Corpus], found: &[Vec<Option<Found>>]) {
    let grid = grid();
    let table: Vec<Vec<Figures>> = grid
        .iter()
        .map(|p| {
            corpora
                .iter()
                .zip(found)
                .map(|(c, f)| measure(c, f, *p))
                .collect()
        })
        .collect();
    let gain = |f: &Figures| f.summary - f.lead;
    let best_over = |keep: &dyn Fn(usize) -> bool| {
        (0..grid.len())
            .max_by(|&a, &b| {
                let mean = |g: usize| {
                    let v: Vec<f64> = (0..corpora.len())
                        .filter(|&i| keep(i))
                        .map(|i| gain(&table[g][i]))
                        .collect();
                    v.iter().sum::<f64>() / v.len() as f64
                };
                mean(a).total_cmp(&mean(b)).then(b.cmp(&a))
            })
            .unwrap()
    };
    let mut report = String::from(
        "| held out | chosen on the others | summary | LEAD | gain |\n|---|---|---|---|---|\n",
    );
    for (i, c) in corpora.iter().enumerate() {
        let g = best_over(&|j| j != i);
        let f = table[g][i];
        report.push_str(&format!(
            "| {} | {:?} | {:.3} | {:.3} | {:+.3} |\n",
            c.name,
            grid[g],
            f.summary,
            f.lead,
            gain(&f)
        ));
    }
    let all = best_over(&|_| true);
    eprintln!(
        "leave-one-corpus-out:\n{report}chosen on all corpora: {:?}",
        grid[all]
    );
}

/// The questions of a corpus's golden, paraphrase and fresh sets.
fn golden_questions(name: &str) -> Vec<String> {
    ["", "paraphrase/", "fresh/"]
        .iter()
        .flat_map(|set| {
            let path = repo().join(format!("tests/golden/{set}{name}.jsonl"));
            std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(|l| {
                    let v: Value = serde_json::from_str(l).unwrap();
                    v["q"].as_str().unwrap().to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A summary's blocks: its fenced code blocks whole, the rest split at
/// blank lines.
fn blocks_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The open block and its fence's length.
    let mut fence: Option<(String, usize)> = None;
    let mut current = String::new();
    for line in text.lines() {
        if let Some((f, n)) = &mut fence {
            f.push('\n');
            f.push_str(line);
            let t = line.trim_end();
            if t.len() >= *n && t.chars().all(|c| c == '`') {
                out.push(fence.take().unwrap().0);
            }
            continue;
        }
        if line.starts_with("```") {
            if !current.trim().is_empty() {
                out.push(std::mem::take(&mut current).trim().to_string());
            }
            let n = line.chars().take_while(|&c| c == '`').count();
            fence = Some((line.to_string(), n));
            continue;
        }
        if line.trim().is_empty() {
            if !current.trim().is_empty() {
                out.push(std::mem::take(&mut current).trim().to_string());
            }
            current.clear();
            continue;
        }
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(line);
    }
    out.extend(fence.map(|f| f.0));
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// The prose of a summary as (sentence, citation number) pairs: each
/// sentence ends with ` [n]`.
fn cited_sentences(prose: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(open) = prose[from..].find(" [").map(|i| i + from) {
        let after = &prose[open + 2..];
        let number = after
            .find(']')
            .and_then(|close| after[..close].parse::<usize>().ok().map(|n| (n, close)));
        match number {
            Some((n, close)) => {
                out.push((prose[start..open].trim().to_string(), n));
                start = open + 2 + close + 1;
                from = start;
            }
            // A bracket inside the sentence, not a citation.
            None => from = open + 2,
        }
    }
    out
}

/// Every summary over every golden, paraphrase and fresh question quotes
/// its sources whole: each sentence is a verbatim span of the section it
/// cites and a whole sentence (no list fragment, no table row read as
/// prose); one that opens with a pronoun or connective ("It", "This",
/// "Also") follows the sentence it follows in its section; code and table
/// rows are verbatim lines of a cited section.
#[test]
fn summaries_quote_whole_sentences_and_code() {
    let Some(corpora) = corpora("summaries_quote_whole_sentences_and_code") else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let config = test_state::config(&[]);
    let (mut sentences, mut blocks, mut pointing, mut fragments) = (0, 0, 0, Vec::new());
    for c in &corpora {
        for q in golden_questions(c.name) {
            let raw = RawRequest {
                params: vec![
                    ("query".into(), q.clone()),
                    ("mode".into(), "summarize".into()),
                ],
                ..RawRequest::default()
            };
            let req = parse(&raw, &nlweb_ask::built::limits(&config)).unwrap();
            let Ok(found) = find(c.docs("https://d.example"), &req, 5) else {
                continue;
            };
            let answer = rt.block_on(summarize(
                c.docs("https://d.example"),
                found,
                Writer::default(),
            ));
            if !answer.confidence.as_ref().unwrap().answered {
                continue;
            }
            let summary = answer.summary.unwrap();
            let texts: Vec<String> = answer.items.iter().map(|i| one_line(&i.text)).collect();
            let cited_text = |n: usize| {
                assert!(
                    summary.citations.iter().any(|c| c.index == n),
                    "{}: [{n}] is not among the citations of {q:?}",
                    c.name
                );
                &texts[n - 1]
            };
            let mut prev: Option<(String, usize)> = None;
            for block in blocks_of(&summary.text) {
                let block = block.as_str();
                if block.starts_with("```") {
                    let body = block.split_once('\n').map_or("", |(_, b)| b);
                    let body = body.trim_end_matches('`').trim_end();
                    // A window of a longer block: `…` lines mark its cuts.
                    let body: Vec<&str> = body.lines().filter(|l| *l != "…").collect();
                    let body = body.join("\n");
                    let found_in = texts.iter().any(|t| t.contains(&one_line(&body)));
                    assert!(found_in, "{}: code not in a source: {block}", c.name);
                    blocks += 1;
                    prev = None;
                    continue;
                }
                if block.starts_with('|') {
                    for row in block.lines().skip(2) {
                        let cells = row.trim_matches('|').trim().replace("\\|", "|");
                        let cells = cells.split('…').next().unwrap_or("");
                        assert!(
                            texts.iter().any(|t| t.contains(one_line(cells).as_str())),
                            "{}: row not in a source: {row}",
                            c.name
                        );
                    }
                    blocks += 1;
                    prev = None;
                    continue;
                }
                for (s, n) in cited_sentences(block) {
                    // With no sentence to lead, the section's name does, as
                    // a label.
                    if s == answer.items[n - 1].name {
                        prev = None;
                        continue;
                    }
                    let source = cited_text(n);
                    assert!(source.contains(&s), "{}: {s:?} is not in [{n}]", c.name);
                    if !nlweb_ask::summary::is_summary_sentence(&s) || s.contains(" | ") {
                        fragments.push(format!("{}: {s}", c.name));
                    }
                    if nlweb_ask::summary::points_back(&s) {
                        let follows = prev.as_ref().is_some_and(|(p, pn)| {
                            *pn == n && source.contains(&format!("{p} {s}"))
                        });
                        if !follows {
                            pointing += 1;
                            eprintln!("{}: unresolved {s:?} in {q:?}:\n{}", c.name, summary.text);
                        }
                    }
                    sentences += 1;
                    prev = Some((s, n));
                }
            }
        }
    }
    eprintln!(
        "{sentences} summary sentences and {blocks} code blocks or tables checked; {pointing} open with an unresolved pronoun or connective; {} fragments",
        fragments.len()
    );
    assert!(sentences > 500, "{sentences}");
    assert!(fragments.is_empty(), "{fragments:#?}");
    assert_eq!(pointing, 0);
}

/// The bundled docs' summary (default retriever) of `question`.
fn docs_summary(c: &Corpus, question: &str) -> (String, Vec<String>) {
    let config = test_state::config(&[]);
    let raw = RawRequest {
        params: vec![
            ("query".into(), question.into()),
            ("mode".into(), "summarize".into()),
        ],
        ..RawRequest::default()
    };
    let req = parse(&raw, &nlweb_ask::built::limits(&config)).unwrap();
    let found = find(c.docs("https://d.example"), &req, 5).unwrap();
    let answer = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(summarize(
            c.docs("https://d.example"),
            found,
            Writer::default(),
        ));
    let summary = answer.summary.unwrap();
    let cited = summary.citations.iter().map(|c| c.url.clone()).collect();
    (summary.text, cited)
}

/// Six questions a reader asks of the bundled docs, each answered with
/// what answers it: the deploy command, the widget's HTML, the settings
/// that turn auth on, the streaming transport, the answer document's
/// shape, the rate limit's setting.
#[test]
fn six_reader_questions_are_answered() {
    let Some(corpora) = corpora("six_reader_questions_are_answered") else {
        return;
    };
    let docs = corpora.iter().find(|c| c.name == "nlweb-ask-docs").unwrap();
    for (q, wants) in [
        ("how do I deploy it", &["scripts/deploy.sh"][..]),
        (
            "how do I embed the ask box in my site",
            &["<nlweb-ask", "widget.js"],
        ),
        ("how do I turn on bearer token auth", &["auth: required"]),
        ("can it stream answers", &["transport: streaming"]),
        ("what does the answer look like", &["SearchSummary"]),
        (
            "how do I configure the rate limit",
            &["rate_limit_per_minute"],
        ),
    ] {
        let (text, cited) = docs_summary(docs, q);
        eprintln!("--- {q}\n{text}\n{cited:?}\n");
        assert!(
            !text.starts_with("The documentation does not seem"),
            "{q}: {text}"
        );
        for w in wants {
            assert!(text.contains(w), "{q}: {w:?} not in {text}");
        }
    }
}
