"""The searches choose as they did when tests/fixtures/search/expected.json was recorded: UCT and
PUCT moves and root visit counts for the same seeds, on positions of every game."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fixtures" / "search"
_spec = importlib.util.spec_from_file_location("make_search_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())


@pytest.fixture(scope="module")
def recorded_now() -> dict:
    return make.record()


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_the_search_chooses_as_recorded(recorded_now, key):
    assert recorded_now[key] == EXPECTED[key]


def test_the_record_covers_uct_and_puct_in_every_game():
    assert {key.split()[0] for key in EXPECTED} == set(make.GAMES)
    assert any(" mcts:" in key for key in EXPECTED) and any(" az:" in key for key in EXPECTED)
    assert any(key.endswith("puct noise") for key in EXPECTED)
