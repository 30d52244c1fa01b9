//! What the layers tell a route about its request, as request extensions:
//! when it arrived and whether it is the environment's first, the caller's bucket (for work that costs more than the
//! one token the rate limit took), and the validator of a GET answer.

use std::time::Instant;

use crate::protocol::Failure;
use crate::rate_limit::ClientKey;
use crate::state::State;

/// When the request arrived (the timing layer's clock).
#[derive(Clone, Copy, Debug)]
pub struct Started(pub Instant);

/// The request is the first this Lambda environment serves (its cold
/// start's), for the analytics lines.
#[derive(Clone, Copy, Debug)]
pub struct ColdStart(pub bool);

/// When the request arrived (now, for a request the layers did not see).
pub fn started(parts: &lambda_http::http::request::Parts) -> Instant {
    parts
        .extensions
        .get::<Started>()
        .map_or_else(Instant::now, |s| s.0)
}

/// Whether the request is its environment's first.
pub fn cold_start(parts: &lambda_http::http::request::Parts) -> bool {
    parts.extensions.get::<ColdStart>().is_some_and(|c| c.0)
}

/// The strong validator the revalidation layer computed for a GET answer
/// (its `ETag`; a generated `query_id` comes from it too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validator(pub u64);

/// The bucket the rate limit charged: the address's, or an authenticated
/// caller's own.
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    /// Whose bucket.
    pub key: ClientKey,
    /// An authenticated subject's bucket (`ask.auth_rate_limit_per_minute`).
    pub subject: bool,
}

impl Meter {
    /// The policy's name in `RateLimit` and `RateLimit-Policy`.
    pub fn policy(&self) -> &'static str {
        if self.subject { "subject" } else { "default" }
    }

    /// The limiter that holds this bucket.
    pub fn limiter<'a>(
        &self,
        state: &'a State,
    ) -> &'a std::sync::Mutex<crate::rate_limit::RateLimiter> {
        if self.subject {
            &state.auth_limiter
        } else {
            &state.limiter
        }
    }

    /// Spends `extra` more tokens (the request has spent one already), all
    /// or none: `Err` with the failure when fewer are left, or when the
    /// work costs more than a whole bucket holds.
    pub fn spend(&self, state: &State, extra: u32) -> Result<(), Failure> {
        if extra == 0 {
            return Ok(());
        }
        let decision = {
            let mut l = self
                .limiter(state)
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if u64::from(extra) + 1 > u64::from(l.quota()) {
                return Err(Failure::InvalidRequest(format!(
                    "this batch costs {} tokens, more than the {} a minute this endpoint allows: send fewer requests a batch",
                    extra + 1,
                    l.quota()
                )));
            }
            l.check_n(self.key, (state.clock)(), extra)
        };
        if decision.allowed {
            Ok(())
        } else {
            Err(Failure::RateLimited {
                retry_after_secs: decision.retry_after_secs,
            })
        }
    }
}
