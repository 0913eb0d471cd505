# `make run` (site with seed content), `make test` (the whole suite), `make serve` (production).
PYTHON ?= python3.12
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export DATABASE_URL_TEST ?= postgres://postgres@127.0.0.1:5432/curriculum

.PHONY: install run serve test lint bench bench-torch worker

# uv (itself pinned and hashed) installs the lock in seconds where pip took a minute
$(VENV)/.installed: requirements.lock requirements-uv.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements-uv.lock
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python \
	  --require-hashes -r requirements.lock
	touch $@

# Bytecode for our own modules too, written here since a machine may set
# PYTHONDONTWRITEBYTECODE: without it every process (each manage.py, worker and test worker)
# compiles every module it imports, seconds each; only what changed is compiled again.
install: $(VENV)/.installed
	scripts/install-katex.sh
	$(BIN)/python -m compileall -q -j 0 curriculum attention tests

run: install
	PORT=$(PORT) scripts/run.sh

serve: install
	PORT=$(PORT) scripts/serve.sh

test: install
	scripts/test.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy attention curriculum

bench: install
	$(BIN)/python bench/engine
	$(TORCH_PYTHON) bench/torch
	$(BIN)/python bench/verify
	$(BIN)/python bench/api
	$(BIN)/python bench/import
	$(BIN)/python bench/load
	$(BIN)/python bench/search

# torch never enters .venv: point TORCH_PYTHON at a Python that has numpy and torch, and
# `make bench` prints the torch rows too (with .venv's Python, bench/torch says it skipped)
TORCH_PYTHON ?= $(BIN)/python
bench-torch:
	$(TORCH_PYTHON) bench/torch

worker: install
	$(BIN)/celery -A curriculum worker --beat --loglevel=info
