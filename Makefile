# Two commands on a fresh machine with Python 3.11: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)

.PHONY: install run test lint

$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

# Web (gunicorn), a Celery worker and beat on the embedded default unless DATABASE_URL/REDIS_URL say
# otherwise. DJANGO_DEBUG defaults to true here so that development keys are generated into var/;
# bin/serve serves with it off (docs/operations.md, "`make run` on a developer machine").
run: install
	DJANGO_DEBUG=$${DJANGO_DEBUG:-true} exec $(PY) bin/serve

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DJANGO_DEBUG=true $(PY) manage.py makemigrations --check --dry-run

test: lint
	$(PY) -m pytest $(PYTEST_ARGS)
