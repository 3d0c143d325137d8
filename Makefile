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
# the browser tests.
test:
	@scripts/setup.sh
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	python3 scripts/layers.py
	cargo test --workspace --no-fail-fast
	@$(MAKE) --no-print-directory $(SITE)
	npm test

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
