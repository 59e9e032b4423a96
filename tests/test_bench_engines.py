"""Smoke test of `deckopt bench engines`: the report has the documented shape (tiny time budget)."""
from __future__ import annotations

import json

from agents import bench_engines
from deckopt.cli import main


def test_bench_engines_shape():
    messages = []
    report = bench_engines.run(
        progress=messages.append, seconds=0.01, repeats=1, game_names=("tic_tac_toe", "connect_four"), lockstep_games=8
    )
    assert report["bench"] == "engines" and messages
    names = {r["name"] for r in report["results"]}
    for game in ("tic_tac_toe", "connect_four"):
        for measure in ("lockstep_games_per_s", "lockstep_steps_per_s", "single_games_per_s", "single_steps_per_s"):
            assert f"{game}_{measure}" in names
    assert "cpu_count" in names
    for r in report["results"]:
        assert set(r) == {"name", "value", "unit"} and isinstance(r["value"], float) and r["value"] > 0
    if bench_engines._open_spiel() is not None:
        assert set(report["ratios"]) == {
            "tic_tac_toe_vs_open_spiel",
            "tic_tac_toe_lockstep_vs_open_spiel",
            "connect_four_vs_open_spiel",
            "connect_four_lockstep_vs_open_spiel",
        }
        assert all(v > 0 for v in report["ratios"].values())
    json.dumps(report)


def test_bench_cli_json_and_missing_bench(monkeypatch, capsys):
    real_run = bench_engines.run
    monkeypatch.setattr(
        bench_engines, "run", lambda progress=None: real_run(progress, 0.01, 1, 0, ("tic_tac_toe",), 4)
    )
    assert main(["bench", "engines", "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)  # exactly one JSON object on stdout
    assert report["bench"] == "engines" and "[bench]" in err
    assert main(["bench", "engines"]) == 0
    out, _ = capsys.readouterr()
    assert "tic_tac_toe_single_games_per_s" in out and "games/s" in out
    # a bench whose module is not written yet: one line, exit 2
    from deckopt.commands import bench as bench_command

    monkeypatch.setitem(bench_command.BENCHES, "search", "agents.no_such_bench_module")
    assert main(["bench", "search"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "deckopt bench: error: bench 'search' is not available yet"
