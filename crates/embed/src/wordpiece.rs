//! The model's tokenizer: BERT's uncased WordPiece, as the pinned
//! `tokenizer.json` configures it (BertNormalizer with clean text, Chinese
//! characters split, accents stripped, lowercase; BertPreTokenizer;
//! WordPiece with `##` and `[UNK]` past 100 characters; `[CLS] … [SEP]`).
//!
//! Written here, not loaded with the `tokenizers` crate, because parsing
//! that JSON took 25 ms of every cold start; a test checks both give the
//! same ids on every section of the corpora.

use std::collections::HashMap;

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// The special tokens of the vocabulary, matched in raw text as the
/// pinned tokenizer does (so `[SEP]` typed in a question is that token).
const SPECIAL: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// Words longer than this many characters are `[UNK]`.
const MAX_WORD_CHARS: usize = 100;

/// A vocabulary: word pieces and their ids.
#[derive(Debug)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
    special: Vec<(&'static str, u32)>,
}

impl WordPiece {
    /// The tokenizer of a vocabulary listed in id order.
    pub fn new(vocab: &[String]) -> Result<WordPiece, String> {
        let ids: HashMap<String, u32> = vocab
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as u32))
            .collect();
        let id = |t: &str| {
            ids.get(t)
                .copied()
                .ok_or_else(|| format!("the vocabulary has no {t}"))
        };
        let mut special = Vec::new();
        for t in SPECIAL {
            special.push((t, id(t)?));
        }
        Ok(WordPiece {
            unk: id("[UNK]")?,
            cls: id("[CLS]")?,
            sep: id("[SEP]")?,
            special,
            ids,
        })
    }

    /// `[CLS]`, the ids of `text`'s word pieces, `[SEP]`: at most `max`
    /// ids (at least 2), the pieces cut at the end.
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let max = max.max(2);
        let mut out = vec![self.cls];
        let mut rest = text;
        'text: while !rest.is_empty() && out.len() < max - 1 {
            // The earliest special token in the rest, if any.
            let next = self
                .special
                .iter()
                .filter_map(|&(t, id)| rest.find(t).map(|at| (at, t.len(), id)))
                .min_by_key(|&(at, len, _)| (at, std::cmp::Reverse(len)));
            let (plain, special) = match next {
                Some((at, len, id)) => (&rest[..at], Some((id, &rest[at + len..]))),
                None => (rest, None),
            };
            for word in words(plain) {
                self.pieces(&word, &mut out);
                if out.len() >= max - 1 {
                    out.truncate(max - 1);
                    break 'text;
                }
            }
            match special {
                Some((id, after)) => {
                    out.push(id);
                    rest = after;
                }
                None => break,
            }
        }
        out.truncate(max - 1);
        out.push(self.sep);
        out
    }

    /// Greedy longest-match word pieces of one word.
    fn pieces(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let first = out.len();
        let mut start = 0;
        let mut key = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                key.clear();
                if start > 0 {
                    key.push_str("##");
                }
                key.push_str(&word[start..end]);
                if let Some(&id) = self.ids.get(key.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= word[..end].chars().next_back().map_or(1, char::len_utf8);
            }
            match found {
                Some(id) => out.push(id),
                None => {
                    out.truncate(first);
                    out.push(self.unk);
                    return;
                }
            }
            start = end;
        }
    }
}

/// The normalised words of `text`: control characters dropped, white
/// space and punctuation split off, CJK ideographs one a word, accents
/// stripped, lowercase.
fn words(text: &str) -> Vec<String> {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            clean.push(' ');
        } else if is_chinese_char(c) {
            clean.push(' ');
            clean.push(c);
            clean.push(' ');
        } else {
            clean.push(c);
        }
    }
    let mut normal = String::with_capacity(clean.len());
    for (c, _) in clean.as_str().nfd() {
        if !c.is_mark_nonspacing() {
            normal.extend(c.to_lowercase());
        }
    }
    let mut words = Vec::new();
    let mut word = String::new();
    for c in normal.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if c.is_ascii_punctuation() || c.is_punctuation() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_chinese_char(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    //! The tokenizer's rules on a small vocabulary, without the model (the
    //! model's own vocabulary is checked against `tokenizers` in
    //! tests/model.rs when the model is there).
    use super::*;

    /// `[PAD] [UNK] [CLS] [SEP] [MASK]` are ids 0 to 4; then these words.
    fn vocab(words: &[&str]) -> WordPiece {
        let all: Vec<String> = SPECIAL.iter().chain(words).map(|w| w.to_string()).collect();
        WordPiece::new(&all).unwrap()
    }

    fn id(vocab_words: &[&str], w: &str) -> u32 {
        5 + vocab_words.iter().position(|x| *x == w).unwrap() as u32
    }

    #[test]
    fn words_are_cleaned_split_lowercased_and_stripped_of_accents() {
        assert_eq!(words("Héllo, WORLD!"), ["hello", ",", "world", "!"]);
        assert_eq!(words("a\tb\nc\u{0}d"), ["a", "b", "cd"]);
        assert_eq!(words("中文 ok"), ["中", "文", "ok"]);
        assert_eq!(words("café–bar"), ["cafe", "–", "bar"]);
        assert!(words(" \u{fffd} ").is_empty());
    }

    #[test]
    fn pieces_match_greedily_with_hashes_and_unknown_words_are_one_unk() {
        let w = ["run", "##ning", "##n", "un", "##known", "a"];
        let t = vocab(&w);
        let ids = t.encode("Running unknown xyz", 16);
        assert_eq!(
            ids,
            [
                2,
                id(&w, "run"),
                id(&w, "##ning"),
                id(&w, "un"),
                id(&w, "##known"),
                1,
                3
            ]
        );
        // A word past 100 characters is [UNK], whatever its pieces.
        let long = "a".repeat(101);
        assert_eq!(t.encode(&long, 8), [2, 1, 3]);
    }

    #[test]
    fn special_tokens_in_the_text_are_their_ids_and_the_length_is_capped() {
        let w = ["a", "b"];
        let t = vocab(&w);
        assert_eq!(
            t.encode("a [SEP] b", 16),
            [2, id(&w, "a"), 3, id(&w, "b"), 3]
        );
        // At most `max` ids, [CLS] and [SEP] included; never under 2.
        assert_eq!(t.encode("a a a a a", 4), [2, id(&w, "a"), id(&w, "a"), 3]);
        assert_eq!(t.encode("a", 0), [2, 3]);
        assert!(WordPiece::new(&["x".to_string()]).is_err());
    }
}
