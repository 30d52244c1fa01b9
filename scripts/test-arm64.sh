#!/usr/bin/env bash
# The sentence model's dense-layer kernel as arm64 (the template's Graviton
# functions) runs it: crates/embed/src/kernel.rs, which stands alone, built
# for aarch64-unknown-linux-gnu as its own unit tests and run under
# qemu-user. They check the NEON loop against the plain one and against the
# f32 product. (Correctness only: qemu's speed says nothing of Graviton's.)
# scripts/prereqs.sh installs the target, the cross linker and qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}/arm64-kernel"
mkdir -p "$out"
rustc --edition 2024 --test -C opt-level=3 --target aarch64-unknown-linux-gnu \
  -C linker=aarch64-linux-gnu-gcc crates/embed/src/kernel.rs -o "$out/kernel-tests"
# The NEON code is there (vector multiply-adds), not only the plain loop.
rustc --edition 2024 --crate-type=lib -C opt-level=3 --target aarch64-unknown-linux-gnu \
  --emit asm crates/embed/src/kernel.rs -o "$out/kernel.s"
grep -q 'fmla[[:space:]]*v[0-9]*\.4s' "$out/kernel.s" || {
  echo "test-arm64: no NEON multiply-add in the arm64 kernel" >&2
  exit 1
}
qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/kernel-tests"
