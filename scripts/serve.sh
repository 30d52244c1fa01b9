#!/usr/bin/env bash
# Builds the index of the bundled docs (docs/content/docs) and serves /ask
# locally under `cargo lambda watch`, enabled, on 127.0.0.1:9000.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
PORT="${PORT:-9000}"
INDEX="$CARGO_TARGET_DIR/ask-index.idx"
cargo run --release --locked -p build-index -- --corpus docs/content/docs --out "$INDEX"
cat <<MSG

Serving /ask on http://127.0.0.1:$PORT (Ctrl-C to stop). Try:

  curl -s 'http://127.0.0.1:$PORT/lambda-url/ask/ask?query=how+do+I+configure+the+rate+limit&streaming=false'

MSG
exec cargo lambda watch --release -A 127.0.0.1 -P "$PORT" \
  --env-var ASK_ENABLED=true --env-var "ASK_INDEX=$INDEX"
