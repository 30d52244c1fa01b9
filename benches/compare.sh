#!/usr/bin/env bash
# Two revisions of `ask` side by side in one run: the deployed build's size
# and cold start over aws-amplify's index (benches/cold_start.py, index in
# moto on loopback, 20 starts a round, the revisions alternating), and the
# handler's p50 / p99 in process (benches/handler.rs, alternating).
#
#     bash benches/compare.sh BEFORE_REV AFTER_REV [ROUNDS]
#
# Each revision is checked out in a worktree under the target directory and
# built there with the dist profile; prints JSON lines, one per measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
# shellcheck source=benches/lib.sh
source benches/lib.sh
before="$1"
after="$2"
rounds="${3:-2}"
repo="$(pwd)"
export ASK_CORPORA="${ASK_CORPORA:-$repo/../shared/corpora}"
work="$CARGO_TARGET_DIR/compare"
mkdir -p "$work"
index="$work/aws-amplify.idx"
cargo build --release --locked -p build-index --quiet
"$CARGO_TARGET_DIR/release/build-index" --corpus "$ASK_CORPORA/aws-amplify" --out "$index" >&2
declare -A bin handler
for rev in "$before" "$after"; do
  tree="$work/tree-$rev"
  rm -rf "$tree"
  git worktree prune
  git worktree add --detach --quiet "$tree" "$rev"
  (cd "$tree" && fresh_crates dist bench)
  (cd "$tree" && cargo build --profile dist --locked -p nlweb-ask --bin ask --quiet)
  cp "$CARGO_TARGET_DIR/dist/ask" "$work/ask-$rev"
  bin[$rev]="$work/ask-$rev"
  # The handler bench's binary, built now and run later (alternating).
  handler[$rev]="$(cd "$tree" && bench_exe nlweb-ask handler)"
  cp "${handler[$rev]}" "$work/handler-$rev"
  handler[$rev]="$work/handler-$rev"
  echo "{\"rev\": \"$rev\", \"dist_ask_bytes\": $(stat -c %s "${bin[$rev]}")}"
done
if cmp -s "${bin[$before]}" "${bin[$after]}"; then
  echo "note: $before and $after built the same ask binary" >&2
fi
for _ in $(seq "$rounds"); do
  for rev in "$before" "$after"; do
    python3 benches/cold_start.py "${bin[$rev]}" 20 "aws-amplify=$index" | sed "s/^{/{\"rev\": \"$rev\", /"
  done
  for rev in "$before" "$after"; do
    handler_list "$rev" "$work/tree-$rev" "${handler[$rev]}"
  done
done
for rev in "$before" "$after"; do
  git worktree remove --force "$work/tree-$rev"
done
