#!/usr/bin/env bash
# Deploys nlweb-ask to AWS with SAM and publishes the index of the docs.
#
#   STACK=nlweb-ask ENABLED=true DOCS=docs/content/docs RETRIEVER=hybrid TRANSPORT=buffered scripts/deploy.sh [extra `sam deploy` args]
#
# TRANSPORT=streaming deploys template.yaml's streaming variant
# (scripts/streaming-template.sh): every route's integration streams and the
# function runs with Lambda response streaming, so that an SSE answer's
# sections go out before its summary is written.
#
# RETRIEVER=hybrid (the default) also ships the sentence model as a Lambda layer (its
# packed int8 form, 24 MB, written by `build-index pack-model` from the
# files scripts/model.sh fetched, each checked by sha256) and stores the
# sections' vectors in the index.
#
# 1. `sam build` (provided.al2023, arm64, through cargo-lambda).
# 2. If the stack does not exist yet, a first `sam deploy` creates it (and its
#    index bucket) with the endpoint still off.
# 3. `build-index` builds the index and uploads it to a new key,
#    s3://<bucket>/index/<build-id>.idx (read back and checked).
# 4. `sam deploy` again with IndexKey=<that key>: the function's ASK_INDEX and
#    its s3:GetObject permission change, so Lambda starts new environments,
#    and each loads the new index at its cold start. The old key stays in the
#    bucket: redeploying with the previous IndexKey rolls back.
# Needs AWS credentials for the target account and region.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
STACK="${STACK:-nlweb-ask}"
ENABLED="${ENABLED:-true}"
DOCS="${DOCS:-docs/content/docs}"
RETRIEVER="${RETRIEVER:-hybrid}"
TRANSPORT="${TRANSPORT:-buffered}"
export SAM_CLI_TELEMETRY=0
case "$TRANSPORT" in
  buffered) template=template.yaml ;;
  streaming) template=.aws-sam-streaming.yaml; bash scripts/streaming-template.sh > "$template" ;;
  *) echo "deploy: TRANSPORT must be buffered or streaming" >&2; exit 1 ;;
esac
# The model layer's content (template.yaml's ModelLayer): packaged by every
# `sam build`, used only with Retriever=hybrid.
case "$RETRIEVER" in bm25|hybrid) ;; *) echo "deploy: RETRIEVER must be bm25 or hybrid" >&2; exit 1 ;; esac
rm -rf .aws-sam-model && mkdir -p .aws-sam-model/model
cargo build --release --locked -p build-index
model_args=(--no-model)
if [ "$RETRIEVER" = hybrid ]; then
  model_dir="$(bash scripts/model.sh)"
  "$CARGO_TARGET_DIR/release/build-index" pack-model --model "$model_dir" --out .aws-sam-model/model
  model_args=(--model "$model_dir")
else
  # bm25 deploys no layer; SAM still wants its folder to exist.
  echo "Retriever bm25: no model" > .aws-sam-model/model/README
fi

rustup target add aarch64-unknown-linux-gnu >/dev/null
# `sam build` runs `cargo lambda build --release`: give it the settings of the
# dist profile in Cargo.toml (fat LTO, one codegen unit, no symbols).
CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_STRIP=symbols CARGO_PROFILE_RELEASE_INCREMENTAL=false sam build --template-file "$template"

outputs() {
  sam list stack-outputs --stack-name "$STACK" --output json 2>/dev/null || true
}
output() {
  python3 -c 'import json,sys
for o in json.load(sys.stdin):
    if o["OutputKey"] == sys.argv[1]: print(o["OutputValue"])' "$1"
}
if [ -z "$(outputs)" ]; then
  echo "deploy: stack $STACK does not exist yet; creating it with the endpoint off"
  sam deploy --stack-name "$STACK" --no-confirm-changeset --parameter-overrides Enabled=false "Transport=$TRANSPORT" "$@"
fi
bucket=$(outputs | output IndexBucket)
[ -n "$bucket" ] || { echo "deploy: no IndexBucket output on stack $STACK" >&2; exit 1; }

idx="$CARGO_TARGET_DIR/ask-index.idx"
summary=$("$CARGO_TARGET_DIR/release/build-index" --corpus "$DOCS" "${model_args[@]}" --out "$idx")
echo "$summary"
build_id=$(sed -n 's/.*build id \([0-9a-f]*\).*/\1/p' <<<"$summary")
key="index/$build_id.idx"
"$CARGO_TARGET_DIR/release/build-index" --corpus "$DOCS" "${model_args[@]}" --upload "s3://$bucket/$key"

sam deploy --stack-name "$STACK" --parameter-overrides "Enabled=$ENABLED" "IndexKey=$key" "Retriever=$RETRIEVER" "Transport=$TRANSPORT" "$@"
echo "deploy: /ask at $(outputs | output AskEndpoint), index s3://$bucket/$key"
