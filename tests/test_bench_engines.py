"""`deckopt bench engines`: the report has the documented shape (tiny time budget)."""

from __future__ import annotations

import json
import math

from deckopt.bench import engines


def test_bench_engines_shape():
    lines, stages = [], set()
    report = engines.run(
        progress=lambda done, total, what: stages.add(what),
        log=lines.append,
        seconds=0.01,
        repeats=1,
        game_names=("tic_tac_toe", "connect_four"),
        lockstep_games=8,
    )
    assert report["bench"] == "engines" and set(report) == {"bench", "results", "ratios"}
    assert stages == {"tic_tac_toe", "connect_four"} and lines
    names = [r["name"] for r in report["results"]]
    for game in ("tic_tac_toe", "connect_four"):
        for measure in ("lockstep_games_per_s", "lockstep_steps_per_s", "single_games_per_s", "single_steps_per_s"):
            assert f"{game}_{measure}" in names
    assert "connect_four_vectorised_games_per_s" in names and "tic_tac_toe_vectorised_games_per_s" not in names
    assert "connect_four_batch_of_one_games_per_s" in names and "tic_tac_toe_batch_of_one_games_per_s" not in names
    assert names[0] == "cpu_count"
    for r in report["results"]:
        assert set(r) == {"name", "value", "unit"} and isinstance(r["value"], float) and r["value"] > 0
    if engines.open_spiel() is not None:
        assert "open_spiel_connect_four_single_games_per_s" in names
        assert set(report["ratios"]) == {
            "tic_tac_toe_vs_open_spiel",
            "tic_tac_toe_lockstep_vs_open_spiel",
            "connect_four_vs_open_spiel",
            "connect_four_lockstep_vs_open_spiel",
            "connect_four_vectorised_vs_lockstep",
            "connect_four_batch_of_one_vs_single",
        }
    else:
        assert set(report["ratios"]) == {"connect_four_vectorised_vs_lockstep", "connect_four_batch_of_one_vs_single"}
        assert any("open_spiel" in line for line in lines)
    assert all(v > 0 and math.isfinite(v) for v in report["ratios"].values())
    json.dumps(report)
