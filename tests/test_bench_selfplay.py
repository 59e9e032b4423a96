"""`deckopt bench selfplay`: the report's shape on tiny sizes (the network is built, so TensorFlow loads)."""

from __future__ import annotations

import math

import pytest

from deckopt.bench import selfplay


@pytest.mark.slow
def test_bench_selfplay_shape():
    stages = []
    report = selfplay.run(
        progress=lambda done, total, what: stages.append(what),
        lockstep_games=4,
        repeats=1,
        train_phases=1,
        dqn_overrides={"batch_size": 8, "updates_per_batch": 2, "hidden_layers": [16]},
        sharded_games=6,
        shards=2,
        jobs=1,
    )
    assert report["bench"] == "selfplay" and set(report) == {"bench", "results", "ratios", "settings"}
    assert [r["name"] for r in report["results"]] == [
        "connect_four_selfplay_lockstep_numpy",
        "connect_four_selfplay_sharded_numpy",
        "connect_four_selfplay_ancestor_eager_keras",
        "connect_four_selfplay_moves_per_game",
        "train_loop",
        "train_bare_tf_function_step",
    ]
    assert all(r["value"] > 0 and math.isfinite(r["value"]) for r in report["results"])
    assert set(report["ratios"]) == {"selfplay_vs_ancestor", "sharded_selfplay_vs_ancestor", "train_loop_vs_bare_step"}
    assert all(v > 0 and math.isfinite(v) for v in report["ratios"].values())
    assert report["settings"]["batch_size"] == 8 and report["settings"]["lockstep_games"] == 4
    assert report["settings"]["engine"] == "ConnectFourBatch"  # the vectorised engine, as training's self-play
    assert report["settings"]["sharded_games"] == 6 and report["settings"]["shards"] == 2
    assert stages == ["self-play"] * 3 + ["train steps"] * 2  # the works interleaved per stage
