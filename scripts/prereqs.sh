#!/usr/bin/env bash
# Installs what the tests and the local endpoint need, idempotently, into
# $ASK_TOOLS (default ~/.cache/nlweb-ask/tools): moto's S3 server,
# cargo-lambda, the SAM CLI and cfn-lint, from PyPI, at the exact versions of
# scripts/requirements-tools.txt. Source it to get them on PATH.
set -euo pipefail
ASK_TOOLS="${ASK_TOOLS:-$HOME/.cache/nlweb-ask/tools}"
requirements="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/requirements-tools.txt"
stamp="$ASK_TOOLS/.requirements-tools.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
need=0
for tool in moto_server cargo-lambda sam cfn-lint; do
  [ -x "$ASK_TOOLS/bin/$tool" ] || need=1
done
[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || need=1
if [ "$need" = 1 ]; then
  python3 -m venv "$ASK_TOOLS"
  "$ASK_TOOLS/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  echo "$want" > "$stamp"
fi
export PATH="$ASK_TOOLS/bin:$PATH"
export MOTO_SERVER="$ASK_TOOLS/bin/moto_server"
