//! The `query_id`s this function issues, and which ratings count.
//!
//! An id is `<issued at>.<nonce>.<mac>`: the Unix second it was issued (8
//! hex digits), 8 random bytes (16 hex digits) and an HMAC-SHA256 of both
//! under the deployment's secret, cut to 16 bytes (32 hex digits): 58
//! characters, one per answer even for the same question, that no client
//! can guess or forge. The secret is `ASK_QUERY_ID_SECRET` (the template's
//! `QueryIdSecret`, which `scripts/deploy.sh` makes); without it each
//! Lambda environment draws its own, and a rating counts only in the
//! environment that answered.
//!
//! `/ask/feedback` counts a rating of an id that verifies, issued within
//! [`RATING_WINDOW_SECS`], once per id and rating ([`Ratings`]). An id a
//! client chose is echoed in its answer and never verifies.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use aws_lc_rs::hmac;

use crate::protocol::analytics::Rating;

/// How long after its answer a rating counts: a day.
pub const RATING_WINDOW_SECS: u64 = 86_400;

/// Ratings remembered per environment (the oldest go first; `build-index
/// report` counts an id and rating once whatever environments saw it).
pub const REMEMBERED_RATINGS: usize = 20_000;

/// Bytes of HMAC an id carries.
const MAC_BYTES: usize = 16;

/// Issues and verifies ids under one secret.
pub struct QueryIds {
    key: hmac::Key,
}

/// Why a rating's id does not count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrated {
    /// Not an id this deployment issued (a client's own, a forgery, or
    /// one issued under another secret).
    NotIssued,
    /// Issued more than [`RATING_WINDOW_SECS`] ago (or in the future).
    Expired,
}

impl QueryIds {
    /// Ids under `secret` (the bytes of `ASK_QUERY_ID_SECRET`); a random
    /// secret of this process when there is none.
    pub fn new(secret: Option<&str>) -> QueryIds {
        let key = match secret.map(str::trim).filter(|s| !s.is_empty()) {
            Some(s) => hmac::Key::new(hmac::HMAC_SHA256, s.as_bytes()),
            None => {
                let rng = aws_lc_rs::rand::SystemRandom::new();
                hmac::Key::generate(hmac::HMAC_SHA256, &rng)
                    .unwrap_or_else(|_| hmac::Key::new(hmac::HMAC_SHA256, &nonce_bytes()))
            }
        };
        QueryIds { key }
    }

    /// A new id, issued at Unix second `now`.
    pub fn issue(&self, now: u64) -> String {
        let head = format!("{:08x}.{}", now as u32, hex(&nonce_bytes()));
        let mac = hmac::sign(&self.key, head.as_bytes());
        format!("{head}.{}", hex(&mac.as_ref()[..MAC_BYTES]))
    }

    /// When `id` was issued, if this deployment issued it and it is
    /// within the rating window at Unix second `now`.
    pub fn verify(&self, id: &str, now: u64) -> Result<u64, Unrated> {
        let (head, mac) = id.rsplit_once('.').ok_or(Unrated::NotIssued)?;
        let (at, nonce) = head.split_once('.').ok_or(Unrated::NotIssued)?;
        if at.len() != 8 || nonce.len() != 16 || mac.len() != 2 * MAC_BYTES {
            return Err(Unrated::NotIssued);
        }
        let mac = unhex(mac).ok_or(Unrated::NotIssued)?;
        // Constant time: the comparison aws-lc-rs makes.
        let full = hmac::sign(&self.key, head.as_bytes());
        if !constant_time_eq(&full.as_ref()[..MAC_BYTES], &mac) {
            return Err(Unrated::NotIssued);
        }
        let at = u64::from_str_radix(at, 16).map_err(|_| Unrated::NotIssued)?;
        // The id holds the low 32 bits of the second (until 2106).
        let issued = (now & !0xffff_ffff) | at;
        if issued > now + 60 || now.saturating_sub(issued) > RATING_WINDOW_SECS {
            return Err(Unrated::Expired);
        }
        Ok(issued)
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn nonce_bytes() -> [u8; 8] {
    let mut b = [0u8; 8];
    // The system's generator; should it fail, the clock's nanoseconds
    // still make ids distinct (the MAC, not the nonce, makes them
    // unforgeable).
    if aws_lc_rs::rand::fill(&mut b).is_err() {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        b = n.to_le_bytes();
    }
    b
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The Unix second now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The ratings this environment has counted: an id and rating is counted
/// once (a second `up` of one answer is not another reader's).
#[derive(Default)]
pub struct Ratings {
    seen: Mutex<Seen>,
}

/// An answer's id and a rating of it.
type Rated = (String, Rating);

/// The ratings counted, and their order (the oldest is forgotten first).
#[derive(Default)]
struct Seen {
    set: HashSet<Rated>,
    order: VecDeque<Rated>,
}

impl Ratings {
    /// Whether `id` rated `rating` is new (and now remembered).
    pub fn first(&self, id: &str, rating: Rating) -> bool {
        let mut guard = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let Seen { set, order } = &mut *guard;
        let key = (id.to_string(), rating);
        if !set.insert(key.clone()) {
            return false;
        }
        order.push_back(key);
        if order.len() > REMEMBERED_RATINGS
            && let Some(old) = order.pop_front()
        {
            set.remove(&old);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_796_000_000;

    #[test]
    fn an_issued_id_verifies_and_nothing_else_does() {
        let ids = QueryIds::new(Some("a secret"));
        let a = ids.issue(NOW);
        let b = ids.issue(NOW);
        assert_ne!(a, b, "one id per answer, even in the same second");
        assert_eq!(a.len(), 58);
        assert!(a.chars().all(crate::protocol::analytics::id_char), "{a}");
        assert_eq!(ids.verify(&a, NOW + 5), Ok(NOW));
        // Another deployment's secret, a changed character, a client's own.
        let other = QueryIds::new(Some("another secret"));
        assert_eq!(other.verify(&a, NOW), Err(Unrated::NotIssued));
        let mut forged: Vec<char> = a.chars().collect();
        forged[10] = if forged[10] == '0' { '1' } else { '0' };
        let forged: String = forged.into_iter().collect();
        assert_eq!(ids.verify(&forged, NOW), Err(Unrated::NotIssued));
        for id in ["q1", "", "00000000.0000000000000000.", "a.b.c"] {
            assert_eq!(ids.verify(id, NOW), Err(Unrated::NotIssued), "{id}");
        }
        // The window.
        assert_eq!(
            ids.verify(&a, NOW + RATING_WINDOW_SECS + 1),
            Err(Unrated::Expired)
        );
        assert_eq!(
            ids.verify(&ids.issue(NOW + 3600), NOW),
            Err(Unrated::Expired)
        );
        // The same secret in another environment verifies it.
        assert_eq!(QueryIds::new(Some("a secret")).verify(&a, NOW), Ok(NOW));
        // Without a secret, each process draws its own.
        let (x, y) = (QueryIds::new(None), QueryIds::new(Some(" ")));
        assert_eq!(y.verify(&x.issue(NOW), NOW), Err(Unrated::NotIssued));
    }

    #[test]
    fn a_rating_counts_once_per_id_and_rating() {
        let r = Ratings::default();
        assert!(r.first("a", Rating::Up));
        assert!(!r.first("a", Rating::Up));
        assert!(r.first("a", Rating::Down));
        assert!(r.first("b", Rating::Up));
    }
}
