//! A missing, corrupted, truncated or wrong-version index fails the cold
//! start with a message that says what to run, whether it comes from a real
//! S3-protocol server (moto on loopback) or a file. The real `ask` binary is
//! run; the index is read before the runtime loop, so it exits.

mod support;
// Only this test binary runs the proxy (build-index's tests share
// tests/support without socket2).
#[path = "support/faults.rs"]
mod faults;

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
    // A real index of the previous format (text raw, 8-byte postings).
    let v3 = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/index-v3.idx"
    ))
    .unwrap();
    s3.put("ask-cold", "v3.idx", &v3);
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
        (
            "v3.idx",
            "format version 3, this build reads versions 4 to 6; rebuild it with this release's `build-index` (`build-index --corpus DOCS --out PATH`",
        ),
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

/// S3 faults at cold start, through a fault-injecting proxy in front of
/// moto: each ends in a loaded index or an error naming the cause, well
/// inside Lambda's 10-second init limit.
#[test]
fn s3_faults_at_cold_start_end_fast_with_a_named_cause() {
    use faults::Fault;
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-faults");
    let bytes = docs::docs_index_bytes();
    s3.put("ask-faults", "docs.idx", &bytes);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused_port = closed.local_addr().unwrap().port();
    drop(closed);
    let mut table =
        String::from("| fault | outcome | seconds | connections |\n|---|---|---|---|\n");
    for (name, fault, loads, says) in [
        ("none", Some(Fault::None), true, "index loaded"),
        (
            "connection refused",
            None,
            false,
            "cannot fetch index s3://ask-faults/docs.idx",
        ),
        (
            "reset mid-body",
            Some(Fault::ResetAfter(4096)),
            false,
            "cannot fetch index s3://ask-faults/docs.idx",
        ),
        (
            "stall (no bytes)",
            Some(Fault::Stall),
            false,
            "cannot fetch index",
        ),
        (
            "503 SlowDown twice, then success",
            Some(Fault::SlowDownFirst(2)),
            true,
            "index loaded",
        ),
        (
            "403 wrong credentials",
            Some(Fault::Forbidden),
            false,
            "InvalidAccessKeyId",
        ),
    ] {
        let (port, proxy) = match fault {
            Some(f) => {
                let p = faults::start(s3.port, f);
                (p.port, Some(p))
            }
            None => (refused_port, None),
        };
        let mut env = s3.env();
        env.retain(|(k, _)| *k != "AWS_ENDPOINT_URL_S3");
        env.push(("AWS_ENDPOINT_URL_S3", format!("http://127.0.0.1:{port}")));
        env.push(("ASK_INDEX", "s3://ask-faults/docs.idx".into()));
        let started = std::time::Instant::now();
        let (_, out) = cold_start(&env);
        let secs = started.elapsed().as_secs_f64();
        let loaded = out.contains("index loaded");
        let connections = proxy
            .map(|p| p.connections.load(std::sync::atomic::Ordering::SeqCst))
            .unwrap_or(0);
        let outcome = if loaded {
            "index loaded".to_string()
        } else {
            out.lines()
                .find(|l| l.contains("cannot fetch"))
                .unwrap_or("")
                .trim()
                .chars()
                .take(160)
                .collect()
        };
        table.push_str(&format!(
            "| {name} | {outcome} | {secs:.2} | {connections} |\n"
        ));
        assert_eq!(loaded, loads, "{name}: {out}");
        assert!(out.contains(says), "{name}: {out}");
        if !loads {
            assert!(out.contains("build-index --upload"), "{name}: {out}");
        }
        assert!(secs < 9.0, "{name}: {secs:.2} s");
    }
    eprintln!("{table}");
}

/// An index larger than a part comes in ranged GETs, several at once, put
/// together in order: it loads, and a flipped byte in a middle part is
/// still caught by the checksum.
#[test]
fn a_large_index_is_fetched_in_parallel_parts() {
    use faults::Fault;
    let s3 = moto::Moto::start();
    s3.create_bucket("ask-parts");
    let bytes = docs::docs_index_bytes();
    let part = 16_384;
    assert!(bytes.len() > 4 * part && !bytes.len().is_multiple_of(part));
    s3.put("ask-parts", "docs.idx", &bytes);
    let mut corrupt = bytes.clone();
    corrupt[2 * part + 17] ^= 0x55;
    s3.put("ask-parts", "corrupt.idx", &corrupt);
    for (key, expect) in [
        ("docs.idx", format!("bytes={}", bytes.len())),
        ("corrupt.idx", "checksum mismatch".to_string()),
    ] {
        let proxy = faults::start(s3.port, Fault::None);
        let mut env = s3.env();
        env.retain(|(k, _)| *k != "AWS_ENDPOINT_URL_S3");
        env.push((
            "AWS_ENDPOINT_URL_S3",
            format!("http://127.0.0.1:{}", proxy.port),
        ));
        env.push(("ASK_INDEX", format!("s3://ask-parts/{key}")));
        env.push(("ASK_S3_PART_BYTES", part.to_string()));
        let (_, out) = cold_start(&env);
        assert!(out.contains(&expect), "{key}: {out}");
        let connections = proxy.connections.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            connections >= 2,
            "{key}: the parts came over {connections} connection(s), not in parallel"
        );
    }
}
