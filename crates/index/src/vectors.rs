//! Sentence vectors of the sections, stored quantised, searched exactly.
//!
//! Each section's unit vector (from the sentence model `build-index
//! --model` runs) is kept as one byte a number: `round(x / scale)` with
//! `scale = max |x| / 127` of that vector, so 384 numbers cost 388 bytes
//! instead of 1,536. A question's vector (in 16-bit steps) is compared with
//! every section's by a dot product: an exact scan, no approximate index.
//! At docs scale that is cheap: 384 multiply-adds a section, about 1 ms for
//! 10,000 sections on one core; past a few hundred thousand sections an
//! approximate index would pay for itself (docs/operations.md).

use crate::arrays::{Blob, F32s};
use crate::topk::Hit;

/// Quantised unit vectors, one per section (or none at all).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Vectors {
    /// The model that made them (empty: none).
    pub model: String,
    /// Per section: the scale of its codes.
    pub scales: F32s,
    /// Per section: `dim` codes (`i8`, stored as bytes).
    pub codes: Blob,
}

/// One vector as stored: its scale and codes.
pub fn quantise(v: &[f32]) -> (f32, Vec<i8>) {
    in_steps(v, 127.0, |x| x as i8)
}

/// `v` in whole-number steps of its largest magnitude / `top` (each number
/// rounded, within ±`top`, then made a `T` by `to`), and that step; all
/// zeros and a step of 0 when `v` is all zero or not finite.
fn in_steps<T: Copy + Default>(v: &[f32], top: f32, to: impl Fn(f32) -> T) -> (f32, Vec<T>) {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (0.0, vec![T::default(); v.len()]);
    }
    let scale = max / top;
    (
        scale,
        v.iter()
            .map(|x| to((x / scale).round().clamp(-top, top)))
            .collect(),
    )
}

impl Vectors {
    /// Vectors of `model` from each section's scale and codes (all of one
    /// length).
    pub fn from_quantised(model: &str, rows: &[(f32, Vec<i8>)]) -> Vectors {
        let mut codes = Vec::with_capacity(rows.iter().map(|r| r.1.len()).sum());
        for (_, c) in rows {
            codes.extend(c.iter().map(|&x| x as u8));
        }
        Vectors {
            model: model.to_string(),
            scales: rows.iter().map(|r| r.0).collect(),
            codes: Blob::Owned(codes),
        }
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// True when the index has no vectors.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Numbers in each vector (0 when there are none).
    pub fn dim(&self) -> usize {
        self.codes.len().checked_div(self.len()).unwrap_or(0)
    }

    /// Consistent with `sections` sections: none, or one each of one
    /// length, with finite scales.
    pub(crate) fn is_valid(&self, sections: usize) -> bool {
        if !self.scales.is_well_formed() {
            return false;
        }
        if self.is_empty() {
            return self.codes.is_empty() && self.model.is_empty();
        }
        !self.model.is_empty()
            && self.len() == sections
            && self.dim() > 0
            && self.codes.len() == self.dim() * self.len()
            && self.scales.iter().all(|s| s.is_finite() && s >= 0.0)
    }

    /// Section `i`'s similarity to the unit vector `query`: what [`top`]
    /// scores it.
    ///
    /// [`top`]: Vectors::top
    pub fn similarity(&self, query: &[f32], i: usize) -> f32 {
        let (scale, q) = query_codes(query);
        let d = self.dim();
        dot(&q, &self.codes[i * d..i * d + d]) as f32 * scale * self.scales.get(i)
    }

    /// The `k` sections most similar to `query` (best first, ties by
    /// section id), by a scan of every vector; empty when the query's
    /// length is not the vectors'.
    ///
    /// The question's vector is rounded to 16-bit whole numbers, in steps
    /// of its largest number / 32,767 (each off by at most half a step,
    /// where the sections' own bytes are in steps of their largest / 127),
    /// so each section's score is a sum of whole numbers: exact and the
    /// same in any order, on x86-64 compiled for AVX2.
    pub fn top(&self, query: &[f32], k: usize) -> Vec<Hit> {
        self.top_in(query, k, None)
    }

    /// [`Vectors::top`] among the sections `admitted` alone: those whose
    /// bits (one value a section) share one with the mask; `None`: all.
    pub fn top_in(&self, query: &[f32], k: usize, admitted: Option<(&[u32], u32)>) -> Vec<Hit> {
        if query.len() != self.dim() || self.dim() == 0 || k == 0 {
            return Vec::new();
        }
        let (scale, q) = query_codes(query);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { self.top_avx2(&q, scale, k, admitted) };
        }
        self.scan(&q, scale, k, admitted)
    }

    /// [`Vectors::scan`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn top_avx2(
        &self,
        q: &[i16],
        scale: f32,
        k: usize,
        admitted: Option<(&[u32], u32)>,
    ) -> Vec<Hit> {
        self.scan(q, scale, k, admitted)
    }

    #[inline(always)]
    fn scan(&self, q: &[i16], scale: f32, k: usize, admitted: Option<(&[u32], u32)>) -> Vec<Hit> {
        let d = q.len();
        let mut heap: std::collections::BinaryHeap<Worst> =
            std::collections::BinaryHeap::with_capacity(k.min(self.len()) + 1);
        for (i, row) in self.codes.chunks_exact(d).take(self.len()).enumerate() {
            if let Some((sites, mask)) = admitted
                && sites.get(i).is_none_or(|b| b & mask == 0)
            {
                continue;
            }
            let score = dot(q, row) as f32 * scale * self.scales.get(i);
            if heap.len() < k {
                heap.push(Worst(Hit {
                    section: i as u32,
                    score,
                }));
            } else if heap.peek().is_some_and(|w| better(score, i as u32, &w.0)) {
                heap.pop();
                heap.push(Worst(Hit {
                    section: i as u32,
                    score,
                }));
            }
        }
        let mut out: Vec<Hit> = heap.into_iter().map(|w| w.0).collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.section.cmp(&b.section)));
        out
    }
}

/// `query` as 16-bit whole numbers, and the scale that turns them back.
fn query_codes(query: &[f32]) -> (f32, Vec<i16>) {
    in_steps(query, 32_767.0, |x| x as i16)
}

/// The sum of `q[i]` times the stored byte `row[i]` (an `i8`): in i32
/// over 256 numbers at a time (at most 256 · 32,767 · 128 < 2^31), in i64
/// across them.
#[inline(always)]
fn dot(q: &[i16], row: &[u8]) -> i64 {
    // Plain loops, not iterator adaptors: a `fold` the compiler does not
    // inline runs without AVX2 (measured: the scan twice as slow).
    let mut total = 0i64;
    for (a, b) in q.chunks(256).zip(row.chunks(256)) {
        let mut s = 0i32;
        for (&x, &y) in a.iter().zip(b) {
            s += i32::from(x) * i32::from(y as i8);
        }
        total += i64::from(s);
    }
    total
}

/// Does (`score`, `section`) rank above `h`?
fn better(score: f32, section: u32, h: &Hit) -> bool {
    score
        .total_cmp(&h.score)
        .then(h.section.cmp(&section))
        .is_gt()
}

/// A hit ordered so that the heap's top is the worst kept.
struct Worst(Hit);

impl PartialEq for Worst {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Worst {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Greater = worse: lower score, then higher section id.
        o.0.score
            .total_cmp(&self.0.score)
            .then(self.0.section.cmp(&o.0.section))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if n == 0.0 {
            return v;
        }
        v.into_iter().map(|x| x / n).collect()
    }

    #[test]
    fn no_vectors_find_nothing() {
        assert!(Vectors::default().top(&[], 3).is_empty());
        assert!(Vectors::default().top(&[1.0], 3).is_empty());
    }

    /// The largest products there can be (the question's numbers at
    /// ±32,767, bytes at −128), over more than one chunk of 256: the
    /// score is the i64 sum's.
    #[test]
    fn the_largest_sums_do_not_overflow() {
        for d in [255, 256, 257, 600] {
            let query: Vec<f32> = (0..d)
                .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
                .collect();
            let v = Vectors {
                model: "m".into(),
                scales: [0.5f32].into_iter().collect(),
                codes: Blob::Owned(vec![0x80; d]),
            };
            let (scale, q) = query_codes(&query);
            assert!(q.iter().all(|x| x.abs() == 32_767));
            let exact: i64 = q.iter().map(|&x| i64::from(x) * -128).sum();
            assert_eq!(dot(&q, &v.codes), exact);
            assert_eq!(v.similarity(&query, 0), exact as f32 * scale * 0.5);
            assert_eq!(v.top(&query, 1)[0].score, v.similarity(&query, 0));
        }
    }

    #[test]
    fn quantised_vectors_keep_their_cosine() {
        let a = unit(
            (0..384)
                .map(|i| ((i * 7 % 13) as f32 - 6.0) / 6.0)
                .collect(),
        );
        let b = unit(
            (0..384)
                .map(|i| ((i * 5 % 11) as f32 - 5.0) / 5.0)
                .collect(),
        );
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let v = Vectors::from_quantised("m", &[quantise(&b)]);
        assert!((v.similarity(&a, 0) - exact).abs() < 0.01);
        assert_eq!(v.dim(), 384);
        assert!(v.is_valid(1));
        assert!(!v.is_valid(2));
    }

    proptest! {
        /// The scan (on x86-64 its AVX2 build) scores every section as
        /// `similarity` (the plain build) does, to the bit, at any length.
        #[test]
        fn the_scan_scores_as_similarity_does(
            d in 1usize..600,
            n in 1usize..8,
            seed in any::<u64>(),
        ) {
            let mut x = seed | 1;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            };
            let stored: Vec<(f32, Vec<i8>)> =
                (0..n).map(|_| quantise(&unit((0..d).map(|_| next()).collect()))).collect();
            let v = Vectors::from_quantised("m", &stored);
            let q = unit((0..d).map(|_| next()).collect());
            let top = v.top(&q, n);
            prop_assert_eq!(top.len(), n);
            for h in &top {
                prop_assert_eq!(h.score.to_bits(), v.similarity(&q, h.section as usize).to_bits());
            }
        }

        /// The scan's top k is exactly the top k of a brute-force cosine
        /// over the same stored (quantised) vectors.
        #[test]
        fn the_scan_returns_the_exact_top_k(
            rows in prop::collection::vec(prop::collection::vec(-1.0f32..1.0, 8), 1..60),
            query in prop::collection::vec(-1.0f32..1.0, 8),
            k in 1usize..20,
        ) {
            let stored: Vec<(f32, Vec<i8>)> = rows.iter().map(|r| quantise(&unit(r.clone()))).collect();
            let v = Vectors::from_quantised("m", &stored);
            let q = unit(query);
            let mut brute: Vec<(f32, u32)> = stored
                .iter()
                .enumerate()
                .map(|(i, (s, c))| {
                    let dot: f32 = q.iter().zip(c).map(|(x, &y)| x * f32::from(y)).sum();
                    (dot * s, i as u32)
                })
                .collect();
            brute.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let top = v.top(&q, k);
            prop_assert_eq!(top.len(), k.min(rows.len()));
            for (h, (score, id)) in top.iter().zip(&brute) {
                // Same ranking; scores equal up to summation order.
                prop_assert!((h.score - score).abs() < 1e-4, "{:?} vs {:?}", h, (score, id));
                if h.section != *id {
                    // Only a tie (up to summation order) may swap ids.
                    let theirs = brute.iter().find(|b| b.1 == h.section).unwrap().0;
                    prop_assert!((theirs - score).abs() < 1e-4, "{:?} is not a tie of {}", h, id);
                }
            }
        }
    }
}
