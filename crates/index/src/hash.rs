//! Open-addressing hash tables over the index's sorted keys (terms, typo
//! words), built on the first lookup, and the hash they use.

/// An open-addressing table of `n` keys (slot: key index + 1, 0 empty),
/// at most half full.
pub(crate) fn hash_table<'a>(n: usize, key: impl Fn(usize) -> &'a [u8]) -> Vec<u32> {
    let mut table = vec![0u32; (2 * n).next_power_of_two().max(2)];
    let mask = table.len() - 1;
    for i in 0..n {
        let mut at = fnv1a64(key(i), 0) as usize & mask;
        while table[at] != 0 {
            at = (at + 1) & mask;
        }
        table[at] = i as u32 + 1;
    }
    table
}

/// The keys in `want`'s run of slots in a [`hash_table`], in probe order
/// (equal keys sit in one run).
fn probe<'t>(table: &'t [u32], want: &[u8]) -> impl Iterator<Item = usize> + 't {
    let mask = table.len() - 1;
    let start = fnv1a64(want, 0) as usize & mask;
    (0..table.len())
        .map(move |n| table[(start + n) & mask])
        .take_while(|&slot| slot != 0)
        .map(|slot| slot as usize - 1)
}

/// Every key equal to `want` in a [`hash_table`].
pub(crate) fn lookup_all<'a>(
    table: &[u32],
    want: &[u8],
    key: impl Fn(usize) -> &'a [u8],
    found: impl FnMut(usize),
) {
    probe(table, want)
        .filter(|&i| key(i) == want)
        .for_each(found);
}

/// The index of `want` in a [`hash_table`].
pub(crate) fn lookup<'a>(
    table: &[u32],
    want: &[u8],
    key: impl Fn(usize) -> &'a [u8],
) -> Option<usize> {
    probe(table, want).find(|&i| key(i) == want)
}

/// FNV-1a 64: small, stable across Rust versions, good enough for ids.
pub fn fnv1a64(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
