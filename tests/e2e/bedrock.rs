//! The binary with a loopback Bedrock stand-in: answers, the throttled fallback, and streaming.

use serde_json::Value;

use crate::support::bedrock::{error_type, model_text, recorded};
use crate::support::{http, sse};
use crate::{get, post, serve_docs};

/// Request lines and bodies a loopback server received.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// A loopback stand-in for the Bedrock Runtime endpoint: answers each
/// request with the next of `replies` (status, body), one per connection,
/// and keeps each request line and body.
fn bedrock_endpoint(replies: Vec<(u16, String)>) -> (u16, Seen) {
    bedrock_endpoint_held(replies, None)
}

/// What a held Bedrock stand-in does before each reply: wait for the
/// word go (or 10 s), then take `writing` as a model would, and say when it
/// answered.
struct Hold {
    go: std::sync::mpsc::Receiver<()>,
    writing: std::time::Duration,
    answered: std::sync::mpsc::Sender<std::time::Instant>,
}

/// The same, each reply held as `hold` says.
fn bedrock_endpoint_held(replies: Vec<(u16, String)>, hold: Option<Hold>) -> (u16, Seen) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for (reply, stream) in replies.into_iter().zip(listener.incoming()) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            kept.lock()
                .unwrap()
                .push((line.trim().to_string(), String::from_utf8(body).unwrap()));
            if let Some(h) = &hold {
                let _ = h.go.recv_timeout(std::time::Duration::from_secs(10));
                std::thread::sleep(h.writing);
            }
            let (status, text) = reply;
            let extra = error_type(status)
                .map(|e| format!("x-amzn-errortype: {e}\r\n"))
                .unwrap_or_default();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.flush();
            if let Some(h) = &hold {
                let _ = h.answered.send(std::time::Instant::now());
            }
        }
    });
    (port, seen)
}

/// `ask.generator: bedrock` with its endpoint at `url` (loopback) and
/// test credentials.
fn bedrock_settings(url: &str) -> Vec<(&'static str, &str)> {
    vec![
        ("ASK_GENERATOR", "bedrock"),
        ("ASK_BEDROCK_MODEL_ID", "amazon.nova-micro-v1:0"),
        ("ASK_CORS_ALLOW_ORIGINS", "https://docs.example.com"),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "AKIDTEST"),
        ("AWS_SECRET_ACCESS_KEY", "test-secret"),
    ]
}

/// The release binary with `ask.generator: bedrock`, its Bedrock endpoint
/// moved to loopback (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`): the cold start
/// builds the client, and a `generate` request awaits the model on the
/// function's own runtime.
#[test]
fn the_binary_answers_with_a_model_and_falls_back_when_throttled() {
    let throttled = recorded("throttled.json");
    let (endpoint, seen) = bedrock_endpoint(vec![
        (200, recorded("good-answer.json")),
        (429, throttled.clone()),
        (429, throttled),
    ]);
    let url = format!("http://127.0.0.1:{endpoint}");
    let (_emu, _ask, port) = serve_docs("bedrock", &bedrock_settings(&url));
    let body = br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"generate","streaming":false}}"#;
    let answer = || {
        let r = post(port, body);
        assert_eq!(r.status, 200, "{}", r.text());
        serde_json::from_slice::<Value>(&r.body).unwrap()
    };
    let doc = answer();
    assert_eq!(
        doc["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"}),
        "{doc}"
    );
    assert_eq!(doc["results"][0]["text"], model_text("good-answer.json"));
    let doc = answer();
    assert_eq!(
        doc["_meta"]["generator"],
        serde_json::json!({"name": "extractive", "model": "amazon.nova-micro-v1:0", "fallback": "throttled"}),
        "{doc}"
    );
    assert_eq!(doc["results"][0]["@type"], "SearchSummary");
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        3,
        "one call, then a throttled call and its retry"
    );
    for (line, body) in seen.iter() {
        assert_eq!(
            line,
            "POST /model/amazon.nova-micro-v1%3A0/converse HTTP/1.1"
        );
        let sent: Value = serde_json::from_str(body).unwrap();
        assert_eq!(sent["inferenceConfig"]["temperature"], 0.0);
    }
}

/// `ask.transport: streaming` in the real binary under cargo lambda watch
/// (Lambda response streaming), with a Bedrock stand-in that holds its
/// answer until the client has read the stream's `start`, then writes for
/// 2 s: the sections go out before the model has written, the summary and
/// `complete` after it answered. Nothing here is timed against a bound;
/// the held reply orders the events (the times are printed).
#[test]
fn a_streamed_answer_sends_its_sections_before_the_model_has_written() {
    use std::io::{Read, Write};
    let (go, hold) = std::sync::mpsc::channel();
    let (answered_tx, answered) = std::sync::mpsc::channel();
    let (endpoint, seen) = bedrock_endpoint_held(
        vec![(200, recorded("good-answer.json"))],
        Some(Hold {
            go: hold,
            writing: std::time::Duration::from_secs(2),
            answered: answered_tx,
        }),
    );
    let url = format!("http://127.0.0.1:{endpoint}");
    let mut settings = bedrock_settings(&url);
    settings.push(("ASK_TRANSPORT", "streaming"));
    let (_emu, _ask, port) = serve_docs("streaming", &settings);
    other_responses_arrive_whole(port);

    let body = br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"generate","streaming":true}}"#;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let t = std::time::Instant::now();
    write!(
        s,
        "POST /lambda-url/_/ask HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    let (mut first, mut released) = (None, None);
    loop {
        let n = s.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if first.is_none() && text.contains("event: start") {
            first = Some(t.elapsed());
            // The model may answer now: the stream's head is here.
            assert!(
                !text.contains("event: complete"),
                "the whole stream came at once"
            );
            let _ = go.send(());
            released = Some(t.elapsed());
        }
    }
    let done = t.elapsed();
    let first = first.expect("a start event");
    // The model answered after the client had the sections, and the
    // stream ended after the model answered.
    let model_answered = answered
        .recv_timeout(std::time::Duration::from_secs(1))
        .expect("the model was asked")
        .duration_since(t);
    assert!(first < model_answered && model_answered < done);
    let raw = String::from_utf8_lossy(&got).to_string();
    let head_end = raw.find("\r\n\r\n").unwrap();
    let head = raw[..head_end].to_ascii_lowercase();
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let chunked = head.contains("transfer-encoding: chunked");
    let bytes = got[head_end + 4..].to_vec();
    let text = if chunked {
        String::from_utf8(http::dechunk(&bytes)).unwrap()
    } else {
        String::from_utf8(bytes).unwrap()
    };
    let events = sse::parse(&text).unwrap();
    sse::check_answer_stream(&events).unwrap();
    // start names who is to write; the summary is the model's; complete
    // says who wrote it.
    assert_eq!(
        events[0].data["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"})
    );
    let last = events.last().unwrap();
    assert_eq!(last.name, "complete");
    assert_eq!(
        last.data["_meta"]["generator"],
        serde_json::json!({"name": "bedrock", "model": "amazon.nova-micro-v1:0"})
    );
    let summary = &events[events.len() - 2].data;
    assert_eq!(summary["item"]["text"], model_text("good-answer.json"));
    assert_eq!(seen.lock().unwrap().len(), 1, "one model call");
    an_unanswered_question_never_asks_the_model(port, &seen);
    eprintln!(
        "streamed: start after {:.1} ms (the model released at {:.1} ms, answered at {:.1} ms); complete after {:.1} ms",
        first.as_secs_f64() * 1e3,
        released.unwrap_or_default().as_secs_f64() * 1e3,
        model_answered.as_secs_f64() * 1e3,
        done.as_secs_f64() * 1e3
    );
}

/// Every other response streams too, and arrives whole: JSON answers,
/// failures, the other routes.
fn other_responses_arrive_whole(port: u16) {
    let r = post(
        port,
        br#"{"query":{"text":"how do I change the rate limit"},"prefer":{"mode":"list","streaming":false}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["_meta"]["response_type"], "answer", "{doc}");
    assert!(doc["results"].as_array().is_some_and(|a| !a.is_empty()));
    let r = get(port, "/ask?streaming=false", &[]);
    assert_eq!(r.status, 400, "{}", r.text());
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(doc["error"]["code"], "INVALID_QUERY", "{doc}");
    let r = get(port, "/openapi.json", &[]);
    assert_eq!(r.status, 200);
    assert!(serde_json::from_slice::<Value>(&r.body).unwrap()["openapi"].is_string());
}

/// A question the docs do not answer: the model is not asked, and start
/// says so already.
fn an_unanswered_question_never_asks_the_model(port: u16, seen: &Seen) {
    let r = post(
        port,
        br#"{"query":{"text":"deploy the index bucket to azure with terraform"},"prefer":{"mode":"generate","streaming":true}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let events = sse::parse(&r.text()).unwrap();
    let not_answered = serde_json::json!({"name": "extractive", "model": "amazon.nova-micro-v1:0", "fallback": "not_answered"});
    assert_eq!(events[0].data["_meta"]["generator"], not_answered);
    assert_eq!(
        events.last().unwrap().data["_meta"]["generator"],
        not_answered
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "the model was not asked");
}
