# trustprobe developer entry points. Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo-output

.PHONY: demo test lint typecheck bench install dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,dask,parquet,inspect]'
	touch $(VENV)/.installed $@

install: $(VENV)/.installed

dev: $(VENV)/.installed-dev

demo: $(VENV)/.installed
	$(BIN)/trustprobe demo --out $(DEMO_DIR)

lint: dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

# pytest exits 5 when it collected no tests, and that fails the build like any other failure.
test: lint
	$(BIN)/pytest -q

bench: dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(DEMO_DIR) .mypy_cache .pytest_cache .ruff_cache
