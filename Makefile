# trustprobe developer entry points. Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo-output

# Every release the tests and CI run with, pinned: `make lock` refreshes it on purpose, and
# `make test-latest` runs the suite against the newest releases without it.
CONSTRAINTS := requirements/constraints.txt
EXTRAS := dev,dask,parquet,inspect
LOCK_VENV := .venv-lock
LATEST_VENV := .venv-latest

.PHONY: demo test test-latest lock lint typecheck bench install dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# An editable install writes no bytecode for the project's own modules, and where
# PYTHONDONTWRITEBYTECODE is set no run writes it either: every command would compile them again
# (about 0.1 CPU s). Compiled here as a wheel's install compiles them; a module edited later is
# compiled again in memory, as before.
$(VENV)/.installed: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e .
	$(BIN)/python -m compileall -q src
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[$(EXTRAS)]'
	$(BIN)/python -m compileall -q src
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

# The newest releases every dependency allows, in a fresh venv, without the constraints: what a
# user installing today gets. A failure here and not in `make test` is a new release's doing.
# PYTEST_ARGS narrows the run, e.g. make test-latest PYTEST_ARGS=tests/observability
test-latest:
	$(PYTHON) -m venv --clear $(LATEST_VENV)
	$(LATEST_VENV)/bin/pip install --quiet --upgrade pip
	$(LATEST_VENV)/bin/pip install --quiet --upgrade --upgrade-strategy eager -e '.[$(EXTRAS)]'
	$(LATEST_VENV)/bin/pip list --format=freeze | grep -iE '^(numpy|scipy|scikit-learn)=='
	$(LATEST_VENV)/bin/pytest -q -p no:cacheprovider $(PYTEST_ARGS)

# Resolve the newest releases in a fresh venv and pin them all; review the diff, then commit.
lock:
	$(PYTHON) -m venv --clear $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[$(EXTRAS)]'
	mkdir -p $(dir $(CONSTRAINTS))
	{ echo "# Pinned releases for make dev / make test / CI (pip install -c). Refresh: make lock"; \
	  $(LOCK_VENV)/bin/pip freeze --exclude-editable --all | grep -vE '^(pip|setuptools|wheel)=='; \
	} > $(CONSTRAINTS).tmp
	mv $(CONSTRAINTS).tmp $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)

bench: dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) $(LOCK_VENV) $(LATEST_VENV) $(DEMO_DIR) .mypy_cache .pytest_cache .ruff_cache
