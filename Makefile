# The two commands of the README are `make run` and `make test`; the rest are their parts.
# Python 3.11 is needed; everything installs into .venv.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# Where `make run` and `make serve` are reached: the signed image URLs a model server fetches are made
# from it, unless SITE_URL names another address (a proxy in front). 0.0.0.0 listens everywhere and is
# reached on the loopback here.
SERVED_URL = http://$(subst 0.0.0.0,127.0.0.1,$(HOST)):$(PORT)/
# What `make test` and `make serve` talk to unless told otherwise: this machine's PostgreSQL and Redis.
LOCAL_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/vtt
LOCAL_REDIS_URL ?= redis://127.0.0.1:6379/0
# The engine core and the scene generator are tested without Django, which proves they need none.
DJANGO_FREE_TESTS := tests/kernel tests/engine/core tests/engine/audit tests/demo/synthetic tests/demo/parking tests/demo/marina tests/scoring tests/crowd/consensus
# The Django tests run on this many pytest-xdist workers (decisions 0054 and 0084); a worker has a test
# database and a Redis database of its own: REDIS_URL's database and the next TEST_WORKERS - 1. 0: in one
# process. Three on two cores: the tests wait on processes, browsers and sockets for much of their time.
TEST_WORKERS ?= 3

.PHONY: run test check lint schema schema-check serve services services-s3 demo install install-dev chromium wrk clean-demo

## make run: install into .venv, migrate, load the demo data and serve on the embedded defaults.
run: install .env
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_setup --url $(SERVED_URL)
	TASKS_IN_THREADS=1 SERVED_URL=$(SERVED_URL) $(BIN)/python manage.py runserver $(HOST):$(PORT) --noreload

## make test: install the dev dependencies and run every check and the whole test suite: the checks and
## the Django-free tests beside the Django tests, which run on TEST_WORKERS processes (scripts/test.sh;
## the 15 slowest tests are listed at the end: the suite must stay well under 15 minutes).
test: install-dev .env chromium services-s3
	DATABASE_URL=$${DATABASE_URL:-$(LOCAL_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(LOCAL_REDIS_URL)} \
		BIN=$(BIN) TEST_WORKERS=$(TEST_WORKERS) DJANGO_FREE_TESTS="$(DJANGO_FREE_TESTS)" scripts/test.sh

check: lint schema-check
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/lint-imports

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

schema:
	$(BIN)/python manage.py spectacular --file docs/openapi.yaml --validate --fail-on-warn

schema-check:
	$(BIN)/python scripts/check_schema.py

## make serve: the docker-compose set-up without Docker, supervised: gunicorn, a worker for long jobs, a
## worker for proposals and the sweeps, and the beat, on the local PostgreSQL and Redis (scripts/serve.sh).
serve: install .env services
	DATABASE_URL=$${DATABASE_URL:-$(LOCAL_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(LOCAL_REDIS_URL)} \
		HOST=$(HOST) PORT=$(PORT) SERVED_URL=$(SERVED_URL) BIN=$(BIN) scripts/serve.sh

services:
	scripts/ensure_services.sh

# PostgreSQL, Redis and a local SeaweedFS, whatever the settings say (the storage tests need one).
services-s3:
	scripts/ensure_services.sh --s3

chromium:
	scripts/ensure_chromium.sh

## make wrk: Debian's wrk, the load generator of benchmarks/answer_throughput.py.
wrk:
	scripts/ensure_wrk.sh

# The packages are installed by uv, from PyPI, into the venv (decision 0105): the same versions as pip
# resolves, in 17 s where pip took 101 s on this machine under load (the venv's own pip stays as Python
# made it). setuptools warns at every editable install that a folder named like a package may shadow it
# (ours are the packages); the warning said nothing a newcomer could act on (issue 38).
PIP_INSTALL := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m uv pip install --quiet --python $(BIN)/python

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e . -e clients/python
	touch $@

# The client with its model runner's extra (`vtt take`, tests/clients/test_runner.py).
$(VENV)/.installed-dev: pyproject.toml clients/python/pyproject.toml $(VENV)/.installed
	$(PIP_INSTALL) -e '.[dev]' -e 'clients/python[openai]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

.env:
	$(PYTHON) scripts/make_env.py > .env
