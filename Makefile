# The commands of the README. Each sets up the project-local virtual
# environment .venv first (CPU torch 2.13.0 before everything else, so that
# no install ever pulls a CUDA build) and is quick once it is set up.
# `make test-agilerl` runs the AgileRL recipe in a venv of its own (.venv-agilerl):
# AgileRL pins pettingzoo<1.27 and tensordict==0.13, which clash with TorchRL's;
# the conformance tests run there too, on that older PettingZoo.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
AGILERL_VENV := .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed

.PHONY: run test lint setup play browser test-agilerl

run: $(STAMP)
	$(BIN)/python train.py

test: lint browser
	$(BIN)/python -m pytest -n 2 -m "not alone"
	$(BIN)/python -m pytest -m alone

# The rule set is in pyproject.toml ([tool.ruff]); `ruff format .` fixes what the second check finds.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The page in a browser: http://127.0.0.1:8000 (make play ARGS="--port 8080 --model NAME=PATH").
play: $(STAMP)
	$(BIN)/python -m web $(ARGS)

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,bench,dev,web,integrations,ray]'
	touch $(STAMP)

# The browser tests drive Debian's chromium (never a downloaded browser): installed here when
# missing and we are root; otherwise those tests skip, naming it (and fail under .ci/run).
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing Debian's chromium for the browser tests"; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
				|| echo "could not install chromium: the browser tests will skip"; \
		else \
			echo "$(CHROMIUM) is missing and cannot be installed here (not root): the browser tests will skip"; \
		fi; \
	fi

test-agilerl: $(AGILERL_STAMP)
	$(AGILERL_VENV)/bin/python -m pytest -n 2 tests/test_integrations_agilerl.py tests/test_conformance.py

# peft: AgileRL 2.58 imports it without declaring it.
$(AGILERL_STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(AGILERL_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(AGILERL_VENV)/bin/python -m pip install --quiet -e . 'agilerl>=2.58' peft pytest pytest-xdist
	touch $(AGILERL_STAMP)
