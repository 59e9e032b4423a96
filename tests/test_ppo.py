"""PPO: the masked policy never weighs an illegal action (numpy and TensorFlow), GAE against a hand
computation, exact resume, and the policy as an agent."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents import ppo
from agents.learned import NumpyNetwork, read_npz
from agents.policy import PolicyAgent, masked_softmax, sample_actions
from agents.rollout import gae, next_decisions
from games.config import config_from_dict

TINY = {
    "hidden_layers": [32, 32],
    "games_per_batch": 16,
    "minibatch_size": 32,
    "update_epochs": 2,
    "eval_every": 0,
    "eval_games": 8,
    "eval_opponents": ["random"],
    "checkpoint_minutes": 100.0,
}
TIMING = {"seconds", "selfplay_games_per_s"}


def tiny(**settings) -> ppo.PPOConfig:
    return config_from_dict(ppo.PPOConfig, {**TINY, **settings})


def random_masks(rng, rows: int, cols: int) -> np.ndarray:
    masks = rng.random((rows, cols)) < 0.3
    masks[np.arange(rows), rng.integers(0, cols, rows)] = True  # at least one legal action
    return masks


def test_the_masked_policy_gives_no_weight_to_an_illegal_action():
    rng = np.random.default_rng(0)
    logits = rng.normal(0, 30, (2_000, 37)).astype(np.float32)
    logits[:, 5] = 1e30  # an illegal favourite must not leak
    masks = random_masks(rng, 2_000, 37)
    masks[:, 5] = False
    probs = masked_softmax(logits, masks)
    assert np.all(probs[~masks] == 0.0) and np.all(probs[masks] >= 0.0)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    for _ in range(20):
        actions = sample_actions(probs, rng)
        assert masks[np.arange(len(actions)), actions].all()


def test_the_training_loss_gives_no_probability_or_gradient_to_an_illegal_action():
    import tensorflow as tf

    from agents.ppo.model import masked_log_softmax

    rng = np.random.default_rng(1)
    logits = tf.Variable(rng.normal(0, 5, (64, 9)).astype(np.float32))
    masks = random_masks(rng, 64, 9)
    with tf.GradientTape() as tape:
        logp = masked_log_softmax(logits, masks)
        probs = tf.exp(logp)
        entropy = -tf.reduce_sum(tf.where(masks, probs * logp, 0.0))
    grads = tape.gradient(entropy, logits).numpy()
    assert np.all(probs.numpy()[~masks] == 0.0) and np.all(grads[~masks] == 0.0)


def test_gae_matches_a_hand_computation():
    # one trajectory: rewards 0, 0, 1; values 0.5, 0.2, 0.6; gamma 0.9, lambda 0.8
    #   delta2 = 1 - 0.6 = 0.4                      A2 = 0.4
    #   delta1 = 0.9 * 0.6 - 0.2 = 0.34             A1 = 0.34 + 0.72 * 0.4 = 0.628
    #   delta0 = 0.9 * 0.2 - 0.5 = -0.32            A0 = -0.32 + 0.72 * 0.628 = 0.13216
    rewards = np.array([0.0, 0.0, 1.0])
    values = np.array([0.5, 0.2, 0.6])
    adv, ret = gae(rewards, values, np.array([1, 2, -1]), 0.9, 0.8)
    np.testing.assert_allclose(adv, [0.13216, 0.628, 0.4], rtol=1e-6)
    np.testing.assert_allclose(ret, [0.63216, 0.828, 1.0], rtol=1e-6)
    # the same trajectory interleaved with another player's (return -1, one decision) in one game
    games_, players = np.zeros(4, int), np.array([0, 1, 0, 0])
    nxt = next_decisions(games_, players)
    np.testing.assert_array_equal(nxt, [2, -1, 3, -1])
    adv, _ = gae(np.array([0.0, -1.0, 0.0, 1.0]), np.array([0.5, 0.1, 0.2, 0.6]), nxt, 0.9, 0.8)
    np.testing.assert_allclose(adv, [0.13216, -1.1, 0.628, 0.4], rtol=1e-6)


def test_greedy_and_sampling_agents_act_legally_on_random_weights():
    game = games.make("incan_gold", num_players=3)
    rng = np.random.default_rng(4)
    weights = [rng.normal(0, 3, (game.observation_size, 16)), np.zeros(16), rng.normal(0, 3, (16, 2)), np.zeros(2)]
    net = NumpyNetwork(weights, ["relu", "linear"])
    for mode in ("sample", "greedy"):
        agent = PolicyAgent(game, net, mode, np.random.default_rng(0))
        result = agents.arena.play_match(game, [agent, agents.make("random", game)], 60, seed=2)
        assert result.agents[0].games >= 60  # illegal actions would raise


def weights_of(path: Path) -> list[np.ndarray]:
    return read_npz(path)[0].weights


def metrics_without_timing(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


@pytest.mark.cross_cpu
def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    config = tiny(seed=9, opponent_mix={"heuristic": 0.25}, learning_rate_decay_episodes=64)
    ppo.train("tic_tac_toe", config, straight, episodes=64)
    stops = iter([False, True])
    assert ppo.train("tic_tac_toe", config, split, episodes=64, should_stop=lambda: next(stops))["episodes"] == 16
    assert ppo.train("tic_tac_toe", config, split, episodes=64, resume=True)["episodes"] == 64
    for stem in ("model.npz", "value.npz"):
        for a, b in zip(weights_of(straight / stem), weights_of(split / stem), strict=True):
            np.testing.assert_array_equal(a, b)
    assert metrics_without_timing(straight) == metrics_without_timing(split)


@pytest.mark.parametrize("game_name, game_config", [("tic_tac_toe", {}), ("incan_gold", {"num_players": 3})])
def test_the_policy_loads_through_agents_make_and_acts_legally(tmp_path, game_name, game_config):
    out = tmp_path / game_name
    ppo.train(game_name, tiny(game_config=game_config, policy="greedy"), out, episodes=32)
    game = games.make(game_name, **game_config)
    agent = agents.make(str(out / "model.npz"), game, seed=1)
    assert isinstance(agent, PolicyAgent) and agent.mode == "greedy"
    rng = np.random.default_rng(3)
    states = [game.new_initial_state(rng) for _ in range(16)]
    while states:
        actions = agent.act(states)
        for s, a in zip(states, actions):
            assert s.legal_mask()[a]
            s.apply_action(int(a))
        states = [s for s in states if not s.is_terminal()]


def test_ppo_learns_tic_tac_toe_against_random(tmp_path):
    """A quick sanity check that the update improves the policy: 1 500 games of self-play."""
    config = tiny(games_per_batch=64, minibatch_size=128, update_epochs=4, learning_rate=1e-3, eval_games=200)
    summary = ppo.train("tic_tac_toe", config, tmp_path / "run", episodes=1_536)
    assert summary["last_eval"]["random_win"] + summary["last_eval"]["random_draw"] > 0.7
