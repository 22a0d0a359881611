# Two commands on a fresh machine:
#   make demo   install, load the demo campaign, serve it on http://127.0.0.1:8000/
#   make test   install, make sure PostgreSQL, Redis and Chromium are there, lint, run every test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell sha256sum requirements.txt | cut -c1-12)

# The test suite runs on PostgreSQL and Redis, as production does.
TEST_ENV := PARSEVAL_DEVELOPMENT=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/parseval \
            PARSEVAL_TEST_BROKER_URL=redis://127.0.0.1:6379/15 \
            PARSEVAL_VAR_DIR=$(CURDIR)/var/test

.PHONY: demo test lint install compiled messages services clean

install: $(STAMP) compiled messages

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

# The hottest scoring modules compiled from their source (parseval/annotations/compiled.py); quick when up to date.
# Then the library's bytecode, written even where PYTHONDONTWRITEBYTECODE is set (pip does the same for what it
# installs): else every command compiles the modules it imports from source, 0.06 s of CPU for the evalb
# preset's start-up. A stale file is never used (Python compares it with its source).
compiled: $(STAMP)
	$(BIN)/python scripts/build_compiled.py
	$(BIN)/python -m compileall -q parseval evaluation/__init__.py evaluation/__main__.py

# The pages' translations (locale/*/LC_MESSAGES/django.po) compiled by Babel, pinned in requirements.txt:
# pure Python, so a fresh machine needs no gettext package; each .mo follows its .po (docs/languages.md).
MESSAGES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
messages: $(MESSAGES)

locale/%/LC_MESSAGES/django.mo: locale/%/LC_MESSAGES/django.po $(STAMP)
	$(BIN)/pybabel --quiet compile --domain django --directory locale --locale $* --statistics

# The demo runs in development mode: DEBUG on, a fixed key; never expose it.
DEMO_ENV := PARSEVAL_DEVELOPMENT=1

# Served with Celery workers beside it, on kombu's filesystem transport (var/broker/): no server to install.
demo: install
	$(DEMO_ENV) $(BIN)/python manage.py migrate --noinput
	$(DEMO_ENV) $(BIN)/python manage.py load_demo
	$(DEMO_ENV) $(BIN)/python manage.py serve_embedded 127.0.0.1:8000

services:
	bash scripts/ensure-services

# Two test processes, one per core: much of the suite waits on workers, servers and the browser.
# A file's tests stay in one process (its module fixtures are built once).
PYTEST_ARGS ?= -n 2 --dist loadfile

test: install services lint
	$(TEST_ENV) $(BIN)/python -m pytest $(PYTEST_ARGS)

# The pyflakes rules (unused imports and names, undefined names) over every Python file, and the import
# rules (.importlinter: the library alone, the apps' directions, the features downward; docs/architecture.md).
lint: install
	$(BIN)/ruff check --select F --exclude $(VENV) .
	$(BIN)/lint-imports --no-cache

clean:
	rm -rf $(VENV) var
	find parseval -name "*.so" -o -name compiled.json | xargs rm -f
	rm -f locale/*/LC_MESSAGES/*.mo
