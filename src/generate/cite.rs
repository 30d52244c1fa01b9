//! What a model wrote, checked before a client sees it: citations of
//! sources it was not given are removed with the sentences left uncited;
//! an answer with no valid citation falls back.

use super::prompt::NOT_IN_SOURCES;
use crate::protocol::response::Fallback;

/// A piece of a model's text: prose (or a code span, never split), or a
/// citation of a source that was given.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(String),
    Code(String),
    Cite(usize),
}

/// Splits `text` into pieces. A bracket holding a digit is a citation,
/// wherever it is outside backticks (so no `[n]` of a source not given
/// survives, even glued to a word): its numbers from 1 to `sources` are
/// kept, anything else in it (a source not given, `1-3`, an overflowing
/// number) is dropped, and a citation left empty is removed with the
/// spaces before it. A Markdown link `[text](url)` keeps its text only.
fn pieces(text: &str, sources: usize) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut prose = String::new();
    let mut rest = text;
    let flush = |prose: &mut String, out: &mut Vec<Piece>| {
        if !prose.is_empty() {
            out.push(Piece::Text(std::mem::take(prose)));
        }
    };
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            let ticks = rest.len() - rest.trim_start_matches('`').len();
            let fence = &rest[..ticks];
            // A span closed by the same run of backticks is code; a lone
            // backtick (an apostrophe typed so) is text.
            if let Some(i) = rest[ticks..].find(fence) {
                let end = ticks + i + ticks;
                flush(&mut prose, &mut out);
                out.push(Piece::Code(rest[..end].to_string()));
                rest = &rest[end..];
            } else {
                prose.push_str(fence);
                rest = &rest[ticks..];
            }
            continue;
        }
        if c == '[' {
            let close = rest[1..].find([']', '[']).map(|i| i + 1);
            if let Some(close) = close.filter(|&i| rest.as_bytes()[i] == b']') {
                let inside = &rest[1..close];
                let after = &rest[close + 1..];
                if after.starts_with('(')
                    && let Some(end) = after.find(')')
                {
                    // A link: its text stays, its URL goes.
                    prose.push_str(inside);
                    rest = &after[end + 1..];
                    continue;
                }
                if inside.chars().any(|c| c.is_ascii_digit()) {
                    let valid: Vec<usize> = inside
                        .split(',')
                        .filter_map(|n| n.trim().parse::<usize>().ok())
                        .filter(|n| (1..=sources).contains(n))
                        .collect();
                    if valid.is_empty() {
                        let kept = prose.trim_end_matches(' ').len();
                        prose.truncate(kept);
                    } else {
                        flush(&mut prose, &mut out);
                        out.extend(valid.into_iter().map(Piece::Cite));
                    }
                    rest = after;
                    continue;
                }
            }
        }
        prose.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut prose, &mut out);
    out
}

/// The pieces grouped into sentences. A sentence ends at `.`, `!` or `?`
/// followed by whitespace (closing quotes or brackets between them; not
/// after a list number such as `2.`), at `。`, `！` or `？`, or at a line
/// break; citations right after its end belong to it.
fn sentences(pieces: Vec<Piece>) -> Vec<Vec<Piece>> {
    let mut out: Vec<Vec<Piece>> = Vec::new();
    let mut current: Vec<Piece> = Vec::new();
    let mut ended = false;
    let words = |ps: &[Piece]| -> String {
        ps.iter()
            .map(|p| match p {
                Piece::Text(t) | Piece::Code(t) => t.as_str(),
                Piece::Cite(_) => "",
            })
            .collect()
    };
    for piece in pieces {
        match piece {
            // Citations after a sentence's end still belong to it.
            Piece::Cite(_) => current.push(piece),
            Piece::Code(_) => {
                if ended {
                    out.push(std::mem::take(&mut current));
                    ended = false;
                }
                current.push(piece);
            }
            Piece::Text(t) => {
                let mut start = 0;
                let chars: Vec<(usize, char)> = t.char_indices().collect();
                for (k, &(i, c)) in chars.iter().enumerate() {
                    if ended && !c.is_whitespace() && !closes(c) {
                        current.push(Piece::Text(t[start..i].to_string()));
                        out.push(std::mem::take(&mut current));
                        start = i;
                        ended = false;
                    }
                    // After the stop, closing quotes and brackets, then a space.
                    let next_space = chars[k + 1..]
                        .iter()
                        .find(|&&(_, n)| !closes(n))
                        .is_none_or(|&(_, n)| n.is_whitespace());
                    if matches!(c, '\n' | '。' | '！' | '？')
                        || (matches!(c, '.' | '!' | '?') && next_space && {
                            let so_far = words(&current) + &t[start..i];
                            !so_far.trim().chars().all(|d| d.is_ascii_digit())
                        })
                    {
                        ended = true;
                    }
                }
                current.push(Piece::Text(t[start..].to_string()));
            }
        }
    }
    out.push(current);
    out.retain(|s| !s.is_empty());
    out
}

/// Closing brackets and quotes, which stay with the sentence they follow.
fn closes(c: char) -> bool {
    matches!(c, ')' | '"' | '\'' | '”' | '’' | '»')
}

/// A model's text with its citations checked against `sources` sources:
/// citations of sources not given are removed (see [`pieces`]), then every
/// sentence left without a valid citation, or without a word, is dropped
/// (with `truncated`, the last sentence too: the model was cut off in it).
/// Nothing left:
/// [`Fallback::NoValidCitation`]; the model's [`NOT_IN_SOURCES`]:
/// [`Fallback::NotAnswered`].
pub fn cite_check(text: &str, sources: usize, truncated: bool) -> Result<Checked, Fallback> {
    // Removing a citation can join what surrounded it into another one
    // (`[[9]5]` becomes `[5]`): check again until nothing changes.
    // Every pass that removes something shortens the text, so this ends.
    let mut checked = check_once(text, sources, truncated)?;
    loop {
        let again = check_once(&checked.text, sources, false)?;
        if again == checked {
            return Ok(checked);
        }
        let shorter = again.text.len() < checked.text.len();
        checked = again;
        if !shorter {
            return Ok(checked);
        }
    }
}

/// One pass of [`cite_check`].
fn check_once(text: &str, sources: usize, truncated: bool) -> Result<Checked, Fallback> {
    if text
        .trim()
        .trim_end_matches('.')
        .eq_ignore_ascii_case(NOT_IN_SOURCES)
    {
        return Err(Fallback::NotAnswered);
    }
    let mut all = sentences(pieces(text, sources));
    if truncated {
        all.pop();
    }
    let mut out = String::new();
    let mut first = String::new();
    let mut cited: Vec<usize> = Vec::new();
    for sentence in all {
        let has_cite = sentence.iter().any(|p| matches!(p, Piece::Cite(_)));
        let has_word = sentence.iter().any(|p| match p {
            Piece::Text(t) | Piece::Code(t) => t.chars().any(char::is_alphanumeric),
            Piece::Cite(_) => false,
        });
        if !(has_cite && has_word) {
            continue;
        }
        let mut s = String::new();
        let mut plain = String::new();
        for p in sentence {
            match p {
                Piece::Text(t) | Piece::Code(t) => {
                    s.push_str(&t);
                    plain.push_str(&t);
                }
                Piece::Cite(n) => {
                    let kept = plain.trim_end().len();
                    plain.truncate(kept);
                    s.push_str(&format!("[{n}]"));
                    if !cited.contains(&n) {
                        cited.push(n);
                    }
                }
            }
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(s.trim());
        if first.is_empty() {
            first = plain.trim().to_string();
        }
    }
    if cited.is_empty() {
        return Err(Fallback::NoValidCitation);
    }
    Ok(Checked {
        text: out,
        cited,
        first,
    })
}

/// A model's answer that passed [`cite_check`].
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The sentences kept, each with its citations.
    pub text: String,
    /// The sources cited, in order of first citation.
    pub cited: Vec<usize>,
    /// The first sentence kept, without its citations.
    pub first: String,
}
