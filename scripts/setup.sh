#!/usr/bin/env bash
# Installs everything the build and the tests need, on a fresh Debian machine, from the
# package registries only (crates.io, Debian, npm). Idempotent: on a machine that has it all,
# it only looks, prints what it found, and finishes in seconds.
#
#   scripts/setup.sh          everything: the wasm build and the browser tests
#   scripts/setup.sh build    only what `make dist` / `make serve` need
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-all}"
TRUNK_VERSION="0.21.14"
# The wasm-bindgen CLI must be the exact version the crate is pinned to in Cargo.toml.
WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' Cargo.toml)"
RUSTUP_TARGET_TIMEOUT=20

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

found() { printf '  %-16s %s\n' "$1" "$2"; }
step() { printf 'setup: %s\n' "$*"; }

apt_missing() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  echo "${missing[@]:-}"
}

apt_install() {
  local missing
  missing="$(apt_missing "$@")"
  [ -z "$missing" ] && return 0
  step "installing Debian packages: $missing"
  $SUDO apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null
}

echo "setup: checking the toolchain (mode: $MODE)"

# 1. Rust, from rustup (the machine's toolchain), with rustfmt and clippy.
if ! command -v cargo >/dev/null; then
  echo "setup: cargo is missing. Install Rust with rustup (https://rustup.rs) and run again." >&2
  exit 1
fi
found cargo "$(cargo --version)"
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    step "adding the rustup component $component"
    timeout 120 rustup component add "$component"
  fi
done

# 2. A wasm32 standard library: rustup's target where the Rust dist server is reachable,
#    else Debian's rustc-web with the std sources, built with -Zbuild-std (scripts/wasm-env.sh).
debian_wasm_ready() {
  [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] && [ -z "$(apt_missing rustc-web rust-web-src lld-22)" ]
}
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  found wasm32 "rustup target wasm32-unknown-unknown"
elif debian_wasm_ready; then
  found wasm32 "std built from Debian rust-web-src ($(/usr/bin/rustc --version))"
elif timeout "$RUSTUP_TARGET_TIMEOUT" rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
  found wasm32 "rustup target wasm32-unknown-unknown (just added)"
else
  step "rustup cannot add wasm32 here; using Debian's rustc-web and rust-web-src instead"
  apt_install rustc-web cargo-web rust-web-src lld-22 libllvm22
  found wasm32 "std built from Debian rust-web-src ($(/usr/bin/rustc --version))"
fi
# The standard library's own dependencies (for -Zbuild-std) and the app's, so that every
# later build can run with --offline.
scripts/wasm-env.sh cargo fetch --target wasm32-unknown-unknown --quiet

# 3. Trunk and the wasm-bindgen CLI, from crates.io.
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  step "installing trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet
fi
found trunk "$(trunk --version)"
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 6 minutes)"
  # No --locked: one of its locked dependencies is no longer on the registry.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force --quiet
fi
found wasm-bindgen "$(wasm-bindgen --version)"

# 4. Node.js runs the build's post-build hook (CSP hash, precompression) and the browser
#    tests; npm's binaryen gives the build its wasm-opt (Debian's is too old for today's wasm),
#    and npm's @sqlite.org/sqlite-wasm the SQLite the site opens agents' databases with.
if ! command -v node >/dev/null; then
  apt_install nodejs npm
fi
found node "$(node --version)"
npm_wanted() { node -e "console.log(require('./package-lock.json').packages['node_modules/$1'].version)"; }
npm_have() { node -e "try{console.log(require('./node_modules/$1/package.json').version)}catch{console.log('')}"; }
npm_stale() {
  for pkg in binaryen playwright-core @sqlite.org/sqlite-wasm @modelcontextprotocol/sdk; do
    [ "$(npm_wanted "$pkg")" != "$(npm_have "$pkg")" ] && return 0
  done
  return 1
}
if npm_stale; then
  step "installing the npm packages (binaryen's wasm-opt, sqlite-wasm for the site, playwright-core, the MCP SDK's client for the MCP test)"
  npm ci --no-audit --no-fund --loglevel=error
fi
found wasm-opt "$(node_modules/.bin/wasm-opt --version)"
found sqlite-wasm "@sqlite.org/sqlite-wasm $(npm_have @sqlite.org/sqlite-wasm)"

if [ "$MODE" = "build" ]; then
  echo "setup: ready to build"
  exit 0
fi

# 5. The three browser engines the tests run in, from Debian (a browser download by a test tool
#    cannot work here): Chromium and Firefox ESR, driven by playwright-core from npm (CDP, and
#    WebDriver BiDi), and WebKitGTK's MiniBrowser with its WebDriver server, which needs an X
#    display: Xvfb, by xvfb-run (tests/browser/engines.mjs, tests/browser/webkit.mjs).
apt_install chromium firefox-esr webkit2gtk-driver xvfb xauth fonts-dejavu-core
found chromium "$("${CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null | head -n 1)"
found firefox "$(firefox-esr --version 2>/dev/null | head -n 1)"
found webkit "WebKitGTK $(dpkg-query -W -f='${Version}' webkit2gtk-driver 2>/dev/null) (WebKitWebDriver, MiniBrowser)"
found playwright "playwright-core $(npm_have playwright-core)"
echo "setup: ready to build and test"
