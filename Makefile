# Everything installs into .venv; nothing needs a package installed by hand.
PYTHON ?= python3
# Where pip looks for torch. Empty (the default) keeps pip's own index, as on the machines this
# project is built on. Where that index would resolve torch==2.13.0 to the multi-GB CUDA build
# (the public index on Linux), use the CPU wheels:
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
TORCH_PIP_ARGS := $(if $(strip $(TORCH_INDEX)),--index-url $(strip $(TORCH_INDEX)),)
VENV   := .venv
BIN    := $(VENV)/bin
# Two steps in one venv: the light install (graphit and its dev tools, no torch: what `make
# demo` and `make check` need), then the reference backend on top (torch: the parity tests of
# `make test` compare it with the light runtime).
LIGHT  := $(VENV)/.installed-light
STAMP  := $(VENV)/.installed
# The browser tests drive Debian's Chromium (tests/test_explorer_browser.py reads CHROMIUM).
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM

.PHONY: install install-light check browser test test-all lint demo docs bench clean

$(LIGHT): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(LIGHT)

$(STAMP): $(LIGHT)
	# torch first, pinned (and from TORCH_INDEX when set): an unpinned torch would pull a
	# multi-GB CUDA build.
	$(BIN)/pip install -q $(TORCH_PIP_ARGS) torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,reference]'
	touch $(STAMP)

# The package's bytecode, as pip writes it for an installed wheel: an editable install has
# none, and where the environment turns bytecode writing off (PYTHONDONTWRITEBYTECODE) every
# `graphit` process, each agent hook among them, would compile its modules again (~8 ms).
install-light: $(LIGHT)
	@$(BIN)/python -m compileall -q graphit_cli

install: $(STAMP) install-light

lint: install-light
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The default tier on TEST_WORKERS processes (pytest-xdist). Tests that share a module fixture
# stay on one worker (tests/conftest.py); every test has its own tmp dir and GRAPHIT_HOME.
TEST_WORKERS ?= 2
# Tests keep compiled bytecode under .venv (out of the tree), also where the environment turns
# bytecode off (PYTHONDONTWRITEBYTECODE): each worker's collection (pytest's rewritten test
# modules, 16 -> 8 s) and each `graphit` process a test starts compile nothing twice.
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache

# The smoke tier, in well under a minute: ruff, and the tests marked `smoke` (start-up, one
# write and read through the CLI, the layering, the surface every command keeps).
check: install-light
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TEST_ENV) $(BIN)/pytest -q -m smoke

# The browser tests are part of the default tier: without Chromium they would be skipped, so
# `make test` stops first and says how to get it.
browser:
	@test -x $(CHROMIUM) || { echo "make test runs the Explorer's browser tests in Chromium," \
	  "and $(CHROMIUM) is missing: install it (Debian/Ubuntu: sudo apt-get install -y" \
	  "chromium), or point CHROMIUM= at one." >&2; exit 2; }

test: install lint browser
	$(TEST_ENV) $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup

test-all: install lint browser
	$(TEST_ENV) $(BIN)/pytest -q -m "slow or not slow"

# The light install only: the default embedder needs no torch.
demo: install-light
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

docs: install-light
	$(BIN)/python scripts/gen_docs.py
	$(BIN)/python scripts/gen_argv.py

bench: install
	$(BIN)/python benchmarks/core.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist
