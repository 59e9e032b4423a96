"""The searches choose as they did when tests/fixtures/search/expected.json was recorded: UCT and
PUCT moves and root visit counts for the same seeds, on positions of every game.

The record was made on another machine, so its floats are compared with a tolerance
(`assert_matches_record`): a PUCT root value comes from a float32 forward pass whose last bits
depend on the BLAS kernel of the CPU. Moves and visit counts are compared exactly. A last-bit
difference could flip one only where two children's PUCT scores tie to within a float32's last bits;
none of the recorded searches has such a tie, which `make test` checks by running these tests a
second time under another BLAS kernel (and `make test-cpus` under every kernel this CPU can run).
A new record with such a tie fails there, on the machine where it is written."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import assert_matches_record

HERE = Path(__file__).resolve().parent / "fixtures" / "search"
_spec = importlib.util.spec_from_file_location("make_search_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())

pytestmark = pytest.mark.cross_cpu


@pytest.fixture(scope="module")
def recorded_now() -> dict:
    return json.loads(json.dumps(make.record()))  # the record's JSON types, as in expected.json


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_the_search_chooses_as_recorded(recorded_now, key):
    assert_matches_record(recorded_now[key], EXPECTED[key], key)


def test_a_changed_visit_count_or_a_value_beyond_the_tolerance_fails():
    key = "connect_four puct solve=0"
    changed = json.loads(json.dumps(EXPECTED[key]))
    changed[0]["visits"][changed[0]["best"]] += 1
    with pytest.raises(AssertionError, match="visits"):
        assert_matches_record(changed, EXPECTED[key], key)
    moved = json.loads(json.dumps(EXPECTED[key]))
    moved[0]["value"] += 1e-4
    with pytest.raises(AssertionError, match="value"):
        assert_matches_record(moved, EXPECTED[key], key)
    moved[0]["value"] = EXPECTED[key][0]["value"] * (1 + 1e-7)  # a few float32 ulps: within tolerance
    assert_matches_record(moved, EXPECTED[key], key)


def test_the_record_covers_uct_and_puct_in_every_game():
    assert {key.split()[0] for key in EXPECTED} == set(make.GAMES)
    assert any(" mcts:" in key for key in EXPECTED) and any(" az:" in key for key in EXPECTED)
    assert any(key.endswith("puct noise") for key in EXPECTED)
