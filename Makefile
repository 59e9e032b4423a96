# One command runs the main job, one runs the tests; both build the virtual environment first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test test-cpus test-busy lint format bench install lock browser docs clean oracle

# The locked environment: the exact versions that the suite is checked with, for Python 3.11 on Linux
# x86-64 (pyproject.toml keeps the ranges, for installing deckopt as a library). `make install` makes
# the virtual environment anew from requirements.lock and checks that `pip freeze` equals it;
# examples/high_card, the worked plug-in game (docs/plugins.md), is installed so that the tests run it.
LOCK := requirements.lock
$(BIN)/.installed: pyproject.toml examples/high_card/pyproject.toml $(LOCK)
	$(PYTHON) -m venv --clear $(VENV)
	$(BIN)/python -m pip install -q $$(grep '^pip==' $(LOCK))
	$(BIN)/python -m pip install -q -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps -e . -e examples/high_card
	$(BIN)/python .ci/check-lock $(LOCK)
	touch $@

install: $(BIN)/.installed

# Make requirements.lock again from pyproject.toml's ranges (the newest versions they admit), with uv
# in a tools environment of its own, so that the locked environment holds nothing but deckopt's needs.
LOCK_TOOLS := build/lock-tools
lock:
	$(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/python -m pip install -q uv==0.13.9
	echo pip | $(LOCK_TOOLS)/bin/uv pip compile pyproject.toml - --extra dev --extra dask --extra interop \
		--python-version 3.11 --custom-compile-command 'make lock' --quiet -o $(LOCK)

# gym-locm, the reference engine that tests/test_locm_oracle.py plays beside games/locm.py, in an
# environment of its own: gym-locm 2.0.0b1 needs Python >= 3.12 and NumPy >= 2.4.1, deckopt stays on
# 3.11. requirements-oracle.lock holds its exact versions. Its wheel leaves out the card list, so ours
# (the same file, MIT) is put where it looks.
# PYTHON312 may name the interpreter; else pyenv's newest 3.12, else a python3.12 on PATH that runs.
ORACLE_VENV := .venv-oracle
ORACLE_PYTHON = $(shell \
	if [ -n "$(PYTHON312)" ]; then echo "$(PYTHON312)"; exit; fi; \
	if command -v pyenv >/dev/null; then ls -d "$$(pyenv root)"/versions/3.12*/bin/python3.12 2>/dev/null | sort -V | tail -1; fi | grep . || \
	{ python3.12 -c '' 2>/dev/null && command -v python3.12; })
$(ORACLE_VENV)/.installed: games/data/locm_cardlist.txt requirements-oracle.lock
	@[ -n "$(ORACLE_PYTHON)" ] || { echo "make oracle: no Python 3.12 found (none under pyenv, none on PATH); install one or give PYTHON312=/path/to/python3.12"; exit 1; }
	@[ -x "$$(command -v "$(ORACLE_PYTHON)")" ] || { echo "make oracle: the interpreter $(ORACLE_PYTHON) is missing or not a program; give PYTHON312=/path/to/python3.12"; exit 1; }
	@"$(ORACLE_PYTHON)" -c 'import sys; v = sys.version_info; sys.exit(0 if v >= (3, 12) else f"make oracle: the interpreter $(ORACLE_PYTHON) is Python {v.major}.{v.minor}; gym-locm needs 3.12 or later: give PYTHON312=/path/to/python3.12")'
	$(ORACLE_PYTHON) -m venv --clear $(ORACLE_VENV)
	$(ORACLE_VENV)/bin/python -m pip install -q -r requirements-oracle.lock
	resources="$$($(ORACLE_VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/gym_locm/engine/resources"; \
		mkdir -p "$$resources" && cp games/data/locm_cardlist.txt "$$resources/cardlist.txt"
	$(ORACLE_VENV)/bin/python -c 'from gym_locm.engine import State; State(seed=0, version="1.2")'
	touch $@

oracle: $(ORACLE_VENV)/.installed

# The main job on sensible defaults: a deck-evolution run played by the Gwent Lite evaluator panel
# (`evaluator`), ending with the champion's validation against the reference decks, under each copy of the
# panel and beside the panel's trust figures (report.html in the run folder).
run: $(BIN)/.installed
	$(BIN)/deckopt evolve --jobs 2 --out runs/main-$$(date +%Y%m%d-%H%M%S)

# lint, format check and the architecture contract first (seconds), then the suite (which also runs
# the examples of README.md and docs/, and plays LOCM beside gym-locm in the oracle's environment),
# then the tests that compare with records made on another machine or promise the same result for
# the same seed (marker cross_cpu) a second time on other kernels: OpenBLAS's oldest x86-64 one,
# numpy without its AVX2 and AVX-512 loops, and TensorFlow without oneDNN, so that a record tied to
# one CPU fails where it is written; then the documentation site: broken links and references fail.
# The suite runs in two worker processes (pytest-xdist), a test file each at a time.
NUMPY_SIMD := X86_V3 X86_V4 AVX512_ICL AVX512_SPR
OTHER_KERNELS := OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES='$(NUMPY_SIMD)' TF_ENABLE_ONEDNN_OPTS=0
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadfile
test: lint browser oracle
	$(PYTEST)
	$(OTHER_KERNELS) $(PYTEST) -m cross_cpu
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The cross_cpu tests under every OpenBLAS kernel this CPU runs (SkylakeX needs AVX-512), then once
# more on the old-CPU kernels of `make test`
CORETYPES := Prescott Sandybridge Haswell Zen $(shell grep -q avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX)
test-cpus: $(BIN)/.installed
	for core in $(CORETYPES); do echo "== OPENBLAS_CORETYPE=$$core"; \
		OPENBLAS_CORETYPE=$$core $(BIN)/python -m pytest -m cross_cpu || exit 1; done
	@echo "== $(OTHER_KERNELS)"
	$(OTHER_KERNELS) $(BIN)/python -m pytest -m cross_cpu

docs: $(BIN)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Debian's Chromium and its driver, for the HTML report's browser test (tests/test_html_report.py
# skips with its reason where they cannot be installed: no apt, or neither root nor sudo)
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif ! command -v apt-get >/dev/null; then echo "no apt-get: the browser test will be skipped"; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; \
	elif command -v sudo >/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "cannot install chromium (not root, no sudo): the browser test will be skipped"; fi

# The fault tests (marker faults: signals, stopped and killed workers) with two CPU-bound processes
# beside them, as on a machine that is busy with other work: only a stopped or dead worker may trip
# a timeout, never a slow healthy one
test-busy: $(BIN)/.installed
	$(PYTHON) -c 'while True: pass' & one=$$!; $(PYTHON) -c 'while True: pass' & two=$$!; \
	$(BIN)/python -m pytest -m faults; status=$$?; kill $$one $$two; exit $$status

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: $(BIN)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(BIN)/.installed
	$(BIN)/python -m pip install -q -e '.[bench]' || echo "open_spiel not installable here; benchmarks run without it"
	for what in engines selfplay search evolution; do $(BIN)/deckopt bench $$what || exit 1; done

clean:
	rm -rf $(VENV) $(ORACLE_VENV) build site *.egg-info
