//! Embeds N questions with the packed model in a folder, and nothing else:
//! what benches/arm64_estimate.sh counts the instructions of, on arm64 and
//! x86-64 under qemu (the difference between N and 0 questions is the
//! questions' share).
//! `questions MODEL_DIR N`
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("the packed model's folder");
    let n: usize = args
        .next()
        .expect("how many questions")
        .parse()
        .expect("a number");
    let e = ask_embed::Embedder::load_checked(dir.as_ref(), false).unwrap();
    let qs = [
        "how do I kill a run that goes on too long",
        "a dropdown where I can type to filter the options",
        "dark mode toggle",
        "where do I keep a third-party API key that my backend function needs",
    ];
    let mut sum = 0.0f32;
    for i in 0..n {
        let v = e
            .embed_one(qs[i % qs.len()], ask_embed::QUERY_TOKENS)
            .unwrap();
        sum += v[0];
    }
    println!("{n} questions ({sum:.3})");
}
