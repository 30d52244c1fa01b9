//! May this client ask now? A token bucket per client, in memory.
//!
//! Capacity and refill come from `rate_limit_per_minute`. Clients are keyed
//! by IP (IPv6 by its /64, since one host owns a whole /64). Memory is bounded
//! by two generations of at most `max_clients / 2` buckets each: when the
//! current generation fills, it becomes the old one and the older is dropped.
//! A dropped client simply starts again with a full bucket. Time is passed
//! in, never read here.

use std::collections::HashMap;
use std::net::IpAddr;

/// The key a client is limited under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// An IPv4 address.
    V4(u32),
    /// The first 64 bits of an IPv6 address.
    V6Prefix(u64),
    /// No address in the request context (local tools).
    Unknown,
    /// An authenticated caller: a hash of its token's subject.
    Subject(u64),
}

impl ClientKey {
    /// The key of a token subject.
    pub fn from_subject(sub: &str) -> ClientKey {
        ClientKey::Subject(ask_index::index::fnv1a64(sub.as_bytes(), 0x5ab))
    }

    /// The key for an address as written in a request context.
    pub fn from_ip(ip: Option<&str>) -> ClientKey {
        match ip.and_then(|s| s.trim().parse::<IpAddr>().ok()) {
            Some(IpAddr::V4(v4)) => ClientKey::V4(u32::from(v4)),
            Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey::V4(u32::from(v4)),
                None => ClientKey::V6Prefix((u128::from(v6) >> 64) as u64),
            },
            None => ClientKey::Unknown,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    updated: f64,
}

/// The outcome of a check, with what the `RateLimit` headers report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The request may proceed.
    pub allowed: bool,
    /// Whole tokens left after this request.
    pub remaining: u32,
    /// Seconds until the bucket is full again (`t=` of `RateLimit`).
    pub reset_secs: u32,
    /// Seconds until one token is available (for `Retry-After`), when refused.
    pub retry_after_secs: u32,
}

/// Token buckets for many clients.
#[derive(Debug)]
pub struct RateLimiter {
    capacity: f64,
    per_sec: f64,
    generation_cap: usize,
    current: HashMap<ClientKey, Bucket>,
    old: HashMap<ClientKey, Bucket>,
}

impl RateLimiter {
    /// `per_minute` requests per minute per client, tracking at most
    /// `max_clients` clients.
    pub fn new(per_minute: u32, max_clients: usize) -> RateLimiter {
        let per_minute = per_minute.max(1) as f64;
        RateLimiter {
            capacity: per_minute,
            per_sec: per_minute / 60.0,
            generation_cap: (max_clients / 2).max(1),
            current: HashMap::new(),
            old: HashMap::new(),
        }
    }

    /// Requests per minute (the `q=` of `RateLimit-Policy`).
    pub fn quota(&self) -> u32 {
        self.capacity as u32
    }

    /// Clients tracked now.
    pub fn tracked(&self) -> usize {
        self.current.len() + self.old.len()
    }

    /// What `check` would say, without taking a token (for answers that
    /// cost none, such as 304).
    pub fn peek(&self, key: ClientKey, now: f64) -> Decision {
        let bucket = self
            .current
            .get(&key)
            .or_else(|| self.old.get(&key))
            .copied()
            .unwrap_or(Bucket {
                tokens: self.capacity,
                updated: now,
            });
        let elapsed = (now - bucket.updated).max(0.0);
        let tokens = (bucket.tokens + elapsed * self.per_sec).min(self.capacity);
        Decision {
            allowed: tokens >= 1.0,
            remaining: tokens.floor() as u32,
            reset_secs: ((self.capacity - tokens) / self.per_sec).ceil().max(0.0) as u32,
            retry_after_secs: 0,
        }
    }

    /// Takes a token for `key` at time `now` (seconds, any fixed origin).
    pub fn check(&mut self, key: ClientKey, now: f64) -> Decision {
        self.check_n(key, now, 1)
    }

    /// Takes `cost` tokens for `key` at once (a request that does `cost`
    /// units of work), or none when fewer are left.
    pub fn check_n(&mut self, key: ClientKey, now: f64, cost: u32) -> Decision {
        let cost = f64::from(cost.max(1));
        let bucket = match self.current.get(&key) {
            Some(b) => *b,
            None => {
                let b = self.old.remove(&key).unwrap_or(Bucket {
                    tokens: self.capacity,
                    updated: now,
                });
                if self.current.len() >= self.generation_cap {
                    self.old = std::mem::take(&mut self.current);
                }
                b
            }
        };
        let elapsed = (now - bucket.updated).max(0.0);
        let mut tokens = (bucket.tokens + elapsed * self.per_sec).min(self.capacity);
        let allowed = tokens >= cost;
        if allowed {
            tokens -= cost;
        }
        self.current.insert(
            key,
            Bucket {
                tokens,
                updated: now,
            },
        );
        let reset = ((self.capacity - tokens) / self.per_sec).ceil().max(0.0) as u32;
        let retry = if allowed {
            0
        } else {
            ((cost.min(self.capacity) - tokens) / self.per_sec)
                .ceil()
                .max(1.0) as u32
        };
        Decision {
            allowed,
            remaining: tokens.floor() as u32,
            reset_secs: reset,
            retry_after_secs: retry,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_table() {
        assert_eq!(
            ClientKey::from_ip(Some("203.0.113.7")),
            ClientKey::V4(0xcb00_7107)
        );
        assert_eq!(
            ClientKey::from_ip(Some("2001:db8:1:2:aaaa::1")),
            ClientKey::from_ip(Some("2001:db8:1:2:bbbb::9"))
        );
        assert_ne!(
            ClientKey::from_ip(Some("2001:db8:1:2::1")),
            ClientKey::from_ip(Some("2001:db8:1:3::1"))
        );
        assert_eq!(
            ClientKey::from_ip(Some("::ffff:203.0.113.7")),
            ClientKey::V4(0xcb00_7107)
        );
        assert_eq!(ClientKey::from_ip(Some("nonsense")), ClientKey::Unknown);
        assert_eq!(ClientKey::from_ip(None), ClientKey::Unknown);
    }

    #[test]
    fn per_client_bucket_and_refill() {
        let mut l = RateLimiter::new(20, 1000);
        let a = ClientKey::from_ip(Some("203.0.113.1"));
        let b = ClientKey::from_ip(Some("203.0.113.2"));
        for i in 0..20 {
            let d = l.check(a, 0.0);
            assert!(d.allowed, "request {i}");
            assert_eq!(d.remaining, 19 - i);
        }
        let d = l.check(a, 0.0);
        assert!(!d.allowed);
        assert_eq!(d.retry_after_secs, 3); // one token every 3 s
        assert!(l.check(b, 0.0).allowed, "another client is not affected");
        assert!(!l.check(a, 2.9).allowed);
        assert!(l.check(a, 3.1).allowed, "a token refilled after 3 s");
        let d = l.check(a, 1000.0);
        assert!(d.allowed);
        assert_eq!(d.remaining, 19, "refill stops at capacity");
    }

    #[test]
    fn memory_stays_bounded_under_a_flood_of_distinct_addresses() {
        let mut l = RateLimiter::new(20, 10_000);
        for i in 0..1_000_000u32 {
            let d = l.check(ClientKey::V4(i), i as f64 * 1e-6);
            assert!(d.allowed);
            assert!(l.tracked() <= 10_000);
        }
        // A client seen just now is still limited after the flood.
        let k = ClientKey::V4(999_999);
        for _ in 0..19 {
            assert!(l.check(k, 1.0).allowed);
        }
        assert!(!l.check(k, 1.0).allowed);
    }
}
