"""Run folders written by earlier versions of the learners resume to the same weights: each fixture
(a tiny Tic Tac Toe run stopped at 32 of 64 episodes, tests/fixtures/resume/make.py) resumed to 64
episodes ends in the weights that the version which wrote it reached (expected.json).

Those weights were recorded on another machine. Training runs float32 matrix products whose last
bits depend on the CPU (OpenBLAS's kernel in self-play, oneDNN's in TensorFlow), so they are
compared with a tolerance (`assert_matches_record`); measured across OpenBLAS's Prescott, Haswell and
SkylakeX kernels and oneDNN on and off, they differ by at most 4e-9 (1.3e-7 relative). On one
machine the promise is exact: the same fixture resumed twice gives the same weights to the bit."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_matches_record

HERE = Path(__file__).resolve().parent / "fixtures" / "resume"
_spec = importlib.util.spec_from_file_location("make_resume_fixtures", HERE / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
EXPECTED = json.loads((HERE / "expected.json").read_text())

pytestmark = pytest.mark.cross_cpu


@pytest.mark.parametrize("algo", sorted(EXPECTED))
def test_an_old_run_folder_resumes_to_the_recorded_weights(algo, tmp_path):
    weights = make.resume_weights(algo, HERE / algo, tmp_path / "first")
    assert_matches_record([w.tolist() for w in weights], EXPECTED[algo], algo)
    again = make.resume_weights(algo, HERE / algo, tmp_path / "again")
    assert all(np.array_equal(a, b) for a, b in zip(weights, again, strict=True))  # the same machine: to the bit


def test_the_fixtures_cover_every_learner():
    assert sorted(EXPECTED) == ["alphazero", "dqn", "nfsp", "ppo"]
