//! Does the endpoint know when the docs do not answer? Every golden set's
//! questions (answerable, and at least 20 unanswerable ones) go through the
//! real retrieval and `answer::confidence`; "can't answer" is predicted when
//! the coverage is under `ANSWERED_COVERAGE`. Prints precision and recall
//! of "can't answer" per set, and at other thresholds for calibration; fails
//! when they fall under the floors set from today's figures.

mod support;

use std::path::Path;

use nlweb_ask::answer::{ANSWERED_COVERAGE, answer};
use nlweb_ask::config::{Config, EMBEDDED_CONFIG};
use nlweb_ask::protocol::{Answer, Failure, RawRequest, parse};
use serde_json::Value;
use support::docs::{index_of, repo, shared_corpora};

/// The answer to `question` in `mode`, through the `/ask` parser and
/// retrieval (5 sections, no boost).
fn ask(index: &ask_index::Index, question: &str, mode: &str) -> Result<Answer, Failure> {
    let config = Config::load(EMBEDDED_CONFIG, &|_| None).unwrap();
    let raw = RawRequest {
        params: vec![
            ("query".into(), question.to_string()),
            ("mode".into(), mode.into()),
        ],
        ..RawRequest::default()
    };
    let req = parse(&raw, &nlweb_ask::built::limits(&config)).unwrap();
    let analyzer = ask_index::Analyzer::new();
    // No model writes here: the answer is ready at its first poll.
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(answer(
            index,
            &analyzer,
            &req,
            "https://docs.example.com",
            5,
            &Default::default(),
            Default::default(),
        ))
}

/// (coverage, unanswerable) for every question of a golden set.
fn coverages(corpus: &Path, golden: &Path) -> Vec<(f32, bool)> {
    let index = index_of(corpus);
    std::fs::read_to_string(golden)
        .unwrap()
        .lines()
        .map(|l| {
            let q: Value = serde_json::from_str(l).unwrap();
            let coverage = match ask(&index, q["q"].as_str().unwrap(), "list") {
                Ok(a) => a.confidence.unwrap().coverage,
                Err(_) => 0.0,
            };
            (coverage, q["unanswerable"] == true)
        })
        .collect()
}

/// Precision and recall of "can't answer" at `threshold`.
fn precision_recall(rows: &[(f32, bool)], threshold: f32) -> (f64, f64) {
    let predicted = rows.iter().filter(|(c, _)| *c < threshold).count();
    let truth = rows.iter().filter(|(_, u)| *u).count();
    let hits = rows.iter().filter(|(c, u)| *c < threshold && *u).count();
    let p = if predicted == 0 {
        1.0
    } else {
        hits as f64 / predicted as f64
    };
    (p, hits as f64 / truth.max(1) as f64)
}

#[test]
fn cant_answer_precision_and_recall() {
    let names = ["fumadocs", "prefect", "shadcn-ui", "aws-amplify"];
    let Some(dirs) = shared_corpora("cant_answer_precision_and_recall", &names) else {
        return;
    };
    let mut sets: Vec<(&str, std::path::PathBuf)> = names.into_iter().zip(dirs).collect();
    sets.push(("nlweb-ask-docs", repo().join("docs/content/docs")));
    let mut all: Vec<(f32, bool)> = Vec::new();
    let mut report = String::from(
        "| golden set | answerable | unanswerable | precision | recall |\n|---|---|---|---|---|\n",
    );
    for (name, corpus) in &sets {
        let rows = coverages(corpus, &repo().join(format!("tests/golden/{name}.jsonl")));
        let unanswerable = rows.iter().filter(|(_, u)| *u).count();
        assert!(
            unanswerable >= 20,
            "{name}: {unanswerable} unanswerable questions"
        );
        let (p, r) = precision_recall(&rows, ANSWERED_COVERAGE);
        report.push_str(&format!(
            "| {name} | {} | {unanswerable} | {p:.2} | {r:.2} |\n",
            rows.len() - unanswerable
        ));
        all.extend(rows);
    }
    let (p, r) = precision_recall(&all, ANSWERED_COVERAGE);
    report.push_str(&format!(
        "| all | {} | {} | {p:.2} | {r:.2} |\n",
        all.iter().filter(|(_, u)| !u).count(),
        all.iter().filter(|(_, u)| *u).count()
    ));
    eprintln!("threshold {ANSWERED_COVERAGE}:\n{report}");
    for t in [0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8] {
        let (p, r) = precision_recall(&all, t);
        eprintln!("  at {t:.2}: precision {p:.2}, recall {r:.2}");
    }
    assert!(p >= PRECISION_FLOOR && r >= RECALL_FLOOR, "{report}");
}

/// The figures over all sets when the floors were set (precision 0.82,
/// recall 0.75 at 0.55, 2026-12-03; they were 0.82 and 0.73 at 0.5 before
/// the field weights changed), less about 0.05. On 2026-12-05, after one
/// question of this project's set was relabelled answerable: 0.81 and 0.71.
const PRECISION_FLOOR: f64 = 0.77;
const RECALL_FLOOR: f64 = 0.68;

/// Splits a summary into (sentence, citation number) pairs: each sentence
/// ends with ` [n]`.
fn cited_sentences(summary: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(open) = summary[from..].find(" [").map(|i| i + from) {
        let after = &summary[open + 2..];
        let number = after
            .find(']')
            .and_then(|close| after[..close].parse::<usize>().ok().map(|n| (n, close)));
        match number {
            Some((n, close)) => {
                out.push((summary[start..open].trim().to_string(), n));
                start = open + 2 + close + 1;
                from = start;
            }
            // A bracket inside the sentence, not a citation.
            None => from = open + 2,
        }
    }
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_summary_sentence_is_a_verbatim_span_of_its_cited_section() {
    let (mut checked, mut rows) = (0, 0);
    let test = "every_summary_sentence_is_a_verbatim_span_of_its_cited_section";
    let Some([fumadocs, prefect]) =
        shared_corpora(test, &["fumadocs", "prefect"]).and_then(|d| <[_; 2]>::try_from(d).ok())
    else {
        return;
    };
    for (name, corpus) in [
        ("fumadocs", fumadocs),
        ("prefect", prefect),
        ("nlweb-ask-docs", repo().join("docs/content/docs")),
    ] {
        let index = index_of(&corpus);
        let golden =
            std::fs::read_to_string(repo().join(format!("tests/golden/{name}.jsonl"))).unwrap();
        for line in golden.lines() {
            let q: Value = serde_json::from_str(line).unwrap();
            let Ok(a) = ask(&index, q["q"].as_str().unwrap(), "summarize") else {
                continue;
            };
            if !a.confidence.as_ref().unwrap().answered {
                continue;
            }
            let summary = a.summary.unwrap();
            let sentences = cited_sentences(&summary.text);
            assert!(!sentences.is_empty(), "{name}: {}", summary.text);
            let mut seen = Vec::new();
            for (sentence, n) in sentences {
                let cited = &a.items[n - 1];
                let source = one_line(&format!("{} {}", cited.text, cited.description));
                // A table row is read with its header: each of its cells is
                // a verbatim cell of a row of the cited section.
                let is_row = nlweb_ask::summary::table_rows(&cited.text)
                    .iter()
                    .any(|(h, r)| nlweb_ask::summary::render_row(h, r) == sentence);
                assert!(
                    source.contains(&sentence) || is_row,
                    "{name}: {sentence:?} is not in [{n}] {}",
                    cited.url
                );
                rows += usize::from(is_row);
                assert!(
                    summary
                        .citations
                        .iter()
                        .any(|c| c.index == n && c.url == cited.url),
                    "{name}: [{n}] is not among the citations"
                );
                assert!(!seen.contains(&sentence), "{name}: repeated {sentence:?}");
                seen.push(sentence);
                checked += 1;
            }
        }
    }
    eprintln!("{checked} summary sentences checked, {rows} of them table rows");
    assert!(checked > 200, "{checked}");
}
