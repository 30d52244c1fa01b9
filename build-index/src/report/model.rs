//! What the report holds: its groups, days, clients and pages, and how
//! many of each it keeps.

use serde::Serialize;

/// Examples kept per group.
pub(super) const EXAMPLES: usize = 3;
/// Closest pages and missing words kept per group.
pub(super) const CLOSEST: usize = 3;
/// Pages listed as most and as least cited.
pub(super) const PAGES: usize = 10;
/// Two questions fall in one group when their terms overlap at least this
/// much (Jaccard: shared terms over all terms).
pub(super) const SAME_GROUP: f64 = 0.5;

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
    /// The sites the questions were asked of (`ask.sites`), with their
    /// counts; empty when none named one.
    pub sites: Vec<(String, usize)>,
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

/// The questions asked of some sites (`ask.sites`).
#[derive(Debug, Default, Serialize)]
pub struct SiteRow {
    /// The sites searched, comma-separated.
    pub site: String,
    /// Questions.
    pub questions: usize,
    /// Of them, answered.
    pub answered: usize,
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
    /// Traffic by the sites asked (`ask.sites`); empty when no question
    /// had one.
    pub sites: Vec<SiteRow>,
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
