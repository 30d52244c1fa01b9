//! `build-index report`: the content-gap report of a deployed endpoint,
//! from its exported log (docs/content/docs/analytics.mdx). It reads the
//! analytics lines the Lambda writes (`src/protocol/analytics.rs`) from
//! what `sam logs --output json`, `aws logs filter-log-events` or the
//! function's own standard output give, and writes one Markdown page and
//! the same as JSON: traffic by day and by client, the answered rate, the
//! unanswered and the down-rated questions grouped by the words they share
//! (the index's analyzer, so that "cancel a run" and "cancelling runs"
//! fall together), and the pages cited most and least. A line that is not
//! an analytics line is counted and skipped, never fatal.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;
use ask_index::{Analyzer, Index};
use serde::{Deserialize, Serialize};

/// Examples kept per group.
const EXAMPLES: usize = 3;
/// Closest pages and missing words kept per group.
const CLOSEST: usize = 3;
/// Pages listed as most and as least cited.
const PAGES: usize = 10;
/// Two questions fall in one group when their terms overlap at least this
/// much (Jaccard: shared terms over all terms).
const SAME_GROUP: f64 = 0.5;

/// The members of an analytics line the report reads.
#[derive(Debug, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
enum Line {
    Query(Query),
    Feedback(Feedback),
    Throttled(Throttled),
}

#[derive(Debug, Deserialize)]
struct Aws {
    #[serde(rename = "Timestamp")]
    timestamp: u64,
}

#[derive(Debug, Deserialize)]
struct Query {
    #[serde(rename = "_aws")]
    aws: Aws,
    client: String,
    #[serde(default)]
    route: String,
    #[serde(default)]
    client_name: Option<String>,
    query_id: String,
    #[serde(default)]
    client_query_id: bool,
    #[serde(default)]
    start_num: usize,
    answered: bool,
    #[serde(default)]
    failure: Option<String>,
    #[serde(default)]
    top_urls: Vec<String>,
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    missing: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Feedback {
    #[serde(rename = "_aws")]
    aws: Aws,
    query_id: String,
    rating: String,
    #[serde(default)]
    comment: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Throttled {
    #[serde(rename = "_aws")]
    aws: Aws,
}

/// The analytics lines found in an export, and what else it held.
#[derive(Debug, Default)]
pub struct Read {
    lines: Vec<Line>,
    /// Log lines that are not analytics lines (the function's other logs,
    /// Lambda's platform lines, blank lines).
    pub other: usize,
    /// Lines that claim to be analytics lines (`_aws` and `event`) but do
    /// not parse as one: cut, or from another writer.
    pub malformed: usize,
}

/// Whether text that does not parse looks like an analytics line (its
/// `_aws` member, or the same escaped inside a wrapper's `message`).
fn claims_to_be(text: &str) -> bool {
    text.contains("\"_aws\"") || text.contains("\\\"_aws\\\"")
}

/// The first JSON object in `text` (after any prefix), if one parses.
fn object_in(text: &str) -> Option<serde_json::Value> {
    let start = text.find('{')?;
    serde_json::from_str::<serde_json::Value>(text[start..].trim_end())
        .ok()
        .filter(|v| v.is_object())
}

impl Read {
    /// Every record of an export: a whole `aws logs filter-log-events`
    /// document (`{"events": [{"message": …}]}`), or lines, each an
    /// analytics line, or an object whose `message` holds one (`sam logs
    /// --output json`, CloudWatch exports), or any other log line.
    pub fn from_text(text: &str) -> Read {
        let mut read = Read::default();
        // JSON documents one after another (one `filter-log-events`
        // document or several, pretty-printed or not; or JSON lines): each
        // an export's `events`, or a record.
        let values: Result<Vec<serde_json::Value>, _> = serde_json::Deserializer::from_str(text)
            .into_iter()
            .collect();
        if let Ok(values) = values {
            for v in values {
                match v.get("events") {
                    Some(serde_json::Value::Array(events)) => {
                        for e in events {
                            read.record(e.clone());
                        }
                    }
                    _ => read.record(v),
                }
            }
            return read;
        }
        // Else a log's lines, each a record after any prefix, or not.
        for line in text.lines() {
            match object_in(line) {
                Some(v) => read.record(v),
                None if claims_to_be(line) => read.malformed += 1,
                None => read.other += 1,
            }
        }
        read
    }

    /// Adds what another export held.
    pub fn add(&mut self, other: Read) {
        self.lines.extend(other.lines);
        self.other += other.other;
        self.malformed += other.malformed;
    }

    fn record(&mut self, v: serde_json::Value) {
        let v = match v.get("message") {
            Some(serde_json::Value::String(m)) => match object_in(m) {
                Some(inner) => inner,
                None if claims_to_be(m) => {
                    self.malformed += 1;
                    return;
                }
                None => {
                    self.other += 1;
                    return;
                }
            },
            Some(inner @ serde_json::Value::Object(_)) => inner.clone(),
            _ => v,
        };
        if v.get("_aws").is_none() || v.get("event").is_none() {
            if v.get("_aws").is_some() {
                self.malformed += 1;
            } else {
                self.other += 1;
            }
            return;
        }
        match serde_json::from_value::<Line>(v) {
            Ok(line) => self.lines.push(line),
            Err(_) => self.malformed += 1,
        }
    }
}

/// One group of questions.
#[derive(Debug, Serialize)]
pub struct Group {
    /// The words every question of the group shares (analyzed), or its
    /// first question's when they share none.
    pub label: String,
    /// Questions in the group, repeats counted.
    pub count: usize,
    /// Up ratings of the group's down-rated answers (0 for unanswered
    /// groups): readers who disagreed.
    pub rated_up: usize,
    /// Of them, with no result at all (`NO_RESULTS` and other failures).
    pub no_results: usize,
    /// The questions asked most, with their counts.
    pub examples: Vec<(String, usize)>,
    /// The pages that came closest (fragment dropped), with their counts.
    pub closest_pages: Vec<(String, usize)>,
    /// The words of the questions the best sections lacked.
    pub missing_words: Vec<(String, usize)>,
    /// The readers' comments (down-rated groups).
    pub comments: Vec<String>,
}

/// A day's traffic.
#[derive(Debug, Default, Serialize)]
pub struct Day {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    /// Questions.
    pub questions: usize,
    /// Of them, answered.
    pub answered: usize,
    /// Ratings up and down.
    pub rated_up: usize,
    /// Ratings down.
    pub rated_down: usize,
    /// Requests refused by the rate limit.
    pub throttled: usize,
}

/// A client kind's traffic.
#[derive(Debug, Default, Serialize)]
pub struct ClientRow {
    /// `widget`, `mcp` or `http`.
    pub client: String,
    /// Questions.
    pub questions: usize,
    /// Of them, answered.
    pub answered: usize,
    /// The names MCP clients gave, with their counts.
    pub names: Vec<(String, usize)>,
}

/// A page and how often answers cited it.
#[derive(Debug, Serialize)]
pub struct PageRow {
    /// Its URL (no fragment).
    pub url: String,
    /// Its title, when the index was given.
    pub title: Option<String>,
    /// Answers (answered questions) that listed it.
    pub cited: usize,
}

/// The report, as written to JSON (and rendered as Markdown).
#[derive(Debug, Serialize)]
pub struct Report {
    /// First and last day seen (UTC).
    pub from: Option<String>,
    /// Last day.
    pub to: Option<String>,
    /// Analytics lines read.
    pub events: usize,
    /// Other log lines skipped.
    pub other_lines: usize,
    /// Malformed analytics lines skipped.
    pub malformed_lines: usize,
    /// Questions.
    pub questions: usize,
    /// Of them, answered.
    pub answered: usize,
    /// Unanswered questions whose words were not logged (`ask.log_queries`
    /// off), so not grouped.
    pub unanswered_without_words: usize,
    /// Later pages of questions (`start_num` above 0) and `/who`
    /// requests: answered, not counted as questions.
    pub other_requests: usize,
    /// Ratings up (an answer's id and rating once, whoever sent it again).
    pub rated_up: usize,
    /// Ratings down (the same).
    pub rated_down: usize,
    /// Questions that named a site this index does not serve (not
    /// grouped: no gap in these docs).
    pub unknown_site: usize,
    /// Traffic by day.
    pub days: Vec<Day>,
    /// Traffic by client kind.
    pub clients: Vec<ClientRow>,
    /// Unanswered questions, grouped, most asked first.
    pub unanswered: Vec<Group>,
    /// Down-rated answers' questions, grouped.
    pub down_rated: Vec<Group>,
    /// Down ratings whose question is not in the export (or was logged
    /// without its words).
    pub down_rated_unmatched: usize,
    /// Pages cited most.
    pub most_cited: Vec<PageRow>,
    /// Pages cited least (with the index: never cited first).
    pub least_cited: Vec<PageRow>,
}

/// `YYYY-MM-DD` of a Unix time in milliseconds (UTC; civil-from-days).
fn day_of(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn page_of(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// A URL's path (without scheme and host), `/` when it has none.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/').map_or("/", |i| &rest[i..])
}

/// The pages of an answer's URLs, each once (sections of one page are one
/// citation of it).
fn pages_of(urls: &[String]) -> BTreeSet<&str> {
    urls.iter().map(|u| page_of(u)).collect()
}

/// The `n` most frequent keys, most first (then by key).
fn top<K: Ord + Clone>(counts: &BTreeMap<K, usize>, n: usize) -> Vec<(K, usize)> {
    let mut v: Vec<(K, usize)> = counts.iter().map(|(k, c)| (k.clone(), *c)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// A question to group: its text, its analyzed terms, and what its lines
/// said.
struct Asked<'a> {
    text: &'a str,
    no_result: bool,
    urls: &'a [String],
    missing: &'a [String],
    comment: Option<&'a str>,
    /// Up ratings of the same answer (a down-rated one).
    rated_up: usize,
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let shared = a.intersection(b).count();
    let all = a.union(b).count();
    if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    }
}

/// Groups questions by the words they share: each distinct question, most
/// asked first, joins the group whose first question's terms overlap its
/// own most (at least [`SAME_GROUP`]), else starts one. Questions with no
/// terms (stop words only) group by their text.
fn group(analyzer: &Analyzer, asked: &[Asked<'_>]) -> Vec<Group> {
    let mut by_text: BTreeMap<String, Vec<&Asked<'_>>> = BTreeMap::new();
    for a in asked {
        by_text
            .entry(a.text.trim().to_lowercase())
            .or_default()
            .push(a);
    }
    let mut distinct: Vec<(&String, &Vec<&Asked<'_>>)> = by_text.iter().collect();
    distinct.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    struct Building<'b> {
        key: BTreeSet<String>,
        shared: BTreeSet<String>,
        members: Vec<(&'b String, &'b Vec<&'b Asked<'b>>)>,
    }
    let mut groups: Vec<Building<'_>> = Vec::new();
    for (text, lines) in distinct {
        let terms: BTreeSet<String> = analyzer.analyze(text).into_iter().collect();
        let best = groups
            .iter()
            .enumerate()
            .filter(|_| !terms.is_empty())
            .map(|(i, g)| (i, jaccard(&terms, &g.key)))
            .filter(|(_, j)| *j >= SAME_GROUP)
            .fold(None, |best: Option<(usize, f64)>, (i, j)| match best {
                Some((_, bj)) if bj >= j => best,
                _ => Some((i, j)),
            });
        match best {
            Some((i, _)) => {
                let g = &mut groups[i];
                g.shared = g.shared.intersection(&terms).cloned().collect();
                g.members.push((text, lines));
            }
            None => groups.push(Building {
                key: terms.clone(),
                shared: terms,
                members: vec![(text, lines)],
            }),
        }
    }
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|g| {
            let mut pages = BTreeMap::new();
            let mut words = BTreeMap::new();
            let mut count = 0;
            let mut no_results = 0;
            let mut rated_up = 0;
            let mut comments = Vec::new();
            let mut examples = Vec::new();
            for (_, lines) in &g.members {
                examples.push((lines[0].text.trim().to_string(), lines.len()));
                for a in lines.iter() {
                    count += 1;
                    no_results += usize::from(a.no_result);
                    rated_up += a.rated_up;
                    for page in pages_of(a.urls) {
                        *pages.entry(page.to_string()).or_insert(0) += 1;
                    }
                    for w in a.missing {
                        *words.entry(w.clone()).or_insert(0) += 1;
                    }
                    if let Some(c) = a.comment.filter(|c| !c.trim().is_empty()) {
                        comments.push(c.trim().to_string());
                    }
                }
            }
            examples.truncate(EXAMPLES);
            let label = if g.shared.is_empty() {
                g.members[0].0.clone()
            } else {
                g.shared.iter().cloned().collect::<Vec<_>>().join(" ")
            };
            Group {
                label,
                count,
                rated_up,
                no_results,
                examples,
                closest_pages: top(&pages, CLOSEST),
                missing_words: top(&words, CLOSEST),
                comments,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
    out
}

/// The report of what `read` holds; `index` (the deployed one) names the
/// pages and lists those never cited.
pub fn report(read: &Read, index: Option<&Index>) -> Report {
    let analyzer = Analyzer::new();
    let mut days: BTreeMap<String, Day> = BTreeMap::new();
    let mut clients: BTreeMap<String, (ClientRow, BTreeMap<String, usize>)> = BTreeMap::new();
    let mut cited: BTreeMap<String, usize> = BTreeMap::new();
    let mut unanswered = Vec::new();
    let mut unanswered_without_words = 0;
    let mut unknown_site = 0;
    let mut by_id: HashMap<&str, &Query> = HashMap::new();
    let (mut questions, mut answered) = (0, 0);
    let (mut first, mut last) = (u64::MAX, 0);
    let mut day = |ms: u64| -> String {
        first = first.min(ms);
        last = last.max(ms);
        day_of(ms)
    };
    let mut other_requests = 0;
    // An answer's id and rating count once, however many lines (one an
    // environment that took it) say so.
    let mut ratings: BTreeMap<(&str, &str), &Feedback> = BTreeMap::new();
    for line in &read.lines {
        if let Line::Feedback(f) = line {
            ratings
                .entry((f.query_id.as_str(), f.rating.as_str()))
                .or_insert(f);
        }
    }
    for line in &read.lines {
        match line {
            // A later page, or `/who`: a request, not a question.
            Line::Query(q) if q.start_num > 0 || q.route == "/who" => {
                day(q.aws.timestamp);
                other_requests += 1;
            }
            Line::Query(q) => {
                let d = days.entry(day(q.aws.timestamp)).or_default();
                d.questions += 1;
                d.answered += usize::from(q.answered);
                questions += 1;
                answered += usize::from(q.answered);
                let (row, names) = clients.entry(q.client.clone()).or_default();
                row.client = q.client.clone();
                row.questions += 1;
                row.answered += usize::from(q.answered);
                if let Some(n) = &q.client_name {
                    *names.entry(n.clone()).or_insert(0) += 1;
                }
                // The first question an issued id names: a client's own id
                // (which may copy another's) never joins a rating.
                if q.question.is_some() && !q.client_query_id {
                    by_id.entry(&q.query_id).or_insert(q);
                }
                if q.failure.as_deref() == Some("UNKNOWN_SITE") {
                    // Asked of a site this index does not serve: no gap
                    // in these docs.
                    unknown_site += 1;
                } else if q.answered {
                    for page in pages_of(&q.top_urls) {
                        *cited.entry(page.to_string()).or_insert(0) += 1;
                    }
                } else {
                    match &q.question {
                        Some(text) => unanswered.push(Asked {
                            text,
                            no_result: q.failure.is_some(),
                            urls: &q.top_urls,
                            missing: q.missing.as_deref().unwrap_or(&[]),
                            comment: None,
                            rated_up: 0,
                        }),
                        None => unanswered_without_words += 1,
                    }
                }
            }
            Line::Feedback(_) => {}
            Line::Throttled(t) => days.entry(day(t.aws.timestamp)).or_default().throttled += 1,
        }
    }
    let (mut rated_up, mut rated_down) = (0, 0);
    let mut ups: HashMap<&str, usize> = HashMap::new();
    for ((id, rating), f) in &ratings {
        let d = days.entry(day(f.aws.timestamp)).or_default();
        if *rating == "down" {
            d.rated_down += 1;
            rated_down += 1;
        } else {
            d.rated_up += 1;
            rated_up += 1;
            *ups.entry(id).or_insert(0) += 1;
        }
    }
    // Every answer rated down, with its question (never changed by a
    // rating: the first line of its issued id).
    let mut rated: Vec<&Feedback> = ratings
        .values()
        .copied()
        .filter(|f| f.rating == "down")
        .collect();
    rated.sort_by_key(|f| (f.aws.timestamp, f.query_id.as_str()));
    let mut down = Vec::new();
    let mut down_rated_unmatched = 0;
    for f in rated {
        match by_id.get(f.query_id.as_str()) {
            Some(q) => down.push(Asked {
                text: q.question.as_deref().unwrap_or_default(),
                no_result: q.failure.is_some(),
                urls: &q.top_urls,
                missing: q.missing.as_deref().unwrap_or(&[]),
                comment: f.comment.as_deref(),
                rated_up: ups.get(f.query_id.as_str()).copied().unwrap_or(0),
            }),
            None => down_rated_unmatched += 1,
        }
    }
    // Pages: the index's, each matched to the URLs answers gave (by its
    // URL, or by its route when the endpoint serves another base URL).
    let mut pages: Vec<PageRow> = match index {
        Some(index) => (0..index.page_count() as u32)
            .map(|i| {
                let p = index.page(i);
                let url = ask_index::search::url_of(index, p.route, "");
                // The same path on another host: the endpoint serves
                // another base URL (`ask.docs_base_url`).
                let n = cited
                    .iter()
                    .filter(|(u, _)| **u == url || path_of(u) == path_of(&url))
                    .map(|(_, n)| *n)
                    .sum();
                PageRow {
                    url,
                    title: Some(p.title.to_string()),
                    cited: n,
                }
            })
            .collect(),
        None => cited
            .iter()
            .map(|(u, n)| PageRow {
                url: u.clone(),
                title: None,
                cited: *n,
            })
            .collect(),
    };
    pages.sort_by(|a, b| b.cited.cmp(&a.cited).then(a.url.cmp(&b.url)));
    let most_cited: Vec<PageRow> = pages
        .iter()
        .filter(|p| p.cited > 0)
        .take(PAGES)
        .map(|p| PageRow {
            url: p.url.clone(),
            title: p.title.clone(),
            cited: p.cited,
        })
        .collect();
    let mut least_cited: Vec<PageRow> = pages.into_iter().rev().take(PAGES).collect();
    least_cited.sort_by(|a, b| a.cited.cmp(&b.cited).then(a.url.cmp(&b.url)));
    let mut days: Vec<Day> = days
        .into_iter()
        .map(|(k, mut d)| {
            d.day = k;
            d
        })
        .collect();
    days.sort_by(|a, b| a.day.cmp(&b.day));
    Report {
        from: (first != u64::MAX).then(|| day_of(first)),
        to: (last > 0).then(|| day_of(last)),
        events: read.lines.len(),
        other_lines: read.other,
        malformed_lines: read.malformed,
        questions,
        answered,
        unanswered_without_words,
        other_requests,
        rated_up,
        rated_down,
        unknown_site,
        days,
        clients: clients
            .into_values()
            .map(|(mut row, names)| {
                row.names = top(&names, PAGES);
                row
            })
            .collect(),
        unanswered: group(&analyzer, &unanswered),
        down_rated: group(&analyzer, &down),
        down_rated_unmatched,
        most_cited,
        least_cited,
    }
}

/// `build-index report`: reads the exports (stdin when none, or `-`), and
/// writes the Markdown page (stdout when no `out`) and the JSON; gives the
/// report.
pub fn run(
    files: &[PathBuf],
    index: Option<&Path>,
    out: Option<&Path>,
    json: Option<&Path>,
) -> anyhow::Result<Report> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    if files.is_empty() || files.iter().any(|f| f.as_os_str() == "-") {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading the log from stdin")?;
    }
    // A log is text; a byte that is not UTF-8 spoils its line only.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut read = Read::default();
    let mut parts = vec![text];
    for f in files.iter().filter(|f| f.as_os_str() != "-") {
        let bytes = std::fs::read(f).with_context(|| format!("reading {}", f.display()))?;
        // A log is text; a byte that is not UTF-8 spoils its line only.
        parts.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    for part in &parts {
        read.add(Read::from_text(part));
    }
    let index = match index {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            Some(
                ask_index::decode_bytes(bytes.into())
                    .with_context(|| format!("decoding {}", path.display()))?,
            )
        }
        None => None,
    };
    let report = report(&read, index.as_ref());
    let markdown = report.markdown();
    match out {
        Some(path) => std::fs::write(path, &markdown)
            .with_context(|| format!("writing {}", path.display()))?,
        None => print!("{markdown}"),
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report).context("the report as JSON")?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!(
        "report: {} analytics lines ({} questions, {} unanswered groups, {} down-rated groups); skipped {} other and {} malformed lines",
        report.events,
        report.questions,
        report.unanswered.len(),
        report.down_rated.len(),
        report.other_lines,
        report.malformed_lines
    );
    Ok(report)
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.0} %", 100.0 * part as f64 / whole as f64)
    }
}

/// Markdown-safe inline text (a question can hold anything).
fn md(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out = String::new();
    for c in one_line.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '{' | '}'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn groups_md(out: &mut String, groups: &[Group]) {
    for (i, g) in groups.iter().enumerate() {
        out.push_str(&format!(
            "\n### {}. {} — {} question{}",
            i + 1,
            md(&g.label),
            g.count,
            if g.count == 1 { "" } else { "s" }
        ));
        if g.no_results > 0 {
            out.push_str(&format!(" ({} with no result)", g.no_results));
        }
        if g.rated_up > 0 {
            out.push_str(&format!(" ({} rated up as well)", g.rated_up));
        }
        out.push_str("\n\n");
        for (q, n) in &g.examples {
            out.push_str(&format!("- “{}” ×{n}\n", md(q)));
        }
        let list = |items: &[(String, usize)]| {
            items
                .iter()
                .map(|(x, n)| format!("{} ({n})", md(x)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if g.closest_pages.is_empty() {
            out.push_str("- Closest pages: none (no section matched)\n");
        } else {
            out.push_str(&format!("- Closest pages: {}\n", list(&g.closest_pages)));
        }
        if !g.missing_words.is_empty() {
            out.push_str(&format!(
                "- Words the best sections lack: {}\n",
                list(&g.missing_words)
            ));
        }
        for c in g.comments.iter().take(EXAMPLES) {
            out.push_str(&format!("- Comment: “{}”\n", md(c)));
        }
    }
}

impl Report {
    /// The report as one Markdown page.
    pub fn markdown(&self) -> String {
        let mut out = String::from("# What readers asked\n\n");
        match (&self.from, &self.to) {
            (Some(f), Some(t)) => out.push_str(&format!("From {f} to {t} (UTC). ")),
            _ => out.push_str("No analytics lines were found. "),
        }
        out.push_str(&format!(
            "{} questions, {} answered ({}); {} ratings up and {} down; {} later pages and /who requests. Read {} analytics lines; skipped {} other log lines and {} malformed ones.\n",
            self.questions,
            self.answered,
            pct(self.answered, self.questions),
            self.rated_up,
            self.rated_down,
            self.other_requests,
            self.events,
            self.other_lines,
            self.malformed_lines
        ));
        out.push_str("\n## Traffic by day\n\n| day | questions | answered | ratings up | ratings down | 429s |\n|---|---|---|---|---|---|\n");
        for d in &self.days {
            out.push_str(&format!(
                "| {} | {} | {} ({}) | {} | {} | {} |\n",
                d.day,
                d.questions,
                d.answered,
                pct(d.answered, d.questions),
                d.rated_up,
                d.rated_down,
                d.throttled
            ));
        }
        out.push_str("\n## Traffic by client\n\n| client | questions | answered | names |\n|---|---|---|---|\n");
        for c in &self.clients {
            let names: Vec<String> = c
                .names
                .iter()
                .map(|(n, k)| format!("{} ({k})", md(n)))
                .collect();
            out.push_str(&format!(
                "| {} | {} | {} ({}) | {} |\n",
                md(&c.client),
                c.questions,
                c.answered,
                pct(c.answered, c.questions),
                names.join(", ")
            ));
        }
        out.push_str(&format!(
            "\n## Unanswered questions, grouped\n\n{} groups of the questions the docs did not answer, most asked first.",
            self.unanswered.len()
        ));
        if self.unknown_site > 0 {
            out.push_str(&format!(
                " {} questions named a site this index does not serve and are left out.",
                self.unknown_site
            ));
        }
        if self.unanswered_without_words > 0 {
            out.push_str(&format!(
                " {} unanswered questions were logged without their words (`ask.log_queries` off) and are not grouped.",
                self.unanswered_without_words
            ));
        }
        out.push('\n');
        groups_md(&mut out, &self.unanswered);
        out.push_str(&format!(
            "\n## Down-rated answers, grouped\n\n{} groups of the questions whose answers readers rated down.",
            self.down_rated.len()
        ));
        if self.down_rated_unmatched > 0 {
            out.push_str(&format!(
                " {} down ratings name a question not in this log (or logged without its words).",
                self.down_rated_unmatched
            ));
        }
        out.push('\n');
        groups_md(&mut out, &self.down_rated);
        let pages = |out: &mut String, rows: &[PageRow]| {
            out.push_str("| page | cited by answers |\n|---|---|\n");
            for p in rows {
                let name = match &p.title {
                    Some(t) => format!("{} ({})", md(t), md(&p.url)),
                    None => md(&p.url),
                };
                out.push_str(&format!("| {name} | {} |\n", p.cited));
            }
        };
        out.push_str("\n## Pages cited most\n\n");
        pages(&mut out, &self.most_cited);
        out.push_str("\n## Pages cited least\n\n");
        pages(&mut out, &self.least_cited);
        out
    }
}

#[cfg(test)]
mod tests {
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
        let aws =
            serde_json::json!({"events": [{"message": line}, {"message": "START RequestId: x"}]});
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
}
