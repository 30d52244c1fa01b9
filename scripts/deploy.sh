#!/usr/bin/env bash
# Deploys nlweb-ask to AWS with SAM and publishes the index of a docs folder,
# with the docs team's settings file in it.
#
#   AWS_REGION=eu-west-1 scripts/deploy.sh [SETTINGS_FILE] [extra `sam deploy` args]
#
# SETTINGS_FILE is the team's settings file (an `ask:` section, kept beside
# its docs; default common/global_config.yaml, the bundled docs'): its
# corpus_path names the docs folder, its docs_base_url the site that answers
# link to. build-index checks it (an unknown key or a bad value stops here,
# naming the key, the file and the line) and stores it in the index, so the
# function runs with exactly these settings. Environment:
#   AWS_REGION      the stack's region (required: nothing is guessed).
#   STACK           the CloudFormation stack (default nlweb-ask).
#   DOCS_BASE_URL   overrides the file's docs_base_url. Empty, or on
#                   example.com, is refused before anything is built.
#   DOCS            overrides the file's corpus_path (a folder of .mdx pages).
#   ENABLED         true or false overrides the file's enabled (the off
#                   switch, template parameter Enabled); unset leaves it to
#                   the file.
#   RETRIEVER       bm25 deploys no sentence model (the smallest memory);
#                   unset ships it for the file's retriever (hybrid by default).
#   TRANSPORT       buffered (default) or streaming: template.yaml's streaming
#                   variant (scripts/streaming-template.sh), where every route's
#                   integration streams and SSE answers go out as written.
#   ARCH            x86_64 (default) or arm64 (Graviton; the cheaper one with
#                   RETRIEVER=bm25).
#   QUERY_ID_SECRET the secret answers' query_ids are signed with (template
#                   parameter QueryIdSecret, NoEcho); unset draws a new one
#                   for this deploy, so answers given before it can no
#                   longer be rated. Pin it (a CI secret) to keep them.
#   SAM             the SAM CLI to run (default: the pinned `sam` prereqs.sh installs).
#   INDEX_KEY       deploy this index object (index/<build-id>.idx, one an
#                   earlier deploy uploaded) instead of building one: a
#                   rollback of the docs. Its format must be one this code reads.
#
# 1. `sam build` (provided.al2023, through cargo-lambda) for ARCH.
# 2. If the stack does not exist yet, a first `sam deploy` creates it (and its
#    index bucket) with the endpoint off.
# 3. `build-index` builds the index and uploads it to a new key,
#    s3://<bucket>/index/<build-id>.idx (read back and checked).
# 4. `sam deploy` again with IndexKey=<that key>: the function's ASK_INDEX and
#    its s3:GetObject permission change, so Lambda starts new environments,
#    and each loads the new index at its cold start. The old keys stay in the
#    bucket. Prints the /ask, /mcp and widget URLs.
# No prompt anywhere. Needs AWS credentials for the target account and region.
set -euo pipefail
cd "$(dirname "$0")/.."
SETTINGS="${1:-common/global_config.yaml}"
[ $# -gt 0 ] && shift
STACK="${STACK:-nlweb-ask}"
TRANSPORT="${TRANSPORT:-buffered}"
ARCH="${ARCH:-x86_64}"
fail() { echo "deploy: $*" >&2; exit 1; }

# Everything that can be refused is refused before anything is built.
[ -n "${AWS_REGION:-}" ] || fail "AWS_REGION is not set: name the stack's region (for example AWS_REGION=eu-west-1)"
[ -f "$SETTINGS" ] || fail "no settings file at $SETTINGS"
case "$TRANSPORT" in buffered|streaming) ;; *) fail "TRANSPORT must be buffered or streaming" ;; esac
case "$ARCH" in arm64|x86_64) ;; *) fail "ARCH must be arm64 or x86_64" ;; esac
case "${RETRIEVER:-}" in ""|bm25) ;; *) fail "RETRIEVER is bm25 or unset (the settings file's retriever, hybrid by default)" ;; esac
case "${ENABLED:-}" in ""|true|false) ;; *) fail "ENABLED must be true, false or unset" ;; esac
base_url="$(python3 scripts/settings-value.py "$SETTINGS" docs_base_url)"
base_url="${DOCS_BASE_URL:-$base_url}"
python3 - "$base_url" "$SETTINGS" <<'PY' || exit 1
import sys, urllib.parse
url, settings = sys.argv[1], sys.argv[2]
host = (urllib.parse.urlsplit(url).hostname or "").lower()
why = None
if not url:
    why = "is empty"
elif not url.startswith(("https://", "http://")) or not host:
    why = "is not an http(s) URL"
elif host == "example.com" or host.endswith(".example.com"):
    why = "is on example.com, which serves no docs"
if why:
    sys.exit(f"deploy: the docs' base URL {url!r} {why}: answers link to it. Set docs_base_url in {settings} "
             "(or DOCS_BASE_URL) to your docs site, for example https://docs.yourproduct.com")
PY

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
export ASK_PREREQS="${ASK_PREREQS:-deploy}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
export SAM_CLI_TELEMETRY=0
SAM="${SAM:-sam}"
case "$TRANSPORT" in
  buffered) template=template.yaml ;;
  streaming) template=.aws-sam-streaming.yaml; bash scripts/streaming-template.sh > "$template" ;;
esac
cargo build --profile local --locked -p build-index
build_index="$CARGO_TARGET_DIR/local/build-index"
index_args=(--config "$SETTINGS" --base-url "$base_url")
[ -n "${DOCS:-}" ] && index_args+=(--corpus "$DOCS")
# The settings file checked now: a bad key stops the deploy before sam build.
"$build_index" "${index_args[@]}" --check

# The model layer's content (template.yaml's ModelLayer).
rm -rf .aws-sam-model && mkdir -p .aws-sam-model/model
model_args=(--no-model)
if [ -z "${RETRIEVER:-}" ]; then
  model_dir="$(bash scripts/model.sh)"
  "$build_index" pack-model --model "$model_dir" --out .aws-sam-model/model
  model_args=(--model "$model_dir")
else
  # No layer is deployed; SAM still wants its folder to exist.
  echo "Retriever bm25: no model" > .aws-sam-model/model/README
fi

# Every parameter a deploy may leave to the settings file is passed, empty
# when unset: a parameter left out keeps the stack's earlier value.
params=("Transport=$TRANSPORT" "Architecture=$ARCH" "Retriever=\"${RETRIEVER:-}\"")
if [ "$ARCH" = arm64 ]; then
  rustup target add aarch64-unknown-linux-gnu >/dev/null
else
  rustup target add x86_64-unknown-linux-gnu >/dev/null
fi
# `sam build` runs `cargo lambda build --release`: give it the settings of the
# dist profile in Cargo.toml (fat LTO, one codegen unit, no symbols).
CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_STRIP=symbols CARGO_PROFILE_RELEASE_INCREMENTAL=false \
  "$SAM" build --template-file "$template" --region "$AWS_REGION" --parameter-overrides "${params[@]}"

outputs() {
  "$SAM" list stack-outputs --stack-name "$STACK" --region "$AWS_REGION" --output json 2>/dev/null || true
}
output() {
  python3 -c 'import json,sys
for o in json.load(sys.stdin):
    if o["OutputKey"] == sys.argv[1]: print(o["OutputValue"])' "$1"
}
deploy=("$SAM" deploy --stack-name "$STACK" --region "$AWS_REGION" --no-confirm-changeset
  --no-fail-on-empty-changeset --capabilities CAPABILITY_IAM --resolve-s3)
if [ -z "$(outputs)" ]; then
  echo "deploy: stack $STACK does not exist yet; creating it with the endpoint off"
  "${deploy[@]}" --parameter-overrides Enabled=false "${params[@]}" "$@"
fi
bucket=$(outputs | output IndexBucket)
[ -n "$bucket" ] || fail "no IndexBucket output on stack $STACK"

if [ -n "${INDEX_KEY:-}" ]; then
  # A rollback: the object must be an index this code reads.
  "$build_index" check-index "s3://$bucket/$INDEX_KEY"
  key="$INDEX_KEY"
else
  idx="$CARGO_TARGET_DIR/ask-index.idx"
  summary=$("$build_index" "${index_args[@]}" "${model_args[@]}" --out "$idx")
  echo "$summary"
  build_id=$(sed -n 's/.*build id \([0-9a-f]*\).*/\1/p' <<<"$summary")
  key="index/$build_id.idx"
  "$build_index" "${index_args[@]}" "${model_args[@]}" --upload "s3://$bucket/$key"
fi

# The query_id secret: the team's, or one drawn for this deploy.
secret="${QUERY_ID_SECRET:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"
params+=("IndexKey=$key" "Enabled=\"${ENABLED:-}\"" "QueryIdSecret=$secret")
"${deploy[@]}" --parameter-overrides "${params[@]}" "$@"
echo "deploy: index s3://$bucket/$key"
echo "deploy: /ask    $(outputs | output AskEndpoint)"
echo "deploy: /mcp    $(outputs | output McpEndpoint)"
echo "deploy: widget  $(outputs | output WidgetScript)"
