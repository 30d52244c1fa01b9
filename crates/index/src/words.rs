//! The docs' words as typo correction looks them up ([`crate::typo`]):
//! a summary of each word's letters and the lookups made from the
//! vocabulary on the first correction, which the index keeps.

/// Longest word kept in the vocabulary and corrected.
pub const MAX_WORD: usize = 24;

/// A summary of a lower-case ASCII word that refuses most words more than
/// a few typos away without comparing them: for each letter, whether the
/// word has it once or more (bit 2l) and twice or more (bit 2l + 1); the
/// first letter in [`FIRST_SHIFT`]..; the length (up to 31) in
/// [`LEN_SHIFT`]...
pub(crate) fn letters(w: &str) -> u64 {
    let mut counts = [0u8; 26];
    for b in w.bytes() {
        let l = usize::from(b.wrapping_sub(b'a') % 26);
        counts[l] = counts[l].saturating_add(1);
    }
    let set = counts.iter().enumerate().fold(0u64, |m, (l, &c)| {
        m | u64::from(c >= 1) << (2 * l) | u64::from(c >= 2) << (2 * l + 1)
    });
    let first = w
        .bytes()
        .next()
        .map_or(0, |b| u64::from(b.wrapping_sub(b'a') % 26));
    set | first << FIRST_SHIFT | (w.len().min(31) as u64) << LEN_SHIFT
}

/// Where [`letters`] keeps the first letter.
pub(crate) const FIRST_SHIFT: u32 = 52;
/// Where [`letters`] keeps the length.
pub(crate) const LEN_SHIFT: u32 = 57;
/// The letter-count bits of [`letters`].
pub(crate) const COUNT_BITS: u64 = (1 << 52) - 1;

/// What typo lookups derive from the vocabulary, on the first lookup (not
/// at load: cold start does not pay for it).
#[derive(Clone, Debug)]
pub(crate) struct WordLookup {
    /// Per word: [`letters`].
    pub(crate) letters: Vec<u64>,
    /// Per length (up to [`MAX_WORD`]) and first letter, the words that
    /// have them: a range, since the vocabulary is sorted by length, then
    /// text.
    ranges: Vec<(u32, u32)>,
    /// The words by their letters after the first ([`crate::hash::hash_table`]):
    /// the words one edit at the front away from a typed word, whatever
    /// their first letter, in one lookup.
    pub(crate) by_rest: Vec<u32>,
}

impl WordLookup {
    /// The lookups of the `n` words `word(i)` (sorted by length, then text).
    pub(crate) fn new<'a>(n: usize, word: impl Fn(usize) -> &'a str) -> WordLookup {
        let mut ranges = vec![(0u32, 0u32); (MAX_WORD + 1) * 26];
        let mut letters_of = Vec::with_capacity(n);
        for i in 0..n {
            let w = word(i);
            letters_of.push(letters(w));
            // Words are never empty, but a decoded index is not trusted.
            let first = w.as_bytes().first().copied().unwrap_or(0);
            if let Some(slot) = Self::slot(w.len(), first) {
                let r = &mut ranges[slot];
                if r.0 == r.1 {
                    r.0 = i as u32;
                }
                r.1 = i as u32 + 1;
            }
        }
        WordLookup {
            letters: letters_of,
            ranges,
            by_rest: crate::hash::hash_table(n, |i| rest_of(word(i))),
        }
    }

    fn slot(len: usize, first: u8) -> Option<usize> {
        let letter = first.wrapping_sub(b'a') as usize;
        (len <= MAX_WORD && letter < 26).then_some(len * 26 + letter)
    }

    /// The words of `len` letters that start with `first`.
    pub(crate) fn words(&self, len: usize, first: u8) -> std::ops::Range<usize> {
        Self::slot(len, first).map_or(0..0, |s| {
            let (a, b) = self.ranges[s];
            a as usize..b as usize
        })
    }
}

/// A word's letters after the first (none for an empty word).
pub(crate) fn rest_of(w: &str) -> &[u8] {
    w.as_bytes().get(1..).unwrap_or_default()
}
