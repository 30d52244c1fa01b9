//! The request parser's tests: accepted shapes, precedence and failures.

use super::*;
use crate::config::EMBEDDED_CONFIG;
use crate::protocol::FailureCode;

/// The limits of the bundled docs' settings.
fn cfg() -> Limits {
    let c = crate::config::load_yaml(EMBEDDED_CONFIG, &|_| None).unwrap();
    crate::built::limits(&c)
}

fn req(
    params: &[(&str, &str)],
    accept: Option<&'static str>,
    body: &'static str,
) -> Result<AskRequest, Failure> {
    let raw = RawRequest {
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        accept,
        body: body.as_bytes(),
    };
    parse(&raw, &cfg())
}

// (params, accept, body, query, mode, streaming, prev)
type ShapeCase = (
    &'static [(&'static str, &'static str)],
    Option<&'static str>,
    &'static str,
    &'static str,
    Mode,
    bool,
    &'static [&'static str],
);

/// Parses each case and checks what it reads as.
fn check_shapes(cases: &[ShapeCase]) {
    for (params, accept, body, q, mode, streaming, prev) in cases {
        let r = req(params, *accept, body).unwrap_or_else(|f| panic!("{params:?} {body}: {f:?}"));
        assert_eq!(r.query, *q, "{params:?} {body}");
        assert_eq!(r.mode, *mode, "{params:?} {body}");
        assert_eq!(r.streaming, *streaming, "{params:?} {body}");
        assert_eq!(
            r.prev,
            prev.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "{params:?} {body}"
        );
    }
}

#[test]
fn request_shapes_table_url() {
    let cases: &[ShapeCase] = &[
        (
            &[("query", "rate limit")],
            None,
            "",
            "rate limit",
            Mode::Generate,
            true,
            &[],
        ),
        (
            &[("q", "x"), ("streaming", "false")],
            None,
            "",
            "x",
            Mode::Generate,
            false,
            &[],
        ),
        (
            &[("text", "x"), ("streaming", "False"), ("mode", "list")],
            None,
            "",
            "x",
            Mode::List,
            false,
            &[],
        ),
        (
            &[
                ("query", "x"),
                ("streaming", "0"),
                ("generate_mode", "summarize"),
            ],
            None,
            "",
            "x",
            Mode::Summarize,
            false,
            &[],
        ),
        (
            &[
                ("query", "x"),
                ("mode", "list"),
                ("generate_mode", "summarize"),
            ],
            None,
            "",
            "x",
            Mode::List,
            true,
            &[],
        ),
        (
            &[("query", "x"), ("streaming", "off")],
            Some("text/event-stream"),
            "",
            "x",
            Mode::Generate,
            false,
            &[],
        ),
        (
            &[("query", "x"), ("prev", "a,b")],
            None,
            "",
            "x",
            Mode::Generate,
            true,
            &["a", "b"],
        ),
    ];
    check_shapes(cases);
}

#[test]
fn request_shapes_table_body() {
    let cases: &[ShapeCase] = &[
        (
            &[("query", "url")],
            None,
            r#"{"query":"body","streaming":false,"prev":["p"]}"#,
            "body",
            Mode::Generate,
            false,
            &["p"],
        ),
        (
            &[],
            None,
            r#"{"query":"x","streaming":false}"#,
            "x",
            Mode::Generate,
            false,
            &[],
        ),
        (
            &[],
            None,
            r#"{"query":{"text":"x","itemType":"TechArticle"},"context":{"prev":["a"]},"prefer":{"streaming":false,"mode":"list, summarize","response_format":"conversational_search"},"meta":{"version":"0.55"}}"#,
            "x",
            Mode::Summarize,
            false,
            &["a"],
        ),
        (
            &[],
            None,
            r#"{"query":{"text":"x"},"context":{"@type":"ConversationalContext"}}"#,
            "x",
            Mode::Generate,
            true,
            &[],
        ),
        (
            &[("streaming", "true")],
            None,
            r#"{"query":{"text":"x"},"prefer":{"streaming":false}}"#,
            "x",
            Mode::Generate,
            false,
            &[],
        ),
        (
            &[],
            Some("text/event-stream"),
            r#"{"query":{"text":"x"}}"#,
            "x",
            Mode::Generate,
            true,
            &[],
        ),
        (
            &[],
            None,
            r#"{"query":{"text":"x"},"meta":{"api_version":"0.55"},"prefer":{"mode":"none"}}"#,
            "x",
            Mode::List,
            true,
            &[],
        ),
    ];
    check_shapes(cases);
}

#[test]
fn failures_table() {
    let long = "x".repeat(501);
    type Case<'a> = (Vec<(&'a str, &'a str)>, String, FailureCode, u16);
    let cases: Vec<Case> = vec![
        (vec![], String::new(), FailureCode::InvalidQuery, 400),
        (
            vec![("query", "   ")],
            String::new(),
            FailureCode::InvalidQuery,
            400,
        ),
        (
            vec![("query", long.as_str())],
            String::new(),
            FailureCode::InvalidQuery,
            400,
        ),
        (vec![], "not json{".into(), FailureCode::InvalidRequest, 400),
        (vec![], "[1,2]".into(), FailureCode::InvalidRequest, 400),
        (
            vec![],
            r#"{"query":{"site":"x"}}"#.into(),
            FailureCode::InvalidQuery,
            400,
        ),
        (
            vec![],
            r#"{"query":{"text":""}}"#.into(),
            FailureCode::InvalidQuery,
            400,
        ),
        (
            vec![],
            r#"{"query":{"text":["x"]}}"#.into(),
            FailureCode::InvalidQuery,
            400,
        ),
        (
            vec![("query", "x"), ("streaming", "maybe")],
            String::new(),
            FailureCode::InvalidQuery,
            400,
        ),
        (
            vec![],
            r#"{"query":{"text":"x"},"prefer":{"mode":"recommend"}}"#.into(),
            FailureCode::UnsupportedMode,
            200,
        ),
        (
            vec![],
            r#"{"query":{"text":"x"},"prefer":{"response_format":"markdown"}}"#.into(),
            FailureCode::UnsupportedFormat,
            200,
        ),
        (
            vec![("query", "x")],
            format!("{{\"pad\":\"{}\"}}", "y".repeat(70_000)),
            FailureCode::PayloadTooLarge,
            413,
        ),
    ];
    for (params, body, code, status) in cases {
        let raw = RawRequest {
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            accept: None,
            body: body.as_bytes(),
        };
        let f = parse(&raw, &cfg()).expect_err(&format!("{params:?} {body:.60}"));
        assert_eq!(
            (f.code(), f.status()),
            (code, status),
            "{params:?} {body:.60}: {}",
            f
        );
    }
}

#[test]
fn exactly_500_characters_is_accepted() {
    let q = "é".repeat(500);
    let raw = RawRequest {
        params: vec![("query".into(), q)],
        ..RawRequest::default()
    };
    assert!(parse(&raw, &cfg()).is_ok());
}

#[test]
fn a_member_of_the_wrong_kind_is_named() {
    for (body, member) in [
        (r#"{"query":{"text":["x"]}}"#, "query"),
        (r#"{"query":"x","streaming":[true]}"#, "streaming"),
        (r#"{"query":"x","prefer":{"mode":{"a":1}}}"#, "prefer"),
        (r#"{"query":"x","prev":{"a":1}}"#, "prev"),
    ] {
        let f = req(&[], None, body).unwrap_err();
        assert_eq!(f.code(), FailureCode::InvalidQuery, "{body}");
        assert!(
            f.to_string().starts_with(&format!("{member}: ")),
            "{body}: {f}"
        );
    }
}

#[test]
fn null_members_are_absent_and_body_members_replace_url_ones() {
    let r = req(
        &[("query", "from url"), ("mode", "list")],
        None,
        r#"{"query":null,"streaming":false}"#,
    )
    .unwrap();
    assert_eq!(
        (r.query.as_str(), r.mode, r.streaming),
        ("from url", Mode::List, false)
    );
    let r = req(
        &[("query", "from url")],
        None,
        r#"{"q":"from body","streaming":false}"#,
    )
    .unwrap();
    assert_eq!(r.query, "from url", "query outranks q whatever carries it");
    let r = req(&[], None, r#"{"query":42,"site":["a","b"],"streaming":0}"#).unwrap();
    assert_eq!((r.query.as_str(), r.site.as_deref()), ("42", Some("a,b")));
}
