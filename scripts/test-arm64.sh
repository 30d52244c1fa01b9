#!/usr/bin/env bash
# The sentence model's dense-layer kernel as arm64 (the template's Graviton
# functions) runs it: crates/embed/src/kernel.rs, which stands alone, built
# for aarch64-unknown-linux-gnu as its own unit tests and run under
# qemu-user. They check the NEON loop against the plain one and against the
# f32 product. (Correctness only: qemu's speed says nothing of Graviton's.)
set -euo pipefail
cd "$(dirname "$0")/.."
# What it needs is installed here, since only this test uses it: Rust's
# aarch64 standard library, Debian's cross linker and qemu-user. Debian
# replaces builds, so these are minimums: gcc-aarch64-linux-gnu 4:12.2,
# qemu-user 1:7.2 (what the tests passed with). Where rustup cannot add a
# target (the pinned toolchain linked from the machine's stable, offline),
# this test fails saying so.
if ! rustup target add aarch64-unknown-linux-gnu >/dev/null 2>&1 &&
  ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
  echo "test-arm64: rustup could not add the aarch64-unknown-linux-gnu target (scripts/test-arm64.sh)" >&2
  exit 1
fi
cross_ok() {
  dpkg --compare-versions "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' gcc-aarch64-linux-gnu 2>/dev/null | sed -n 's/^ii *//p')" ge 4:12.2 &&
    dpkg --compare-versions "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' qemu-user 2>/dev/null | sed -n 's/^ii *//p')" ge 1:7.2 &&
    dpkg-query -W -f='${db:Status-Abbrev}' libc6-dev-arm64-cross 2>/dev/null | grep -q '^ii'
}
if ! cross_ok; then
  as_root=()
  [ "$(id -u)" = 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -q >/dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
fi
if ! cross_ok; then
  echo "test-arm64: gcc-aarch64-linux-gnu >= 4:12.2, libc6-dev-arm64-cross and qemu-user >= 1:7.2 are needed (scripts/test-arm64.sh)" >&2
  exit 1
fi
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
