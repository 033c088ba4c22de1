# tablejudge: the two commands of the quick start.
#   make demo   install missing system packages, build, run the main job on the bundled inputs
#   make test   the whole test suite: format, lints, unit, property and end-to-end tests
#   make fuzz   every cargo-fuzz target for FUZZ_SECONDS each (CI: 30)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
DEMO_OUT ?= out/demo

# Debian packages the build needs (the opencv crate generates its bindings with libclang);
# GNU time measures the memory budgets' peaks in the tests.
DEB_PACKAGES := pkg-config libopencv-dev clang libclang-dev time
FUZZ_SECONDS ?= 60
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test deps build lint unit bench fuzz clean

## Install only the Debian packages that are missing (apt-get update first, as Debian requires).
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(CARGO) build --release --locked

demo: build
	@scripts/demo.sh target/release/tablejudge $(DEMO_OUT)

lint: deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

unit: deps
	$(CARGO) test --workspace --locked

test: lint unit

## The fuzz targets of fuzz/ on their committed corpus (cargo-fuzz installed if missing).
fuzz: deps
	fuzz/run.sh $(FUZZ_SECONDS)

bench: deps
	$(CARGO) bench --workspace --locked

clean:
	$(CARGO) clean
	rm -rf out
