use super::*;
use crate::build::build;
use crate::index::{BuildOptions, PageInput, SectionInput, Weights};

#[test]
fn questions_are_told_from_lookups() {
    for q in [
        "how do I retry a flow run",
        "Why is my worker stuck?",
        "my deployment never starts",
        "retry a failed flow run?",
    ] {
        assert!(is_question(q), "{q}");
    }
    for q in [
        "retry a failed flow run",
        "how do I set rate_limit_per_minute",
        "createMDX options",
        "",
    ] {
        assert!(!is_question(q), "{q}");
    }
}

fn page(path: &str, heading: &str, text: &str, boost: Option<f32>, reference: bool) -> PageInput {
    PageInput {
        path: path.into(),
        route: format!("/{path}"),
        title: heading.into(),
        sections: vec![SectionInput {
            heading: heading.into(),
            text: text.into(),
            ..SectionInput::default()
        }],
        boost,
        reference,
        ..PageInput::default()
    }
}

fn top(index: &Index, q: &str) -> String {
    let a = Analyzer::new();
    let hits = retrieve(index, &a, q, &[], 3);
    index
        .page(index.section_page(hits[0].section))
        .path
        .to_string()
}

fn opts() -> BuildOptions {
    BuildOptions {
        docs_base_url: String::new(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: String::new(),
        built_at_unix: 0,
        settings: String::new(),
        sites: Vec::new(),
    }
}

#[test]
fn reference_pages_weigh_less_for_questions_only() {
    let a = Analyzer::new();
    let pages = [
        page("ref.mdx", "retry", "retry a flow run", None, true),
        page(
            "guide.mdx",
            "Retries",
            "Retry a flow run that failed, step by step.",
            None,
            false,
        ),
        page(
            "other.mdx",
            "Other",
            "Something else entirely.",
            None,
            false,
        ),
    ];
    let idx = build(&pages, &opts(), &a).unwrap();
    let hits = retrieve(&idx, &a, "retry flow run", &[], 2);
    // Close enough that 0.7 turns the order round.
    assert!(hits[1].score > hits[0].score * REFERENCE_WEIGHT, "{hits:?}");
    assert_eq!(top(&idx, "retry flow run"), "ref.mdx");
    assert_eq!(top(&idx, "how do I retry a flow run"), "guide.mdx");
}

#[test]
fn a_page_boost_multiplies_its_score() {
    let a = Analyzer::new();
    let mut pages = vec![
        page("a.mdx", "Deploy", "deploy the stack", None, false),
        page("b.mdx", "Deploy", "deploy the stack", None, false),
    ];
    let idx = build(&pages, &opts(), &a).unwrap();
    assert_eq!(top(&idx, "deploy stack"), "a.mdx");
    pages[1].boost = Some(2.0);
    let idx = build(&pages, &opts(), &a).unwrap();
    assert_eq!(top(&idx, "deploy stack"), "b.mdx");
    pages[0].boost = Some(3.0);
    let idx = build(&pages, &opts(), &a).unwrap();
    assert_eq!(top(&idx, "deploy stack"), "a.mdx");
}

/// Counts the questions it encodes; its vectors fit no index here.
struct Counting(std::sync::atomic::AtomicUsize);

impl Encoder for Counting {
    fn encode(&self, _: &str) -> Option<Vec<f32>> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(vec![1.0])
    }
}

#[test]
fn a_site_searches_its_own_pages_and_a_known_meaning_is_not_encoded_again() {
    let a = Analyzer::new();
    let mut pages = vec![
        page("v1/deploy.mdx", "Deploy", "deploy the stack", None, false),
        page("v2/deploy.mdx", "Deploy", "deploy the stack", None, false),
    ];
    (pages[0].sites, pages[1].sites) = (0b01, 0b10);
    let mut o = opts();
    o.sites = vec!["v1".into(), "v2".into()];
    let idx = build(&pages, &o, &a).unwrap();
    let counting = std::sync::Arc::new(Counting(Default::default()));
    let rules = Rules {
        hybrid: Some(Hybrid {
            encoder: counting.clone(),
            weight: HYBRID_WEIGHT,
        }),
        ..Rules::default()
    };
    let ask = |scope, meaning| Ask {
        query: "deploy stack",
        k: 5,
        scope,
        meaning,
        ..Ask::default()
    };
    let paths = |f: Found| -> Vec<String> {
        f.hits
            .iter()
            .map(|h| idx.page(idx.section_page(h.section)).path.to_string())
            .collect()
    };
    assert_eq!(
        paths(find_in(&idx, &a, &rules, ask(Some(0b10), None))),
        ["v2/deploy.mdx"]
    );
    assert_eq!(counting.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    let every = find_in(&idx, &a, &rules, ask(None, Some(&[1.0])));
    assert_eq!(paths(every).len(), 2);
    assert_eq!(counting.0.load(std::sync::atomic::Ordering::Relaxed), 1);
}
