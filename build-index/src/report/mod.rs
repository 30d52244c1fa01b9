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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;
use ask_index::{Analyzer, Index};

mod group;
mod model;
mod read;
mod render;
#[cfg(test)]
mod tests;

use group::{Asked, group, pages_of, path_of, top};
use model::PAGES;
pub use model::{ClientRow, Day, Group, PageRow, Report, SiteRow};
pub use read::Read;
use read::{Feedback, Line, Query};

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

/// The first and last time seen.
struct Span {
    first: u64,
    last: u64,
}

impl Span {
    fn new() -> Span {
        Span {
            first: u64::MAX,
            last: 0,
        }
    }

    /// The day of `ms` (UTC), widening the span to it.
    fn day(&mut self, ms: u64) -> String {
        self.first = self.first.min(ms);
        self.last = self.last.max(ms);
        day_of(ms)
    }
}

/// What the query and rate-limit lines tally: traffic by day, by client
/// and by page, and the questions left unanswered.
struct Tally<'a> {
    days: BTreeMap<String, Day>,
    clients: BTreeMap<String, (ClientRow, BTreeMap<String, usize>)>,
    sites: BTreeMap<String, SiteRow>,
    cited: BTreeMap<String, usize>,
    unanswered: Vec<Asked<'a>>,
    unanswered_without_words: usize,
    unknown_site: usize,
    /// Each issued id's question line.
    by_id: HashMap<&'a str, &'a Query>,
    questions: usize,
    answered: usize,
    other_requests: usize,
}

/// Tallies the query and rate-limit lines of `lines`.
fn tally<'a>(lines: &'a [Line], span: &mut Span) -> Tally<'a> {
    let mut days: BTreeMap<String, Day> = BTreeMap::new();
    let mut clients: BTreeMap<String, (ClientRow, BTreeMap<String, usize>)> = BTreeMap::new();
    let mut cited: BTreeMap<String, usize> = BTreeMap::new();
    let mut sites: BTreeMap<String, SiteRow> = BTreeMap::new();
    let mut unanswered = Vec::new();
    let mut unanswered_without_words = 0;
    let mut unknown_site = 0;
    let mut by_id: HashMap<&str, &Query> = HashMap::new();
    let (mut questions, mut answered) = (0, 0);
    let mut other_requests = 0;
    for line in lines {
        match line {
            // A later page, or `/who`: a request, not a question.
            Line::Query(q) if q.start_num > 0 || q.route == "/who" => {
                span.day(q.aws.timestamp);
                other_requests += 1;
            }
            Line::Query(q) => {
                let d = days.entry(span.day(q.aws.timestamp)).or_default();
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
                if let Some(site) = &q.site {
                    let row = sites.entry(site.clone()).or_default();
                    row.site = site.clone();
                    row.questions += 1;
                    row.answered += usize::from(q.answered);
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
                            site: q.site.as_deref(),
                        }),
                        None => unanswered_without_words += 1,
                    }
                }
            }
            Line::Feedback(_) => {}
            Line::Throttled(t) => days.entry(span.day(t.aws.timestamp)).or_default().throttled += 1,
        }
    }
    Tally {
        days,
        clients,
        sites,
        cited,
        unanswered,
        unanswered_without_words,
        unknown_site,
        by_id,
        questions,
        answered,
        other_requests,
    }
}

/// What the ratings say: how many up and down, and the down-rated
/// answers' questions.
struct Rated<'a> {
    rated_up: usize,
    rated_down: usize,
    down: Vec<Asked<'a>>,
    down_rated_unmatched: usize,
}

/// Counts the ratings of `lines` into `days`, and finds each down-rated
/// answer's question in `by_id`.
fn rate<'a>(
    lines: &'a [Line],
    by_id: &HashMap<&'a str, &'a Query>,
    days: &mut BTreeMap<String, Day>,
    span: &mut Span,
) -> Rated<'a> {
    // An answer's id and rating count once, however many lines (one an
    // environment that took it) say so.
    let mut ratings: BTreeMap<(&str, &str), &Feedback> = BTreeMap::new();
    for line in lines {
        if let Line::Feedback(f) = line {
            ratings
                .entry((f.query_id.as_str(), f.rating.as_str()))
                .or_insert(f);
        }
    }
    let (mut rated_up, mut rated_down) = (0, 0);
    let mut ups: HashMap<&str, usize> = HashMap::new();
    for ((id, rating), f) in &ratings {
        let d = days.entry(span.day(f.aws.timestamp)).or_default();
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
        match by_id.get(f.query_id.as_str()).copied() {
            Some(q) => down.push(Asked {
                text: q.question.as_deref().unwrap_or_default(),
                no_result: q.failure.is_some(),
                urls: &q.top_urls,
                missing: q.missing.as_deref().unwrap_or(&[]),
                comment: f.comment.as_deref(),
                rated_up: ups.get(f.query_id.as_str()).copied().unwrap_or(0),
                site: q.site.as_deref(),
            }),
            None => down_rated_unmatched += 1,
        }
    }
    Rated {
        rated_up,
        rated_down,
        down,
        down_rated_unmatched,
    }
}

/// The pages cited most and least: the index's when given, else those
/// answers cited.
fn page_rows(
    index: Option<&Index>,
    cited: &BTreeMap<String, usize>,
) -> (Vec<PageRow>, Vec<PageRow>) {
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
    (most_cited, least_cited)
}

/// The report of what `read` holds; `index` (the deployed one) names the
/// pages and lists those never cited.
pub fn report(read: &Read, index: Option<&Index>) -> Report {
    let analyzer = Analyzer::new();
    let mut span = Span::new();
    let mut counts = tally(&read.lines, &mut span);
    let rated = rate(&read.lines, &counts.by_id, &mut counts.days, &mut span);
    let (most_cited, least_cited) = page_rows(index, &counts.cited);
    let mut days: Vec<Day> = counts
        .days
        .into_iter()
        .map(|(k, mut d)| {
            d.day = k;
            d
        })
        .collect();
    days.sort_by(|a, b| a.day.cmp(&b.day));
    Report {
        from: (span.first != u64::MAX).then(|| day_of(span.first)),
        to: (span.last > 0).then(|| day_of(span.last)),
        events: read.lines.len(),
        other_lines: read.other,
        malformed_lines: read.malformed,
        questions: counts.questions,
        answered: counts.answered,
        unanswered_without_words: counts.unanswered_without_words,
        other_requests: counts.other_requests,
        rated_up: rated.rated_up,
        rated_down: rated.rated_down,
        unknown_site: counts.unknown_site,
        days,
        clients: counts
            .clients
            .into_values()
            .map(|(mut row, names)| {
                row.names = top(&names, PAGES);
                row
            })
            .collect(),
        sites: counts.sites.into_values().collect(),
        unanswered: group(&analyzer, &counts.unanswered),
        down_rated: group(&analyzer, &rated.down),
        down_rated_unmatched: rated.down_rated_unmatched,
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
