# cosci: the two commands (README): `make setup` then `make test`. CI (.ci/run) runs exactly these.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup test lint typecheck demo bench

setup:  ## create .venv and install cosci with its dev tools (compiles llama-cpp-python once: ~7-10 min on 2 cores)
	$(PYTHON) -c 'import sys; assert (3, 11) <= sys.version_info[:2] < (3, 14), "cosci needs Python 3.11-3.13"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip wheel
	$(BIN)/pip install -e '.[dev]'

test: lint typecheck  ## ruff, mypy, then the whole test suite (offline; slow tests included)
	$(BIN)/pytest -q

lint:
	$(BIN)/ruff check .

typecheck:
	$(BIN)/mypy

demo:  ## the main job on the embedded model
	$(BIN)/python -m cosci.run experiment=demo

bench:  ## speed and memory targets, then the long reliability suite (numbers in bench/README.md)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.reliability
