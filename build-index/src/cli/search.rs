//! `build-index search`: answers queries from stdin against an index, one JSON line each, as the Lambda would.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use ask_index::{Analyzer, Index};
use serde::Deserialize;

use super::rules::{load_hybrid, team_rules};

#[derive(Deserialize)]
struct QueryLine<'a> {
    #[serde(rename = "_id", borrow)]
    id: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
    #[serde(default)]
    site: Option<String>,
}

/// Writes one answered line of `build-index search`: `{"corrections":
/// [{"from","to"}…],"hits":[{"heading","id","score","url"}…],"query_id"}`
/// (keys in sorted order), as `serde_json` would, by hand: this is the
/// per-query output path that the throughput benchmark measures.
fn write_answer<'i>(
    out: &mut Vec<u8>,
    texts: &mut Vec<(&'i str, &'i str, &'i str, &'i str)>,
    index: &'i Index,
    corrections: &[ask_index::typo::Correction],
    hits: &[ask_index::Hit],
    query_id: &serde_json::value::RawValue,
) -> Result<()> {
    out.extend_from_slice(b"{\"corrections\":[");
    for (i, c) in corrections.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"from\":");
        json_str(out, &c.from)?;
        out.extend_from_slice(b",\"to\":");
        json_str(out, &c.to)?;
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"hits\":[");
    // Every hit's text first, in one short loop: its reads (likely cache
    // misses, far apart in the index) overlap instead of waiting in turn.
    texts.clear();
    texts.extend(hits.iter().map(|h| {
        let (heading, anchor) = index.section_heading_anchor(h.section);
        let (id, route) = index.page_path_route(index.section_page(h.section));
        (heading, anchor, id, route)
    }));
    for (i, (h, &(heading, anchor, id, route))) in hits.iter().zip(texts.iter()).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"heading\":");
        json_str(out, heading)?;
        out.extend_from_slice(b",\"id\":");
        json_str(out, id)?;
        out.extend_from_slice(b",\"score\":");
        serde_json::to_writer(&mut *out, &h.score)?;
        out.extend_from_slice(b",\"url\":");
        json_str(out, &ask_index::search::url_of(index, route, anchor))?;
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"query_id\":");
    out.extend_from_slice(query_id.get().as_bytes());
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// `s` as a JSON string: copied as it is when nothing in it needs an
/// escape (one branch-free pass), else through `serde_json`.
fn json_str(out: &mut Vec<u8>, s: &str) -> Result<()> {
    let plain = !s.bytes().fold(false, |esc, b| {
        esc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if plain {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s)?;
    }
    Ok(())
}

/// The sites `site` names in `index` (`None`: every page), as the Lambda
/// reads a request's `site`.
fn scope_of(index: &Index, site: Option<&str>) -> Result<ask_index::sites::Scope> {
    let Some(site) = site else {
        return Ok(None);
    };
    ask_index::sites::scope_of(index.site_names(), site, |n| n.eq_ignore_ascii_case("all")).map_err(
        |unknown| {
            anyhow::anyhow!(
                "the index has no site {}; its sites: {}",
                unknown.join(", "),
                index.site_names().join(", ")
            )
        },
    )
}

/// `build-index search`: answers each stdin line with one JSON line on
/// stdout; stderr gets the throughput and latency.
pub(crate) fn search(
    path: &Path,
    top_k: usize,
    (boost, synonyms): (Option<&str>, Option<&str>),
    no_typos: bool,
    site: Option<&str>,
    hybrid: Option<(Option<PathBuf>, f32)>,
) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let n_bytes = bytes.len();
    let load = Instant::now();
    let index: Index = ask_index::decode_bytes(bytes.into())
        .with_context(|| format!("loading {}", path.display()))?;
    let load = load.elapsed();
    let analyzer = Analyzer::new();
    let hybrid = match hybrid {
        None => None,
        Some((dir, weight)) => {
            let dir =
                dir.context("--retriever hybrid needs the model: --model DIR or ASK_MODEL_DIR")?;
            Some(load_hybrid(&index, path, &dir, weight)?)
        }
    };
    let rules = team_rules(&index, &analyzer, boost, synonyms, hybrid)?;
    let mut stdin = std::io::stdin().lock();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line_out = Vec::new();
    let mut texts = Vec::new();
    let mut times = Vec::new();
    let mut line = String::new();
    for n in 1.. {
        line.clear();
        if stdin.read_line(&mut line).context("reading stdin")? == 0 {
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let numbered;
        let mut line_site = None;
        let (id, text) = if trimmed.starts_with('{') {
            let q: QueryLine = serde_json::from_str(trimmed)
                .with_context(|| format!("stdin line {n}: expected {{\"_id\",\"text\"}}"))?;
            line_site = q.site;
            (q.id, q.text)
        } else {
            numbered = serde_json::value::to_raw_value(&n)?;
            (
                &*numbered,
                std::borrow::Cow::Borrowed(line.trim_end_matches(['\n', '\r'])),
            )
        };
        let scope = scope_of(&index, line_site.as_deref().or(site))
            .with_context(|| format!("stdin line {n}"))?;
        let t = Instant::now();
        let (hits, searched) = if let Some(mask) = scope {
            let ask = ask_index::search::Ask {
                query: &text,
                k: top_k,
                scope: Some(mask),
                ..Default::default()
            };
            let found = ask_index::search::find_in(&index, &analyzer, &rules, ask);
            (found.hits, found.corrected)
        } else if no_typos {
            let hits =
                ask_index::search::retrieve_weighted(&index, &analyzer, &text, &[], top_k, &rules);
            (hits, ask_index::typo::Corrected::default())
        } else {
            ask_index::search::retrieve_corrected(&index, &analyzer, &text, &[], top_k, &rules)
        };
        times.push(t.elapsed());
        line_out.clear();
        write_answer(
            &mut line_out,
            &mut texts,
            &index,
            &searched.corrections,
            &hits,
            id,
        )?;
        out.write_all(&line_out)?;
    }
    out.flush()?;
    times.sort();
    let total: std::time::Duration = times.iter().sum();
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p).round() as usize)
            .map(|d| d.as_secs_f64() * 1e6)
            .unwrap_or(0.0)
    };
    eprintln!(
        "searched {} queries in {:.3} s ({:.0} queries/s); p50 {:.1} µs, p99 {:.1} µs; index load {:.2} ms ({} bytes)",
        times.len(),
        total.as_secs_f64(),
        times.len() as f64 / total.as_secs_f64().max(1e-9),
        pct(0.5),
        pct(0.99),
        load.as_secs_f64() * 1e3,
        n_bytes
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in [
            "",
            "plain heading",
            "a \"quoted\" word",
            "back\\slash",
            "tab\there\nnewline\u{1}",
            "ünïcödé — “curly” 🦀",
            "\u{7f} and </script>",
        ] {
            let mut out = Vec::new();
            json_str(&mut out, s).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }
}
