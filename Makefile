# sessionscope: `make serve` to run the app, `make test` to run every test.
# Each target first runs scripts/setup.sh, which installs what is missing (idempotent).

SHELL := /bin/bash
WASM := scripts/wasm-env.sh
# Without a backtrace of trunk's own, a failed build ends with cargo's words; the disk and
# memory left are printed after them, for a build that failed for want of either.
TRUNK_BUILD := RUST_BACKTRACE=0 $(WASM) trunk build --release --offline || \
	{ echo "make: the site's build failed; disk and memory left:" >&2; df -h . >&2; free -m >&2; exit 1; }

.PHONY: serve test dist

# What the site is built from: when none changed since the last build, the site is not built
# again (`make serve` after `make test` serves what the test built).
SITE_SOURCES := $(shell find src crates/engine/src style assets scripts -type f 2>/dev/null) \
	index.html Trunk.toml Cargo.toml Cargo.lock crates/engine/Cargo.toml .cargo/config.toml
SITE := dist/.built

# Builds the app if a source changed, and serves it on http://127.0.0.1:8080 (Ctrl+C to stop).
# (`trunk serve --release` rebuilds on every change instead, for working on the app.)
serve: $(SITE)
	node scripts/serve.mjs dist 8080

# Everything: formatting, lints, the layers' import rule, native tests, the release wasm build,
# the browser tests. Each part's time is written down (scripts/timed.sh) and printed in a table
# at the end, with each engine's tests on a line of their own.
test:
	@rm -f target/test-times.tsv
	@scripts/timed.sh "toolchain (scripts/setup.sh)" scripts/setup.sh
	@scripts/timed.sh "cargo fmt --check" cargo fmt --all --check
	@scripts/timed.sh "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
	@scripts/timed.sh "layers (scripts/layers.py)" python3 scripts/layers.py
	@scripts/timed.sh "native tests (cargo test)" cargo test --workspace --no-fail-fast
	@scripts/timed.sh "site build (trunk, release)" $(MAKE) --no-print-directory $(SITE)
	@SESSIONSCOPE_TIMES=target/test-times.tsv npm test; code=$$?; scripts/timed.sh --table; exit $$code

# The release static site in dist/, with relative URLs: copy it to any static host. Built
# again every time it is asked for by name; `$(SITE)` only when a source is newer.
dist:
	@scripts/setup.sh build
	$(TRUNK_BUILD)
	@touch $(SITE)

$(SITE): $(SITE_SOURCES)
	@scripts/setup.sh build
	$(TRUNK_BUILD)
	@touch $(SITE)
