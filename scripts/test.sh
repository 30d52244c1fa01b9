#!/usr/bin/env bash
# Runs every test: installs prerequisites, then the whole workspace's tests
# (one release build serves tests, benches and the local endpoint), then the
# SAM template's offline checks (cfn-lint, sam validate --lint), then
# cargo deny (advisories from the vendored database, bans, licenses, sources).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
cargo test --release --workspace --locked
sam_env=(env AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_ACCESS_KEY_ID=test
  AWS_SECRET_ACCESS_KEY=test SAM_CLI_TELEMETRY=0)
"${sam_env[@]}" cfn-lint template.yaml
"${sam_env[@]}" sam validate --lint
echo "template.yaml: cfn-lint and sam validate --lint passed"
bash scripts/deny.sh
