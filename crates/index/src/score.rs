//! Scoring by postings: each query term's section ids (varint gaps) and
//! stored factors added into the sections' scores.

/// Adds `w` times each posting's stored factor to its section's score:
/// `bytes` are the term's section ids as varint gaps, `imps` their factors.
/// Sections whose score was zero are pushed on `touched` unless `DENSE`
/// (every section is scanned afterwards). An id past the last section
/// (only in a corrupted file that kept its checksum) is skipped, not a
/// panic.
#[inline(never)]
pub(crate) fn accumulate<const DENSE: bool>(
    bytes: &[u8],
    imps: &[u8],
    w: f32,
    scores: &mut [f32],
    touched: &mut Vec<u32>,
) {
    let (mut pos, mut s, mut i) = (0usize, 0u32, 0usize);
    // Eight one-byte gaps at a time: a word with no continuation bit.
    while let (Some(eight), Some(qs)) = (bytes.get(pos..pos + 8), imps.get(i..i + 8)) {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        if word & 0x8080_8080_8080_8080 != 0 {
            s = s.wrapping_add(crate::compact::read_varint(bytes, &mut pos));
            add::<DENSE>(scores, touched, s, w * f32::from(qs[0]));
            i += 1;
            continue;
        }
        for (j, &q) in qs.iter().enumerate() {
            s = s.wrapping_add((word >> (8 * j)) as u32 & 0x7f);
            add::<DENSE>(scores, touched, s, w * f32::from(q));
        }
        pos += 8;
        i += 8;
    }
    for &q in &imps[i..] {
        if pos >= bytes.len() {
            break;
        }
        s = s.wrapping_add(crate::compact::read_varint(bytes, &mut pos));
        add::<DENSE>(scores, touched, s, w * f32::from(q));
    }
}

/// Adds `x` to section `s`'s score (see [`accumulate`]).
#[inline(always)]
fn add<const DENSE: bool>(scores: &mut [f32], touched: &mut Vec<u32>, s: u32, x: f32) {
    if let Some(slot) = scores.get_mut(s as usize) {
        if !DENSE && *slot == 0.0 {
            touched.push(s);
        }
        *slot += x;
    }
}
