# The commands of the README. Each sets up the project-local virtual
# environment .venv first (CPU torch 2.13.0 before everything else, so that
# no install ever pulls a CUDA build) and is quick once it is set up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: run test setup play browser

run: $(STAMP)
	$(BIN)/python train.py

test: $(STAMP) browser
	$(BIN)/python -m pytest -n 2 -m "not alone"
	$(BIN)/python -m pytest -m alone

# The page in a browser: http://127.0.0.1:8000 (make play ARGS="--port 8080 --model NAME=PATH").
play: $(STAMP)
	$(BIN)/python -m web $(ARGS)

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[train,bench,dev,web]'
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
