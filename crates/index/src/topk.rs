//! The best `k` hits of a query: a bounded heap for the sections a term
//! list touches, and a blocked scan for a dense score array (most of the
//! sections scored). Both rank by [`best_first`].

use std::collections::BinaryHeap;

/// A scored section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Section id.
    pub section: u32,
    /// BM25 score.
    pub score: f32,
}

/// The best `k` hits seen so far.
pub(crate) struct TopK {
    k: usize,
    pub(crate) heap: BinaryHeap<Worst>,
    /// Once the heap is full, the k-th best score: nearly every section
    /// fails one well-predicted comparison with it.
    threshold: f32,
}

impl TopK {
    pub(crate) fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
            threshold: 0.0,
        }
    }

    #[inline]
    pub(crate) fn consider(&mut self, section: u32, score: f32) {
        if score < self.threshold || score <= 0.0 {
            return;
        }
        let hit = Hit { section, score };
        if self.heap.len() == self.k {
            if !ranks_before(&hit, &self.heap.peek().expect("k > 0").0) {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Worst(hit));
        if self.heap.len() == self.k {
            self.threshold = self.heap.peek().expect("k > 0").0.score;
        }
    }
}

/// Heap order that puts the worst-ranked hit at the top of a max-heap.
pub(crate) struct Worst(pub(crate) Hit);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.0.section == other.0.section && self.0.score == other.0.score
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Greater = ranks later.
        if self.0.section == other.0.section {
            std::cmp::Ordering::Equal
        } else if ranks_before(&self.0, &other.0) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    }
}

/// Whether `a` ranks before `b` ([`best_first`]).
fn ranks_before(a: &Hit, b: &Hit) -> bool {
    best_first(a, b).is_lt()
}

/// Per-thread buffers reused across queries: a dense score accumulator
/// (all zero between queries) and the sections it touched.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) scores: Vec<f32>,
    pub(crate) touched: Vec<u32>,
    pub(crate) dense: Dense,
}

/// Sections a block of the dense scan holds.
const BLOCK: usize = 16;

/// The `k` best of `scores` (all of them, one per section), which go back
/// to zero. In blocks of 16: each block's best score is the score of a
/// section, so a score that k blocks' maxima reach is one that k sections
/// reach, and no section below it is in the top k. Only the sections at
/// or above it are sorted.
pub(crate) fn top_dense(scores: &mut [f32], dense: &mut Dense, k: usize) -> Vec<Hit> {
    if k == 0 {
        scores.fill(0.0);
        return Vec::new();
    }
    let Dense { maxima, blocks } = dense;
    let top = block_maxima(scores, maxima);
    let floor = floor_of(maxima, top, k);
    // The blocks that reach the floor, without a branch per block.
    blocks.clear();
    blocks.resize(maxima.len(), 0);
    let mut reached = 0;
    for (b, &m) in maxima.iter().enumerate() {
        blocks[reached] = b as u32;
        reached += usize::from(m > 0.0 && m >= floor);
    }
    // Their sections at or above it, again without a branch per section:
    // each is written, and kept by moving on.
    let mut found = vec![
        Hit {
            section: 0,
            score: 0.0
        };
        reached * BLOCK
    ];
    let mut kept = 0;
    for &b in &blocks[..reached] {
        let start = b as usize * BLOCK;
        let end = (start + BLOCK).min(scores.len());
        for (i, &score) in scores[start..end].iter().enumerate() {
            found[kept] = Hit {
                section: (start + i) as u32,
                score,
            };
            kept += usize::from(score > 0.0 && score >= floor);
        }
    }
    found.truncate(kept);
    scores.fill(0.0);
    if found.len() > 4 * k {
        // Nearly equal scores can leave many at the floor: the k best in
        // linear time, then only they are sorted.
        found.select_nth_unstable_by(k - 1, best_first);
        found.truncate(k);
    }
    found.sort_unstable_by(best_first);
    found.truncate(k);
    found
}

/// Buffers of the dense scan, reused across queries.
#[derive(Default)]
pub(crate) struct Dense {
    /// Each block's best score.
    maxima: Vec<f32>,
    /// The blocks that reach the floor.
    blocks: Vec<u32>,
}

/// Sort order of hits, best first: higher score, then lower section id (a
/// total order: a hit is equal to itself; the scores ranked are positive).
pub(crate) fn best_first(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.section.cmp(&b.section))
}

/// The larger of two scores (no NaN among them): one `maxps` lane.
#[inline(always)]
fn max(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}

/// Each block's largest score (0 for none) into `maxima`, the last block
/// possibly shorter; returns the largest of all. A block is folded into
/// four lanes of four (vector instructions), then the lanes into one.
fn block_maxima(scores: &[f32], maxima: &mut Vec<f32>) -> f32 {
    maxima.clear();
    let blocks = scores.chunks_exact(BLOCK);
    let rest = blocks.remainder();
    for block in blocks {
        let mut lanes = [0.0f32; 4];
        for quad in block.chunks_exact(4) {
            for (l, &x) in lanes.iter_mut().zip(quad) {
                *l = max(*l, x);
            }
        }
        maxima.push(max(max(lanes[0], lanes[1]), max(lanes[2], lanes[3])));
    }
    if !rest.is_empty() {
        maxima.push(rest.iter().fold(0.0, |m, &x| max(m, x)));
    }
    let mut lanes = [0.0f32; 4];
    let quads = maxima.chunks_exact(4);
    let rest = quads.remainder().iter().fold(0.0, |m, &x| max(m, x));
    for quad in quads {
        for (l, &x) in lanes.iter_mut().zip(quad) {
            *l = max(*l, x);
        }
    }
    max(max(max(lanes[0], lanes[1]), max(lanes[2], lanes[3])), rest)
}

/// A score that `k` of the blocks' `maxima` reach (0 when fewer than `k`
/// blocks have a score), within 1/64 of `top` (the largest) below the
/// `k`-th largest maximum: bisection on counts, each a vectorised pass.
fn floor_of(maxima: &[f32], top: f32, k: usize) -> f32 {
    let reach = |t: f32| maxima.iter().map(|&m| u32::from(m >= t)).sum::<u32>() as usize;
    if top <= 0.0 || reach(f32::MIN_POSITIVE) < k {
        return 0.0;
    }
    // `reach(lo) >= k` throughout.
    let (mut lo, mut hi) = (0.0f32, top);
    for _ in 0..6 {
        let mid = lo + (hi - lo) / 2.0;
        if reach(mid) >= k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]
        /// The dense scan's top k is a full sort's: scores from a few
        /// values (ties across blocks), many zeros, any length (a short
        /// last block) and k.
        #[test]
        fn the_dense_top_k_is_a_full_sorts(
            scores in proptest::collection::vec(
                proptest::prop_oneof![
                    3 => proptest::strategy::Just(0.0f32),
                    2 => proptest::strategy::Strategy::prop_map(0u8..6, |v| f32::from(v) * 0.5),
                    1 => 0.0f32..100.0,
                ],
                0..200,
            ),
            k in 0usize..60,
        ) {
            let mut want: Vec<Hit> = scores
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > 0.0)
                .map(|(i, &score)| Hit { section: i as u32, score })
                .collect();
            want.sort_unstable_by(best_first);
            want.truncate(k);
            let mut dense = scores.clone();
            let got = top_dense(&mut dense, &mut Dense::default(), k);
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert!(dense.iter().all(|&s| s == 0.0));
        }
    }
}
