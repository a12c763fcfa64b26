# Two commands do everything on a fresh machine:
#   make train   -- create .venv, install, run a short default training run
#   make test    -- create .venv, install, run the test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install train test bench clean gnubg

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

# GNU Backgammon, the program, for the tests that drive it (docs/gnubg.md): installed from
# Debian when we are root and apt-get is there; otherwise (or if the install fails) those tests
# skip and say why (-rs lists the reasons).
gnubg:
	@if command -v gnubg >/dev/null 2>&1 || [ -x /usr/games/gnubg ] || [ -n "$$ABAK_GNUBG" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing GNU Backgammon (apt-get install gnubg) for the tests that drive it"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnubg) >/dev/null 2>&1 \
	    || echo "could not install gnubg: the tests that need it will skip"; \
	else echo "gnubg is not installed (installing it needs root and apt-get): the tests that need it will skip"; fi

# The suite runs on every core (pytest-xdist, -n auto), each test file in one worker (--dist
# loadfile: a file's shared fixtures, such as the Ray instance, start once); TESTS_N=0 runs it
# in one process. Files go out in collection order, the longest first (tests/conftest.py).
TESTS_N ?= auto
test: $(STAMP) gnubg
	$(BIN)/python -m pytest -rs -n $(TESTS_N) --dist loadfile --no-loadscope-reorder $(ARGS)

bench: $(STAMP)
	$(BIN)/python scripts/bench_movegen.py $(ARGS)

clean:
	rm -rf $(VENV) outputs runs
