#!/usr/bin/env bash
# Regenerates BENCHMARKS.md: criterion benches against tantivy, SciFact
# throughput against bm25s, index load against a plain copy, cold start and
# peak RSS with the index in a loopback S3 server. About 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
BENCH_VENV="${BENCH_VENV:-$HOME/.cache/nlweb-ask/bench-venv}"
if [ ! -x "$BENCH_VENV/bin/python" ] || ! "$BENCH_VENV/bin/python" -c 'import bm25s, Stemmer' 2>/dev/null; then
  python3 -m venv "$BENCH_VENV"
  "$BENCH_VENV/bin/pip" install --quiet --disable-pip-version-check bm25s PyStemmer numpy scipy
fi
export BENCH_PYTHON="$BENCH_VENV/bin/python"
python3 benches/report.py
echo "wrote BENCHMARKS.md"
