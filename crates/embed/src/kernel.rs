//! The one costly operation: a dense layer, `y = x·Wᵀ + b`, with W held
//! as int8 rows (one f32 scale a row) and x, y in f32.
//!
//! Three rows of W are read at a time, converted to f32 eight numbers at a
//! time and multiplied into four tokens' rows, so each weight converted is
//! used four times (12 sums in registers; 3 × 3, 2 × 4 and 4 × 4 measured
//! slower here; on an Intel Xeon, six tokens by two rows the same, eight or
//! twelve tokens by one row 15 to 30 % slower), and W stays small enough (10.6 MB for the six layers) to
//! sit in the processor's cache between questions. On x86-64 with AVX2
//! and FMA (every Lambda x86 host) this runs in 256-bit registers; with
//! AVX-512 (where the processor has it) sixteen numbers at a time into
//! eight tokens' rows; on arm64 in NEON; other processors take the plain
//! loop. All give the same sums up to rounding.

/// A matrix of int8 rows, each with its scale: row `r` is
/// `data[r * cols..][..cols] * scales[r]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Q8 {
    /// Rows (outputs).
    pub rows: usize,
    /// Columns (inputs).
    pub cols: usize,
    /// One scale a row.
    pub scales: Vec<f32>,
    /// Rows × columns, row-major.
    pub data: Vec<i8>,
}

impl Q8 {
    /// `m` (rows × cols, row-major) rounded to int8, each row scaled by
    /// its largest magnitude.
    pub fn quantise(m: &[f32], rows: usize, cols: usize) -> Q8 {
        let mut scales = Vec::with_capacity(rows);
        let mut data = Vec::with_capacity(rows * cols);
        for row in m.chunks_exact(cols).take(rows) {
            let max = row.iter().fold(0f32, |a, x| a.max(x.abs()));
            let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
            scales.push(scale);
            data.extend(
                row.iter()
                    .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
            );
        }
        Q8 {
            rows,
            cols,
            scales,
            data,
        }
    }

    /// Row `r` in f32.
    pub fn row(&self, r: usize, out: &mut [f32]) {
        let s = self.scales[r];
        for (o, &q) in out.iter_mut().zip(&self.data[r * self.cols..][..self.cols]) {
            *o = q as f32 * s;
        }
    }
}

/// `y[t] = W·x[t] + b` for the `x.len() / w.cols` rows of `x`.
pub fn linear(x: &[f32], w: &Q8, bias: &[f32], y: &mut [f32]) {
    assert!(
        w.cols.is_multiple_of(8) && w.rows.is_multiple_of(3),
        "layer shape"
    );
    let tokens = x.len() / w.cols;
    assert!(y.len() == tokens * w.rows && bias.len() == w.rows);
    #[cfg(target_arch = "x86_64")]
    if w.cols.is_multiple_of(16)
        && vectors_allowed()
        && std::arch::is_x86_feature_detected!("avx512f")
    {
        // SAFETY: the processor has AVX-512F (checked just above); the
        // kernel asserts the shape its loads need (checked here too, to
        // take AVX2 otherwise).
        unsafe { avx512::linear(x, w, bias, y) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2_fma() {
        // SAFETY: the processor has AVX2 and FMA (checked just above), and
        // `avx2::linear` reads and writes only inside the slices it is
        // given, whose shapes are asserted above.
        unsafe { avx2::linear(x, w, bias, y) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    if vectors_allowed() {
        // SAFETY: NEON is part of every arm64 processor Rust targets, and
        // `neon::linear` reads and writes only inside the slices it is
        // given, whose shapes are asserted above.
        unsafe { neon::linear(x, w, bias, y) };
        return;
    }
    plain(x, w, bias, y);
}

/// The order the kernels compute `y` in: rows of W in blocks of 48 (at
/// most 72 KiB, which stay in the L2 cache while every token passes over
/// them), and in each block the tokens `most` at a time (four, eight for
/// AVX-512), the last tile narrower. `tile(t, width, o0, o1)` computes
/// tokens `t..t + width` against rows `o0..o1`.
fn for_tiles(
    most: usize,
    tokens: usize,
    rows: usize,
    mut tile: impl FnMut(usize, usize, usize, usize),
) {
    for o0 in (0..rows).step_by(48) {
        let o1 = (o0 + 48).min(rows);
        let mut t = 0;
        while t < tokens {
            let width = (tokens - t).min(most);
            tile(t, width, o0, o1);
            t += width;
        }
    }
}

/// The portable loop, tiled like the vector ones (three rows of W by four
/// tokens, eight lanes each): what the vector kernels are tested against,
/// and what a processor with neither AVX2 nor NEON runs.
fn plain(x: &[f32], w: &Q8, bias: &[f32], y: &mut [f32]) {
    for_tiles(
        4,
        x.len() / w.cols,
        w.rows,
        |t, width, o0, o1| match width {
            4 => plain_tile::<4>(x, t, w, bias, y, o0, o1),
            3 => plain_tile::<3>(x, t, w, bias, y, o0, o1),
            2 => plain_tile::<2>(x, t, w, bias, y, o0, o1),
            _ => plain_tile::<1>(x, t, w, bias, y, o0, o1),
        },
    );
}

/// Tokens `t..t + T` against rows `o0..o1` of W.
#[inline(always)]
fn plain_tile<const T: usize>(
    x: &[f32],
    t: usize,
    w: &Q8,
    bias: &[f32],
    y: &mut [f32],
    o0: usize,
    o1: usize,
) {
    const O: usize = 3;
    let (n, m) = (w.cols, w.rows);
    let xs: [&[f32]; T] = std::array::from_fn(|i| &x[(t + i) * n..][..n]);
    for o in (o0..o1).step_by(O) {
        let rows: [&[i8]; O] = std::array::from_fn(|j| &w.data[(o + j) * n..][..n]);
        let mut acc = [[[0f32; 8]; O]; T];
        for k in (0..n).step_by(8) {
            // Fixed-size arrays: no bounds checks inside, so the compiler
            // unrolls the lanes into vector instructions.
            let mut ws = [[0f32; 8]; O];
            for (wj, row) in ws.iter_mut().zip(&rows) {
                let src: &[i8; 8] = row[k..k + 8].try_into().expect("8 weights");
                for l in 0..8 {
                    wj[l] = src[l] as f32;
                }
            }
            for (acc_i, x_i) in acc.iter_mut().zip(&xs) {
                let xv: &[f32; 8] = x_i[k..k + 8].try_into().expect("8 inputs");
                for (a, wj) in acc_i.iter_mut().zip(&ws) {
                    for l in 0..8 {
                        a[l] += wj[l] * xv[l];
                    }
                }
            }
        }
        for i in 0..T {
            for j in 0..O {
                y[(t + i) * m + o + j] =
                    acc[i][j].iter().sum::<f32>() * w.scales[o + j] + bias[o + j];
            }
        }
    }
}

/// Makes [`linear`] take the portable loop on every processor, and the
/// rest of the network its plain build (to measure what a processor with
/// no vector kernel is given).
pub static PORTABLE_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether vector code may run ([`PORTABLE_ONLY`] is off).
fn vectors_allowed() -> bool {
    !PORTABLE_ONLY.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether the AVX2 and FMA builds run here: the processor has both and
/// [`PORTABLE_ONLY`] is off. What every AVX2+FMA copy is chosen by.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2_fma() -> bool {
    vectors_allowed()
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Q8;
    use std::arch::x86_64::*;

    /// Rows of W a step.
    const O: usize = 3;

    /// # Safety
    /// The processor has AVX2 and FMA. (The shape is asserted here: the
    /// loads read 8 numbers at a time inside rows of `cols`, 3 rows a step.)
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn linear(x: &[f32], w: &Q8, bias: &[f32], y: &mut [f32]) {
        assert!(
            w.cols.is_multiple_of(8) && w.rows.is_multiple_of(O),
            "layer shape"
        );
        super::for_tiles(4, x.len() / w.cols, w.rows, |t, width, o0, o1| {
            // SAFETY: this function's own promise (AVX2 and FMA present).
            unsafe {
                match width {
                    4 => tile::<4>(x, t, w, bias, y, o0, o1),
                    3 => tile::<3>(x, t, w, bias, y, o0, o1),
                    2 => tile::<2>(x, t, w, bias, y, o0, o1),
                    _ => tile::<1>(x, t, w, bias, y, o0, o1),
                }
            }
        });
    }

    /// Tokens `t..t + T` against rows `o0..o1` of W.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile<const T: usize>(
        x: &[f32],
        t: usize,
        w: &Q8,
        bias: &[f32],
        y: &mut [f32],
        o0: usize,
        o1: usize,
    ) {
        let (n, m) = (w.cols, w.rows);
        let xs: [&[f32]; T] = std::array::from_fn(|i| &x[(t + i) * n..][..n]);
        for o in (o0..o1).step_by(O) {
            let rows: [&[i8]; O] = std::array::from_fn(|j| &w.data[(o + j) * n..][..n]);
            let mut acc = [[_mm256_setzero_ps(); O]; T];
            for k in (0..n).step_by(8) {
                // SAFETY: k + 8 <= n, the length of every row sliced above.
                let ws: [__m256; O] = std::array::from_fn(|j| unsafe {
                    let b = _mm_loadl_epi64(rows[j].as_ptr().add(k) as *const __m128i);
                    _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b))
                });
                for i in 0..T {
                    // SAFETY: as above, for a token's row of n numbers.
                    let xv = unsafe { _mm256_loadu_ps(xs[i].as_ptr().add(k)) };
                    for j in 0..O {
                        acc[i][j] = _mm256_fmadd_ps(ws[j], xv, acc[i][j]);
                    }
                }
            }
            for i in 0..T {
                for j in 0..O {
                    y[(t + i) * m + o + j] = sum(acc[i][j]) * w.scales[o + j] + bias[o + j];
                }
            }
        }
    }

    /// The eight lanes of `v` added.
    #[target_feature(enable = "avx2,fma")]
    fn sum(v: __m256) -> f32 {
        let h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
        let h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        let h = _mm_add_ss(h, _mm_shuffle_ps::<1>(h, h));
        _mm_cvtss_f32(h)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::Q8;
    use std::arch::x86_64::*;

    /// Rows of W a step.
    const O: usize = 3;

    /// # Safety
    /// The processor has AVX-512F. (The shape is asserted here: the loads
    /// read 16 numbers at a time inside rows of `cols`, 3 rows a step.)
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn linear(x: &[f32], w: &Q8, bias: &[f32], y: &mut [f32]) {
        assert!(
            w.cols.is_multiple_of(16) && w.rows.is_multiple_of(O),
            "layer shape"
        );
        super::for_tiles(8, x.len() / w.cols, w.rows, |t, width, o0, o1| {
            // SAFETY: this function's own promise (AVX-512F present).
            unsafe {
                match width {
                    8 => tile::<8>(x, t, w, bias, y, o0, o1),
                    7 => tile::<7>(x, t, w, bias, y, o0, o1),
                    6 => tile::<6>(x, t, w, bias, y, o0, o1),
                    5 => tile::<5>(x, t, w, bias, y, o0, o1),
                    4 => tile::<4>(x, t, w, bias, y, o0, o1),
                    3 => tile::<3>(x, t, w, bias, y, o0, o1),
                    2 => tile::<2>(x, t, w, bias, y, o0, o1),
                    _ => tile::<1>(x, t, w, bias, y, o0, o1),
                }
            }
        });
    }

    /// Tokens `t..t + T` against rows `o0..o1` of W, sixteen inputs a
    /// step into 24 sums (of 32 registers) for T = 8: each weight
    /// converted is used eight times (four tokens a tile, as in AVX2, or
    /// six rows of W by four tokens measured slower here).
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const T: usize>(
        x: &[f32],
        t: usize,
        w: &Q8,
        bias: &[f32],
        y: &mut [f32],
        o0: usize,
        o1: usize,
    ) {
        let (n, m) = (w.cols, w.rows);
        let xs: [&[f32]; T] = std::array::from_fn(|i| &x[(t + i) * n..][..n]);
        for o in (o0..o1).step_by(O) {
            let rows: [&[i8]; O] = std::array::from_fn(|j| &w.data[(o + j) * n..][..n]);
            let mut acc = [[_mm512_setzero_ps(); O]; T];
            for k in (0..n).step_by(16) {
                // SAFETY: k + 16 <= n, the length of every row sliced above.
                let ws: [__m512; O] = std::array::from_fn(|j| unsafe {
                    let b = _mm_loadu_si128(rows[j].as_ptr().add(k) as *const __m128i);
                    _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b))
                });
                for i in 0..T {
                    // SAFETY: as above, for a token's row of n numbers.
                    let xv = unsafe { _mm512_loadu_ps(xs[i].as_ptr().add(k)) };
                    for j in 0..O {
                        acc[i][j] = _mm512_fmadd_ps(ws[j], xv, acc[i][j]);
                    }
                }
            }
            for i in 0..T {
                for j in 0..O {
                    y[(t + i) * m + o + j] =
                        _mm512_reduce_add_ps(acc[i][j]) * w.scales[o + j] + bias[o + j];
                }
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::Q8;
    use std::arch::aarch64::*;

    /// Rows of W a step.
    const O: usize = 3;

    /// # Safety
    /// `w.cols` is a multiple of 8 and `w.rows` of 3 (what [`super::linear`]
    /// asserts): the loads read 8 numbers at a time inside rows of `cols`.
    pub(super) unsafe fn linear(x: &[f32], w: &Q8, bias: &[f32], y: &mut [f32]) {
        super::for_tiles(
            4,
            x.len() / w.cols,
            w.rows,
            |t, width, o0, o1| match width {
                4 => tile::<4>(x, t, w, bias, y, o0, o1),
                3 => tile::<3>(x, t, w, bias, y, o0, o1),
                2 => tile::<2>(x, t, w, bias, y, o0, o1),
                _ => tile::<1>(x, t, w, bias, y, o0, o1),
            },
        );
    }

    /// Tokens `t..t + T` against rows `o0..o1` of W, eight inputs a step
    /// into four-lane sums (12 for T = 4, of NEON's 32 registers).
    #[inline(always)]
    fn tile<const T: usize>(
        x: &[f32],
        t: usize,
        w: &Q8,
        bias: &[f32],
        y: &mut [f32],
        o0: usize,
        o1: usize,
    ) {
        let (n, m) = (w.cols, w.rows);
        let xs: [&[f32]; T] = std::array::from_fn(|i| &x[(t + i) * n..][..n]);
        for o in (o0..o1).step_by(O) {
            let rows: [&[i8]; O] = std::array::from_fn(|j| &w.data[(o + j) * n..][..n]);
            // SAFETY: NEON is always present on aarch64; every load reads
            // 8 bytes or 4 floats at k or k + 4 with k + 8 <= n, inside the
            // rows sliced above.
            unsafe {
                let mut acc = [[vdupq_n_f32(0.0); O]; T];
                for k in (0..n).step_by(8) {
                    let ws: [(float32x4_t, float32x4_t); O] = std::array::from_fn(|j| {
                        let wide = vmovl_s8(vld1_s8(rows[j].as_ptr().add(k)));
                        (
                            vcvtq_f32_s32(vmovl_s16(vget_low_s16(wide))),
                            vcvtq_f32_s32(vmovl_high_s16(wide)),
                        )
                    });
                    for i in 0..T {
                        let lo = vld1q_f32(xs[i].as_ptr().add(k));
                        let hi = vld1q_f32(xs[i].as_ptr().add(k + 4));
                        for j in 0..O {
                            acc[i][j] = vfmaq_f32(acc[i][j], ws[j].0, lo);
                            acc[i][j] = vfmaq_f32(acc[i][j], ws[j].1, hi);
                        }
                    }
                }
                for i in 0..T {
                    for j in 0..O {
                        y[(t + i) * m + o + j] =
                            vaddvq_f32(acc[i][j]) * w.scales[o + j] + bias[o + j];
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_layer_adds_what_the_plain_loop_adds() {
        // 40 inputs a row: AVX2 (or NEON); 48: AVX-512 where present.
        for cols in [40, 48] {
            the_fast_layer_adds_what_the_plain_loop_adds_over(cols);
        }
    }

    fn the_fast_layer_adds_what_the_plain_loop_adds_over(cols: usize) {
        let rows = 102;
        let m: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919 % 1000) as f32 / 500.0) - 1.0)
            .collect();
        let w = Q8::quantise(&m, rows, cols);
        let bias: Vec<f32> = (0..rows).map(|i| i as f32 / 10.0).collect();
        for tokens in 1..=9 {
            let x: Vec<f32> = (0..tokens * cols)
                .map(|i| ((i * 104729 % 997) as f32 / 498.0) - 1.0)
                .collect();
            let mut fast = vec![0.0; tokens * rows];
            let mut slow = vec![0.0; tokens * rows];
            linear(&x, &w, &bias, &mut fast);
            plain(&x, &w, &bias, &mut slow);
            for (a, b) in fast.iter().zip(&slow) {
                assert!((a - b).abs() < 1e-4, "{a} vs {b} with {tokens} tokens");
            }
            // And both are the f32 product, up to the int8 rounding.
            for t in 0..tokens {
                for o in 0..rows {
                    let exact: f32 = (0..cols).map(|k| m[o * cols + k] * x[t * cols + k]).sum();
                    let got = slow[t * rows + o] - bias[o];
                    assert!((exact - got).abs() < 0.1, "{exact} vs {got}");
                }
            }
        }
    }

    /// Each vector kernel this processor has, called directly (not only
    /// the one `linear` picks), against the plain loop: rows of 48 inputs
    /// (AVX-512 takes 16 at a time), tiles of 1 to 8 tokens and their
    /// tails, blocks of 48 rows and a last one narrower.
    #[test]
    fn every_vector_kernel_adds_what_the_plain_loop_adds() {
        let (rows, cols) = (105, 48);
        let m: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919 % 1000) as f32 / 500.0) - 1.0)
            .collect();
        let w = Q8::quantise(&m, rows, cols);
        let bias: Vec<f32> = (0..rows).map(|i| i as f32 / 10.0).collect();
        type Kernel = fn(&[f32], &Q8, &[f32], &mut [f32]);
        let mut kernels: Vec<(&str, Kernel)> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: AVX2 and FMA are present (checked just above).
                kernels.push(("avx2", |x, w, b, y| unsafe { avx2::linear(x, w, b, y) }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: AVX-512F is present (checked just above); the
                // rows are 48 numbers, the multiple of 16 it asserts.
                kernels.push(("avx512", |x, w, b, y| unsafe { avx512::linear(x, w, b, y) }));
            }
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: NEON is always present on aarch64.
        kernels.push(("neon", |x, w, b, y| unsafe { neon::linear(x, w, b, y) }));
        eprintln!(
            "kernels here: {:?}",
            kernels.iter().map(|k| k.0).collect::<Vec<_>>()
        );
        for tokens in 1..=19 {
            let x: Vec<f32> = (0..tokens * cols)
                .map(|i| ((i * 104729 % 997) as f32 / 498.0) - 1.0)
                .collect();
            let mut slow = vec![0.0; tokens * rows];
            plain(&x, &w, &bias, &mut slow);
            for (name, kernel) in &kernels {
                let mut fast = vec![f32::NAN; tokens * rows];
                kernel(&x, &w, &bias, &mut fast);
                for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                    assert!(
                        (a - b).abs() < 1e-4,
                        "{name}: {a} vs {b} at {i} with {tokens} tokens"
                    );
                }
            }
        }
    }

    #[test]
    fn quantised_rows_come_back_within_half_a_step() {
        let m = [0.5f32, -1.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0];
        let q = Q8::quantise(&m, 2, 4);
        let mut r = [0f32; 4];
        q.row(0, &mut r);
        for (a, b) in r.iter().zip(&m) {
            assert!((a - b).abs() <= q.scales[0] / 2.0);
        }
        q.row(1, &mut r);
        assert_eq!(r, [0.0; 4]);
    }
}
