//! Times the pinned model: converting, loading the packed form, one
//! question, sections.
//! `cargo run --release -p ask-embed --example speed -- MODEL_DIR [--portable]`
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("model dir");
    if std::env::args().any(|a| a == "--portable") {
        ask_embed::portable_kernel_only(true);
        eprintln!("portable kernel");
    }
    let t = Instant::now();
    let e = ask_embed::Embedder::load(dir.as_ref()).unwrap();
    eprintln!("load and convert, checked {:?}", t.elapsed());
    let tmp = std::env::temp_dir().join(format!("speed-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join(ask_embed::MINILM_L6.packed.name), e.packed()).unwrap();
    let t = Instant::now();
    let e = ask_embed::Embedder::load_checked(&tmp, false).unwrap();
    eprintln!("load packed {:?}", t.elapsed());
    let t = Instant::now();
    let _ = ask_embed::Embedder::load(&tmp).unwrap();
    eprintln!("load packed, checked {:?}", t.elapsed());
    std::fs::remove_dir_all(&tmp).unwrap();
    let qs = [
        "how do I kill a run that goes on too long",
        "a dropdown where I can type to filter the options",
        "dark mode toggle",
    ];
    let mut times = Vec::new();
    for _ in 0..100 {
        for q in qs {
            let t = Instant::now();
            let v = e.embed_one(q, ask_embed::QUERY_TOKENS).unwrap();
            times.push(t.elapsed());
            assert_eq!(v.len(), ask_embed::DIM);
        }
    }
    times.sort();
    eprintln!(
        "query p50 {:?} p99 {:?}",
        times[times.len() / 2],
        times[times.len() * 99 / 100]
    );
    let text = "Flow runs can be cancelled from the UI or CLI. A timeout sets the longest a run may take before it is marked failed. ".repeat(8);
    let texts: Vec<&str> = (0..64).map(|_| text.as_str()).collect();
    let t = Instant::now();
    e.embed(&texts, ask_embed::SECTION_TOKENS).unwrap();
    eprintln!("64 sections of 96 tokens {:?}", t.elapsed());
}
