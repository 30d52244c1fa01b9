//! Which word did the user mean? Typo correction against the docs' own
//! words, so that "how do i chnage the sidebar" searches for "change".
//!
//! The rules follow Meilisearch's and Algolia's defaults:
//!
//! - only a word of the question that the index does not contain is
//!   corrected (its analyzed term has no postings); a word the docs use is
//!   never second-guessed;
//! - words of fewer than [`ONE_TYPO_FROM`] letters are never corrected; from
//!   5 to 8 letters one typo is allowed, from [`TWO_TYPOS_FROM`] letters two;
//!   a typo is an insertion, a deletion, a substitution or a swap of two
//!   neighbouring letters (optimal string alignment distance), and a typo
//!   on the first letter counts as two, so "night" never becomes "right";
//! - identifiers (`createMDX`, `rate_limit_per_minute`), numbers and words
//!   with digits are never corrected;
//! - among the docs' words within reach, the fewest typos win, then a word
//!   longer than the typed one (a left-out letter is the commonest slip),
//!   then the word whose term is in the most sections, then the
//!   alphabetically first.
//!
//! The docs' words are collected at build time ([`WordSet`]): lower-case
//! ASCII words of [`ONE_TYPO_FROM`] to [`MAX_WORD`] letters that are not
//! stop words, stored sorted by length so that a lookup only compares the
//! words whose length is within reach. A shorter word of the docs is never
//! the correction of a longer one typed ("renew" stays "renew", not "rene").

use rayon::prelude::*;

use crate::analyzer::Analyzer;
use crate::analyzer::is_identifier;
use crate::index::Index;
use crate::words::{COUNT_BITS, FIRST_SHIFT, LEN_SHIFT, WordLookup, letters, rest_of};

/// Shortest word that may be corrected (one typo).
pub const ONE_TYPO_FROM: usize = 5;
/// Shortest word that may take two typos.
pub const TWO_TYPOS_FROM: usize = 9;
pub use crate::words::MAX_WORD;

/// One word of the question replaced by a word of the docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correction {
    /// The word as typed (its letters, without surrounding punctuation).
    pub from: String,
    /// The docs' word searched instead (lower case).
    pub to: String,
}

/// A question after correction: the text searched, and what changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Corrected {
    /// The question with each corrected word replaced.
    pub query: String,
    /// The replacements, in the order of the question.
    pub corrections: Vec<Correction>,
}

/// Typos allowed in a word of `len` letters.
pub fn max_typos(len: usize) -> usize {
    match len {
        l if l < ONE_TYPO_FROM => 0,
        l if l < TWO_TYPOS_FROM => 1,
        l if l <= MAX_WORD => 2,
        _ => 0,
    }
}

/// The lower-case ASCII form of a word worth keeping or correcting, if it
/// is one: letters only (after transliteration), [`ONE_TYPO_FROM`] to
/// [`MAX_WORD`] long.
pub fn plain_word(w: &str) -> Option<String> {
    if w.len() < ONE_TYPO_FROM || w.len() > 4 * MAX_WORD {
        return None;
    }
    let lower = if w.is_ascii() {
        w.to_ascii_lowercase()
    } else {
        deunicode::deunicode(w).to_ascii_lowercase()
    };
    (lower.len() >= ONE_TYPO_FROM
        && lower.len() <= MAX_WORD
        && lower.bytes().all(|b| b.is_ascii_lowercase()))
    .then_some(lower)
}

/// The distinct words of some texts, for [`Vocabulary::from_words`].
#[derive(Default)]
pub struct WordSet(
    std::collections::HashSet<String, std::hash::BuildHasherDefault<crate::analyzer::WordHash>>,
);

/// The words of `text` worth keeping for typo correction ([`plain_word`]).
pub fn plain_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter_map(plain_word)
}

impl WordSet {
    /// Adds `words`.
    pub fn extend(&mut self, words: impl IntoIterator<Item = String>) {
        self.0.extend(words);
    }

    /// The words that are not stop words, sorted by length then text.
    pub fn into_sorted(self, analyzer: &Analyzer) -> Vec<String> {
        let mut words: Vec<String> = self
            .0
            .into_par_iter()
            .filter(|w| !analyzer.analyze(w).is_empty())
            .collect();
        words.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        words
    }
}

/// Whether `a` and `b` ([`letters`]) may be within `max` typos. Each
/// inserted or deleted letter changes one letter's count by one, which
/// flips at most one of the count bits; a substitution changes two counts
/// (two bits), a swap none. So `d` edits of which `Δ` (the length
/// difference, at least) are insertions or deletions flip at most
/// `2d − Δ` bits; and another first letter is itself a typo.
#[inline(always)]
fn may_be_within(a: u64, b: u64, max: usize) -> bool {
    let x = a ^ b;
    let allowed = max - usize::from((x >> FIRST_SHIFT) & 31 != 0);
    let lengths = ((a >> LEN_SHIFT) & 31).abs_diff((b >> LEN_SHIFT) & 31) as usize;
    let flipped = (x & COUNT_BITS).count_ones() as usize;
    // No branch: the typo search runs this over whole ranges of words.
    (lengths <= allowed) & (flipped + lengths <= 2 * allowed)
}

/// Typos between two ASCII words: their optimal string alignment distance,
/// plus one when the first letters differ; `None` once certain to exceed
/// `max`.
pub fn typos(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    with_first_letter(a, b, max, |max| distance(a, b, max))
}

/// `distance` within `max`, plus one typo when the first letters of `a`
/// and `b` differ (then within `max - 1`).
fn with_first_letter(
    a: &[u8],
    b: &[u8],
    max: usize,
    distance: impl FnOnce(usize) -> Option<usize>,
) -> Option<usize> {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => distance(max.checked_sub(1)?).map(|d| d + 1),
        _ => distance(max),
    }
}

/// Optimal string alignment distance between two ASCII words, or `None`
/// once it is certain to exceed `max`.
pub fn distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Three rows: two back (for swaps), previous, current; on the stack for
    // the words typo correction compares (at most MAX_WORD + 2 letters).
    const ROW: usize = MAX_WORD + 3;
    let n = b.len() + 1;
    if n <= ROW {
        let mut rows = [0usize; 3 * ROW];
        let (prev2, rest) = rows.split_at_mut(ROW);
        let (prev, cur) = rest.split_at_mut(ROW);
        osa(a, b, max, &mut prev2[..n], &mut prev[..n], &mut cur[..n])
    } else {
        let mut rows = vec![0usize; 3 * n];
        let (prev2, rest) = rows.split_at_mut(n);
        let (prev, cur) = rest.split_at_mut(n);
        osa(a, b, max, prev2, prev, cur)
    }
}

/// [`distance`] over three rows of `b.len() + 1` cells.
fn osa<'r>(
    a: &[u8],
    b: &[u8],
    max: usize,
    mut prev2: &'r mut [usize],
    mut prev: &'r mut [usize],
    mut cur: &'r mut [usize],
) -> Option<usize> {
    let n = b.len();
    for (j, v) in prev.iter_mut().enumerate() {
        *v = j;
    }
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=n {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[n] <= max).then_some(prev[n])
}

/// A typed word of at most 64 letters, ready to be compared with many
/// words: for each byte value, the set of positions (bits) where the word
/// has it. Hyyrö's bit-parallel algorithm then gives the same distance as
/// [`distance`] with a few word operations per letter of the other word,
/// instead of a row of the table.
pub struct Typed<'w> {
    word: &'w [u8],
    positions: [u64; 256],
}

impl<'w> Typed<'w> {
    /// `word` prepared, if it has 1 to 64 letters.
    pub fn new(word: &'w [u8]) -> Option<Typed<'w>> {
        if word.is_empty() || word.len() > 64 {
            return None;
        }
        let mut positions = [0u64; 256];
        for (i, &c) in word.iter().enumerate() {
            positions[c as usize] |= 1 << i;
        }
        Some(Typed { word, positions })
    }

    /// [`typos`] between the typed word and `other`.
    pub fn typos(&self, other: &[u8], max: usize) -> Option<usize> {
        with_first_letter(self.word, other, max, |max| self.distance(other, max))
    }

    /// [`distance`] between the typed word and `other`.
    pub fn distance(&self, other: &[u8], max: usize) -> Option<usize> {
        let m = self.word.len();
        if m.abs_diff(other.len()) > max {
            return None;
        }
        // Column by column of the table, as bit vectors over the typed
        // word's positions: vertical deltas +1 (`up`) and -1 (`down`),
        // cells equal to their diagonal (`zero`); `last` is the bit of the
        // bottom row, whose value is the distance so far.
        let last = 1u64 << (m - 1);
        let (mut up, mut down, mut zero, mut prev_eq) = (!0u64, 0u64, 0u64, 0u64);
        let mut dist = m;
        for &c in other {
            let eq = self.positions[c as usize];
            // A swap of two neighbouring letters: this letter matches one
            // position on, and the previous letter this one.
            let swap = ((!zero & eq) << 1) & prev_eq;
            zero = (((eq & up).wrapping_add(up)) ^ up) | eq | down | swap;
            let h_up = down | !(zero | up);
            let h_down = up & zero;
            dist += usize::from(h_up & last != 0);
            dist -= usize::from(h_down & last != 0);
            let (h_up, h_down) = ((h_up << 1) | 1, h_down << 1);
            up = h_down | !(zero | h_up);
            down = h_up & zero;
            prev_eq = eq;
        }
        (dist <= max).then_some(dist)
    }
}

/// Number of sections that contain `term`.
pub fn doc_freq(index: &Index, term: &str) -> u32 {
    let Some(id) = index.term_id(term) else {
        return 0;
    };
    index.data.postings_of(id as usize).len() as u32
}

/// The docs' word closest to `word` (lower-case ASCII), by the rules
/// above; `None` when no word is within reach.
pub fn closest_word(index: &Index, analyzer: &Analyzer, word: &str) -> Option<String> {
    let max = max_typos(word.len());
    if max == 0 {
        return None;
    }
    let d = &index.data;
    let first = word.as_bytes()[0];
    let lookup = index
        .word_lookup
        .get_or_init(|| WordLookup::new(d.words.get().len(), |i| d.word(i)));
    // The words within reach, by length. Within one typo, only words
    // with the same first letter (another first letter counts two);
    // within two, also the words one edit at the front away (another
    // first letter, then nothing else changed), which are few enough to
    // look up one by one.
    let same_first = (word.len() - max..=word.len() + max).map(|len| lookup.words(len, first));
    let mut front: Vec<usize> = Vec::new();
    if max == 2 {
        let w = word.as_bytes();
        // Same first letter: already among `same_first`.
        let mut add = |i: usize| {
            if d.word(i).as_bytes().first() != Some(&first) {
                front.push(i);
            }
        };
        // The first letter left out, or swapped with the second.
        let mut swapped = w.to_vec();
        swapped.swap(0, 1);
        for cand in [&w[1..], &swapped[..]] {
            if let Some(i) = index.word_index(cand) {
                add(i);
            }
        }
        // Another first letter, or one more in front.
        for rest in [&w[1..], w] {
            let key = |i: usize| rest_of(d.word(i));
            crate::hash::lookup_all(&lookup.by_rest, rest, key, &mut add);
        }
    }
    let mut best: Option<(usize, bool, std::cmp::Reverse<u32>, &str)> = None;
    let typed = Typed::new(word.as_bytes())?;
    let mask = letters(word);
    let masks = &lookup.letters;
    // The words the summary cannot refuse, a range at a time without a
    // branch per word: each is written, and kept by moving on.
    let mut near: Vec<usize> = Vec::new();
    for range in same_first {
        let mut kept = near.len();
        near.resize(kept + range.len(), 0);
        for (i, &m) in range.clone().zip(&masks[range]) {
            near[kept] = i;
            kept += usize::from(may_be_within(m, mask, max));
        }
        near.truncate(kept);
    }
    near.extend(
        front
            .into_iter()
            .filter(|&i| may_be_within(masks[i], mask, max)),
    );
    for i in near {
        let w = d.word(i);
        let Some(d) = typed.typos(w.as_bytes(), max) else {
            continue;
        };
        if best.is_some_and(|(bd, ..)| d > bd) {
            continue;
        }
        let df = analyzer
            .analyze(w)
            .first()
            .map_or(0, |t| doc_freq(index, t));
        if df == 0 {
            continue;
        }
        // Fewest typos; then a word one letter longer than the typed one
        // (a letter left out is the commonest slip: "workr" is "worker"
        // before "works"); then the most sections; then the first.
        let key = (d, w.len() <= word.len(), std::cmp::Reverse(df), w);
        if best.as_ref().is_none_or(|b| key < *b) {
            best = Some(key);
        }
    }
    best.map(|(_, _, _, w)| w.to_string())
}

/// `query` with each word the index does not contain replaced by the
/// docs' closest word, where there is one (see the module rules).
pub fn correct(index: &Index, analyzer: &Analyzer, query: &str) -> Corrected {
    let mut out = String::with_capacity(query.len());
    let mut corrections = Vec::new();
    let mut rest = query;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let chunk = &rest[..end];
        rest = &rest[end..];
        let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        let fixed = correct_word(index, analyzer, core);
        match fixed {
            Some(to) => {
                let at = chunk.find(core).unwrap_or(0);
                out.push_str(&chunk[..at]);
                out.push_str(&to);
                out.push_str(&chunk[at + core.len()..]);
                corrections.push(Correction {
                    from: core.to_string(),
                    to,
                });
            }
            None => out.push_str(chunk),
        }
    }
    out.push_str(rest);
    Corrected {
        query: out,
        corrections,
    }
}

fn correct_word(index: &Index, analyzer: &Analyzer, core: &str) -> Option<String> {
    if core.is_empty() || is_identifier(core) {
        return None;
    }
    let word = plain_word(core)?;
    let (mut any, mut known) = (false, false);
    analyzer.for_each_term(&word, |t| {
        any = true;
        known |= doc_freq(index, t) > 0;
    });
    if !any || known {
        return None;
    }
    closest_word(index, analyzer, &word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_swaps_as_one() {
        let d = |a: &str, b: &str, m| distance(a.as_bytes(), b.as_bytes(), m);
        assert_eq!(d("chnage", "change", 1), Some(1));
        assert_eq!(d("sidebar", "sidebar", 1), Some(0));
        assert_eq!(d("confg", "config", 1), Some(1));
        assert_eq!(d("deploymnet", "deployment", 2), Some(1));
        assert_eq!(d("deploymnt", "deployment", 1), Some(1));
        assert_eq!(d("abcdef", "ghijkl", 2), None);
        assert_eq!(d("abc", "abcdef", 2), None);
        assert_eq!(d("kitten", "sitting", 3), Some(3));
        // Past the stack rows: the same answers.
        let long = "a".repeat(40);
        let longer = format!("{long}bc");
        assert_eq!(d(&long, &longer, 2), Some(2));
        assert_eq!(d(&longer, &long, 1), None);
    }

    #[test]
    fn a_first_letter_typo_counts_twice() {
        let t = |a: &str, b: &str, m| typos(a.as_bytes(), b.as_bytes(), m);
        assert_eq!(t("night", "right", 1), None);
        assert_eq!(t("night", "right", 2), Some(2));
        assert_eq!(t("chnage", "change", 1), Some(1));
        assert_eq!(t("across", "cross", 1), None);
    }

    #[test]
    fn the_bit_parallel_distance_is_the_table_distance() {
        let t = |a: &str, b: &str, m| Typed::new(a.as_bytes()).unwrap().typos(b.as_bytes(), m);
        assert_eq!(t("chnage", "change", 1), Some(1));
        assert_eq!(t("night", "right", 1), None);
        assert_eq!(t("night", "right", 2), Some(2));
        // Optimal string alignment: no edit of a swapped pair (unrestricted
        // Damerau distance would say 2).
        let ca = Typed::new(b"ca").unwrap();
        assert_eq!(ca.distance(b"abc", 3), Some(3));
        assert!(Typed::new(b"").is_none());
        assert!(Typed::new(&[b'a'; 65]).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Over a small alphabet, so that most pairs are close.
        #[test]
        fn bit_parallel_and_table_agree(
            a in "[abc]{1,24}",
            b in "[abcd]{0,26}",
            max in 0usize..5,
        ) {
            let typed = Typed::new(a.as_bytes()).unwrap();
            proptest::prop_assert_eq!(
                typed.distance(b.as_bytes(), max),
                distance(a.as_bytes(), b.as_bytes(), max)
            );
            proptest::prop_assert_eq!(
                typed.typos(b.as_bytes(), max),
                typos(a.as_bytes(), b.as_bytes(), max)
            );
        }

        /// The summary never refuses a word within reach: `b` is `a` after
        /// up to two random edits (insert, delete, substitute, swap), and
        /// also any random word.
        #[test]
        fn the_letter_summary_keeps_every_word_within_reach(
            a in "[a-e]{1,14}",
            edits in proptest::collection::vec((0u8..4, 0usize..16, b'a'..b'f'), 0..3),
            other in "[a-e]{1,14}",
            max in 1usize..3,
        ) {
            let mut b = a.clone().into_bytes();
            for (op, at, c) in edits {
                let at = at % (b.len() + 1);
                match op {
                    0 => b.insert(at, c),
                    1 if at < b.len() && b.len() > 1 => {
                        b.remove(at);
                    }
                    2 if at < b.len() => b[at] = c,
                    3 if at + 1 < b.len() => b.swap(at, at + 1),
                    _ => {}
                }
            }
            let b = String::from_utf8(b).unwrap();
            for b in [&b, &other] {
                if typos(a.as_bytes(), b.as_bytes(), max).is_some() {
                    proptest::prop_assert!(may_be_within(letters(&a), letters(b), max), "{a} {b}");
                }
            }
        }
    }

    /// Words are never empty, but a decoded index is not trusted: an
    /// empty word in the vocabulary must not panic a lookup.
    #[test]
    fn an_empty_word_in_the_vocabulary_does_not_panic() {
        use crate::index::tests::{opts, sample_pages};
        let a = Analyzer::new();
        let mut idx = crate::build(&sample_pages(), &opts(), &a).unwrap();
        let first_end = idx.data.words.get().get(0).len();
        let mut words = crate::compact::Dictionary::default();
        words.push("").unwrap();
        for i in 0..idx.data.words.get().len() {
            words.push(idx.data.words.get().get(i)).unwrap();
        }
        idx.data.words = crate::compact::LazyDictionary::new(words);
        idx.data.validate(&idx.meta).unwrap();
        assert!(first_end > 0);
        for typed in ["buckte", "requestss", "tokenbuckte"] {
            let _ = closest_word(&idx, &a, typed);
        }
    }

    #[test]
    fn typos_allowed_by_length() {
        assert_eq!(max_typos(4), 0);
        assert_eq!(max_typos(5), 1);
        assert_eq!(max_typos(8), 1);
        assert_eq!(max_typos(9), 2);
        assert_eq!(max_typos(MAX_WORD + 1), 0);
    }
}
