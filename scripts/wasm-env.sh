#!/usr/bin/env bash
# Runs a command (trunk, cargo) with what a wasm32 build needs on this machine.
#
# Where rustup has the wasm32-unknown-unknown target (a normal laptop), nothing is needed.
# Otherwise the wasm32 standard library is built from Debian's rust-web-src with Debian's
# rustc (see scripts/setup.sh and ../shared/notes/wasm-toolchain.md).
set -euo pipefail
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  if [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; then
    export RUSTC=/usr/bin/rustc
    export RUSTC_BOOTSTRAP=1
    export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  else
    echo "wasm-env: no wasm32 toolchain: run scripts/setup.sh first" >&2
    exit 1
  fi
fi
# wasm-opt comes from npm's binaryen (package.json), pinned: Debian's is too old.
export PATH="$(pwd)/node_modules/.bin:$PATH"
# wasm builds get their own target folder: they are made by another compiler than native ones.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target/wasm}"
exec "$@"
