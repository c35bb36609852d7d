# Lepromafia — developer entry points. Every target does its own set-up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install run demo test lint typecheck bench simulate clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/lepromafia serve --demo

demo: $(STAMP)
	$(VENV)/bin/lepromafia demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests $(wildcard bench)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP)
	$(VENV)/bin/ruff check src tests $(wildcard bench)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) bench/engine_bench.py

simulate: $(STAMP)
	$(VENV)/bin/lepromafia simulate --games 1000 --cities 5

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
