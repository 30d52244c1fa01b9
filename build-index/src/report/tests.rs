use super::*;

fn query(ms: u64, id: &str, q: &str, answered: bool, urls: &[&str]) -> String {
    serde_json::json!({
        "_aws": {"Timestamp": ms, "CloudWatchMetrics": []},
        "event": "query", "function": "f", "route": "/ask", "client": "http",
        "query_id": id, "mode": "list", "streaming": false,
        "results": urls.len(), "answered": answered,
        "top_urls": urls, "latency_ms": 1.0, "cold_start": false,
        "question": q, "missing": ["x"], "requests": 1, "unanswered": u32::from(!answered),
    })
    .to_string()
}

#[test]
fn days_are_utc_dates() {
    assert_eq!(day_of(0), "1970-01-01");
    assert_eq!(day_of(1_764_867_600_000), "2025-12-04");
    assert_eq!(day_of(951_782_400_000), "2000-02-29");
}

#[test]
fn every_export_shape_is_read_and_bad_lines_are_counted() {
    let line = query(1_764_867_600_000, "a", "cancel a run", false, &[]);
    let sam =
        serde_json::json!({"timestamp": 1, "logStreamName": "s", "message": line}).to_string();
    let text = format!(
        "{line}\nINFO answered query_id=a\n{sam}\n{{\"_aws\": {{\"Timestamp\": 1}}, \"event\": \"query\"}}\n{{\"_aws\":{{\"Time\n\n2026-12-04 START {line}\n"
    );
    let read = Read::from_text(&text);
    // Itself, in sam's wrapper, and after a prefix.
    assert_eq!(read.lines.len(), 3);
    // A line with no members, and one cut short.
    assert_eq!(read.malformed, 2);
    // The tracing line and the blank one.
    assert_eq!(read.other, 2);
    let aws = serde_json::json!({"events": [{"message": line}, {"message": "START RequestId: x"}]});
    let read = Read::from_text(&serde_json::to_string_pretty(&aws).unwrap());
    assert_eq!((read.lines.len(), read.other, read.malformed), (1, 1, 0));
}

#[test]
fn exports_one_after_another_and_escaped_cut_lines_are_read() {
    let line = query(1, "a", "cancel a run", false, &[]);
    let doc = |m: &str| {
        serde_json::to_string_pretty(&serde_json::json!({"events": [{"message": m}]})).unwrap()
    };
    // Two `filter-log-events` documents, one after the other.
    let read = Read::from_text(&format!("{}\n{}", doc(&line), doc(&line)));
    assert_eq!(read.lines.len(), 2);
    // A wrapper whose message was cut: malformed, not just another line.
    let cut = serde_json::json!({"message": &line[..40]}).to_string();
    let read = Read::from_text(&format!("{cut}\nnot json\n"));
    assert_eq!((read.lines.len(), read.malformed, read.other), (0, 1, 1));
}

#[test]
fn a_site_not_served_is_no_gap_and_a_rating_counts_once() {
    let mut other = query(1, "s", "cancel a run", false, &[]);
    other = other.replace("\"top_urls\"", "\"failure\":\"UNKNOWN_SITE\",\"top_urls\"");
    let rate = |ms: u64, id: &str, rating: &str| {
        serde_json::json!({"_aws": {"Timestamp": ms}, "event": "feedback", "query_id": id,
            "rating": rating, "client": "widget"})
        .to_string()
    };
    // A client that chose another answer's id, to change its question.
    let copied = query(5, "q", "harmless", true, &[])
        .replace("\"mode\"", "\"client_query_id\":true,\"mode\"");
    let lines = [
        other,
        query(1, "q", "deploy", true, &["https://d/deploy"]),
        copied,
        rate(2, "q", "down"),
        rate(3, "q", "down"),
        rate(4, "q", "up"),
        // A later page and /who: requests, not questions.
        query(6, "p", "deploy", true, &[]).replace("\"mode\"", "\"start_num\":5,\"mode\""),
        query(7, "w", "deploy", true, &[]).replace("\"route\":\"/ask\"", "\"route\":\"/who\""),
    ];
    let r = report(&Read::from_text(&lines.join("\n")), None);
    assert_eq!(r.unknown_site, 1);
    assert!(r.unanswered.is_empty());
    // Down (twice from one answer: once) and up: both count; the
    // question is the answer's own.
    assert_eq!((r.rated_up, r.rated_down), (1, 1));
    assert_eq!(r.down_rated.len(), 1, "{:#?}", r.down_rated);
    assert_eq!(r.down_rated[0].examples[0].0, "deploy");
    assert_eq!(r.down_rated[0].rated_up, 1);
    assert_eq!(r.down_rated_unmatched, 0);
    assert_eq!((r.questions, r.other_requests), (3, 2));
}

#[test]
fn questions_that_share_their_words_fall_together() {
    let lines = [
        query(0, "1", "cancel a run", false, &[]),
        query(0, "2", "Cancelling runs", false, &[]),
        query(
            0,
            "3",
            "how do I cancel a run?",
            false,
            &["https://d/runs#cancel", "https://d/runs#stop"],
        ),
        query(0, "4", "terraform provider", false, &[]),
        query(0, "5", "cancel a run", false, &[]),
        query(
            86_400_000,
            "6",
            "deploy with sam",
            true,
            &["https://d/deploy#sam"],
        ),
    ];
    let read = Read::from_text(&lines.join("\n"));
    let r = report(&read, None);
    assert_eq!((r.questions, r.answered), (6, 1));
    assert_eq!(r.unanswered.len(), 2, "{:#?}", r.unanswered);
    let g = &r.unanswered[0];
    assert_eq!(g.count, 4);
    assert_eq!(g.label, "cancel run");
    assert_eq!(g.examples[0], ("cancel a run".to_string(), 2));
    assert_eq!(g.closest_pages, vec![("https://d/runs".to_string(), 1)]);
    assert_eq!(r.unanswered[1].count, 1);
    assert_eq!(r.days.len(), 2);
    assert_eq!(r.most_cited[0].url, "https://d/deploy");
    let md = r.markdown();
    assert!(md.contains("### 1. cancel run — 4 questions"), "{md}");
}

#[test]
fn questions_are_counted_by_the_sites_they_asked() {
    let with_site = |ms: u64, id: &str, q: &str, answered: bool, site: &str| {
        query(ms, id, q, answered, &[])
            .replace("\"mode\"", &format!("\"site\":\"{site}\",\"mode\""))
    };
    let lines = [
        with_site(1, "a", "cancel a run", false, "gen1"),
        with_site(2, "b", "cancel a run", false, "gen2"),
        with_site(3, "c", "deploy", true, "gen2"),
        query(4, "d", "cancel the run", false, &[]),
    ];
    let r = report(&Read::from_text(&lines.join("\n")), None);
    let sites: Vec<(&str, usize, usize)> = r
        .sites
        .iter()
        .map(|s| (s.site.as_str(), s.questions, s.answered))
        .collect();
    assert_eq!(sites, [("gen1", 1, 0), ("gen2", 2, 1)]);
    assert_eq!(r.unanswered.len(), 1, "{:#?}", r.unanswered);
    assert_eq!(
        r.unanswered[0].sites,
        [("gen1".to_string(), 1), ("gen2".to_string(), 1)]
    );
    let md = r.markdown();
    assert!(
        md.contains("## Traffic by site") && md.contains("| gen2 | 2 | 1 (50 %) |"),
        "{md}"
    );
    assert!(md.contains("- Sites asked: gen1 (1), gen2 (1)"), "{md}");
}
