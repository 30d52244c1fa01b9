#!/usr/bin/env bash
# The long fuzz run: 1,000,000 structure-aware mutations of the saved events
# through the whole handler (tests/fuzz.rs), and 1,000,000 inputs of each MDX
# property (build-index/tests/mdx_never_panics.rs). The test suite runs the
# same targets with 10,000 cases. FUZZ_CASES overrides the count.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
export FUZZ_CASES="${FUZZ_CASES:-1000000}"
start=$(date +%s)
cargo test --profile local --locked --test fuzz -- --nocapture --test-threads 1 2>&1 | grep -oE "fuzz: .*|test result.*"
cargo test --profile local --locked -p build-index --test mdx_never_panics 2>&1 | grep -E "test result"
echo "fuzz.sh: $FUZZ_CASES cases a target, $(( $(date +%s) - start )) s"
