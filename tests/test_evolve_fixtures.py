"""Evolution run folders written by earlier versions (flat config.json, tests/fixtures/evolve/make.py)
resume exactly: each tiny run, finished after 2 generations and resumed to 3, computes the very
generations, hall of fame, champion, validation and archive, to the bit, that the version which
wrote it computed (expected.json)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fixtures" / "evolve"
_spec = importlib.util.spec_from_file_location("make_evolve_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_old_evolution_run_resumes_to_the_same_results(name, tmp_path, capsys):
    assert make.resume_digest(HERE / name, tmp_path) == EXPECTED[name]


def test_the_fixtures_cover_both_deck_games_and_the_archive():
    assert sorted(EXPECTED) == ["gwent_archive", "gwent_racing", "kittens"]
    games = {name: json.loads((HERE / name / "config.json").read_text()).get("game") for name in EXPECTED}
    assert games == {"gwent_archive": "gwent_lite", "gwent_racing": "gwent_lite", "kittens": "exploding_kittens"}
