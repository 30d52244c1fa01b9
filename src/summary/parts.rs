//! What a summary is made of and from: its parameters, the kind of
//! question, the sections it may quote and the parts it quotes.

/// Sections read for the summary.
pub const SECTIONS: usize = 3;

/// The summarizer's constants, chosen leave-one-corpus-out on the nugget
/// sets (`tests/nuggets.rs`, BENCHMARKS.md "Answers").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Sentences, at most.
    pub sentences: usize,
    /// Characters of sentences, at most (a code block or table comes on
    /// top).
    pub prose_chars: usize,
    /// Lines of code, at most; a longer block is cut, marked by a last
    /// line `…`.
    pub code_lines: usize,
    /// A sentence scores at least this share of the lead's score.
    pub min_share: f32,
    /// Multiplier of a sentence that has what the question's kind asks
    /// for (a definition for `what`, a possibility for `can`, …).
    pub kind_bonus: f32,
    /// Code is carried when its score (its words, and the sentence that
    /// introduces it) is at least this share of the lead sentence's.
    pub code_share: f32,
    /// The first code after the lead sentence in its section is carried
    /// whatever its score.
    pub code_follows_lead: bool,
    /// A section's weight falls by this much a rank (the best weighs 1).
    pub rank_decay: f32,
    /// A long code block shows the lines that hold the most question
    /// terms, not its first lines.
    pub code_window: bool,
    /// Code blocks, at most.
    pub code_blocks: usize,
    /// Multiplier of a sentence that names an identifier (`createMDX`,
    /// `next.config.mjs`, `--dry-run`).
    pub identifier_bonus: f32,
}

impl Default for Params {
    fn default() -> Self {
        PARAMS
    }
}

/// The shipped constants.
pub const PARAMS: Params = Params {
    sentences: 3,
    prose_chars: 300,
    code_lines: 8,
    min_share: 0.5,
    kind_bonus: 1.0,
    code_share: 0.25,
    code_follows_lead: true,
    rank_decay: 0.3,
    code_window: true,
    code_blocks: 3,
    identifier_bonus: 1.5,
};

/// What a question asks for, by its first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// "how do I …", "how to …", or a task ("add dark mode to …"): steps,
    /// code.
    How,
    /// "what is …": a definition.
    What,
    /// "why …": a cause.
    Why,
    /// "can I …", "does it …", "is there …": a possibility or its absence.
    Can,
    /// "which …", "where …", "when …": a choice, a place, a time.
    Which,
}

impl Kind {
    /// The kind of `question`.
    pub fn of(question: &str) -> Kind {
        let lower = question.trim().to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        let first = words.first().copied().unwrap_or("");
        let second = words.get(1).copied().unwrap_or("");
        match first {
            "how" if matches!(second, "much" | "many" | "long" | "often" | "big") => Kind::Which,
            "how" => Kind::How,
            "what" | "what's" | "whats" if matches!(second, "command" | "setting" | "option") => {
                Kind::Which
            }
            "what" | "what's" | "whats" | "define" | "explain" => Kind::What,
            "why" => Kind::Why,
            "can" | "could" | "does" | "do" | "is" | "are" | "will" | "should" | "may" => Kind::Can,
            "which" | "where" | "when" | "who" => Kind::Which,
            _ => Kind::How,
        }
    }

    /// Does `sentence` (lower case) have what this kind asks for?
    pub(super) fn fits(self, lower: &str) -> bool {
        let has = |words: &[&str]| {
            lower
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| words.contains(&w))
        };
        match self {
            Kind::How => has(&[
                "run",
                "add",
                "use",
                "set",
                "create",
                "install",
                "call",
                "pass",
                "import",
                "configure",
                "enable",
                "define",
                "wrap",
                "export",
                "deploy",
                "update",
            ]),
            Kind::What => has(&[
                "is", "are", "means", "refers", "returns", "lets", "provides",
            ]),
            Kind::Why => has(&[
                "because",
                "since",
                "so",
                "when",
                "if",
                "unless",
                "otherwise",
            ]),
            Kind::Can => has(&[
                "can",
                "cannot",
                "can't",
                "only",
                "not",
                "supports",
                "supported",
                "must",
                "may",
                "allows",
                "lets",
            ]),
            Kind::Which => lower.chars().any(|c| c.is_ascii_digit()) || has(&["default"]),
        }
    }

    /// Does this kind of question want code when code answers?
    pub(super) fn wants_code(self) -> bool {
        matches!(self, Kind::How | Kind::Which | Kind::What)
    }
}

/// A section the summary may quote: its Markdown, its page's description
/// when the section is the page's intro (`""` otherwise), and its weight,
/// its share of the best section's score (1 for the best).
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The section's Markdown.
    pub markdown: &'a str,
    /// Its page's one-line description, if the section is the page's
    /// intro (which opens with it).
    pub description: &'a str,
    /// Its share of the best section's score, in (0, 1].
    pub weight: f32,
}

/// A part of a summary and the source it cites (0-based rank among the
/// sources given).
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// A whole sentence.
    Sentence {
        /// The sentence, whitespace collapsed.
        text: String,
        /// Its source.
        source: usize,
    },
    /// A code block, cut to the line budget.
    Code {
        /// Its language (may be empty).
        lang: String,
        /// Its lines (the last one `…` when cut).
        code: String,
        /// Its source.
        source: usize,
    },
    /// Rows of a table with their header, as a Markdown table.
    Table {
        /// The table, header, separator and rows.
        markdown: String,
        /// Its source.
        source: usize,
    },
}

impl Part {
    /// The source it cites.
    pub fn source(&self) -> usize {
        match self {
            Part::Sentence { source, .. }
            | Part::Code { source, .. }
            | Part::Table { source, .. } => *source,
        }
    }
}
