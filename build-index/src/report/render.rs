//! The report as Markdown.

use super::model::{EXAMPLES, Group, PageRow, Report};

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
        if !g.sites.is_empty() {
            out.push_str(&format!("- Sites asked: {}\n", list(&g.sites)));
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
        if !self.sites.is_empty() {
            out.push_str(
                "\n## Traffic by site\n\n| sites asked | questions | answered |\n|---|---|---|\n",
            );
            for s in &self.sites {
                out.push_str(&format!(
                    "| {} | {} | {} ({}) |\n",
                    md(&s.site),
                    s.questions,
                    s.answered,
                    pct(s.answered, s.questions)
                ));
            }
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
