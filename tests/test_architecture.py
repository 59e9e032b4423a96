"""The architecture contract, checked by the suite itself: layers point one way and TensorFlow stays
out of what worker processes and quick commands import (contracts in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_quick_imports_stay_light():
    """Importing the libraries (what loky workers and `deckopt play` do) must not load TensorFlow."""
    code = (
        "import sys, games, agents, agents.arena, agents.learned, agents.mcts, evolution.fitness, evolution.genome\n"
        "import deckopt.cli\n"
        "heavy = [m for m in ('tensorflow', 'keras') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
