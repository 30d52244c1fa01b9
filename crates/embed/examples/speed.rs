//! Times the pinned model: load, one question, a batch of sections.
//! `cargo run --release -p ask-embed --example speed -- MODEL_DIR`
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("model dir");
    parts(&dir);
    let t = Instant::now();
    let e = ask_embed::Embedder::load_checked(dir.as_ref(), false).unwrap();
    eprintln!("load {:?}", t.elapsed());
    let t = Instant::now();
    let _ = ask_embed::Embedder::load(dir.as_ref()).unwrap();
    eprintln!("load checked {:?}", t.elapsed());
    let qs = [
        "how do I kill a run that goes on too long",
        "a dropdown where I can type to filter the options",
        "dark mode toggle",
    ];
    let mut times = Vec::new();
    for _ in 0..30 {
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
    let a = e
        .embed_one("how do I kill a run that goes on too long", 64)
        .unwrap();
    let b = e
        .embed_one(
            "Timeouts: set a maximum duration for a flow run; runs that exceed it are cancelled",
            64,
        )
        .unwrap();
    let c = e
        .embed_one("Install the CLI with pip and log in to the cloud", 64)
        .unwrap();
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
    eprintln!(
        "sim related {:.3} unrelated {:.3}",
        dot(&a, &b),
        dot(&a, &c)
    );
    eprintln!("first values {:?}", &a[..4]);
    let text = "Flow runs can be cancelled from the UI or CLI. A timeout sets the longest a run may take before it is marked failed. ".repeat(8);
    let texts: Vec<&str> = (0..64).map(|_| text.as_str()).collect();
    let t = Instant::now();
    e.embed(&texts, ask_embed::SECTION_TOKENS).unwrap();
    eprintln!("64 sections of 96 tokens {:?}", t.elapsed());
}

#[allow(dead_code)]
fn parts(dir: &str) {
    use std::path::Path;
    let d = Path::new(dir);
    let t = Instant::now();
    let w = std::fs::read(d.join("model.safetensors")).unwrap();
    let tk = std::fs::read(d.join("tokenizer.json")).unwrap();
    eprintln!("read {:?}", t.elapsed());
    let t = Instant::now();
    let _tok = tokenizers::Tokenizer::from_bytes(&tk).unwrap();
    eprintln!("tokenizer {:?}", t.elapsed());
    let t = Instant::now();
    let _ = ask_embed::Embedder::from_bytes(w, &tk, &std::fs::read(d.join("config.json")).unwrap())
        .unwrap();
    eprintln!("from_bytes (incl tokenizer) {:?}", t.elapsed());
}
