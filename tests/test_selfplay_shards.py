"""Self-play in shards for every learner (agents/learning/shards.py): a run with `selfplay_shards`
is the same whether `deckopt train --jobs` plays its shards here or in worker processes, the
shards are joined as one batch, and a worker plays on numpy weights without importing TensorFlow."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import games
from agents.learned import NumpyNetwork
from agents.learning.loop import play_in_process
from agents.learning.runfolder import read_checkpoint
from agents.learning.shards import Shard, join_games, play_in_shards, play_shard, shard_sizes
from agents.nfsp.trainer import self_play as nfsp_self_play
from agents.parallel import Mapper
from deckopt.cli import main

RESUME = Path(__file__).resolve().parent / "fixtures" / "resume"

# the resume fixtures' tiny Tic Tac Toe runs, with baselines in some games, evaluated on the way
_spec = importlib.util.spec_from_file_location("make_resume_fixtures", RESUME / "make.py")
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
MIX = {"opponent_mix": {"random": 0.25}}
TINY = {"nfsp": {**make.SETTINGS["nfsp"], **MIX}, "ppo": {**make.SETTINGS["ppo"], **MIX}}
TINY["alphazero"] = make.SETTINGS["alphazero"]
COMMON = {**make.COMMON, "eval_every": 16}


def train(tmp_path: Path, algo: str, name: str, *flags) -> Path:
    settings = tmp_path / f"{algo}.json"
    settings.write_text(json.dumps({**COMMON, **TINY[algo]}))
    out = tmp_path / name
    argv = ["train", "tic_tac_toe", "--algo", algo, "--config", settings, "--episodes", 32, "--quiet", "--out", out]
    assert main([str(a) for a in [*argv, *flags]]) == 0
    return out


def timing(column: str) -> bool:
    return column == "seconds" or column.endswith("_per_s")


def run_of(out: Path) -> tuple[dict, dict, list[dict]]:
    """(the checkpoint's state without its clock and rows, its arrays, the metrics without timings)."""
    state, arrays = read_checkpoint(out / "checkpoints" / "checkpoint.npz")
    del state["seconds"], state["rows"]
    with open(out / "metrics.csv") as f:
        rows = [
            {k: v for k, v in row.items() if k != "seconds" and not k.endswith("_per_s")} for row in csv.DictReader(f)
        ]
    return state, arrays, rows


@pytest.mark.cross_cpu
@pytest.mark.parametrize("algo", ["nfsp", "ppo", "alphazero"])
def test_the_run_is_the_same_on_one_or_two_worker_processes(algo, tmp_path):
    one = run_of(train(tmp_path, algo, "jobs1", "--selfplay-shards", 2))
    two = run_of(train(tmp_path, algo, "jobs2", "--selfplay-shards", 2, "--jobs", 2))
    assert one[0] == two[0] and one[2] == two[2]
    assert sorted(one[1]) == sorted(two[1])
    for key in one[1]:
        np.testing.assert_array_equal(one[1][key], two[1][key])
    single = run_of(train(tmp_path, algo, "single"))  # other seeds, other games
    assert any(not np.array_equal(one[1][k], single[1][k]) for k in one[1])


def random_networks(game, seed=0) -> tuple[NumpyNetwork, NumpyNetwork]:
    rng = np.random.default_rng(seed)
    sizes = [game.observation_size, 8, game.num_actions]
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(0, 1, (a, b)).astype(np.float32), np.zeros(b, np.float32)]
    return NumpyNetwork(weights, ["relu", "linear"]), NumpyNetwork([w * 0.5 for w in weights], ["relu", "linear"])


def test_the_shards_are_the_batches_of_their_seeds_joined_in_order():
    game = games.make("connect_four")
    args = (*random_networks(game), 0.2, 0.5, {"random": 0.25})
    joined = play_in_shards(play_in_process, nfsp_self_play, game, {}, args, 10, 3, np.random.default_rng(4))
    seeds = [int(s) for s in np.random.default_rng(4).integers(2**63, size=3)]
    parts = [
        nfsp_self_play(game, *args, num_games=n, rng=np.random.default_rng(s))
        for n, s in zip(shard_sizes(10, 3), seeds)
    ]
    assert len(joined.returns) == 10 and sorted(set(joined.games.tolist())) == list(range(10))
    np.testing.assert_array_equal(joined.games, np.concatenate([p.games + k for p, k in zip(parts, (0, 4, 7))]))
    np.testing.assert_array_equal(joined.obs, np.concatenate([p.obs for p in parts]))
    np.testing.assert_array_equal(joined.extras["br"], np.concatenate([p.extras["br"] for p in parts]))
    np.testing.assert_array_equal(joined.returns, np.concatenate([p.returns for p in parts]))
    # a next decision never crosses into another shard's game
    nxt = joined.next_index
    assert all(joined.games[j] == joined.games[i] for i, j in enumerate(nxt) if j >= 0)
    assert join_games([parts[0]]).obs.dtype == np.float32


def play_and_report(shard: Shard) -> tuple[int, bool]:
    """A worker's shard: (its decisions, whether the worker has imported TensorFlow)."""
    return len(play_shard(shard).actions), "tensorflow" in sys.modules


def test_a_worker_plays_on_numpy_weights_without_tensorflow():
    game = games.make("tic_tac_toe")
    args = (*random_networks(game), 0.2, 0.5, {})
    shards = [Shard(nfsp_self_play, "tic_tac_toe", {}, args, 4, seed, 1) for seed in range(4)]
    with Mapper(2) as pmap:
        played = pmap(play_and_report, [(s,) for s in shards])
    assert all(n >= 4 * 5 and not tensorflow for n, tensorflow in played)
