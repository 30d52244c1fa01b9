//! The real `build-index` binary on the shared corpora: every corpus builds,
//! relevance gates (SciFact nDCG@10, golden questions recall@5), the S3 upload
//! against a real S3-protocol server on loopback, and the CLI's edges.

#[path = "../../../tests/support/mod.rs"]
mod support;

mod build;
mod golden;
mod hybrid;
mod relevance;
mod report;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_build-index"));
    // Run where a config file can't leak in from the developer's checkout.
    c.current_dir(std::env::temp_dir());
    c
}

/// The shared corpora (`$ASK_CORPORA`, or `../shared/corpora` beside the
/// repository). Each test that reads them first checks that those it needs
/// are there with `needs`.
pub(crate) fn corpora() -> PathBuf {
    support::docs::corpora_root()
}

/// Whether the shared corpora `names` are all there; when one is not, the
/// test is skipped, said out loud (or fails, under `ASK_REQUIRE_CORPORA`).
pub(crate) fn needs(test: &str, names: &[&str]) -> bool {
    support::docs::shared_corpora(test, names).is_some()
}

pub(crate) const MDX_CORPORA: [&str; 4] = ["fumadocs", "shadcn-ui", "prefect", "aws-amplify"];

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh directory for one test's files, removed when the test ends
/// (they run to tens of MB: aws-amplify's index three times over).
pub(crate) fn tmp(name: &str) -> TmpDir {
    let d = std::env::temp_dir().join(format!("build-index-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TmpDir(d)
}

pub(crate) struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run build-index");
    assert!(
        out.status.success(),
        "build-index failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub(crate) fn build_mdx(corpus: &Path, out: &Path) -> Output {
    run(bin()
        .arg("--corpus")
        .arg(corpus)
        .args(["--base-url", "https://docs.example.com", "--no-model"])
        .arg("--out")
        .arg(out))
}

/// The pinned sentence model's folder, or `None` to skip (said out loud;
/// a failure under `ASK_REQUIRE_CORPORA`, as CI runs).
pub(crate) fn model(test: &str) -> Option<PathBuf> {
    support::docs::model_dir(test)
}

pub(crate) fn search(index: &Path, top_k: usize, input: &str) -> Vec<serde_json::Value> {
    search_with(index, top_k, input, &[])
}

pub(crate) fn search_with(
    index: &Path,
    top_k: usize,
    input: &str,
    args: &[&str],
) -> Vec<serde_json::Value> {
    let mut child = bin()
        .args(["search", "--top-k", &top_k.to_string(), "--index"])
        .arg(index)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("queries/s"));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
