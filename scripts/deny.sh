#!/usr/bin/env bash
# cargo deny check advisories bans licenses sources, offline: the vendored
# advisories (supply-chain/advisory-db) are laid out as the git database
# cargo-deny expects, then checked without fetching. Needs cargo-deny on PATH
# (scripts/prereqs.sh installs the pinned version).
set -euo pipefail
cd "$(dirname "$0")/.."
db_root="$HOME/.cache/nlweb-ask/advisory-dbs"
db="$db_root/advisory-db-3157b0e258782691"
want="$(find supply-chain/advisory-db -type f | sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$db/.vendored.sha256" 2>/dev/null)" != "$want" ]; then
  rm -rf "$db"
  mkdir -p "$db"
  cp -r supply-chain/advisory-db/. "$db/"
  git -C "$db" init -q
  git -C "$db" add -A
  git -C "$db" -c user.name=nlweb-ask -c user.email=ci@localhost commit -q -m "vendored advisories"
  echo "$want" > "$db/.vendored.sha256"
fi
# cargo-deny reads `cargo metadata` for every platform, so the crates that only
# other platforms build (winapi-util, windows-sys, ...) must be in the local
# registry too: a build never downloads them, so fetch them first.
cargo fetch --locked --quiet
cargo deny --offline check advisories bans licenses sources
