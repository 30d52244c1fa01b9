#!/usr/bin/env bash
# Two revisions' index formats side by side in one run (issue 28): each
# shared corpus's index bytes as each revision's build-index writes it; the
# scaling bench at 50x aws-amplify's sections (peak RSS, query p50 / p99);
# the deployed `ask`'s cold start over its own smallest index and
# aws-amplify's, from moto on loopback (benches/cold_start.py, 20 starts a
# round); and the handler's single list-mode requests in process
# (benches/handler.rs, p50 / p99). Revisions alternate within each round.
#
#     bash benches/compare_index.sh BEFORE_REV AFTER_REV [ROUNDS]
#
# Each revision is checked out in a worktree under the target directory and
# built there (sharing the target directory: a build in the main tree after
# this one rebuilds its own crates, since their recorded sources are gone);
# criterion writes under the work directory, not over the main run's
# figures. Prints JSON lines, one per measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nlweb-ask/target}"
# shellcheck source=scripts/prereqs.sh
source scripts/prereqs.sh
before="$1"
after="$2"
rounds="${3:-2}"
repo="$(pwd)"
export ASK_CORPORA="${ASK_CORPORA:-$repo/../shared/corpora}"
work="$CARGO_TARGET_DIR/compare-index"
mkdir -p "$work"
# shellcheck source=benches/lib.sh
source benches/lib.sh
declare -A smallest
for rev in "$before" "$after"; do
  tree="$work/tree-$rev"
  rm -rf "$tree"
  git worktree prune
  git worktree add --detach --quiet "$tree" "$rev"
  (
    cd "$tree"
    fresh_crates release dist bench
    cargo build --release --locked -p build-index --quiet
    cp "$CARGO_TARGET_DIR/release/build-index" "$work/build-index-$rev"
    cargo build --profile dist --locked -p nlweb-ask --bin ask --quiet
    cp "$CARGO_TARGET_DIR/dist/ask" "$work/ask-$rev"
    cp "$(bench_exe nlweb-ask handler)" "$work/handler-$rev"
    cp "$(bench_exe build-index scale)" "$work/scale-$rev"
  )
  smallest[$rev]="$(ls "$tree"/tests/data/index-v*.idx | grep -v -- '-v2\|vectors' | sort | tail -1)"
  for corpus in fumadocs shadcn-ui prefect aws-amplify beir-scifact; do
    out="$work/$corpus-$rev.idx"
    if [ "$corpus" = beir-scifact ]; then
      "$work/build-index-$rev" --jsonl "$ASK_CORPORA/$corpus/corpus.jsonl" --no-model --out "$out" >/dev/null 2>&1
    else
      "$work/build-index-$rev" --corpus "$ASK_CORPORA/$corpus" --no-model --out "$out" >/dev/null 2>&1
    fi
    echo "{\"rev\": \"$rev\", \"corpus\": \"$corpus\", \"index_bytes\": $(stat -c %s "$out")}"
  done
done
for _ in $(seq "$rounds"); do
  for rev in "$before" "$after"; do
    (cd "$work/tree-$rev" && SCALE_FACTOR=50 SCALE_ENGINE=ours "$work/scale-$rev" | tail -1 | sed "s/^{/{\"rev\": \"$rev\", \"scale\": true, /")
  done
  for rev in "$before" "$after"; do
    python3 benches/cold_start.py "$work/ask-$rev" 20 "smallest=${smallest[$rev]}" "aws-amplify=$work/aws-amplify-$rev.idx" \
      | sed "s/^{/{\"rev\": \"$rev\", /"
  done
  for rev in "$before" "$after"; do
    handler_list "$rev" "$work/tree-$rev" "$work/handler-$rev" "$work/criterion-$rev"
  done
done
for rev in "$before" "$after"; do
  git worktree remove --force "$work/tree-$rev"
done
