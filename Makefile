# One command runs the main job, one runs the tests; both build the virtual environment first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint format bench install browser docs clean

# examples/high_card: the worked plug-in game (docs/plugins.md), installed so that the tests run it
$(BIN)/.installed: pyproject.toml examples/high_card/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,dask,interop]' -e examples/high_card
	touch $@

install: $(BIN)/.installed

# The main job on sensible defaults: a deck-evolution run played by the Gwent Lite evaluator panel
# (`evaluator`), ending with the champion's validation against the reference decks, under each copy of the
# panel and beside the panel's trust figures (report.html in the run folder).
run: $(BIN)/.installed
	$(BIN)/deckopt evolve --jobs 2 --out runs/main-$$(date +%Y%m%d-%H%M%S)

# lint, format check and the architecture contract first (seconds), then the suite (which also runs
# the examples of README.md and docs/), then the documentation site: broken links and references fail
test: lint browser
	$(BIN)/python -m pytest
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

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
	rm -rf $(VENV) build site *.egg-info
