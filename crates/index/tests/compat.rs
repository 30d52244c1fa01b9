//! The committed `tests/data/index-v2.idx` must keep opening: a change to
//! the format is a conscious `FORMAT_VERSION` bump (see tests/data/README.md).
//! So must `index-v2-interleaved.idx`, the same index as built before the
//! stored text was laid out labels first: indexes already deployed.

use ask_index::{Analyzer, FORMAT_VERSION, decode, search};

#[test]
fn opens_the_committed_v2_indexes() {
    for name in ["index-v2.idx", "index-v2-interleaved.idx"] {
        opens(name);
    }
}

fn opens(name: &str) {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).expect("the index is committed");
    assert_eq!(&bytes[..8], b"NLWASKIX");
    assert_eq!(
        FORMAT_VERSION, 2,
        "a new version needs a new committed index"
    );
    let idx = decode(&bytes).expect("v2 index decodes");
    assert_eq!(idx.meta.pages, 2);
    assert_eq!(idx.meta.sections, 4);
    assert_eq!(idx.meta.built_at, "2026-01-01T00:00:00Z");
    assert_eq!(idx.meta.docs_base_url, "https://docs.example.com");
    let a = Analyzer::new();
    let hits = search::retrieve(&idx, &a, "token bucket", &[], 2);
    assert_eq!(
        search::section_url(&idx, hits[0].section),
        "https://docs.example.com/#limits"
    );
    // Its typo vocabulary: "bukcet" is searched as "bucket".
    let (hits, searched) =
        search::retrieve_corrected(&idx, &a, "token bukcet", &[], 2, &Default::default());
    assert_eq!(searched.query, "token bucket");
    assert_eq!(
        search::section_url(&idx, hits[0].section),
        "https://docs.example.com/#limits"
    );
    let hits = search::retrieve(&idx, &a, "deploy.sh sam", &[], 2);
    assert_eq!(
        idx.page(idx.section(hits[0].section).page).path,
        "guides/deploy.mdx"
    );
}
