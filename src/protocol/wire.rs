//! How is an answer written? The JSON document of a non-streaming answer
//! (in either format), and the SSE framing of a streamed one (`start`, one
//! `result` per item with the summary last, `complete`), buffered into one
//! body. NLWeb's older in-band headers ride along for clients of the older
//! format: members of a JSON answer, unnamed events after `start`.

use super::failure::Failure;
use super::response::{
    AnswerConfidence, AnswerDocument, Article, ChatAnswerDocument, ChatText, CompleteEvent,
    Document, Echo, ErrorBody, FailureDocument, GeneratorUsed, LegacyMessage, Meta,
    QueryCorrection, ResponseFormat, ResponseType, ResultEvent, ResultItem, StartEvent,
    StreamEvent, Summary, TextType,
};

/// What an answer holds before it is written: sections best first, and the
/// summary in the modes that have one.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Document items, best first.
    pub items: Vec<Article>,
    /// The SearchSummary (summarize and generate).
    pub summary: Option<Summary>,
    /// Whether the docs seem to answer.
    pub confidence: Option<AnswerConfidence>,
    /// The question's words corrected before searching.
    pub corrections: Vec<QueryCorrection>,
    /// What was searched, when corrections changed the question.
    pub searched: Option<String>,
    /// Who wrote the summary.
    pub generator: Option<GeneratorUsed>,
    /// The sites searched, comma-separated (`None`: every page); for the
    /// analytics line, not the document.
    pub sites: Option<String>,
}

impl Answer {
    /// `echo` with this answer's confidence and corrections.
    fn echo(&self, echo: &Echo) -> Echo {
        Echo {
            confidence: self.confidence.clone(),
            corrections: self.corrections.clone(),
            generator: self.generator.clone(),
            decontextualized_query: self
                .searched
                .clone()
                .or_else(|| echo.decontextualized_query.clone()),
            ..echo.clone()
        }
    }

    /// The summary first, then the items: `results` / `structuredData`.
    fn results(&self) -> Vec<ResultItem> {
        self.summary
            .iter()
            .cloned()
            .map(ResultItem::Summary)
            .chain(self.items.iter().cloned().map(ResultItem::Article))
            .collect()
    }

    /// The answer as text for a model: the summary, else the sections
    /// ranked, each with its URL.
    fn text(&self) -> String {
        if let Some(s) = &self.summary {
            return s.text.clone();
        }
        self.items
            .iter()
            .enumerate()
            .map(|(n, a)| format!("{}. {} — {}: {}", n + 1, a.name, a.url, a.description))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The non-streaming answer document, in the format `echo` names.
pub fn answer_document(answer: &Answer, query_id: &str, echo: &Echo) -> Document {
    let echo = &answer.echo(echo);
    match echo.format {
        ResponseFormat::ConversationalSearch => {
            let (api_version, data_freshness, rate_limits) = echo.legacy_headers();
            Document::Answer(AnswerDocument {
                meta: Meta::answer(echo),
                query_id: query_id.to_string(),
                results: answer.results(),
                api_version,
                data_freshness,
                rate_limits,
            })
        }
        ResponseFormat::ChatgptApp => Document::ChatAnswer(ChatAnswerDocument {
            meta: Meta::answer(echo),
            query_id: query_id.to_string(),
            content: vec![ChatText {
                kind: TextType::Text,
                text: answer.text(),
            }],
            structured_data: answer.results(),
        }),
    }
}

/// Appends one event: name, id, and the data on one line.
fn frame(out: &mut String, id: usize, event: &StreamEvent) {
    out.push_str("event: ");
    out.push_str(event.name());
    out.push_str("\nid: ");
    out.push_str(&id.to_string());
    out.push_str("\ndata: ");
    // serde_json never writes a raw newline, so the data is one line; the
    // types hold nothing that fails to serialize.
    out.push_str(&serde_json::to_string(event).unwrap_or_default());
    out.push_str("\n\n");
}

/// The SSE body of an answer: `start` (then the older in-band messages),
/// one `result` per item and the summary last, then `complete`. The same
/// bytes as [`stream_head`] followed by [`stream_tail`].
pub fn answer_stream(answer: &Answer, query_id: &str, echo: &Echo) -> String {
    let mut out = stream_head(answer, query_id, echo);
    out.push_str(&stream_tail(answer, query_id, echo, None));
    out
}

/// What a stream sends as soon as retrieval is done: `start` (its
/// `_meta` from `answer` as it is then: its confidence and corrections,
/// and who is to write the summary) and a `result` per item.
pub fn stream_head(answer: &Answer, query_id: &str, echo: &Echo) -> String {
    let echo = &answer.echo(echo);
    let mut out = String::new();
    frame(&mut out, 0, &StreamEvent::Start(start(query_id, echo)));
    legacy_frames(&mut out, echo);
    for (index, item) in answer.items.iter().cloned().enumerate() {
        let item = ResultItem::Article(item);
        frame(
            &mut out,
            index + 1,
            &StreamEvent::Result(ResultEvent { index, item }),
        );
    }
    out
}

/// The rest of the stream once the summary is written: its `result`, and
/// `complete`. `written`: who wrote it, named in `complete`'s `_meta` when
/// the `start` event was sent before it was known (a streamed answer).
pub fn stream_tail(
    answer: &Answer,
    query_id: &str,
    echo: &Echo,
    written: Option<&GeneratorUsed>,
) -> String {
    let echo = &answer.echo(echo);
    let mut out = String::new();
    let mut id = answer.items.len() + 1;
    if let Some(summary) = &answer.summary {
        let event = StreamEvent::Result(ResultEvent {
            index: answer.items.len(),
            item: ResultItem::Summary(summary.clone()),
        });
        frame(&mut out, id, &event);
        id += 1;
    }
    let mut meta = Meta::stream_complete(ResponseType::Answer, query_id, echo);
    meta.generator = written.cloned();
    frame(
        &mut out,
        id,
        &StreamEvent::Complete(CompleteEvent {
            meta,
            query_id: query_id.to_string(),
            total_items: id - 1,
            error: None,
        }),
    );
    out
}

/// The end of a stream whose summary could not be written (a panic while
/// it was): an `error` event and `complete`, after the `sent` results
/// already sent.
pub fn stream_error_tail(f: &Failure, query_id: &str, echo: &Echo, sent: usize) -> String {
    let mut out = String::new();
    frame(
        &mut out,
        sent + 1,
        &StreamEvent::Error(FailureDocument::new(f, Some(query_id), echo)),
    );
    frame(
        &mut out,
        sent + 2,
        &StreamEvent::Complete(CompleteEvent {
            meta: Meta::stream_complete(ResponseType::Failure, query_id, echo),
            query_id: query_id.to_string(),
            total_items: sent,
            error: Some(ErrorBody::from(f)),
        }),
    );
    out
}

/// A failure once the stream has started: `start`, `error`, `complete`.
pub fn failure_stream(f: &Failure, query_id: &str, echo: &Echo) -> String {
    stream(&[
        StreamEvent::Start(start(query_id, echo)),
        StreamEvent::Error(FailureDocument::new(f, Some(query_id), echo)),
        StreamEvent::Complete(CompleteEvent {
            meta: Meta::stream_complete(ResponseType::Failure, query_id, echo),
            query_id: query_id.to_string(),
            total_items: 0,
            error: Some(ErrorBody::from(f)),
        }),
    ])
}

/// The `start` event.
fn start(query_id: &str, echo: &Echo) -> StartEvent {
    StartEvent {
        meta: Meta::stream_start(echo),
        query_id: query_id.to_string(),
    }
}

/// The older in-band headers, as unnamed events (data only: no name, no
/// id, so the named events keep their ids 0, 1, 2, …).
fn legacy_frames(out: &mut String, echo: &Echo) {
    let (api_version, data_freshness, rate_limits) = echo.legacy_headers();
    let messages = api_version
        .map(|api_version| LegacyMessage::ApiVersion { api_version })
        .into_iter()
        .chain(data_freshness.map(|h| LegacyMessage::DataFreshness { content: h.message }))
        .chain(rate_limits.map(|h| LegacyMessage::RateLimits { content: h.message }));
    for m in messages {
        out.push_str("data: ");
        out.push_str(&serde_json::to_string(&m).unwrap_or_default());
        out.push_str("\n\n");
    }
}

/// Frames events with ids 0, 1, 2, …
fn stream(events: &[StreamEvent]) -> String {
    let mut out = String::new();
    for (id, e) in events.iter().enumerate() {
        frame(&mut out, id, e);
    }
    out
}
