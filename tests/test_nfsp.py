"""NFSP: the reservoir keeps a uniform sample (chi-square), the circular replay, transitions of
each player's trajectory, exact resume, and the average policy as an agent."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents import nfsp
from agents.learned import read_npz
from agents.nfsp.buffers import Reservoir, transition_replay
from agents.policy import PolicyAgent
from agents.rollout import Batch
from games.config import config_from_dict

TINY = {
    "hidden_layers": [32, 32],
    "games_per_batch": 16,
    "updates_per_batch": 2,
    "batch_size": 32,
    "min_replay": 32,
    "rl_replay_size": 2_000,
    "sl_reservoir_size": 500,
    "anticipatory": 0.5,
    "epsilon_decay_episodes": 64,
    "eval_every": 0,
    "eval_games": 8,
    "eval_opponents": ["random"],
    "checkpoint_minutes": 100.0,
}
TIMING = {"seconds", "selfplay_games_per_s"}
CHI2_19_AT_0_999 = 43.82  # chi-square quantile, 19 degrees of freedom, p = 0.001


def tiny(**settings) -> nfsp.NFSPConfig:
    return config_from_dict(nfsp.NFSPConfig, {**TINY, **settings})


def _items(ids: np.ndarray) -> dict[str, np.ndarray]:
    n = len(ids)
    return {"obs": ids[:, None].astype(np.float32), "actions": ids.astype(np.int32), "masks": np.ones((n, 2), bool)}


def _inclusion_chi_square(buffer_kind: str, trials: int = 400, items: int = 1_000, capacity: int = 50) -> float:
    """Insert items 0..999 in batches of random sizes; count which survive; chi-square of the
    counts over 20 bins of consecutive items against the uniform expectation."""
    rng = np.random.default_rng(2024)
    counts = np.zeros(items)
    for _ in range(trials):
        if buffer_kind == "reservoir":
            buf = Reservoir(capacity, 1, 2)
        else:
            buf = transition_replay(capacity, 1, 2)
        start = 0
        while start < items:
            ids = np.arange(start, min(items, start + int(rng.integers(1, 40))))
            if buffer_kind == "reservoir":
                buf.add(_items(ids), rng)
            else:
                n = len(ids)
                buf.add(
                    {
                        "obs": ids[:, None].astype(np.float32),
                        "actions": ids.astype(np.int32),
                        "rewards": np.zeros(n, np.float32),
                        "next_obs": np.zeros((n, 1), np.float32),
                        "next_masks": np.ones((n, 2), bool),
                        "done": np.zeros(n, np.float32),
                    }
                )
            start = ids[-1] + 1
        kept = buf.columns["actions"][: len(buf)]
        assert len(np.unique(kept)) == capacity  # never an item twice, always full
        counts[kept] += 1
    bins = counts.reshape(20, -1).sum(axis=1)
    expected = trials * capacity / 20
    return float(((bins - expected) ** 2 / expected).sum())


def test_the_reservoir_keeps_a_uniform_sample_of_everything_inserted():
    """Every insertion survives with probability capacity / n: a chi-square test over 400 fills
    (could fail for a biased reservoir: the circular replay, which keeps the newest, fails it)."""
    assert _inclusion_chi_square("reservoir") < CHI2_19_AT_0_999
    assert _inclusion_chi_square("circular") > 1_000 * CHI2_19_AT_0_999


def test_the_reservoir_fills_in_order_then_counts_what_it_has_seen():
    rng = np.random.default_rng(0)
    r = Reservoir(10, 1, 2)
    r.add(_items(np.arange(7)), rng)
    assert len(r) == 7 and r.seen == 7 and list(r.columns["actions"][:7]) == list(range(7))
    r.add(_items(np.arange(7, 100)), rng)
    assert len(r) == 10 and r.seen == 100 and set(r.columns["actions"]) <= set(range(100))


def test_the_circular_replay_overwrites_the_oldest():
    buf = transition_replay(4, 1, 2)
    for start in (0, 3):
        ids = np.arange(start, start + 3)
        n = len(ids)
        buf.add(
            {
                "obs": ids[:, None].astype(np.float32),
                "actions": ids.astype(np.int32),
                "rewards": np.zeros(n, np.float32),
                "next_obs": np.zeros((n, 1), np.float32),
                "next_masks": np.ones((n, 2), bool),
                "done": np.zeros(n, np.float32),
            }
        )
    assert sorted(buf.columns["actions"]) == [2, 3, 4, 5] and buf.pos == 2 and len(buf) == 4


def test_transitions_follow_each_players_trajectory():
    """Two players interleaved: s' is the same player's next decision, the reward its return at the end."""
    learner = nfsp.NFSPLearner.__new__(nfsp.NFSPLearner)
    learner.replay, learner.reservoir = transition_replay(10, 1, 2), Reservoir(10, 1, 2)
    learner.rng = np.random.default_rng(0)
    batch = Batch(
        obs=np.arange(5, dtype=np.float32)[:, None],
        masks=np.array([[1, 1], [1, 0], [0, 1], [1, 1], [1, 0]], bool),
        actions=np.array([0, 0, 1, 1, 0]),
        games=np.zeros(5, int),
        players=np.array([0, 1, 0, 1, 0]),
        returns=np.array([[1.0, -1.0]]),
        extras={"br": np.array([True, False, False, True, True])},
    )
    learner._store(batch)
    cols = learner.replay.columns
    np.testing.assert_array_equal(cols["next_obs"][:5, 0], [2, 3, 4, 0, 0])
    np.testing.assert_array_equal(cols["done"][:5], [0, 0, 0, 1, 1])
    np.testing.assert_array_equal(cols["rewards"][:5], [0, 0, 0, -1, 1])
    np.testing.assert_array_equal(cols["next_masks"][:5], [[0, 1], [1, 1], [1, 0], [0, 0], [0, 0]])
    np.testing.assert_array_equal(learner.reservoir.columns["obs"][:3, 0], [0, 3, 4])


def weights_of(path: Path) -> list[np.ndarray]:
    return read_npz(path)[0].weights


def metrics_without_timing(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


@pytest.mark.cross_cpu
def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    nfsp.train("tic_tac_toe", tiny(seed=5), straight, episodes=96)
    stops = iter([False, False, True])
    first = nfsp.train("tic_tac_toe", tiny(seed=5), split, episodes=96, should_stop=lambda: next(stops))
    assert first["stopped_by"] == "interrupt" and first["episodes"] == 32
    assert nfsp.train("tic_tac_toe", tiny(seed=5), split, episodes=96, resume=True)["episodes"] == 96
    for stem in ("model.npz", "best_response.npz"):
        for a, b in zip(weights_of(straight / stem), weights_of(split / stem), strict=True):
            np.testing.assert_array_equal(a, b)
    assert metrics_without_timing(straight) == metrics_without_timing(split)
    files = {p.name for p in straight.iterdir()}
    assert {"config.json", "metrics.csv", "tensorboard", "checkpoints", "model.keras", "learning_curves.png"} <= files


@pytest.mark.parametrize("game_name, game_config", [("tic_tac_toe", {}), ("incan_gold", {"num_players": 3})])
def test_the_average_policy_loads_through_agents_make_and_acts_legally(tmp_path, game_name, game_config):
    out = tmp_path / game_name
    summary = nfsp.train(game_name, tiny(game_config=game_config, opponent_mix={"random": 0.25}), out, episodes=48)
    assert np.isfinite(summary["episodes"]) and (out / "model.npz").is_file()
    game = games.make(game_name, **game_config)
    for spec in (str(out), str(out / "model.keras"), str(out / "model.npz")):
        agent = agents.make(spec, game, seed=1)
        assert isinstance(agent, PolicyAgent) and agent.mode == "sample"
        rng = np.random.default_rng(3)
        states = [game.new_initial_state(rng) for _ in range(16)]
        while states:
            actions = agent.act(states)
            for s, a in zip(states, actions):
                assert s.legal_mask()[a]
                s.apply_action(int(a))
            states = [s for s in states if not s.is_terminal()]
