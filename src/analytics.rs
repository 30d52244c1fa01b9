//! What readers asked and whether the docs answered: one line a question
//! (`/ask`, a later page of one, MCP `tools/call`, `/who`), a rating and a
//! throttled request, written
//! to standard output (CloudWatch Logs, in Lambda) in the Embedded Metric
//! Format of `crate::protocol::analytics`. `build-index report` reads them
//! back. What is written, and what never is: docs/content/docs/analytics.mdx.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use lambda_http::http::HeaderMap;

use crate::protocol::analytics::{
    ClientKind, Envelope, EventKind, FeedbackEvent, FeedbackRequest, MAX_CLIENT_NAME_CHARS,
    QueryEvent, Rating, TOP_URLS, ThrottledEvent, id_char,
};
use crate::protocol::{Answer, AskRequest, Failure};

/// The request header a client names itself with (`widget` for the
/// `<nlweb-ask>` widget).
pub const CLIENT_HEADER: &str = "x-ask-client";

/// Lines an in-memory sink keeps (the oldest go first): a test that
/// sends thousands of requests must not see its memory grow with them.
pub const MEMORY_LINES: usize = 1000;

/// Where the lines go.
enum Sink {
    /// Standard output, a line at a time.
    Stdout,
    /// The last [`MEMORY_LINES`] kept, for tests.
    Memory(Mutex<std::collections::VecDeque<String>>),
}

/// The analytics of one Lambda environment.
pub struct Analytics {
    /// `ask.log_queries`: the reader's words go into the lines too.
    pub log_queries: bool,
    function: String,
    served: AtomicBool,
    sink: Sink,
}

/// Who sent a request, as far as the function can tell.
#[derive(Clone, Debug, PartialEq)]
pub struct Client {
    /// Widget, MCP or plain HTTP.
    pub kind: ClientKind,
    /// Its own name, when it gave one.
    pub name: Option<String>,
}

impl Client {
    /// An MCP client, by its `clientInfo.name` if it sent one.
    pub fn mcp(name: Option<&str>) -> Client {
        Client {
            kind: ClientKind::Mcp,
            name: name.and_then(clean_name),
        }
    }

    /// The client of an HTTP request: `X-Ask-Client: widget` is the
    /// widget; another value names a plain HTTP client.
    pub fn of(headers: &HeaderMap) -> Client {
        let name = headers
            .get(CLIENT_HEADER)
            .and_then(|v| v.to_str().ok())
            .and_then(clean_name);
        match name {
            Some(n) if n.eq_ignore_ascii_case("widget") => Client {
                kind: ClientKind::Widget,
                name: None,
            },
            name => Client {
                kind: ClientKind::Http,
                name,
            },
        }
    }
}

/// A client's name as kept: spaces as `-`, then only letters, digits, `-`,
/// `_` and `.`, at most [`MAX_CLIENT_NAME_CHARS`]; `None` when nothing is
/// left. A name, never free text.
fn clean_name(name: &str) -> Option<String> {
    let name: String = name
        .trim()
        .chars()
        .map(|c| if c == ' ' { '-' } else { c })
        .filter(|c| id_char(*c))
        .take(MAX_CLIENT_NAME_CHARS)
        .collect();
    (!name.is_empty()).then_some(name)
}

/// One question answered, as the route knows it.
pub struct Query<'a> {
    /// `/ask` or `/mcp`.
    pub route: &'a str,
    /// Who asked.
    pub client: Client,
    /// API Gateway's request id.
    pub request_id: Option<String>,
    /// The answer's `query_id`.
    pub query_id: &'a str,
    /// The client chose it (the request's `query_id`).
    pub client_query_id: bool,
    /// The request parsed.
    pub request: &'a AskRequest,
    /// The sections found, or the failure.
    pub result: Result<&'a Answer, &'a Failure>,
    /// From the request's arrival to its answer.
    pub latency_ms: f64,
    /// The first request of this environment.
    pub cold_start: bool,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Analytics {
    /// Lines to standard output; the function's name from Lambda's
    /// environment (`local` outside it).
    pub fn new(log_queries: bool) -> Analytics {
        let function = std::env::var("AWS_LAMBDA_FUNCTION_NAME")
            .ok()
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| "local".into());
        Analytics {
            log_queries,
            function,
            served: AtomicBool::new(false),
            sink: Sink::Stdout,
        }
    }

    /// Lines kept in memory ([`Analytics::lines`], the last
    /// [`MEMORY_LINES`]), for tests.
    pub fn in_memory(log_queries: bool) -> Analytics {
        Analytics {
            sink: Sink::Memory(Mutex::new(std::collections::VecDeque::new())),
            ..Analytics::new(log_queries)
        }
    }

    /// The lines written so far (in memory only; none on stdout).
    pub fn lines(&self) -> Vec<String> {
        match &self.sink {
            Sink::Memory(m) => m
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .cloned()
                .collect(),
            Sink::Stdout => Vec::new(),
        }
    }

    /// Whether this is the first request of the environment (true once).
    pub fn first_request(&self) -> bool {
        !self.served.swap(true, Ordering::Relaxed)
    }

    fn write(&self, line: &impl serde::Serialize) {
        // The types hold nothing that fails to serialize.
        let Ok(line) = serde_json::to_string(line) else {
            return;
        };
        match &self.sink {
            // One locked write of the whole line; an error (a closed
            // stdout) loses the line, never the answer.
            Sink::Stdout => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}").and_then(|_| out.flush());
            }
            Sink::Memory(m) => {
                let mut kept = m.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == MEMORY_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        }
    }

    /// The line of a question.
    pub fn query_event(&self, q: &Query<'_>) -> QueryEvent {
        let site = match q.result {
            Ok(a) => a.sites.clone(),
            Err(_) => q.request.site.clone(),
        };
        let (results, answered, confidence, failure, top_urls, missing) = match q.result {
            Ok(a) => {
                let c = a.confidence.as_ref();
                (
                    a.items.len(),
                    !a.items.is_empty() && c.is_none_or(|c| c.answered),
                    c.map(|c| c.coverage),
                    None,
                    a.items
                        .iter()
                        .take(TOP_URLS)
                        .map(|i| i.url.clone())
                        .collect(),
                    c.map(|c| c.missing.clone()).unwrap_or_default(),
                )
            }
            Err(f) => (
                0,
                false,
                None,
                Some(match f {
                    // Not a gap in the docs: a site this index does not
                    // serve (NO_RESULTS on the wire).
                    Failure::UnknownSite { .. } => "UNKNOWN_SITE".to_string(),
                    f => f.code().as_str().to_string(),
                }),
                Vec::new(),
                Vec::new(),
            ),
        };
        QueryEvent {
            aws: Envelope::new(
                now_ms(),
                &[&["function", "route"], &["function", "client"]],
                &[
                    ("requests", "Count"),
                    ("unanswered", "Count"),
                    ("latency_ms", "Milliseconds"),
                ],
            ),
            event: EventKind::Query,
            function: self.function.clone(),
            route: q.route.to_string(),
            client: q.client.kind,
            client_name: q.client.name.clone(),
            request_id: q.request_id.clone(),
            query_id: q.query_id.to_string(),
            client_query_id: q.client_query_id,
            start_num: q.request.offset,
            mode: q.request.mode.as_str().to_string(),
            streaming: q.request.streaming,
            results,
            answered,
            confidence,
            failure,
            top_urls,
            site,
            latency_ms: (q.latency_ms * 1000.0).round() / 1000.0,
            cold_start: q.cold_start,
            question: self.log_queries.then(|| q.request.query.clone()),
            missing: self.log_queries.then_some(missing),
            requests: 1,
            unanswered: u32::from(!answered),
        }
    }

    /// Writes the line of a question (a later page of one says its
    /// `start_num`; `/who` says its route).
    pub fn query(&self, q: &Query<'_>) {
        self.write(&self.query_event(q));
    }

    /// The line of a rating.
    pub fn feedback_event(
        &self,
        client: &Client,
        request_id: Option<String>,
        f: &FeedbackRequest,
    ) -> FeedbackEvent {
        FeedbackEvent {
            aws: Envelope::new(
                now_ms(),
                &[&["function"]],
                &[("feedback_up", "Count"), ("feedback_down", "Count")],
            ),
            event: EventKind::Feedback,
            function: self.function.clone(),
            client: client.kind,
            request_id,
            query_id: f.query_id.clone(),
            rating: f.rating,
            comment: f
                .comment
                .clone()
                .filter(|c| self.log_queries && !c.trim().is_empty()),
            feedback_up: u32::from(f.rating == Rating::Up),
            feedback_down: u32::from(f.rating == Rating::Down),
        }
    }

    /// Writes the line of a rating.
    pub fn feedback(&self, client: &Client, request_id: Option<String>, f: &FeedbackRequest) {
        self.write(&self.feedback_event(client, request_id, f));
    }

    /// Writes the line of a request the rate limit refused.
    pub fn throttled(&self, route: &str) {
        self.write(&ThrottledEvent {
            aws: Envelope::new(
                now_ms(),
                &[&["function", "route"]],
                &[("throttled", "Count")],
            ),
            event: EventKind::Throttled,
            function: self.function.clone(),
            route: route.to_string(),
            throttled: 1,
        });
    }
}
