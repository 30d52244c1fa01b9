//! What did the client ask for? The request shapes of `super::shapes`
//! (docs/content/docs/api.mdx, Requests), normalised and validated into
//! one [`AskRequest`] under the parser's own [`Limits`].
//!
//! Leniency: text members may be strings, numbers or booleans; `prev` an
//! array or a comma string; `site` a string or an array (its first entry);
//! a `context` or `prefer` that is not an object is ignored; unknown members
//! and `query.*` filters are ignored. Precedence: a member the body gives
//! replaces the URL parameter of the same name; then `query` > `q` > `text`,
//! `prefer.mode` > `mode` > `generate_mode`, and for streaming
//! `prefer.streaming` > `streaming` > `Accept: text/event-stream` > the
//! configured default.

use super::failure::Failure;
use super::response::ResponseFormat;

pub use super::shapes::{
    AskBody, Context, Prefer, Prev, QueryMember, QueryObject, RequestMeta, Site, Text, UrlParams,
};
pub use crate::mode::Mode;

/// Most sites read from a request's list.
pub const MAX_SITES_NAMED: usize = 32;
/// Most characters of a request's `site` read.
pub const MAX_SITE_CHARS: usize = 1024;

/// What a request may carry and what it gets when it says nothing: the
/// parser's own settings (made from `ask.*` by `crate::built::limits`).
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Largest body read, in bytes.
    pub max_body_bytes: usize,
    /// Longest question (and `prev` entry), in characters.
    pub max_query_chars: usize,
    /// Most `prev` entries.
    pub max_prev: usize,
    /// The mode of a request that names none.
    pub default_mode: Mode,
    /// Whether a request that says nothing streams.
    pub default_streaming: bool,
}

/// The format a `response_format` names, if it is served.
fn format(name: &str) -> Option<ResponseFormat> {
    match name.trim() {
        "conversational_search" | "conv_search" => Some(ResponseFormat::ConversationalSearch),
        "chatgpt_app" => Some(ResponseFormat::ChatgptApp),
        _ => None,
    }
}

/// The most results one answer carries, whatever a request asks.
pub const MAX_RESULTS: usize = 10;
/// The deepest page offset (`meta.start_num`) served.
pub const MAX_START: usize = 90;

/// A parsed, validated `/ask` request.
#[derive(Clone, Debug, PartialEq)]
pub struct AskRequest {
    /// The question.
    pub query: String,
    /// Earlier questions, oldest first.
    pub prev: Vec<String>,
    /// A client-supplied standalone version of the question.
    pub decontextualized_query: Option<String>,
    /// Response mode.
    pub mode: Mode,
    /// SSE or JSON.
    pub streaming: bool,
    /// Echoed `query_id`, if the client sent one.
    pub query_id: Option<String>,
    /// `query.site` / `site`: must name the site served (or `all`).
    pub site: Option<String>,
    /// The answer's format.
    pub format: ResponseFormat,
    /// Results wanted (`max_results`, else `num_results`), at most 10;
    /// `None` takes the configured `top_k`.
    pub count: Option<usize>,
    /// Results skipped before the first returned (`meta.start_num`).
    pub offset: usize,
    /// `prefer.accept-language`, echoed.
    pub accept_language: Option<String>,
    /// Whether earlier questions (`prev`, `context.text`) are used.
    pub contextual: bool,
}

/// The HTTP facts parsing needs, already taken out of the event.
#[derive(Clone, Debug, Default)]
pub struct RawRequest<'a> {
    /// Decoded URL query parameters (the first value of each).
    pub params: Vec<(String, String)>,
    /// `Accept` header.
    pub accept: Option<&'a str>,
    /// The body (already base64-decoded).
    pub body: &'a [u8],
}

/// The members of either shape, each as given, before validation.
#[derive(Default)]
struct Members {
    query: Option<Text>,
    q: Option<Text>,
    text: Option<Text>,
    mode: Option<Text>,
    generate_mode: Option<Text>,
    streaming: Option<Text>,
    prev: Option<Prev>,
    site: Option<Site>,
    query_id: Option<Text>,
    decontextualized_query: Option<Text>,
    num_results: Option<Text>,
    max_results: Option<Text>,
    start_num: Option<Text>,
    context_text: Option<Text>,
    prefer: Prefer,
}

impl From<UrlParams> for Members {
    fn from(p: UrlParams) -> Members {
        let t = |v: Option<String>| v.map(Text::String);
        Members {
            query: t(p.query),
            q: t(p.q),
            text: t(p.text),
            mode: t(p.mode),
            generate_mode: t(p.generate_mode),
            streaming: t(p.streaming),
            prev: p.prev.map(|s| Prev::Joined(Text::String(s))),
            site: p.site.map(|s| Site::One(Text::String(s))),
            query_id: t(p.query_id),
            decontextualized_query: t(p.decontextualized_query),
            num_results: t(p.num_results),
            max_results: t(p.max_results),
            start_num: t(p.start_num),
            context_text: None,
            prefer: Prefer::default(),
        }
    }
}

impl From<AskBody> for Members {
    fn from(b: AskBody) -> Members {
        let o = match b.query {
            Some(QueryMember::Object(o)) => o,
            Some(QueryMember::Text(t)) => QueryObject {
                text: Some(t),
                ..QueryObject::default()
            },
            None => QueryObject::default(),
        };
        let (context_prev, context_text) = b.context.map(|c| (c.prev, c.text)).unwrap_or_default();
        Members {
            query: o.text,
            q: b.q,
            text: b.text,
            mode: b.mode,
            generate_mode: b.generate_mode,
            streaming: b.streaming,
            prev: context_prev.or(b.prev),
            site: o.site.or(b.site),
            query_id: b.query_id,
            decontextualized_query: o.decontextualized_query.or(b.decontextualized_query),
            num_results: o.num_results.or(b.num_results),
            max_results: o.max_results.or(b.max_results),
            start_num: b.meta.and_then(|m| m.start_num).or(b.start_num),
            context_text,
            prefer: b.prefer.unwrap_or_default(),
        }
    }
}

impl Members {
    /// Each member the body gives replaces the URL's.
    fn over(self, url: Members) -> Members {
        Members {
            query: self.query.or(url.query),
            q: self.q.or(url.q),
            text: self.text.or(url.text),
            mode: self.mode.or(url.mode),
            generate_mode: self.generate_mode.or(url.generate_mode),
            streaming: self.streaming.or(url.streaming),
            prev: self.prev.or(url.prev),
            site: self.site.or(url.site),
            query_id: self.query_id.or(url.query_id),
            decontextualized_query: self.decontextualized_query.or(url.decontextualized_query),
            num_results: self.num_results.or(url.num_results),
            max_results: self.max_results.or(url.max_results),
            start_num: self.start_num.or(url.start_num),
            context_text: self.context_text,
            prefer: self.prefer,
        }
    }
}

/// `false`, `"false"`, `"False"`, `"0"`, `"no"`, `"off"` are false; the
/// opposites true; anything else is a bad value.
fn parse_streaming(v: Text) -> Result<bool, Failure> {
    let shown = v.to_string();
    ask_store::parse_bool(&v.into_string()).ok_or_else(|| {
        Failure::invalid_query(format!("streaming must be true or false, got {shown}"))
    })
}

/// One mode or a comma list (`"list, summarize"`): the richest it names.
fn parse_mode(v: Text) -> Result<Mode, Failure> {
    let s = v.into_string();
    let mut best: Option<Mode> = None;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match Mode::parse(part) {
            Some(m) => best = Some(best.map_or(m, |b| b.max(m))),
            None => {
                return Err(Failure::UnsupportedMode(format!(
                    "mode {part:?} is not served here; use list, summarize or generate"
                )));
            }
        }
    }
    best.ok_or_else(|| {
        Failure::UnsupportedMode("mode is empty; use list, summarize or generate".into())
    })
}

/// `prev` as a list, blanks dropped, the most recent `max` kept.
fn parse_prev(v: Prev, max: usize) -> Vec<String> {
    let list: Vec<String> = match v {
        Prev::List(items) => items.into_iter().map(Text::into_string).collect(),
        Prev::Joined(t) => {
            let s = t.into_string();
            let t = s.trim();
            if t.starts_with('[')
                && let Ok(items) = serde_json::from_str::<Vec<Text>>(t)
            {
                return parse_prev(Prev::List(items), max);
            }
            t.trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .map(|p| p.trim().to_string())
                .collect()
        }
    };
    let mut list: Vec<String> = list.into_iter().filter(|p| !p.trim().is_empty()).collect();
    if list.len() > max {
        // Keep the most recent ones.
        list.drain(..list.len() - max);
    }
    list
}

/// A whole number of at least `min`, or `INVALID_QUERY` naming `what`.
fn whole(v: Text, what: &str, min: usize) -> Result<usize, Failure> {
    let shown = v.to_string();
    v.into_string()
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n >= min)
        .ok_or_else(|| {
            Failure::invalid_query(format!(
                "{what} must be a whole number from {min}, got {shown}"
            ))
        })
}

/// Reads the body: not UTF-8, not JSON or not an object is
/// `INVALID_REQUEST`; a member of the wrong kind is `INVALID_QUERY`.
fn read_body(body: &[u8]) -> Result<Option<AskBody>, Failure> {
    let text = std::str::from_utf8(body)
        .map_err(|_| Failure::InvalidRequest("request body is not UTF-8 JSON".into()))?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Failure::InvalidRequest(format!("request body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(Failure::InvalidRequest(
            "request body must be a JSON object".into(),
        ));
    }
    serde_path_to_error::deserialize(value)
        .map(Some)
        .map_err(|e| Failure::invalid_query(format!("{}: {}", e.path(), e.inner())))
}

/// The URL parameters this endpoint reads; others are ignored.
fn read_params(params: &[(String, String)]) -> UrlParams {
    let map: serde_json::Map<String, serde_json::Value> = params
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    // Every value is a string and every member an optional string: this
    // cannot fail, and if it did the request would just have no parameters.
    serde_json::from_value(serde_json::Value::Object(map)).unwrap_or_default()
}

/// Parses and validates a request.
pub fn parse(raw: &RawRequest, cfg: &Limits) -> Result<AskRequest, Failure> {
    if raw.body.len() > cfg.max_body_bytes {
        return Err(Failure::PayloadTooLarge {
            bytes: raw.body.len(),
            limit: cfg.max_body_bytes,
        });
    }
    let url = Members::from(read_params(&raw.params));
    let m = match read_body(raw.body)? {
        Some(body) => Members::from(body).over(url),
        None => url,
    };

    let query = question(m.query.or(m.q).or(m.text), cfg)?;

    let format = match m.prefer.response_format {
        Some(f) => {
            let f = f.into_string();
            format(&f).ok_or(Failure::UnsupportedFormat(f))?
        }
        None => ResponseFormat::ConversationalSearch,
    };

    let mode = match m.prefer.mode.or(m.mode).or(m.generate_mode) {
        Some(v) => parse_mode(v)?,
        None => cfg.default_mode,
    };

    let accept_sse = raw
        .accept
        .is_some_and(|a| a.to_ascii_lowercase().contains("text/event-stream"));
    let streaming = match m.prefer.streaming.or(m.streaming) {
        Some(v) => parse_streaming(v)?,
        None => accept_sse || cfg.default_streaming,
    };

    let prev = earlier_questions(m.prev, m.context_text, cfg)?;
    let decontextualized_query = decontextualized(m.decontextualized_query, cfg)?;
    let query_id = m
        .query_id
        .map(|s| {
            s.into_string()
                .chars()
                .filter(|c| super::analytics::id_char(*c))
                .take(super::analytics::MAX_QUERY_ID_CHARS)
                .collect::<String>()
        })
        .filter(|s| !s.is_empty());
    // Several sites are one comma list, as a URL sends them.
    let site = m
        .site
        .map(|s| match s {
            Site::One(t) => t.into_string(),
            Site::Many(list) => list
                .into_iter()
                .take(MAX_SITES_NAMED)
                .map(Text::into_string)
                .collect::<Vec<_>>()
                .join(","),
        })
        .map(|s| s.chars().take(MAX_SITE_CHARS).collect::<String>());
    let count = match m.max_results.or(m.num_results) {
        Some(v) => Some(whole(v, "max_results / num_results", 1)?.min(MAX_RESULTS)),
        None => None,
    };
    let offset = match m.start_num {
        Some(v) => whole(v, "start_num", 0)?,
        None => 0,
    };
    if offset > MAX_START {
        return Err(Failure::invalid_query(format!(
            "start_num {offset} is past the last page served (at most {MAX_START})"
        )));
    }
    let accept_language = m
        .prefer
        .accept_language
        .map(|t| t.into_string().trim().chars().take(64).collect::<String>())
        .filter(|s| !s.is_empty());
    let contextual = decontextualized_query.is_none() && !prev.is_empty();
    Ok(AskRequest {
        query,
        prev,
        decontextualized_query,
        mode,
        streaming,
        query_id,
        site,
        format,
        count,
        offset,
        accept_language,
        contextual,
    })
}

/// The question (`query` > `q` > `text`, already chosen), trimmed: missing,
/// empty or over the limits is `INVALID_QUERY`.
fn question(query: Option<Text>, cfg: &Limits) -> Result<String, Failure> {
    let Some(query) = query else {
        return Err(Failure::invalid_query(
            "query is missing: send ?query=… or {\"query\":{\"text\":…}}",
        ));
    };
    let query = query.into_string().trim().to_string();
    if query.is_empty() {
        return Err(Failure::invalid_query("query is empty"));
    }
    let chars = query.chars().count();
    if chars > cfg.max_query_chars {
        return Err(Failure::invalid_query(format!(
            "query is {chars} characters; the limit is {}",
            cfg.max_query_chars
        )));
    }
    too_many_words("query", &query, cfg)?;
    Ok(query)
}

/// The earlier questions: `prev`, then `context.text` as the most recent,
/// the most recent `max_prev` kept; an entry over the limits is
/// `INVALID_QUERY`.
fn earlier_questions(
    prev: Option<Prev>,
    context_text: Option<Text>,
    cfg: &Limits,
) -> Result<Vec<String>, Failure> {
    let mut prev = prev
        .map(|p| parse_prev(p, cfg.max_prev))
        .unwrap_or_default();
    if let Some(t) = context_text {
        let t = t.into_string().trim().to_string();
        if !t.is_empty() {
            // The conversation so far, as the most recent earlier question.
            prev.push(t);
            if prev.len() > cfg.max_prev {
                prev.remove(0);
            }
        }
    }
    if prev.iter().any(|p| p.chars().count() > cfg.max_query_chars) {
        return Err(Failure::invalid_query(format!(
            "a prev entry is over {} characters",
            cfg.max_query_chars
        )));
    }
    for p in &prev {
        too_many_words("a prev entry", p, cfg)?;
    }
    Ok(prev)
}

/// The client's own standalone question, trimmed (blank is none); over the
/// query limits is `INVALID_QUERY`.
fn decontextualized(d: Option<Text>, cfg: &Limits) -> Result<Option<String>, Failure> {
    let decontextualized_query = d
        .map(|s| s.into_string().trim().to_string())
        .filter(|s| !s.is_empty());
    if decontextualized_query
        .as_ref()
        .is_some_and(|d| d.chars().count() > cfg.max_query_chars)
    {
        return Err(Failure::invalid_query(
            "decontextualized_query is over the query limit",
        ));
    }
    if let Some(d) = &decontextualized_query {
        too_many_words("decontextualized_query", d, cfg)?;
    }
    Ok(decontextualized_query)
}

/// A text whose transliteration (what the analysis reads) is over four
/// times the character limit: a few characters that each stand for several
/// words (U+FDFA for five) would otherwise cost many times what a question
/// of the same length does. Scripts that transliterate into a few letters
/// a character (Chinese, Japanese, Cyrillic) stay well within it.
fn too_many_words(what: &str, text: &str, cfg: &Limits) -> Result<(), Failure> {
    let limit = cfg.max_query_chars.saturating_mul(4);
    let len = ask_index::analyzer::transliterated_len(text);
    if len > limit {
        return Err(Failure::invalid_query(format!(
            "{what} reads as {len} letters once transliterated; the limit is {limit}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
