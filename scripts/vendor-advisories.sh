#!/usr/bin/env bash
# Copies the RustSec advisories of every crate in Cargo.lock from a checkout
# of rustsec/advisory-db into supply-chain/advisory-db (see its README).
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:?usage: scripts/vendor-advisories.sh /path/to/advisory-db}"
dest=supply-chain/advisory-db
rm -rf "$dest/crates"
mkdir -p "$dest/crates"
for c in $(awk '/^name = /{gsub(/"/, "", $3); print $3}' Cargo.lock | sort -u); do
  if [ -d "$src/crates/$c" ]; then cp -r "$src/crates/$c" "$dest/crates/"; fi
done
cp "$src/LICENSE.txt" "$dest/LICENSE.txt"
echo "vendored $(find "$dest/crates" -name '*.md' | wc -l) advisories from $(git -C "$src" rev-parse HEAD 2>/dev/null || echo "$src"); update the commit in $dest/README.md"
