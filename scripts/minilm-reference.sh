#!/usr/bin/env bash
# Recomputes the f32 reference vectors crates/embed's tests check the int8
# network against (crates/embed/tests/data/minilm-f32-reference.json) and
# compares them with the file's; `--write` rewrites the file. Installs the
# pinned numpy and tokenizers wheels (scripts/requirements-reference.txt,
# sha256-checked) into a virtual environment under ~/.cache once; needs
# python3 with venv and the model scripts/model.sh fetches.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${ASK_REFERENCE_VENV:-$HOME/.cache/nlweb-ask/reference-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy, tokenizers' 2>/dev/null; then
  python3 -m venv "$venv"
  requirements="$repo/scripts/requirements-reference.txt"
  "$venv/bin/python" -m pip install --require-hashes -r "$requirements" \
    --no-deps --only-binary=:all: --quiet --disable-pip-version-check
fi
model="$(bash "$repo/scripts/model.sh")"
"$venv/bin/python" "$repo/scripts/minilm-reference.py" "$model" \
  "$repo/crates/embed/tests/data/minilm-f32-reference.json" "$@"
