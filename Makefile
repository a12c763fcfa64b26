# Two commands do everything on a fresh machine:
#   make train   -- create .venv, install, run a short default training run
#   make test    -- create .venv, install, run the test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install train test bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch is pinned: 2.13.0 is the CPU build; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[test,export]'
	touch $(STAMP)

install: $(STAMP)

train: $(STAMP)
	$(BIN)/abak-rl train $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

bench: $(STAMP)
	$(BIN)/python scripts/bench_movegen.py $(ARGS)

clean:
	rm -rf $(VENV) outputs runs
