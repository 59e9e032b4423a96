"""`deckopt bench`: JSON or a table on stdout, progress on stderr; the benchmarks sit outside the library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deckopt.bench import engines
from deckopt.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_bench_cli_json_and_table(monkeypatch, capsys):
    real_run = engines.run
    monkeypatch.setattr(
        engines, "run", lambda progress=None, log=None: real_run(progress, log, 0.01, 1, 0, ("tic_tac_toe",), 4)
    )
    assert main(["bench", "engines", "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)  # exactly one JSON object on stdout
    assert report["bench"] == "engines" and "[bench]" in err
    assert main(["bench", "engines"]) == 0
    out, _ = capsys.readouterr()
    assert "tic_tac_toe_single_games_per_s" in out and "games/s" in out


def test_benchmarks_left_the_library():
    assert not list(ROOT.glob("agents/bench*.py")) and not (ROOT / "evolution" / "bench.py").exists()
    code = (
        "import sys, evolution.loop, evolution.scoring.fitness, evolution.scoring.validation, deckopt.bench.evolution\n"
        "heavy = [m for m in ('tensorflow', 'keras') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
