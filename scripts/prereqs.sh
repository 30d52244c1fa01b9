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
  "$ASK_TOOLS/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
  echo "$want" > "$stamp"
fi
export PATH="$ASK_TOOLS/bin:$PATH"
export MOTO_SERVER="$ASK_TOOLS/bin/moto_server"

# The Rust toolchain of rust-toolchain.toml: these machines cannot download
# one, so the machine's stable must be that version; it is linked under the
# pinned name so that rustup resolves the file without fetching.
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rust_want="$(sed -n 's/^channel = "\(.*\)"/\1/p' "$repo_root/rust-toolchain.toml")"
if ! rustup toolchain list | grep -q "^$rust_want-"; then
  rust_have="$(RUSTUP_TOOLCHAIN=stable rustc --version | cut -d' ' -f2)"
  if [ "$rust_have" != "$rust_want" ]; then
    echo "prereqs: rust-toolchain.toml pins Rust $rust_want; this machine's stable is $rust_have" >&2
    exit 1
  fi
  rust_host="$(RUSTUP_TOOLCHAIN=stable rustc -vV | sed -n 's/^host: //p')"
  ln -sfn "$(RUSTUP_TOOLCHAIN=stable rustc --print sysroot)" \
    "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$rust_want-$rust_host"
fi

# Cargo tools, at exact versions, built from crates.io once per machine.
ASK_CARGO_TOOLS="${ASK_CARGO_TOOLS:-$HOME/.cache/nlweb-ask/cargo-tools}"
CARGO_DENY_VERSION=0.20.2
if [ "$("$ASK_CARGO_TOOLS/bin/cargo-deny" --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
  CARGO_TARGET_DIR="$HOME/.cache/nlweb-ask/cargo-tools-target" \
    cargo install --quiet --locked cargo-deny --version "$CARGO_DENY_VERSION" --root "$ASK_CARGO_TOOLS"
fi
export PATH="$ASK_CARGO_TOOLS/bin:$PATH"

# Debian's Chromium, at an exact version, for the widget's browser test
# (tests/e2e.rs drives it headless over the DevTools protocol). To move to a
# newer build, change the version here (apt-cache policy chromium).
CHROMIUM_VERSION=148.0.7778.167-1~deb12u1
if ! dpkg-query -W -f='${Version}' chromium 2>/dev/null | grep -qxF "$CHROMIUM_VERSION"; then
  as_root=()
  [ "$(id -u)" = 0 ] || as_root=(sudo)
  apt_install=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q
    --no-install-recommends "chromium=$CHROMIUM_VERSION")
  "${apt_install[@]}" >/dev/null || { "${as_root[@]}" apt-get update -q >/dev/null && "${apt_install[@]}" >/dev/null; }
fi
export CHROMIUM=/usr/bin/chromium
