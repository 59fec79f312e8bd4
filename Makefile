# The two commands of the README. Each sets up the project-local virtual
# environment .venv first (CPU torch 2.13.0 before everything else, so that
# no install ever pulls a CUDA build) and is quick once it is set up.
# `make test-agilerl` runs the AgileRL recipe in a venv of its own (.venv-agilerl):
# AgileRL pins pettingzoo<1.27 and tensordict==0.13, which clash with TorchRL's;
# the conformance tests run there too, on that older PettingZoo.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
AGILERL_VENV := .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed

.PHONY: run test setup test-agilerl

run: $(STAMP)
	$(BIN)/python train.py

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,bench,dev,integrations]'
	touch $(STAMP)

test-agilerl: $(AGILERL_STAMP)
	$(AGILERL_VENV)/bin/python -m pytest -n 2 tests/test_integrations_agilerl.py tests/test_conformance.py

# peft: AgileRL 2.58 imports it without declaring it.
$(AGILERL_STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(AGILERL_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(AGILERL_VENV)/bin/python -m pip install --quiet -e . 'agilerl>=2.58' peft pytest pytest-xdist
	touch $(AGILERL_STAMP)
