"""`deckopt bench search`: the report's shape on a tiny budget, and its start positions."""

from __future__ import annotations

import math

from deckopt.bench import search


def test_bench_search_report_shape(monkeypatch):
    monkeypatch.setattr(search, "SIMULATIONS", 40)
    monkeypatch.setattr(search, "HIDDEN_SIMULATIONS", 20)
    monkeypatch.setattr(search, "HIDDEN_POSITIONS", 2)
    monkeypatch.setattr(search, "POSITIONS", 2)
    monkeypatch.setattr(search, "REPEATS", 1)
    lines, stages = [], []
    report = search.run(progress=lambda done, total, what: stages.append(what), log=lines.append)
    assert report["bench"] == "search" and set(report) == {"bench", "results", "ratios"} and lines
    assert stages[-1] == "determinized mcts"
    names = {r["name"] for r in report["results"]}
    assert {"mcts_connect_four", "mcts_gwent_lite", "mcts_incan_gold"} <= names
    assert all(r["value"] > 0 and r["unit"] == "simulations/s" for r in report["results"])
    if "open_spiel_mcts_connect_four" in names:
        assert set(report["ratios"]) == {"mcts_vs_open_spiel"}
    else:
        assert report["ratios"] == {}
    assert all(v > 0 and math.isfinite(v) for v in report["ratios"].values())


def test_openings_are_unfinished_and_grow_by_one_move():
    openings = search.opening_moves(count=4)
    assert [len(m) for m in openings] == [0, 1, 2, 3]
    assert openings == search.opening_moves(count=4)  # seeded
    import games

    assert not any(s.is_terminal() for s in search.positions(games.make("connect_four"), openings))
