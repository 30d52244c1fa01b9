//! Which codec for the index's stored text (issue 28)? Reads index files,
//! cuts their long text (page descriptions and section texts, in the order
//! the index stores them) into blocks of a given size, and for each codec
//! reports the compressed bytes against the raw and the whole file, and the
//! time to decompress one block (what an answer pays per hit it shows, when
//! the hit's block is not cached). Build-time compression speed is shown
//! too, but an index is built once per docs release.
//!
//!     cargo run --release -p build-index --example codecs -- INDEX...
//!
//! `benches/experiments/benchmarks-codecs.md` was measured on format version 3 files, whose text
//! was stored raw (commit 4e2355f). Version 4 files store it compressed, so
//! on them the "file would be" column counts the text twice.

use std::time::Instant;

/// A codec: name, compress a block, decompress it (given its raw size).
struct Codec {
    name: &'static str,
    compress: fn(&[u8]) -> Vec<u8>,
    decompress: fn(&[u8], usize) -> Vec<u8>,
}

fn codecs() -> Vec<Codec> {
    vec![
        Codec {
            name: "lz4_flex (block)",
            compress: |b| lz4_flex::block::compress(b),
            decompress: |c, n| lz4_flex::block::decompress(c, n).expect("lz4"),
        },
        Codec {
            name: "deflate 6 (miniz_oxide)",
            compress: |b| miniz_oxide::deflate::compress_to_vec(b, 6),
            decompress: |c, _| miniz_oxide::inflate::decompress_to_vec(c).expect("inflate"),
        },
        Codec {
            name: "deflate 9 (miniz_oxide)",
            compress: |b| miniz_oxide::deflate::compress_to_vec(b, 9),
            decompress: |c, _| miniz_oxide::inflate::decompress_to_vec(c).expect("inflate"),
        },
        Codec {
            name: "zstd 3 (C), read by ruzstd",
            compress: |b| zstd::bulk::compress(b, 3).expect("zstd"),
            decompress: ruzstd_decode,
        },
        Codec {
            name: "zstd 19 (C), read by ruzstd",
            compress: |b| zstd::bulk::compress(b, 19).expect("zstd"),
            decompress: ruzstd_decode,
        },
        Codec {
            name: "zstd 19 (C), read by C zstd",
            compress: |b| zstd::bulk::compress(b, 19).expect("zstd"),
            decompress: |c, n| zstd::bulk::decompress(c, n).expect("zstd"),
        },
    ]
}

fn ruzstd_decode(c: &[u8], n: usize) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::with_capacity(n);
    ruzstd::decoding::StreamingDecoder::new(c)
        .expect("ruzstd")
        .read_to_end(&mut out)
        .expect("ruzstd");
    out
}

/// The long text of an index, in stored order: each page's description,
/// then its sections' texts.
/// A text of 64 bytes or more is stored once however many spans name it
/// (as the index's builder does).
fn long_text(index: &ask_index::Index) -> Vec<u8> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |out: &mut Vec<u8>, t: &str| {
        if t.len() < 64 || seen.insert(t.to_string()) {
            out.extend_from_slice(t.as_bytes());
        }
    };
    let mut page = u32::MAX;
    for s in 0..index.section_count() as u32 {
        let section = index.section(s);
        if section.page != page {
            page = section.page;
            push(&mut out, index.page(page).description);
        }
        push(&mut out, &section.text);
    }
    out
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    assert!(!paths.is_empty(), "usage: codecs INDEX...");
    println!(
        "| index | file bytes | long text bytes | block | codec | compressed | of the text | file would be | µs to read a block | build s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for path in &paths {
        let bytes = std::fs::read(path).expect("read the index");
        let index = ask_index::decode(&bytes).expect("decode the index");
        let text = long_text(&index);
        let name = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        for block in [16 * 1024, 64 * 1024] {
            let blocks: Vec<&[u8]> = text.chunks(block).collect();
            for codec in codecs() {
                let t = Instant::now();
                let packed: Vec<Vec<u8>> = blocks.iter().map(|b| (codec.compress)(b)).collect();
                let build = t.elapsed().as_secs_f64();
                let size: usize = packed.iter().map(Vec::len).sum();
                // Read every block a few times; the mean per block.
                let rounds = 3;
                let t = Instant::now();
                for _ in 0..rounds {
                    for (c, raw) in packed.iter().zip(&blocks) {
                        let out = (codec.decompress)(c, raw.len());
                        assert_eq!(out.len(), raw.len(), "{}", codec.name);
                    }
                }
                let per_block = t.elapsed().as_secs_f64() * 1e6 / (rounds * blocks.len()) as f64;
                let file = bytes.len() - text.len() + size;
                println!(
                    "| {name} | {} | {} | {} KiB | {} | {} | {:.1} % | {:.1} % | {:.0} | {:.2} |",
                    bytes.len(),
                    text.len(),
                    block / 1024,
                    codec.name,
                    size,
                    100.0 * size as f64 / text.len() as f64,
                    100.0 * file as f64 / bytes.len() as f64,
                    per_block,
                    build
                );
            }
        }
    }
}
