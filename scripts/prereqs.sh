#!/usr/bin/env bash
# Installs what the tests and the local endpoint need, idempotently, into
# $ASK_TOOLS (default ~/.cache/nlweb-ask/tools): moto's S3 server and
# cargo-lambda from PyPI. Source it to get them on PATH.
set -euo pipefail
ASK_TOOLS="${ASK_TOOLS:-$HOME/.cache/nlweb-ask/tools}"
if [ ! -x "$ASK_TOOLS/bin/moto_server" ] || [ ! -x "$ASK_TOOLS/bin/cargo-lambda" ]; then
  python3 -m venv "$ASK_TOOLS"
  "$ASK_TOOLS/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' cargo-lambda
fi
export PATH="$ASK_TOOLS/bin:$PATH"
export MOTO_SERVER="$ASK_TOOLS/bin/moto_server"
