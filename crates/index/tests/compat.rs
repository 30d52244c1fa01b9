//! The committed `tests/data/index-v6.idx` must keep opening: a change to
//! the format is a conscious `FORMAT_VERSION` bump (see tests/data/README.md).
//! So must the version 5 files of the same corpus (`index-v5.idx`, and
//! `index-v5-vectors.idx` with sentence vectors; no sites) and the version 4
//! ones (the same layout, plain text where version 5 has Markdown). Version 3 indexes (text stored raw,
//! postings of 8 bytes) and version 2 ones (no vectors) are refused with a
//! message that names the command that rebuilds them.

use ask_index::{Analyzer, FORMAT_VERSION, decode, search};

fn committed(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).expect("the index is committed")
}

#[test]
fn opens_the_committed_v4_v5_and_v6_indexes() {
    let v6 = opens("index-v6.idx");
    assert_eq!(v6.site_names(), ["start", "guides"]);
    let path_sites: Vec<(&str, u32)> = (0..2)
        .map(|p| (v6.page(p).path, v6.page_sites(p)))
        .collect();
    assert_eq!(
        path_sites,
        [("guides/deploy.mdx", 0b10), ("index.mdx", 0b01)]
    );
    let a = Analyzer::new();
    let terms = vec![("deploy".to_string(), 1.0)];
    let in_start = v6.search_terms_in(&terms, 4, Some(0b01));
    assert!(
        in_start.iter().all(|h| v6.section_page(h.section) == 1),
        "{in_start:?}"
    );
    assert!(!search::retrieve(&v6, &a, "deploy", &[], 2).is_empty());
    opens("index-v4.idx");
    opens("index-v4-vectors.idx");
    opens("index-v5.idx");
    let idx = opens("index-v5-vectors.idx");
    assert_eq!(idx.vectors().len(), 4);
    assert_eq!(idx.vectors().dim(), 384);
    assert!(idx.vectors().model.starts_with("all-MiniLM-L6-v2"));
    // Each stored vector is a unit vector, nearest to itself.
    let v = idx.vectors();
    for i in 0..v.len() {
        let row: Vec<f32> = v.codes[i * 384..(i + 1) * 384]
            .iter()
            .map(|&c| f32::from(c as i8) * v.scales.get(i))
            .collect();
        assert!((v.similarity(&row, i) - 1.0).abs() < 0.02, "section {i}");
        assert_eq!(v.top(&row, 1)[0].section, i as u32);
    }
}

#[test]
fn refuses_versions_2_and_3_naming_the_command_that_rebuilds_them() {
    for (name, version) in [
        ("index-v3.idx", 3),
        ("index-v2.idx", 2),
        ("index-v2-interleaved.idx", 2),
    ] {
        let e = decode(&committed(name)).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "format version {version}, this build reads versions 4 to 6"
            )) && e.contains("`build-index --corpus DOCS --out PATH`"),
            "{e}"
        );
    }
}

fn opens(name: &str) -> ask_index::Index {
    let bytes = committed(name);
    assert_eq!(&bytes[..8], b"NLWASKIX");
    assert_eq!(
        FORMAT_VERSION, 6,
        "a new version needs a new committed index"
    );
    let idx = decode(&bytes).expect("a v4, v5 or v6 index decodes");
    assert_eq!(idx.meta.pages, 2);
    assert_eq!(idx.meta.sections, 4);
    assert_eq!(idx.meta.built_at, "2026-01-01T00:00:00Z");
    assert_eq!(idx.meta.docs_base_url, "https://docs.example.com");
    // Versions 5 and 6 carry the docs team's settings (6 with its
    // sites); version 4 none.
    match bytes[8] {
        6 => assert!(
            idx.meta.settings.starts_with(
                r#"{"docs_base_url":"https://docs.example.com","site":"compat","sites":[{"#
            ),
            "{}",
            idx.meta.settings
        ),
        5 => assert_eq!(
            idx.meta.settings,
            r#"{"docs_base_url":"https://docs.example.com","site":"compat","top_k":3}"#
        ),
        _ => assert_eq!(idx.meta.settings, ""),
    }
    if bytes[8] < 6 {
        assert!(idx.site_names().is_empty() && idx.page_sites(0) == 0);
    }
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
    idx
}
