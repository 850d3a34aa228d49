# cosci: the two commands (README): `make setup` then `make test`. CI (.ci/run) runs exactly these.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# llama-cpp-python compiles at install. Built with -march=native it crashes on machines whose CPU advertises AMX
# (seen here: a segfault in ggml's AMX matmul on an Intel Xeon, llama.cpp issue #20824), and a natively built
# wheel in pip's cache moves to other machines of this kind. So it is built once, portable (AVX2, no AVX-512/AMX),
# into a wheel folder of its own, and installed from there.
LLAMA_CPP_VERSION := 0.3.36
LLAMA_WHEELS ?= $(HOME)/.cache/cosci/wheels/llama-cpp-python-$(LLAMA_CPP_VERSION)-avx2
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
	-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

.PHONY: setup test test-suite test-fast lint typecheck demo bench

setup:  ## create .venv and install cosci with its dev tools and the Ray/SLURM launchers (compiles llama-cpp-python once: ~7-10 min on 2 cores)
	$(PYTHON) -c 'import sys; assert (3, 11) <= sys.version_info[:2] < (3, 14), "cosci needs Python 3.11-3.13"'
	@$(MAKE) --no-print-directory system-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip wheel
	ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --no-deps --no-cache-dir -w $(LLAMA_WHEELS) \
		llama-cpp-python==$(LLAMA_CPP_VERSION)
	$(BIN)/pip install --find-links $(LLAMA_WHEELS) -e '.[dev,ray,slurm]'
	$(BIN)/pip install --no-deps 'hydra-ray-launcher==1.2.2'  # its cloudpickle<3 pin would downgrade Prefect (docs/ARCHITECTURE.md)
	$(BIN)/python -m cosci.llm.local.weights q4_0  # the embedded model requantised once into ~/.cache/cosci/models (docs/design.md#local-weights)

.PHONY: system-deps
TEX_PACKAGES := texlive-latex-base texlive-latex-recommended texlive-fonts-recommended
system-deps:  ## Debian packages: graphviz (lineage layout), chromium + chromium-driver (browser tests), bubblewrap (the sandbox of cosci investigate), TeX Live (pdflatex: the paper of cosci investigate write)
	@missing=""; for pair in dot:graphviz chromium:chromium chromedriver:chromium-driver bwrap:bubblewrap; do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "setup: not installed:$$missing (as root: apt-get install -y$$missing); without them the report lists the lineage instead of drawing it, the browser tests skip and cosci investigate refuses to run candidate programs"; fi
	@# TeX Live without its recommends: ~20 MB to download, 166 MB installed (measured on Debian 12; docs/design.md#paper)
	@command -v pdflatex >/dev/null 2>&1 && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(TEX_PACKAGES); \
	else echo "setup: TeX Live not installed (as root: apt-get install -y --no-install-recommends $(TEX_PACKAGES)); without it cosci investigate write leaves paper.tex uncompiled and says so in its first lines"; fi

# pytest-xdist: one file per worker at a time, the files in the order tests/conftest.py gives them (longest measured
# first, tests/file_seconds.txt) instead of xdist's own (most tests first), so no long file starts last.
# XDIST_WORKERS: one worker per core by default; `make test XDIST_WORKERS=3` times a third worker that runs while
# the others wait on subprocesses, servers and the fake's latency (not measured on a whole run yet).
XDIST_WORKERS ?= auto
PYTEST_XDIST := -n $(XDIST_WORKERS) --dist loadfile --no-loadscope-reorder
# The tests run with bytecode kept (PYTHONDONTWRITEBYTECODE dropped, as bench/startup.py does): with it set, as in
# this machine's shells, each worker rewrote the asserts of every test file and compiled cosci again at every run:
# 28.6 s of CPU to collect against 16.8 s with a run before's bytecode (loaded machine; docs/development.md, test
# time, sixth pass). A clean clone's first run writes it and gains nothing. __pycache__ is in .gitignore.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest

# Beside the suite, lint and mypy run at a lower priority (nice 10): about 75 s of CPU (mypy without its cache: 69 s,
# measured 2026-12-05) taken from the cores when a test worker waits instead of from the tests (docs/design.md#tests).
CHECKS_NICE ?=

test:  ## lint, mypy and the whole test suite (offline; slow tests included) side by side; fails if any of them fails
	@$(MAKE) --no-print-directory -j3 lint typecheck test-suite CHECKS_NICE="nice -n 10"

test-suite:  ## the whole test suite alone, on every core
	$(PYTEST) -q $(PYTEST_XDIST)

test-fast:  ## the edit loop: every test not marked slow (tests/slow_tests.txt, Prefect server, embedded model) and the demo tour's fake session, no lint
	$(PYTEST) -q $(PYTEST_XDIST) -m 'not slow and not live'

lint:  ## ruff (C90 complexity included), the import contracts (lint-imports), dead code (vulture): config in pyproject.toml
	$(CHECKS_NICE) $(BIN)/ruff check .
	$(CHECKS_NICE) $(BIN)/lint-imports --no-logo
	$(CHECKS_NICE) $(BIN)/vulture

# mypy's incremental cache outside the clone, beside the llama wheel: a new clone on a machine that checked cosci
# before starts from it instead of from nothing (on 2026-12-07 at load 13-18: 94 s of CPU for lint and mypy without
# a cache, 8 s with one; docs/design.md#tests). It checks the same: a module whose source hash differs from its
# cache entry is checked again, with everything that depends on its interface. Files, not mypy's SQLite cache
# (its default): several clones' mypy processes may share the folder at once, and a file is written to a temporary
# name and renamed into place.
MYPY_CACHE_DIR ?= $(HOME)/.cache/cosci/mypy

typecheck:
	$(CHECKS_NICE) $(BIN)/mypy --cache-dir $(MYPY_CACHE_DIR) --no-sqlite-cache

demo:  ## the main job on the embedded model
	$(BIN)/python -m cosci.run experiment=demo

bench:  ## speed and memory targets, the long reliability suite, then the MOOSE-Chem eval of 1 item on the embedded model (numbers in bench/README.md)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.reliability
	$(BIN)/python -m bench.eval_moose_chem --models local --items 1 --corpus 150
