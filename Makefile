# The two commands of the README. Each sets up the project-local virtual
# environment .venv first (CPU torch 2.13.0 before everything else, so that
# no install ever pulls a CUDA build) and is quick once it is set up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test setup

run: $(STAMP)
	$(BIN)/python train.py

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,bench,dev,ray]'
	touch $(STAMP)
