//! Floods through the whole handler: a million distinct addresses (IPv4 and
//! IPv6) keep the limiter within its cap, and many threads asking at once
//! from one address never get more than its bucket.

mod support;
#[path = "support/state.rs"]
mod test_state;

use lambda_http::Request;
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::Value;
use support::docs::{docs_index, repo};
use support::process::rss_kib;

fn state(extra: &[(&str, &str)]) -> State {
    test_state::state(docs_index(), extra)
}

/// `GET /sites` (a cheap route that costs a token) from `ip`.
fn sites_from(template: &Value, ip: &str) -> Request {
    let mut v = template.clone();
    v["rawPath"] = Value::from("/sites");
    v["requestContext"]["http"]["path"] = Value::from("/sites");
    v["requestContext"]["http"]["sourceIp"] = Value::from(ip);
    nlweb_ask::event::request_from_str(&v.to_string()).unwrap()
}

fn template() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap(),
    )
    .unwrap()
}

#[test]
fn a_million_distinct_addresses_stay_within_the_limiters_cap() {
    let cap = 100_000usize;
    let s = state(&[]);
    let t = template();
    // Warm up: the index, the first buckets, allocator pools.
    for i in 0..1000u32 {
        respond(
            &s,
            &sites_from(&t, &format!("10.9.{}.{}", i / 256, i % 256)),
        );
    }
    let before = rss_kib();
    let mut max_tracked = 0;
    for i in 0..1_000_000u32 {
        let ip = if i % 2 == 0 {
            std::net::Ipv4Addr::from(0x0b00_0000 + i).to_string()
        } else {
            // Distinct /64s: the limiter keys IPv6 by prefix.
            format!("2001:db8:{:x}:{:x}::1", i >> 16, i & 0xffff)
        };
        let r = respond(&s, &sites_from(&t, &ip));
        assert_eq!(r.status(), 200, "{ip}");
        if i % 10_000 == 0 {
            max_tracked = max_tracked.max(s.limiter.lock().unwrap().tracked());
        }
    }
    let tracked = s.limiter.lock().unwrap().tracked();
    let after = rss_kib();
    eprintln!(
        "flood: 1,000,000 addresses (v4 and v6); buckets tracked at most {max_tracked}, at the end {tracked} (cap {cap}); RSS {before} KiB before, {after} KiB after ({:+} KiB)",
        after as i64 - before as i64
    );
    assert!(
        max_tracked <= cap && tracked <= cap,
        "{max_tracked} {tracked}"
    );
    // Two generations of 50,000 buckets are a few MiB; a leak of a bucket
    // per address would be tens of MiB.
    assert!(
        after.saturating_sub(before) < 32 * 1024,
        "RSS grew {} KiB",
        after - before
    );
}

#[test]
fn concurrent_requests_from_one_address_never_exceed_its_bucket() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "20")]);
    let t = template();
    let allowed = std::sync::atomic::AtomicUsize::new(0);
    let limited = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..16 {
            scope.spawn(|| {
                for _ in 0..50 {
                    let r = respond(&s, &sites_from(&t, "203.0.113.200"));
                    match r.status().as_u16() {
                        200 => allowed.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                        429 => limited.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                        other => panic!("status {other}"),
                    };
                }
            });
        }
    });
    // The clock stands still: no refill, exactly the bucket goes through.
    assert_eq!(allowed.into_inner(), 20);
    assert_eq!(limited.into_inner(), 16 * 50 - 20);
}
