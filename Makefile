# `make run` (site with seed content), `make test` (the whole suite), `make serve` (production).
PYTHON ?= python3.12
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
export DATABASE_URL_TEST ?= postgres://postgres@127.0.0.1:5432/curriculum

.PHONY: install run serve test lint bench bench-torch worker

$(VENV)/.installed: requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	touch $@

install: $(VENV)/.installed
	scripts/install-katex.sh

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
	$(BIN)/python bench/torch
	$(BIN)/python bench/verify
	$(BIN)/python bench/api
	$(BIN)/python bench/import
	$(BIN)/python bench/load
	$(BIN)/python bench/search

# torch never enters .venv: point TORCH_PYTHON at a Python that has numpy and torch
TORCH_PYTHON ?= python3
bench-torch:
	$(TORCH_PYTHON) bench/torch

worker: install
	$(BIN)/celery -A curriculum worker --beat --loglevel=info
