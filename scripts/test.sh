#!/usr/bin/env bash
# Runs every test: installs prerequisites, then the whole workspace's tests
# (one release build serves tests, benches and the local endpoint).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
cargo test --release --workspace --locked
