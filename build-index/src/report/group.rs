//! Grouping questions by the words they share, and the pages answers gave.

use std::collections::{BTreeMap, BTreeSet};

use ask_index::Analyzer;

use super::model::{CLOSEST, EXAMPLES, Group, SAME_GROUP};

fn page_of(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// A URL's path (without scheme and host), `/` when it has none.
pub(super) fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/').map_or("/", |i| &rest[i..])
}

/// The pages of an answer's URLs, each once (sections of one page are one
/// citation of it).
pub(super) fn pages_of(urls: &[String]) -> BTreeSet<&str> {
    urls.iter().map(|u| page_of(u)).collect()
}

/// The `n` most frequent keys, most first (then by key).
pub(super) fn top<K: Ord + Clone>(counts: &BTreeMap<K, usize>, n: usize) -> Vec<(K, usize)> {
    let mut v: Vec<(K, usize)> = counts.iter().map(|(k, c)| (k.clone(), *c)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// A question to group: its text, its analyzed terms, and what its lines
/// said.
pub(super) struct Asked<'a> {
    pub(super) text: &'a str,
    pub(super) no_result: bool,
    pub(super) urls: &'a [String],
    pub(super) missing: &'a [String],
    pub(super) comment: Option<&'a str>,
    /// Up ratings of the same answer (a down-rated one).
    pub(super) rated_up: usize,
    /// The sites it was asked of (`ask.sites`; none: every page).
    pub(super) site: Option<&'a str>,
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
pub(super) fn group(analyzer: &Analyzer, asked: &[Asked<'_>]) -> Vec<Group> {
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
            let mut sites = BTreeMap::new();
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
                    if let Some(site) = a.site {
                        *sites.entry(site.to_string()).or_insert(0) += 1;
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
                sites: top(&sites, CLOSEST),
                comments,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
    out
}
