//! The summarizer's unit tests.

use super::code::cut_lines;
use super::sentences::paragraph_sentences;
use super::*;

fn src(markdown: &str) -> Source<'_> {
    Source {
        markdown,
        description: "",
        weight: 1.0,
    }
}

#[test]
fn sentences_split() {
    assert_eq!(
        sentences("One two. Three four? v1.2 stays\n\nNew para"),
        vec!["One two.", "Three four?", "v1.2 stays", "New para"]
    );
    assert_eq!(
        paragraph_sentences("Use e.g. Node 20. Then run npm i. version 1.2 is fine."),
        vec!["Use e.g. Node 20.", "Then run npm i. version 1.2 is fine."]
    );
}

#[test]
fn kinds_of_questions() {
    for (q, k) in [
        ("how do I deploy it", Kind::How),
        ("How much does it cost", Kind::Which),
        ("what does the answer look like", Kind::What),
        ("why is my flow stuck", Kind::Why),
        ("can it stream answers", Kind::Can),
        ("which command pauses schedules", Kind::Which),
        ("add dark mode to next.js", Kind::How),
    ] {
        assert_eq!(Kind::of(q), k, "{q}");
    }
}

#[test]
fn summary_sentences() {
    assert!(is_summary_sentence(
        "Each client IP gets a token bucket of twenty tokens."
    ));
    assert!(!is_summary_sentence("limit value what happens beyond it"));
    assert!(!is_summary_sentence("Run it."));
    assert!(points_back("It runs sam build, then deploys."));
    assert!(points_back("Therefore, the bucket refills."));
    assert!(!points_back("Itself is not a word we check."));
    assert!(!points_back("The bucket refills every second."));
}

#[test]
fn prose_detection() {
    assert!(is_prose("Each client IP gets a token bucket."));
    assert!(!is_prose("let x = foo(); // {}"));
    assert!(!is_prose("Yes."));
}

#[test]
fn leads_with_the_answer_and_shows_what_it_points_back_to() {
    let a = Analyzer::new();
    let terms = vec![("deploy".to_string(), 2.0), ("stack".to_string(), 1.0)];
    let md = "Run the script from the repository root each time.\nIt deploys the stack to your account and prints its URL.";
    let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
    assert_eq!(
        got,
        vec![
            Part::Sentence {
                text: "Run the script from the repository root each time.".into(),
                source: 0
            },
            Part::Sentence {
                text: "It deploys the stack to your account and prints its URL.".into(),
                source: 0
            },
        ]
    );
    // First in its section, with nothing before it: never shown.
    let alone = "It deploys the stack to your account and prints its URL.";
    assert!(summarize(&a, &[src(alone)], &terms, Kind::How, &PARAMS).is_empty());
}

#[test]
fn carries_the_code_that_answers_a_how_question() {
    let a = Analyzer::new();
    let terms = vec![("button".to_string(), 2.0), ("add".to_string(), 1.0)];
    let md = "Use the CLI to add the button to your project.\n\n```bash title=\"Terminal\"\nnpx shadcn@latest add button\n```\n\n- a list item that says add button";
    let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
    assert_eq!(
        got,
        vec![
            Part::Sentence {
                text: "Use the CLI to add the button to your project.".into(),
                source: 0
            },
            Part::Code {
                lang: "bash".into(),
                code: "npx shadcn@latest add button\n".into(),
                source: 0
            },
        ]
    );
    // Cut to the budget, marked.
    let terms = vec![("x".to_string(), 1.0)];
    assert_eq!(cut_lines(&a, "a\nb\nc\nd\n", 3, false, &terms), "a\nb\n…\n");
    assert_eq!(
        cut_lines(&a, "a\nb\nc\nd\nx = 1\ne\nf\n", 3, true, &terms),
        "…\nx = 1\n…\n"
    );
}

#[test]
fn a_description_only_when_the_body_does_not_answer() {
    let a = Analyzer::new();
    let terms = vec![("widget".to_string(), 2.0)];
    let intro = Source {
        markdown: "Embed the widget on any page of your site.\n\nThe widget script is served by the function itself.",
        description: "Embed the widget on any page of your site.",
        weight: 1.0,
    };
    let got = summarize(&a, &[intro], &terms, Kind::How, &PARAMS);
    assert_eq!(
        got,
        vec![Part::Sentence {
            text: "The widget script is served by the function itself.".into(),
            source: 0
        }]
    );
}

#[test]
fn table_rows_come_as_a_table() {
    let a = Analyzer::new();
    let terms = vec![("rate_limit_per_minute".to_string(), 3.0)];
    let md = "| key | default | meaning |\n| --- | --- | --- |\n| rate_limit_per_minute | 20 | Requests per minute per client IP. |\n| top_k | 5 | Results. |";
    let got = summarize(&a, &[src(md)], &terms, Kind::How, &PARAMS);
    assert_eq!(
        got,
        vec![Part::Table {
            markdown: "| key | default | meaning |\n| --- | --- | --- |\n| rate_limit_per_minute | 20 | Requests per minute per client IP. |".into(),
            source: 0
        }]
    );
}
