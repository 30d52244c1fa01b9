//! A missing, corrupted, truncated or wrong-version index fails the cold
//! start with a message that says what to run, whether it comes from a real
//! S3-protocol server (moto on loopback) or a file. The real `ask` binary is
//! run; the index is read before the runtime loop, so it exits.

mod support;

use std::process::Command;

use support::{docs, moto};

fn cold_start(env: &[(&str, String)]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ask"))
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env("ASK_ENABLED", "true")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout),
    )
}

#[test]
fn bad_indexes_in_s3_fail_the_cold_start_with_what_to_run() {
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-cold");
    let good = docs::docs_index_bytes();
    let mut corrupt = good.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x55;
    let truncated = good[..good.len() / 2].to_vec();
    let mut old = good.clone();
    old[8] = 0; // format version 0
    s3.put("ask-cold", "corrupt.idx", &corrupt);
    s3.put("ask-cold", "truncated.idx", &truncated);
    s3.put("ask-cold", "old.idx", &old);
    s3.put(
        "ask-cold",
        "notindex.idx",
        b"<html>not an index</html>, long enough to hold a header",
    );
    for (key, expect) in [
        (
            "missing.idx",
            "build-index --upload s3://ask-cold/missing.idx",
        ),
        ("corrupt.idx", "checksum mismatch"),
        ("truncated.idx", "truncated"),
        ("old.idx", "format version 0"),
        ("notindex.idx", "bad magic"),
    ] {
        let mut env = s3.env();
        env.push(("ASK_INDEX", format!("s3://ask-cold/{key}")));
        let (ok, out) = cold_start(&env);
        assert!(!ok, "{key}: cold start should fail");
        assert!(out.contains(expect), "{key}: {out}");
        assert!(
            out.contains("build-index"),
            "{key}: the message should say what to run: {out}"
        );
    }
}

#[test]
fn a_missing_file_or_unset_index_fails_the_cold_start() {
    let (ok, out) = cold_start(&[("ASK_INDEX", "/nonexistent/ask.idx".into())]);
    assert!(!ok);
    assert!(
        out.contains("build-index --out /nonexistent/ask.idx"),
        "{out}"
    );
    let (ok, out) = cold_start(&[("ASK_INDEX", String::new())]);
    assert!(!ok);
    assert!(out.contains("ASK_INDEX is not set"), "{out}");
}
