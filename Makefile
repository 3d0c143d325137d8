# sessionscope: `make serve` to run the app, `make test` to run every test.
# Each target first runs scripts/setup.sh, which installs what is missing (idempotent).

SHELL := /bin/bash
WASM := scripts/wasm-env.sh
TRUNK_BUILD := $(WASM) trunk build --release --offline

.PHONY: serve test dist

# Builds the app and serves it on http://127.0.0.1:8080 (Ctrl+C to stop).
serve:
	@scripts/setup.sh build
	$(WASM) trunk serve --release --offline

# Everything: formatting, lints, the layers' import rule, native tests, the release wasm build,
# the browser tests.
test:
	@scripts/setup.sh
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	python3 scripts/layers.py
	cargo test --workspace --no-fail-fast
	$(TRUNK_BUILD)
	npm test

# The release static site in dist/, with relative URLs: copy it to any static host.
dist:
	@scripts/setup.sh build
	$(TRUNK_BUILD)
