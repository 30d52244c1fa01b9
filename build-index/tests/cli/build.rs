//! Building: every shared corpus, fragments, bad files, config, the S3 upload, the same bytes.

use ask_index::Analyzer;

use crate::support::moto;
use crate::{MDX_CORPORA, bin, build_mdx, corpora, needs, repo, run, search, tmp};

#[test]
fn builds_every_shared_mdx_corpus_without_skipping_a_file() {
    if !needs(
        "builds_every_shared_mdx_corpus_without_skipping_a_file",
        &MDX_CORPORA,
    ) {
        return;
    }
    let dir = tmp("corpora");
    // (corpus, at least this many pages)
    for (name, min_pages) in [
        ("fumadocs", 150),
        ("shadcn-ui", 300),
        ("prefect", 940),
        ("aws-amplify", 960),
    ] {
        let out = dir.join(format!("{name}.idx"));
        let o = build_mdx(&corpora().join(name), &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("warning"), "{name}: {stderr}");
        let summary = String::from_utf8_lossy(&o.stdout);
        assert!(
            summary.starts_with("built ") && summary.contains("build id"),
            "{summary}"
        );
        let idx = ask_index::decode(&std::fs::read(&out).unwrap()).unwrap();
        assert!(
            idx.page_count() >= min_pages,
            "{name}: {} pages",
            idx.page_count()
        );
        assert!(idx.section_count() > idx.page_count(), "{name}");
        assert_eq!(idx.meta.docs_base_url, "https://docs.example.com");
    }
}

#[test]
fn amplify_pages_carry_their_imported_fragments() {
    if !needs(
        "amplify_pages_carry_their_imported_fragments",
        &["aws-amplify"],
    ) {
        return;
    }
    let dir = tmp("amplify");
    let out = dir.join("a.idx");
    build_mdx(&corpora().join("aws-amplify"), &out);
    let idx = ask_index::decode(&std::fs::read(&out).unwrap()).unwrap();
    let mut hub = None;
    for s in 0..idx.section_count() as u32 {
        let sec = idx.section(s);
        let page = idx.page(sec.page);
        assert!(
            !page.path.starts_with("fragments/"),
            "fragment indexed as a page: {}",
            page.path
        );
        if page.path == "pages/gen1/[platform]/build-a-backend/utilities/hub/index.mdx" {
            hub.get_or_insert_with(String::new).push_str(&sec.text);
        }
    }
    let hub = hub.expect("hub page indexed");
    // From fragments/lib/utilities/android/hub/10_listen_start.mdx, two imports deep.
    assert!(hub.contains("HubEventFilter"), "{hub}");
    // The page's route keeps [platform] as a folder name.
    let a = Analyzer::new();
    let hits = ask_index::search::retrieve(&idx, &a, "HubEventFilter subscribe", &[], 3);
    let url = ask_index::search::section_url(&idx, hits[0].section);
    assert!(
        url.contains("/%5Bplatform%5D/build-a-backend/utilities/hub"),
        "{url}"
    );
}

#[test]
fn malformed_file_is_reported_with_path_and_line_and_skipped() {
    let dir = tmp("malformed");
    let docs = dir.join("docs");
    std::fs::create_dir_all(docs.join("(guides)")).unwrap();
    std::fs::write(
        docs.join("(guides)/good.mdx"),
        "---\ntitle: Good\n---\n\n## Part\n\nHello there.\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("bad.mdx"),
        "---\ntitle: Bad\n\n## never closed frontmatter\n",
    )
    .unwrap();
    let out = dir.join("i.idx");
    let o = build_mdx(&docs, &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("bad.mdx:1:") && stderr.contains("skipped"),
        "{stderr}"
    );
    let idx = ask_index::decode(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(idx.page_count(), 1);
    assert_eq!(idx.page(0).route, "/good");
    let hits = search(&out, 3, "hello\n");
    assert_eq!(hits[0]["query_id"], 1);
    assert_eq!(
        hits[0]["hits"][0]["url"],
        "https://docs.example.com/good#part"
    );
    assert_eq!(hits[0]["hits"][0]["id"], "(guides)/good.mdx");
}

#[test]
fn sites_are_counted_searched_alone_and_a_glob_that_matches_nothing_fails() {
    let dir = tmp("sites");
    let docs = dir.join("docs");
    std::fs::create_dir_all(docs.join("v1")).unwrap();
    std::fs::write(
        docs.join("start.mdx"),
        "---\ntitle: Start\nplatforms: [web, ios]\n---\n\nInstall the tool.\n",
    )
    .unwrap();
    std::fs::write(docs.join("v1/start.mdx"), "export const meta = { title: 'Old start', platforms: ['web'] };\n\nInstall the old tool.\n").unwrap();
    let settings = |v2: &str| {
        format!(
            "ask:\n  corpus_path: {}\n  docs_base_url: https://x.dev\n  sites:\n    - name: v2\n      paths: [\"{v2}\"]\n      default: true\n    - name: v1\n      paths: [\"v1/**\"]\n    - name: ios\n      meta: {{platforms: ios}}\n",
            docs.display()
        )
    };
    let cfg = dir.join("cfg.yaml");
    std::fs::write(&cfg, settings("!v1/**")).unwrap();
    let out = dir.join("s.idx");
    let o = run(bin().arg("--config").arg(&cfg).arg("--out").arg(&out));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("sites (pages each): v2 1, v1 1, ios 1; in no site: 0"),
        "{stdout}"
    );
    let idx = ask_index::decode(&std::fs::read(&out).unwrap()).unwrap();
    // start.mdx is in two sites: v2 by its path, ios by its frontmatter.
    let sites: Vec<(&str, u32)> = (0..2)
        .map(|p| (idx.page(p).path, idx.page_sites(p)))
        .collect();
    assert_eq!(sites, [("start.mdx", 0b101), ("v1/start.mdx", 0b010)]);
    let found = crate::search_with(&out, 5, "install\n", &["--site", "v1"]);
    let hits = found[0]["hits"].as_array().unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| h["id"] == "v1/start.mdx"),
        "{found:?}"
    );
    let line = crate::search(
        &out,
        5,
        "{\"_id\":1,\"text\":\"install\",\"site\":\"ios\"}\n",
    );
    assert!(
        line[0]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] == "start.mdx")
    );

    std::fs::write(&cfg, settings("v2/**")).unwrap();
    let o = bin()
        .arg("--config")
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the glob \"v2/**\" matches no page of the corpus"),
        "{err}"
    );
}

#[test]
fn notices_disabled_config_and_needs_a_destination() {
    let dir = tmp("config");
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("a.mdx"), "# A\n\ntext\n").unwrap();
    let cfg = dir.join("cfg.yaml");
    std::fs::write(
        &cfg,
        format!(
            "ask:\n  enabled: false\n  corpus_path: {}\n  docs_base_url: https://x.dev/docs/\n",
            docs.display()
        ),
    )
    .unwrap();
    let out = dir.join("a.idx");
    let o = run(bin().arg("--config").arg(&cfg).arg("--out").arg(&out));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ask.enabled is false"));
    let idx = ask_index::decode(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(idx.meta.docs_base_url, "https://x.dev/docs");

    let o = bin().arg("--config").arg(&cfg).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--out") && err.lines().count() == 1, "{err}");

    let o = bin()
        .args(["search", "--index"])
        .arg(dir.join("missing.idx"))
        .output()
        .unwrap();
    assert!(!o.status.success());
}

#[test]
fn uploads_to_a_real_s3_server_and_reads_it_back() {
    if !needs(
        "uploads_to_a_real_s3_server_and_reads_it_back",
        &["fumadocs"],
    ) {
        return;
    }
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-index-test");
    let dir = tmp("s3");
    let out = dir.join("local.idx");
    let o = run(bin()
        .arg("--corpus")
        .arg(corpora().join("fumadocs"))
        .arg("--out")
        .arg(&out)
        .args(["--upload", "s3://ask-index-test/v1/index.idx"])
        .envs(s3.env()));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("read back: size and crc32"), "{stderr}");
    let remote = s3.get("ask-index-test", "v1/index.idx");
    let local = std::fs::read(&out).unwrap();
    assert_eq!(remote, local);
    assert!(ask_index::decode(&remote).is_ok());

    // A bucket that does not exist fails with one clear line and exit 1.
    let o = bin()
        .arg("--corpus")
        .arg(corpora().join("fumadocs"))
        .args(["--upload", "s3://no-such-bucket-here/x.idx"])
        .envs(s3.env())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("uploading to s3://no-such-bucket-here/x.idx")
    );
}

/// Parsing and analysis run on every core (rayon); the index must be the
/// same bytes with one thread, two, or more than the machine has.
#[test]
fn the_index_is_the_same_bytes_whatever_the_thread_count() {
    if !needs(
        "the_index_is_the_same_bytes_whatever_the_thread_count",
        &["aws-amplify"],
    ) {
        return;
    }
    let dir = tmp("threads");
    let build = |threads: &str| {
        let out = dir.join(format!("{threads}.idx"));
        run(bin()
            .env("RAYON_NUM_THREADS", threads)
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .arg("--corpus")
            .arg(corpora().join("aws-amplify"))
            .arg("--out")
            .arg(&out));
        std::fs::read(&out).unwrap()
    };
    let one = build("1");
    assert!(one.len() > 3_000_000);
    for threads in ["2", "5"] {
        assert!(build(threads) == one, "{threads} threads built other bytes");
    }
}

#[test]
fn rebuilding_the_compat_corpus_reproduces_the_committed_index() {
    let dir = tmp("compat");
    let out = dir.join("i.idx");
    run(bin()
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .arg("--config")
        .arg(repo().join("tests/data/compat-settings.yaml"))
        .arg("--corpus")
        .arg(repo().join("tests/data/compat-docs"))
        .args([
            "--base-url",
            "https://docs.example.com",
            "--no-model",
            "--out",
        ])
        .arg(&out));
    let committed = std::fs::read(repo().join("tests/data/index-v6.idx")).unwrap();
    assert!(
        std::fs::read(&out).unwrap() == committed,
        "the index of tests/data/compat-docs changed: bump FORMAT_VERSION or ANALYZER_ID and regenerate (tests/data/README.md)"
    );
}

#[test]
fn writes_the_llms_txt_of_the_index_it_builds() {
    let dir = tmp("llms");
    let (idx, txt) = (dir.join("docs.idx"), dir.join("llms.txt"));
    run(bin()
        .arg("--corpus")
        .arg(repo().join("docs/content/docs"))
        .args(["--base-url", "https://docs.example.com"])
        .arg("--out")
        .arg(&idx)
        .arg("--llms-txt")
        .arg(&txt)
        .args(["--api-base-url", "https://api.example.com/prod"]));
    let written = std::fs::read_to_string(&txt).unwrap();
    // The text the Lambda would serve from the same index file.
    let index = ask_index::decode(&std::fs::read(&idx).unwrap()).unwrap();
    let served = ask_index::llms::llms_txt(
        &index,
        "https://docs.example.com",
        "https://api.example.com/prod",
    );
    assert_eq!(written, served);
    assert!(written.starts_with("# nlweb-ask\n\n> "), "{written}");
    assert_eq!(
        written.lines().filter(|l| l.starts_with("- [")).count(),
        index.meta.pages as usize + 8
    );
    assert!(written.contains("(https://api.example.com/prod/mcp)"));
    assert!(written.contains("(https://api.example.com/prod/ask/feedback)"));
    assert!(written.contains("(https://api.example.com/prod/mcp/server-card)"));
}

#[test]
fn a_model_file_with_another_sha256_fails_the_build_naming_it() {
    let dir = tmp("wrong-model");
    let model = dir.join("model");
    std::fs::create_dir_all(&model).unwrap();
    for name in ["model.safetensors", "tokenizer.json", "config.json"] {
        std::fs::write(model.join(name), b"not the pinned file").unwrap();
    }
    let out = bin()
        .arg("--corpus")
        .arg(repo().join("tests/data/compat-docs"))
        .arg("--model")
        .arg(&model)
        .arg("--no-embed-cache")
        .arg("--out")
        .arg(dir.join("i.idx"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("model.safetensors has sha256")
            && err.contains("53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
            && err.contains("scripts/model.sh"),
        "{err}"
    );
    assert!(!dir.join("i.idx").exists());
}
