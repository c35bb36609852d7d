# Lepromafia — developer entry points. Every target does its own set-up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install run test test-browser lint typecheck bench simulate clean

VENDOR   := src/lepromafia/web/static/vendor
HTMX     := $(VENDOR)/htmx.min.js
CHROMIUM := /usr/bin/chromium

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[test]'
	touch $(STAMP)

# htmx comes from the npm registry through package-lock.json; nothing third-party is committed.
$(HTMX): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	mkdir -p $(VENDOR)
	cp node_modules/htmx.org/dist/htmx.min.js $(HTMX)

# The browser tests drive Debian's Chromium (playwright install cannot download here).
$(CHROMIUM):
	apt-get update && apt-get install -y chromium

install: $(STAMP) $(HTMX)

run: $(STAMP)
	$(VENV)/bin/lepromafia demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests $(wildcard bench)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP) $(HTMX) $(CHROMIUM)
	$(VENV)/bin/ruff check src tests $(wildcard bench)
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

test-browser: $(STAMP) $(HTMX) $(CHROMIUM)
	$(VENV)/bin/pytest tests/browser

bench: $(STAMP)
	$(PY) bench/engine_bench.py

simulate: $(STAMP)
	$(VENV)/bin/lepromafia simulate --games 1000 --cities 5

clean:
	rm -rf $(VENV) var $(VENDOR) test-artifacts .pytest_cache .mypy_cache .ruff_cache
