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

/// When the request's work must be done: [`REQUEST_BUDGET`] after it
/// arrived, or [`DEADLINE_MARGIN`] before the Lambda invocation's own
/// deadline if that comes first. Work not started by then is not started
/// (a batch's later calls); a model call gets what is left.
#[derive(Clone, Copy, Debug)]
pub struct Deadline(pub Instant);

/// A request's whole budget: 8 s of the function's 10 s timeout
/// (template.yaml), so that an answer whose model ran out of time still
/// goes out, as its extractive fallback, with time to spare for writing
/// and sending it.
pub const REQUEST_BUDGET: std::time::Duration = std::time::Duration::from_secs(8);

/// Kept free before the invocation's deadline (a function configured with
/// a shorter timeout than the template's).
pub const DEADLINE_MARGIN: std::time::Duration = std::time::Duration::from_millis(1_500);

/// The deadline of a request that arrived at `started` with `remaining`
/// of its invocation left (`None`: no Lambda context, as in tests).
pub fn deadline_of(started: Instant, remaining: Option<std::time::Duration>) -> Deadline {
    let budget = match remaining {
        Some(r) => REQUEST_BUDGET.min(r.saturating_sub(DEADLINE_MARGIN)),
        None => REQUEST_BUDGET,
    };
    Deadline(started + budget)
}

/// The request's deadline (the budget from now, for a request the
/// layers did not see).
pub fn deadline(parts: &lambda_http::http::request::Parts) -> Instant {
    parts
        .extensions
        .get::<Deadline>()
        .map_or_else(|| Instant::now() + REQUEST_BUDGET, |d| d.0)
}

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
