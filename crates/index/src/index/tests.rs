//! The unit tests of the index: building a small sample and searching it.

use super::*;
use crate::build::{build, rfc3339};

pub(crate) fn sample_pages() -> Vec<PageInput> {
    let sec = |h: &str, a: &str, l: u8, t: &str| SectionInput {
        heading: h.into(),
        anchor: a.into(),
        level: l,
        text: t.into(),
    };
    vec![
        PageInput {
            path: "rate-limits.mdx".into(),
            route: "/rate-limits".into(),
            title: "Rate limits".into(),
            description: "How requests are limited per client".into(),
            sections: vec![
                sec("Rate limits", "", 0, "Each client IP gets a token bucket."),
                sec(
                    "Configure the limit",
                    "configure-the-limit",
                    2,
                    "Set rate_limit_per_minute in common/global_config.yaml.",
                ),
            ],
            ..PageInput::default()
        },
        PageInput {
            path: "deploy.mdx".into(),
            route: "/deploy".into(),
            title: "Deploy with SAM".into(),
            description: String::new(),
            sections: vec![sec(
                "Deploy with SAM",
                "",
                0,
                "Run sam deploy --guided to create the stack.",
            )],
            ..PageInput::default()
        },
    ]
}

pub(crate) fn opts() -> BuildOptions {
    BuildOptions {
        docs_base_url: "https://docs.example.com".into(),
        weights: Weights::DOCS,
        source: "mdx".into(),
        corpus_fingerprint: "abc".into(),
        built_at_unix: 1_700_000_000,
        settings: String::new(),
        sites: Vec::new(),
    }
}

#[test]
fn builds_and_searches() {
    let a = Analyzer::new();
    let idx = build(&sample_pages(), &opts(), &a).unwrap();
    assert_eq!(idx.page_count(), 2);
    assert_eq!(idx.section_count(), 3);
    let hits = idx.search(&a, "how do I configure the rate limit?", 3);
    assert_eq!(hits[0].section, 1, "{hits:?}");
    let s = idx.section(hits[0].section);
    assert_eq!(s.anchor, "configure-the-limit");
    assert_eq!(idx.page(s.page).route, "/rate-limits");
    let hits = idx.search(&a, "sam deploy", 3);
    assert_eq!(
        idx.page(idx.section(hits[0].section).page).path,
        "deploy.mdx"
    );
    assert!(idx.search(&a, "zzqxv", 3).is_empty());
    assert!(idx.search(&a, "the", 3).is_empty());
    idx.data.validate(&idx.meta).unwrap();
}

#[test]
fn rfc3339_formats() {
    assert_eq!(rfc3339(0).unwrap(), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(1_700_000_000).unwrap(), "2023-11-14T22:13:20Z");
    assert_eq!(rfc3339(951_782_400).unwrap(), "2000-02-29T00:00:00Z");
    assert!(rfc3339(u64::MAX).is_err());
}

#[test]
fn stored_impacts_are_within_half_a_step() {
    for i in 0..=22_000 {
        let x = i as f32 * (K1 + 1.0) / 22_000.0;
        let q = quantize(x);
        assert!(q >= 1);
        let err = (dequantize(q) - x).abs();
        assert!(err <= IMPACT_STEP / 2.0 + 1e-6 || x < IMPACT_STEP, "{x}");
    }
}

#[test]
fn idf_is_positive_and_decreasing() {
    assert!(idf(10, 10) > 0.0);
    assert!(idf(10, 1) > idf(10, 5));
}
