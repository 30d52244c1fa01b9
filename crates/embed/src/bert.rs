//! The network: a 6-layer BERT encoder (all-MiniLM-L6-v2's shape) with its
//! dense layers and word table in int8, run one text at a time (no
//! padding, no mask), mean-pooled.
//!
//! Its weights come from the pinned `model.safetensors` ([`Bert::convert`])
//! or from the packed file that conversion writes ([`Bert::read`]), which
//! is a quarter of the size and loads without any conversion.

use crate::kernel::{Q8, linear};

/// Hidden size.
pub const HIDDEN: usize = 384;
/// Feed-forward size.
const FFN: usize = 1536;
/// Attention heads.
const HEADS: usize = 12;
/// Layers.
const LAYERS: usize = 6;
/// Positions the model knows.
const POSITIONS: usize = 512;
/// LayerNorm's epsilon in the pinned config.
const EPS: f32 = 1e-12;

/// A LayerNorm's gain and bias.
#[derive(Clone, Debug, Default, PartialEq)]
struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

/// One encoder layer.
#[derive(Clone, Debug, Default, PartialEq)]
struct Layer {
    /// Query, key and value stacked: 3 × 384 rows.
    qkv: Q8,
    qkv_bias: Vec<f32>,
    out: Q8,
    out_bias: Vec<f32>,
    out_norm: Norm,
    up: Q8,
    up_bias: Vec<f32>,
    down: Q8,
    down_bias: Vec<f32>,
    down_norm: Norm,
}

/// The encoder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bert {
    /// Word pieces in id order.
    pub vocab: Vec<String>,
    words: Q8,
    /// Position embeddings with the token-type-0 embedding added.
    positions: Vec<f32>,
    embed_norm: Norm,
    layers: Vec<Layer>,
}

/// Start of a packed model file, with its format version.
const MAGIC: &[u8; 8] = b"NLWQ8B01";

impl Bert {
    /// The network from the pinned safetensors and tokenizer.json.
    pub fn convert(safetensors: &[u8], tokenizer_json: &[u8]) -> Result<Bert, String> {
        let st = SafeTensors::parse(safetensors)?;
        let q = |name: &str, rows: usize, cols: usize| -> Result<Q8, String> {
            Ok(Q8::quantise(&st.f32s(name, rows * cols)?, rows, cols))
        };
        let norm = |p: &str| -> Result<Norm, String> {
            Ok(Norm {
                gain: st.f32s(&format!("{p}.weight"), HIDDEN)?,
                bias: st.f32s(&format!("{p}.bias"), HIDDEN)?,
            })
        };
        let types = st.f32s("embeddings.token_type_embeddings.weight", 2 * HIDDEN)?;
        let mut positions = st.f32s("embeddings.position_embeddings.weight", POSITIONS * HIDDEN)?;
        for row in positions.chunks_exact_mut(HIDDEN) {
            row.iter_mut()
                .zip(&types[..HIDDEN])
                .for_each(|(p, t)| *p += t);
        }
        let mut layers = Vec::with_capacity(LAYERS);
        for l in 0..LAYERS {
            let p = format!("encoder.layer.{l}");
            let mut qkv = Vec::with_capacity(3 * HIDDEN * HIDDEN);
            let mut qkv_bias = Vec::with_capacity(3 * HIDDEN);
            for part in ["query", "key", "value"] {
                let a = format!("{p}.attention.self.{part}");
                qkv.extend(st.f32s(&format!("{a}.weight"), HIDDEN * HIDDEN)?);
                qkv_bias.extend(st.f32s(&format!("{a}.bias"), HIDDEN)?);
            }
            layers.push(Layer {
                qkv: Q8::quantise(&qkv, 3 * HIDDEN, HIDDEN),
                qkv_bias,
                out: q(
                    &format!("{p}.attention.output.dense.weight"),
                    HIDDEN,
                    HIDDEN,
                )?,
                out_bias: st.f32s(&format!("{p}.attention.output.dense.bias"), HIDDEN)?,
                out_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: q(&format!("{p}.intermediate.dense.weight"), FFN, HIDDEN)?,
                up_bias: st.f32s(&format!("{p}.intermediate.dense.bias"), FFN)?,
                down: q(&format!("{p}.output.dense.weight"), HIDDEN, FFN)?,
                down_bias: st.f32s(&format!("{p}.output.dense.bias"), HIDDEN)?,
                down_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let vocab = vocab_of(tokenizer_json)?;
        Ok(Bert {
            words: q("embeddings.word_embeddings.weight", vocab.len(), HIDDEN)?,
            vocab,
            positions,
            embed_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// The packed file's bytes.
    pub fn write(&self) -> Vec<u8> {
        let mut w = Writer(Vec::with_capacity(24 << 20));
        w.0.extend_from_slice(MAGIC);
        w.len(self.vocab.len());
        for v in &self.vocab {
            w.len(v.len());
            w.0.extend_from_slice(v.as_bytes());
        }
        w.q8(&self.words);
        w.f32s(&self.positions);
        w.norm(&self.embed_norm);
        w.len(self.layers.len());
        for l in &self.layers {
            w.q8(&l.qkv);
            w.f32s(&l.qkv_bias);
            w.q8(&l.out);
            w.f32s(&l.out_bias);
            w.norm(&l.out_norm);
            w.q8(&l.up);
            w.f32s(&l.up_bias);
            w.q8(&l.down);
            w.f32s(&l.down_bias);
            w.norm(&l.down_norm);
        }
        w.0
    }

    /// The network from a packed file's bytes.
    pub fn read(bytes: &[u8]) -> Result<Bert, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err("not a packed model of this version (NLWQ8B01)".into());
        }
        let n = r.len()?;
        // A word takes at least its 4-byte length: no more can follow.
        let mut vocab = Vec::with_capacity(n.min((bytes.len() - r.at) / 4));
        for _ in 0..n {
            let len = r.len()?;
            let s = std::str::from_utf8(r.take(len)?).map_err(|_| "vocabulary: not UTF-8")?;
            vocab.push(s.to_string());
        }
        let words = r.q8(vocab.len(), HIDDEN)?;
        let positions = r.f32s(POSITIONS * HIDDEN)?;
        let embed_norm = r.norm()?;
        if r.len()? != LAYERS {
            return Err("not a 6-layer model".into());
        }
        let mut layers = Vec::with_capacity(LAYERS);
        for _ in 0..LAYERS {
            layers.push(Layer {
                qkv: r.q8(3 * HIDDEN, HIDDEN)?,
                qkv_bias: r.f32s(3 * HIDDEN)?,
                out: r.q8(HIDDEN, HIDDEN)?,
                out_bias: r.f32s(HIDDEN)?,
                out_norm: r.norm()?,
                up: r.q8(FFN, HIDDEN)?,
                up_bias: r.f32s(FFN)?,
                down: r.q8(HIDDEN, FFN)?,
                down_bias: r.f32s(HIDDEN)?,
                down_norm: r.norm()?,
            });
        }
        if r.at != bytes.len() {
            return Err("bytes after the last layer".into());
        }
        Ok(Bert {
            vocab,
            words,
            positions,
            embed_norm,
            layers,
        })
    }

    /// The mean of the last layer's token vectors for `ids` (at most 512),
    /// not normalised.
    pub fn pooled(&self, ids: &[u32]) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        if crate::kernel::avx2_fma() {
            // SAFETY: the processor has AVX2 and FMA (checked just above).
            return unsafe { self.pooled_avx2(ids) };
        }
        self.pooled_here(ids)
    }

    /// [`Bert::pooled`] compiled for AVX2 and FMA: the attention's and
    /// the norms' loops in eight lanes (the dense layers choose their own).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn pooled_avx2(&self, ids: &[u32]) -> Vec<f32> {
        self.pooled_here(ids)
    }

    #[inline(always)]
    fn pooled_here(&self, ids: &[u32]) -> Vec<f32> {
        let s = ids.len().clamp(1, POSITIONS);
        let mut h = vec![0f32; s * HIDDEN];
        for (t, row) in h.chunks_exact_mut(HIDDEN).enumerate() {
            let id = ids.get(t).copied().unwrap_or(0) as usize;
            self.words.row(id.min(self.words.rows - 1), row);
            row.iter_mut()
                .zip(&self.positions[t * HIDDEN..][..HIDDEN])
                .for_each(|(x, p)| *x += p);
            layer_norm(row, &self.embed_norm);
        }
        let mut qkv = vec![0f32; s * 3 * HIDDEN];
        let mut ctx = vec![0f32; s * HIDDEN];
        let mut a = vec![0f32; s * HIDDEN];
        let mut f = vec![0f32; s * FFN];
        let mut scores = vec![0f32; s];
        for l in &self.layers {
            linear(&h, &l.qkv, &l.qkv_bias, &mut qkv);
            attend(&qkv, s, &mut scores, &mut ctx);
            linear(&ctx, &l.out, &l.out_bias, &mut a);
            add_norm(&mut h, &a, &l.out_norm);
            linear(&h, &l.up, &l.up_bias, &mut f);
            f.iter_mut().for_each(|x| *x = gelu(*x));
            linear(&f, &l.down, &l.down_bias, &mut a);
            add_norm(&mut h, &a, &l.down_norm);
        }
        let mut mean = vec![0f32; HIDDEN];
        for row in h.chunks_exact(HIDDEN) {
            mean.iter_mut().zip(row).for_each(|(m, x)| *m += x);
        }
        mean.iter_mut().for_each(|m| *m /= s as f32);
        mean
    }
}

/// Multi-head self-attention: `ctx` from the stacked query, key and value
/// rows of `s` tokens.
#[inline(always)]
fn attend(qkv: &[f32], s: usize, scores: &mut [f32], ctx: &mut [f32]) {
    let d = HIDDEN / HEADS;
    let scale = 1.0 / (d as f32).sqrt();
    let row =
        |t: usize, part: usize, head: usize| &qkv[t * 3 * HIDDEN + part * HIDDEN + head * d..][..d];
    for head in 0..HEADS {
        for i in 0..s {
            let q = row(i, 0, head);
            let mut max = f32::NEG_INFINITY;
            for (j, sc) in scores.iter_mut().enumerate() {
                *sc = dot(q, row(j, 1, head)) * scale;
                max = max.max(*sc);
            }
            let mut total = 0.0;
            for sc in scores.iter_mut() {
                *sc = exp(*sc - max);
                total += *sc;
            }
            let out = &mut ctx[i * HIDDEN + head * d..][..d];
            out.fill(0.0);
            for (j, sc) in scores.iter().enumerate() {
                let p = sc / total;
                out.iter_mut()
                    .zip(row(j, 2, head))
                    .for_each(|(o, v)| *o += p * v);
            }
        }
    }
}

/// The dot product, in eight lanes the compiler can keep in vector
/// registers.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    lanes.iter().sum()
}

/// `h = norm(h + a)`, row by row.
#[inline(always)]
fn add_norm(h: &mut [f32], a: &[f32], n: &Norm) {
    for (hr, ar) in h.chunks_exact_mut(HIDDEN).zip(a.chunks_exact(HIDDEN)) {
        hr.iter_mut().zip(ar).for_each(|(x, y)| *x += y);
        layer_norm(hr, n);
    }
}

#[inline(always)]
fn layer_norm(x: &mut [f32], n: &Norm) {
    let len = x.len() as f32;
    let mean = x.iter().sum::<f32>() / len;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / len;
    let inv = 1.0 / (var + EPS).sqrt();
    for ((v, g), b) in x.iter_mut().zip(&n.gain).zip(&n.bias) {
        *v = (*v - mean) * inv * g + b;
    }
}

/// GELU with the error function (BERT's `gelu`, not the tanh one).
#[inline(always)]
fn gelu(x: f32) -> f32 {
    x * (1.0 - 0.5 * erfc(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The complementary error function to about 1e-7 (Numerical Recipes'
/// Chebyshev fit, `erfcc`).
#[inline(always)]
fn erfc(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204
                                + t * (1.488_515_9 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * exp(poly);
    if x >= 0.0 { r } else { 2.0 - r }
}

/// `e^x` to within 2 units in the last place, of no calls and no branches
/// (so a loop of it vectorises): `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2`,
/// Cephes' `expf` polynomial for `e^r`, and `2^n` made in the exponent's
/// bits. Below −87 it gives about 1.6e-38, not 0 (no subnormals); above 88
/// about 1.65e38, not infinity: what the attention and GELU ask is in
/// between or fine so.
#[inline(always)]
fn exp(x: f32) -> f32 {
    // 1.5 · 2^23: adding it rounds to a whole number, held in the low bits.
    const ROUND: f32 = 12_582_912.0;
    // Comparisons rather than `clamp`, whose NaN rule costs lanes.
    let x = if x < -87.0 { -87.0 } else { x };
    let x = if x > 88.0 { 88.0 } else { x };
    let big = x * std::f32::consts::LOG2_E + ROUND;
    let n = big - ROUND;
    // ln 2 in two parts, the first exact in few bits (Cody and Waite).
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 0.166_666_65;
    let p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // n from `big`'s bits (−126 ≤ n ≤ 127), then 2^n's exponent field.
    let n_bits = big.to_bits().wrapping_sub(ROUND.to_bits());
    e * f32::from_bits(n_bits.wrapping_add(127) << 23)
}

/// The vocabulary of tokenizer.json's WordPiece model, in id order.
fn vocab_of(tokenizer_json: &[u8]) -> Result<Vec<String>, String> {
    let v: serde_json::Value =
        serde_json::from_slice(tokenizer_json).map_err(|e| format!("tokenizer.json: {e}"))?;
    let map = v
        .pointer("/model/vocab")
        .and_then(|m| m.as_object())
        .ok_or("tokenizer.json has no model.vocab")?;
    let mut vocab = vec![None; map.len()];
    for (word, id) in map {
        let slot = id
            .as_u64()
            .and_then(|i| vocab.get_mut(i as usize))
            .ok_or("tokenizer.json: an id outside the vocabulary")?;
        *slot = Some(word.clone());
    }
    vocab
        .into_iter()
        .map(|w| w.ok_or_else(|| "tokenizer.json: ids are not 0..n".to_string()))
        .collect()
}

/// The F32 tensors of a safetensors file.
struct SafeTensors<'a> {
    header: serde_json::Map<String, serde_json::Value>,
    data: &'a [u8],
}

impl<'a> SafeTensors<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, String> {
        let len = bytes
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
            .ok_or("model.safetensors: too short")?;
        let header = bytes
            .get(8..8usize.saturating_add(len))
            .ok_or("model.safetensors: header cut short")?;
        let header: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| format!("model.safetensors: {e}"))?;
        Ok(SafeTensors {
            header,
            data: &bytes[8 + len..],
        })
    }

    /// Tensor `name`, which must be F32 with `count` numbers.
    fn f32s(&self, name: &str, count: usize) -> Result<Vec<f32>, String> {
        let t = self
            .header
            .get(name)
            .ok_or_else(|| format!("model.safetensors has no {name}"))?;
        if t["dtype"] != "F32" {
            return Err(format!("{name} is not F32"));
        }
        let range = (|| {
            let o = t["data_offsets"].as_array()?;
            Some(o.first()?.as_u64()? as usize..o.get(1)?.as_u64()? as usize)
        })()
        .ok_or_else(|| format!("{name}: no data_offsets"))?;
        let bytes = self
            .data
            .get(range)
            .filter(|b| b.len() == count * 4)
            .ok_or_else(|| format!("{name}: not {count} numbers"))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn len(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u32).to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        self.len(v.len());
        v.iter()
            .for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
    }
    fn q8(&mut self, m: &Q8) {
        self.f32s(&m.scales);
        self.0.extend(m.data.iter().map(|&b| b as u8));
    }
    fn norm(&mut self, n: &Norm) {
        self.f32s(&n.gain);
        self.f32s(&n.bias);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let b = self
            .bytes
            .get(self.at..self.at.saturating_add(n))
            .ok_or("the packed model is cut short")?;
        self.at += n;
        Ok(b)
    }
    fn len(&mut self) -> Result<usize, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize)
    }
    fn f32s(&mut self, count: usize) -> Result<Vec<f32>, String> {
        if self.len()? != count {
            return Err(format!(
                "the packed model has a tensor that is not {count} long"
            ));
        }
        Ok(self
            .take(count * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect())
    }
    fn q8(&mut self, rows: usize, cols: usize) -> Result<Q8, String> {
        let scales = self.f32s(rows)?;
        let data = self.take(rows * cols)?.iter().map(|&b| b as i8).collect();
        Ok(Q8 {
            rows,
            cols,
            scales,
            data,
        })
    }
    fn norm(&mut self) -> Result<Norm, String> {
        Ok(Norm {
            gain: self.f32s(HIDDEN)?,
            bias: self.f32s(HIDDEN)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_units_in_the_last_place() {
        let mut worst = 0f64;
        for i in -870_000..=880_000 {
            let x = i as f32 / 10_000.0;
            let exact = (x as f64).exp();
            // One unit in the last place at `exact`: 2^(its exponent − 23).
            let ulp = 2f64.powi(exact.log2().floor() as i32 - 23);
            worst = worst.max((exp(x) as f64 - exact).abs() / ulp);
        }
        assert!(worst <= 2.0, "worst error {worst} units in the last place");
        for x in [-1000.0, f32::NEG_INFINITY, f32::MIN] {
            assert!(exp(x) > 1e-38 && exp(x) < 2e-38, "exp({x}) = {}", exp(x));
        }
        for x in [1000.0, f32::INFINITY, f32::MAX] {
            assert!(exp(x) > 1e38 && exp(x).is_finite(), "exp({x}) = {}", exp(x));
        }
    }

    #[test]
    fn gelu_is_within_1e_6_of_its_f64_form() {
        fn reference(x: f32) -> f64 {
            let z = (x as f64 * std::f64::consts::FRAC_1_SQRT_2).abs();
            let t = 1.0 / (1.0 + 0.5 * z);
            let poly = -z * z - 1.265_512_23
                + t * (1.000_023_68
                    + t * (0.374_091_96
                        + t * (0.096_784_18
                            + t * (-0.186_288_06
                                + t * (0.278_868_07
                                    + t * (-1.135_203_98
                                        + t * (1.488_515_87
                                            + t * (-0.822_152_23 + t * 0.170_872_77))))))));
            let r = t * poly.exp();
            let erfc = if x >= 0.0 { r } else { 2.0 - r };
            x as f64 * (1.0 - 0.5 * erfc)
        }
        let xs: Vec<f32> = (-20_003..20_000).map(|i| i as f32 / 2_000.0).collect();
        let got: Vec<f32> = xs.iter().map(|&x| gelu(x)).collect();
        for (x, g) in xs.iter().zip(&got) {
            let want = reference(*x);
            assert!(
                (*g as f64 - want).abs() <= 1e-6 * (1.0 + want.abs()),
                "gelu({x}) = {g}, want {want}"
            );
        }
    }
}
