# Lepromafia — developer entry points. Every target does its own set-up.
# The venv's interpreter: the system's optimised CPython if it can make a venv, else the
# python3 on PATH (tools/pick_python.sh says why); `make PYTHON=...` chooses another.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell sh tools/pick_python.sh)
endif
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install lock bench-load bench-curve bench-fanout bench-capacity run demo test test-browser lint typecheck bench simulate liveness-sweep clean rules-doc services balance balance-doc lab-sweep bench-lab i18n i18n-new fuzz verify-sweep

VENDOR   := src/lepromafia/web/static/vendor
HTMX     := $(VENDOR)/htmx.min.js
SWAGGER  := $(VENDOR)/swagger-ui/swagger-ui-bundle.js
CHROMIUM := /usr/bin/chromium

# Dependencies come from the lock (every version CI tested, resolved from PyPI alone), then
# the project itself without re-resolving; `uv pip check` fails if pyproject.toml asks for
# something the lock lacks (run `make lock`). uv installs the lock in seconds where pip
# takes a minute (measured: 6.6 s against 62 s, no cache), which CI pays on every run.
# Bytecode is compiled once here (site-packages and src): with PYTHONDONTWRITEBYTECODE set,
# as on this machine, every Python process of `make test` (two workers, the CLI and server
# subprocesses) otherwise compiles every module it imports again (measured: importing the
# web app 4.2 s of CPU, 2.2 s compiled; compiling costs 22 s of CPU once).
LOCK := requirements.lock
UV   := $(VENV)/bin/uv
# A venv made by another interpreter is made anew (the one it was made by is kept in a file).
INTERPRETER := $(VENV)/.interpreter
$(INTERPRETER): FORCE
	@test "$$(cat $@ 2>/dev/null)" = "$(PYTHON)" || { rm -rf $(VENV); mkdir -p $(VENV); echo "$(PYTHON)" > $@; }
FORCE:

$(STAMP): pyproject.toml $(LOCK) $(INTERPRETER)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -x $(UV) || $(PIP) install -q uv
	$(UV) pip install -q --compile-bytecode --python $(PY) -r $(LOCK)
	$(UV) pip install -q --compile-bytecode --python $(PY) --no-deps -e .
	$(PY) -m compileall -q src
	$(UV) pip check --python $(PY)
	touch $(STAMP)

# Re-resolve the lock from PyPI after editing pyproject.toml's dependencies, then `make install`.
lock: $(INTERPRETER)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -x $(UV) || $(PIP) install -q uv
	$(UV) pip compile pyproject.toml --extra test --universal --python-version 3.11 \
		--index-url https://pypi.org/simple --no-header -q -o $(LOCK)

# htmx and Swagger UI (/docs, served locally: no CDN) come from the npm registry through
# package-lock.json; nothing third-party is committed. No package's install scripts run.
$(HTMX): package.json package-lock.json
	npm ci --no-audit --no-fund --silent --ignore-scripts
	mkdir -p $(VENDOR)
	cp node_modules/htmx.org/dist/htmx.min.js $(HTMX)

$(SWAGGER): $(HTMX)
	mkdir -p $(VENDOR)/swagger-ui
	cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css \
		node_modules/swagger-ui-dist/LICENSE $(VENDOR)/swagger-ui/

# axe-core (npm registry, a dev dependency) for the accessibility test only: copied beside the
# tests, never into the served static files, never committed.
AXE := var/test-assets/axe.min.js
$(AXE): package.json package-lock.json $(HTMX)
	mkdir -p $(dir $(AXE))
	cp node_modules/axe-core/axe.min.js $(AXE)

# The browser tests drive Debian's Chromium (playwright install cannot download here); the
# several-workers test puts Debian's nginx in front of two workers (tests/scale). One
# apt-get run installs whichever is missing (a grouped target: one update, not two).
NGINX := /usr/sbin/nginx
$(CHROMIUM) $(NGINX) &:
	apt-get update && apt-get install -y chromium nginx

# Translations: each committed .po compiles to a .mo beside it (the .mo files are not committed).
LOCALES      := src/lepromafia/web/locale
POT          := var/messages.pot
CATALOGS     := $(wildcard $(LOCALES)/*/LC_MESSAGES/messages.po)
COMPILED     := $(CATALOGS:.po=.mo)
I18N_KEYWORDS := -k N_ -k translate:2 -k ntranslate:2,3

$(LOCALES)/%/LC_MESSAGES/messages.mo: $(LOCALES)/%/LC_MESSAGES/messages.po $(STAMP)
	$(VENV)/bin/pybabel -q compile -d $(LOCALES) -l $* -D messages

# Extract every msgid (Python and templates) and merge it into each catalog; new ones arrive
# untranslated, vanished ones go (tests/i18n fails on both until the .po is filled in).
i18n: $(STAMP)
	$(PY) tools/po_dedupe.py $(CATALOGS)  # what a union merge of two branches leaves
	mkdir -p var
	$(VENV)/bin/pybabel -q extract -F babel.cfg $(I18N_KEYWORDS) --sort-output --no-wrap --no-location \
		--project=Lepromafia -o $(POT) src
	$(VENV)/bin/pybabel -q update -i $(POT) -d $(LOCALES) -D messages --no-fuzzy-matching \
		--ignore-obsolete --no-wrap
	sed -i '/^"POT-Creation-Date: /d' $(CATALOGS)  # no churn: the date changes at every run
	$(MAKE) -s $(COMPILED)

# A new language: make i18n-new LOCALE=de, then translate its messages.po (nothing else to edit).
i18n-new: $(STAMP)
	test -n "$(LOCALE)"
	mkdir -p var
	$(VENV)/bin/pybabel -q extract -F babel.cfg $(I18N_KEYWORDS) --sort-output --no-wrap --no-location -o $(POT) src
	$(VENV)/bin/pybabel -q init -i $(POT) -d $(LOCALES) -D messages -l $(LOCALE) --no-wrap

install: $(STAMP) $(HTMX) $(SWAGGER) $(COMPILED)

run: $(STAMP) $(HTMX) $(SWAGGER)
	$(VENV)/bin/lepromafia serve --demo

demo: $(STAMP)
	$(VENV)/bin/lepromafia demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests tools verify $(wildcard bench)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# PostgreSQL and Redis run on this machine kind; start them if they are down. Tests that
# need them fail (never skip) when they cannot be reached.
services:
	@pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no

test: $(STAMP) $(HTMX) $(SWAGGER) $(AXE) $(COMPILED) $(CHROMIUM) $(NGINX) services
	$(VENV)/bin/ruff check src tests tools verify $(wildcard bench)
	$(VENV)/bin/lint-imports
	@# mypy (one core, a minute when its cache is cold) runs beside the tests, not before them;
	@# three workers on two cores: the tests wait on browsers, servers and sockets for about a
	@# third of their time (docs/performance.md, "make test itself")
	@mkdir -p var; $(VENV)/bin/mypy > var/mypy.log 2>&1 & types=$$!; \
	$(VENV)/bin/pytest -n 3 --dist loadfile --no-loadscope-reorder --junitxml=var/junit.xml; tests=$$?; \
	wait $$types; typed=$$?; echo "mypy:"; cat var/mypy.log; test $$tests -eq 0 && test $$typed -eq 0

# The long schemathesis run over the whole OpenAPI (make test runs 2 cases per operation).
FUZZ_EXAMPLES ?= 100
fuzz: $(STAMP)
	LEPROMAFIA_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VENV)/bin/pytest -q tests/security/test_fuzz.py

test-browser: $(STAMP) $(HTMX) $(SWAGGER) $(AXE) $(CHROMIUM)
	$(VENV)/bin/pytest tests/browser

rules-doc: $(STAMP)
	$(PY) tools/rules_coverage_doc.py

bench: $(STAMP) services
	$(PY) bench/engine_bench.py
	$(PY) bench/service_bench.py
	$(PY) bench/read_path_bench.py --baseline 35de1ff
	$(PY) bench/verify_bench.py

# Issue 14's tamper sweep on whole 5-city games (CI runs it on one-city games).
verify-sweep: $(STAMP)
	LEPROMAFIA_VERIFY_SWEEP=100,5,20 $(VENV)/bin/pytest -q -s tests/verify/test_tamper.py

# The balance lab (docs/balance.md): strategy bots at skill 2 against 2 on every core.
BALANCE_GAMES ?= 100
BALANCE_OUT   ?= var/balance
balance: $(STAMP)
	$(VENV)/bin/lepromafia lab run --games $(BALANCE_GAMES) --cities 5 --vary cities=2,3,4,5,6,7,8 \
		--skill honest=2,mafia=2 --out $(BALANCE_OUT)/cities
	$(VENV)/bin/lepromafia lab run --games $(BALANCE_GAMES) --cities 5 --institutions \
		--vary mafia_share_percent=15,20,25,30 --vary city_win_condition=elimination,mafia_outnumbers \
		--skill honest=2,mafia=2 --out $(BALANCE_OUT)/settings
	$(PY) tools/balance_doc.py $(BALANCE_OUT) docs

# Rewrite docs/balance.md from the last `make balance` run without playing again.
balance-doc: $(STAMP)
	$(PY) tools/balance_doc.py $(BALANCE_OUT) docs

# The 10,000-game sweep of 5-city games (target: under 30 minutes on 2 cores).
lab-sweep: $(STAMP)
	$(VENV)/bin/lepromafia lab run --games 10000 --cities 5 --out var/lab-sweep

# Issue 17: the server under a community's load beside a raw websockets server, in one run
# (loopback only, bounded; docs/performance.md). E.g. BENCH_LOAD_ARGS="--games 1,5 --reps 1".
BENCH_LOAD_ARGS ?= --games 1,5,10,25 --backends sqlite,postgresql --reps 3
bench-load: $(STAMP) services
	$(PY) bench/load.py $(BENCH_LOAD_ARGS)

# Issue 17's curve (session 8): 1 to 200 games (20,000 players), one worker against two
# routed by game (Redis), SQLite and PostgreSQL, the raw server in the same run; the clients
# in several generator processes (one per 5,000 sockets). For an IDLE machine only (at 200
# games 40,000 client sockets; one worker is skipped there: 20,000 open files a process).
# About 90 minutes; nothing starts that would end after --max-minutes. Table: var/bench-load/
# curve.jsonl, or `$(PY) bench/load.py --summarize var/bench-load/curve.jsonl`.
BENCH_CURVE_ARGS ?= --games 1,10,25,50,100,150,200 --backends sqlite,postgresql --reps 3 --window 30 \
	--two-workers-routed --max-minutes 120
bench-curve: $(STAMP) services
	$(PY) bench/load.py $(BENCH_CURVE_ARGS) --out var/bench-load/curve.jsonl

# Issue 17's fan-out (session 6): rate and saturate tests, this tree vs main vs raw websockets.
BENCH_FANOUT_ARGS ?= --reps 3 --before main
bench-fanout: $(STAMP)
	$(PY) bench/fanout.py $(BENCH_FANOUT_ARGS)

# Issue 17's capacity targets (session 5; docs/performance.md "Capacity targets"): vote rush
# in 10 cities, a restart with 50 games, memory per client, a command on Day 2 vs Day 14.
# Each benchmark builds its games once into var/capacity/ (--rebuild drops the cache).
bench-capacity: $(STAMP)
	$(PY) bench/capacity_vote_rush.py
	$(PY) bench/capacity_restart.py
	$(PY) bench/capacity_memory.py
	$(PY) bench/capacity_command_cost.py

bench-lab: $(STAMP)
	$(PY) bench/lab_bench.py --games 20

simulate: $(STAMP)
	$(VENV)/bin/lepromafia simulate --games 1000 --cities 5

# Issue 10: the host-command liveness property at full size (minutes, not CI).
liveness-sweep: $(STAMP)
	LEPROMAFIA_SWEEP_EXAMPLES=300 $(VENV)/bin/pytest -q tests/sim/test_host_liveness.py

clean:
	rm -rf $(VENV) var $(VENDOR) test-artifacts .pytest_cache .mypy_cache .ruff_cache
