"""Run folders written by earlier versions of the learners resume exactly: each fixture (a tiny Tic
Tac Toe run stopped at 32 of 64 episodes, tests/fixtures/resume/make.py) resumed to 64 episodes ends
in the very weights, to the bit, that the version which wrote it reached (expected.json)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fixtures" / "resume"
_spec = importlib.util.spec_from_file_location("make_resume_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())


@pytest.mark.parametrize("algo", sorted(EXPECTED))
def test_an_old_run_folder_resumes_to_the_same_weights(algo, tmp_path):
    assert make.resume_digest(algo, HERE / algo, tmp_path) == EXPECTED[algo]


def test_the_fixtures_cover_every_learner():
    assert sorted(EXPECTED) == ["alphazero", "dqn", "nfsp", "ppo"]
