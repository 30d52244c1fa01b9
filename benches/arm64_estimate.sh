#!/usr/bin/env bash
# What a question's embedding costs on arm64, as far as this x86-64 machine
# can tell: the instructions it executes, counted under qemu-user (TCG) by
# benches/qemu/insn.c, for the arm64 build (NEON kernel) and the x86-64 build
# (qemu's -cpu max has AVX2: the AVX2 kernel), each over N questions minus
# the same program over 0 (loading the model). Prints JSON lines. qemu's
# speed says nothing of either processor's: the counts compare the work, and
# docs/content/docs/operations.mdx says how the estimate is made from them.
#
#     bash benches/arm64_estimate.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
n="${1:-40}"
work="$CARGO_TARGET_DIR/arm64-estimate"
mkdir -p "$work"
gcc -shared -fPIC -O2 benches/qemu/insn.c -o "$work/insn.so"
model="$(bash scripts/model.sh)"
cargo build --profile local --locked -p build-index --quiet
"$CARGO_TARGET_DIR/local/build-index" pack-model --model "$model" --out "$work/model" >/dev/null
rustup target add aarch64-unknown-linux-gnu >/dev/null
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
  cargo build --release --locked -p ask-embed --example questions --target aarch64-unknown-linux-gnu --quiet
cargo build --release --locked -p ask-embed --example questions --quiet
arm="$CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release/examples/questions"
x86="$CARGO_TARGET_DIR/release/examples/questions"
count() { "$@" 2>&1 >/dev/null | sed -n 's/^insns //p'; }
for arch in arm64 x86_64; do
  if [ "$arch" = arm64 ]; then
    run=(qemu-aarch64 -L /usr/aarch64-linux-gnu -plugin "$work/insn.so" "$arm" "$work/model")
  else
    run=(qemu-x86_64 -cpu max -plugin "$work/insn.so" "$x86" "$work/model")
  fi
  base=$(count "${run[@]}" 0)
  total=$(count "${run[@]}" "$n")
  echo "{\"arch\": \"$arch\", \"questions\": $n, \"insns_load\": $base, \"insns_per_question\": $(( (total - base) / n ))}"
done
