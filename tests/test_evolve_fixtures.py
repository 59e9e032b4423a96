"""Evolution run folders written by earlier versions (flat config.json, tests/fixtures/evolve/make.py)
resume to the same results: each tiny run, finished after 2 generations and resumed to 3, computes
the generations, hall of fame, champion, validation and archive that the version which wrote it
computed (expected.json).

The rule bot and the exact solver play these runs, so no float comes from a network: decks, game
counts and wins are compared exactly, and the statistics (means, intervals, p-values), computed in
float64 by numpy, with the tolerance of a record made on another machine (numpy's own vectorised
kernels differ in their last bits between CPU families)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import assert_matches_record

HERE = Path(__file__).resolve().parent / "fixtures" / "evolve"
_spec = importlib.util.spec_from_file_location("make_evolve_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())

pytestmark = pytest.mark.cross_cpu


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_old_evolution_run_resumes_to_the_same_results(name, tmp_path, capsys):
    assert_matches_record(make.resume_computed(HERE / name, tmp_path), EXPECTED[name], name, rel=1e-9, abs_=1e-12)


def test_the_fixtures_cover_both_deck_games_and_the_archive():
    assert sorted(EXPECTED) == ["gwent_archive", "gwent_racing", "kittens"]
    games = {name: json.loads((HERE / name / "config.json").read_text()).get("game") for name in EXPECTED}
    assert games == {"gwent_archive": "gwent_lite", "gwent_racing": "gwent_lite", "kittens": "exploding_kittens"}
