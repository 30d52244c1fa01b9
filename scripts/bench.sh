#!/usr/bin/env bash
# Regenerates BENCHMARKS.md: criterion benches against tantivy, SciFact
# throughput against bm25s, index load against a plain copy, cold start and
# peak RSS with the index in a loopback S3 server, the scaling curves, and index
# format 4 against format 3 side by side (benches/compare_index.sh). About 45 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
BENCH_VENV="${BENCH_VENV:-$HOME/.cache/nlweb-ask/bench-venv}"
BENCH_REQUIREMENTS=scripts/requirements-bench.txt
bench_stamp="$BENCH_VENV/.requirements-bench.sha256"
bench_want="$(sha256sum "$BENCH_REQUIREMENTS" | cut -d' ' -f1)"
if [ ! -x "$BENCH_VENV/bin/python" ] || [ "$(cat "$bench_stamp" 2>/dev/null)" != "$bench_want" ]; then
  python3 -m venv "$BENCH_VENV"
  "$BENCH_VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$BENCH_REQUIREMENTS"
  echo "$bench_want" > "$bench_stamp"
fi
export BENCH_PYTHON="$BENCH_VENV/bin/python"
python3 benches/report.py
echo "wrote BENCHMARKS.md"
