# cosci: the two commands (README): `make setup` then `make test`. CI (.ci/run) runs exactly these.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup test lint typecheck demo bench

setup:  ## create .venv and install cosci with its dev tools (compiles llama-cpp-python once: ~7-10 min on 2 cores)
	$(PYTHON) -c 'import sys; assert (3, 11) <= sys.version_info[:2] < (3, 14), "cosci needs Python 3.11-3.13"'
	@$(MAKE) --no-print-directory system-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip wheel
	$(BIN)/pip install -e '.[dev]'

.PHONY: system-deps
system-deps:  ## Debian packages for the session report: graphviz (lineage layout), chromium + chromium-driver (browser tests)
	@missing=""; for pair in dot:graphviz chromium:chromium chromedriver:chromium-driver; do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "setup: not installed:$$missing (as root: apt-get install -y$$missing); without them the report lists the lineage instead of drawing it and the browser tests skip"; fi

test: lint typecheck  ## ruff, mypy, then the whole test suite (offline; slow tests included)
	$(BIN)/pytest -q

lint:
	$(BIN)/ruff check .

typecheck:
	$(BIN)/mypy

demo:  ## the main job on the embedded model
	$(BIN)/python -m cosci.run experiment=demo

bench:  ## speed and memory targets (numbers in bench/README.md)
	$(BIN)/python -m bench.run
