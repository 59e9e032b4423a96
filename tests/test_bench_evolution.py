"""`deckopt bench evolution`: the report's shape on a tiny generation (two worker processes start)."""

from __future__ import annotations

import math

import pytest

from deckopt.bench import evolution


@pytest.mark.slow
def test_bench_evolution_shape():
    lines = []
    report = evolution.run(log=lines.append, repeats=1, pool=3, games_per_pair=2, sample_pairings=1)
    assert report["bench"] == "evolution" and set(report) == {"bench", "agent", "results", "ratios"}
    assert report["agent"] in ("pretrained", "heuristic")
    values = {r["name"]: r["value"] for r in report["results"]}
    assert list(values) == [
        "generation_games",
        "generation_seconds_jobs1",
        "generation_seconds_jobs2",
        "games_per_second_jobs2",
        "ancestor_way_ms_per_move",
        "ancestor_way_sample_games",
        "ancestor_way_generation_seconds_extrapolated",
        "moves_per_game",
        "generation_cpu_seconds_jobs1",
        "generation_cpu_seconds_jobs2",
        "machine_speedup_2_processes",
        "ancestor_way_moves_vs_ours",
    ]
    assert values["generation_games"] == 6.0 and values["ancestor_way_sample_games"] == 2.0  # 3 pairs x 2 games
    assert all(v > 0 and math.isfinite(v) for v in values.values())
    assert set(report["ratios"]) == {
        "evolution_vs_ancestor",
        "evolution_jobs1_vs_ancestor",
        "parallel_efficiency",
        "parallel_efficiency_of_available_cores",
        "parallel_cpu_efficiency",
    }
    assert all(v > 0 and math.isfinite(v) for v in report["ratios"].values())
    assert any(line.startswith("generation: jobs2 repeat 1/1") for line in lines)


def test_deal_states_mirror_every_deal():
    pairings, rules = evolution.generation(pool=3, games_per_pair=4)
    states = evolution.deal_states(pairings, rules)
    assert len(states) == evolution.pairing_games(pairings) == 3 * 4
