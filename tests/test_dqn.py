"""Monte-Carlo-return DQN, the parts: targets, self-play recording, mirrors, replay, masking,
numpy == Keras, and the config (one settings path, validated)."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

import agents
import games
from agents import dqn
from agents.dqn.config import DQNConfig
from agents.learned import LearnedAgent, NumpyNetwork
from agents.learning.keras_helpers import init_tensorflow
from games import UserError
from games.config import config_from_dict, settings_help

TINY = {
    "hidden_layers": [32, 32],
    "games_per_batch": 16,
    "updates_per_batch": 2,
    "batch_size": 32,
    "min_replay": 32,
    "replay_size": 2_000,
    "epsilon_decay_episodes": 64,
    "eval_every": 0,
    "eval_games": 4,
    "eval_opponents": ["random"],
    "checkpoint_minutes": 100.0,
}


def tiny(**settings) -> DQNConfig:
    return config_from_dict(DQNConfig, {**TINY, **settings})


def random_net(rng, sizes=(18, 8, 9)) -> NumpyNetwork:
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(size=(a, b)), np.zeros(b)]
    return NumpyNetwork(weights, ["relu"] * (len(sizes) - 2) + ["tanh"])


def random_states(game, count: int, rng: np.random.Generator) -> list:
    """Live states after a random number of random moves."""
    states = []
    while len(states) < count:
        s = game.new_initial_state(np.random.default_rng(rng.integers(2**32)))
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        if not s.is_terminal():
            states.append(s)
    return states


# --- Monte-Carlo targets ---------------------------------------------------------------------------
def test_targets_two_players_alternating():
    targets = dqn.episode_targets([0, 1, 0, 1, 0], [1.0, -1.0], gamma=0.9)
    np.testing.assert_allclose(targets, [0.81, -0.9, 0.9, -1.0, 1.0], rtol=1e-6)


def test_targets_three_players_irregular_order_and_gamma():
    # Incan Gold style: players drop out, so decisions are not evenly spread
    players = [0, 1, 2, 0, 2, 2, 1]
    targets = dqn.episode_targets(players, [1.0, -1.0, 0.5], gamma=0.5)
    # player 0: 2 decisions -> 0.5, 1; player 1: 2 -> -0.5, -1; player 2 (return 0.5): 3 -> 0.125, 0.25, 0.5
    expected = [0.5, -0.5, 0.5 * 0.25, 1.0, 0.5 * 0.5, 0.5, -1.0]
    np.testing.assert_allclose(targets, expected, rtol=1e-6)


def test_targets_gamma_one_is_the_return_everywhere():
    targets = dqn.episode_targets([2, 0, 1, 2, 0, 1], [0.0, 1.0, -1.0], gamma=1.0)
    np.testing.assert_allclose(targets, [-1, 0, 1, -1, 0, 1])


# --- self-play -------------------------------------------------------------------------------------
def test_self_play_targets_match_each_games_returns():
    game = games.make("tic_tac_toe")
    rng = np.random.default_rng(0)
    recorder = dqn.SelfPlayRecorder(random_net(rng), rng)
    obs, actions, targets, returns = dqn.self_play(game, recorder, 20, 0.3, 0.9, rng)
    assert len(obs) == len(actions) == len(targets) == sum(len(d) for d in recorder.decisions)
    for g, decisions in enumerate(recorder.decisions):
        last = {}
        for player, row in decisions:
            last[player] = row
        for player, row in last.items():  # each player's last decision gets its return
            assert targets[row] == pytest.approx(returns[g][player])
    # the observation rows are what the mover saw: own pieces never overlap the opponent's
    assert not np.any(obs[:, :9] * obs[:, 9:])


def test_opponent_mix_and_random_openings_record_only_the_networks_decisions():
    game = games.make("tic_tac_toe")
    rng = np.random.default_rng(4)
    recorder = dqn.SelfPlayRecorder(random_net(rng), rng)
    heuristic = agents.make("heuristic", game, seed=0)
    obs, actions, _, _ = dqn.self_play(
        game, recorder, 40, 0.0, 1.0, rng, random_opening_moves=3, opponents=[(heuristic, 0.5)]
    )
    seats_seen = [{p for p, _ in d} for d in recorder.decisions]
    assert all(len(s) == 1 for s in seats_seen[:20])  # the heuristic held the other seat
    assert all(s == {0, 1} for s in seats_seen[20:])  # pure self-play
    assert {next(iter(s)) for s in seats_seen[:20]} == {0, 1}  # the network's seat varies
    assert len(obs) == sum(len(d) for d in recorder.decisions)
    # with epsilon 0 only the openings are random: greedy play from identical openings repeats
    assert 1 < len({tuple(actions[[r for _, r in d]]) for d in recorder.decisions[20:]}) <= 20


def test_connect_four_mirror_is_the_mirrored_game():
    game = games.make("connect_four")
    rng = np.random.default_rng(6)
    a, b = game.new_initial_state(rng), game.new_initial_state(rng)
    obs_a, obs_b, moves = [], [], []
    while not a.is_terminal():
        move = int(rng.choice(a.legal_actions()))
        obs_a.append(a.observation(a.current_player))
        obs_b.append(b.observation(b.current_player))
        moves.append(move)
        a.apply_action(move)
        b.apply_action(6 - move)
    mirror = games.make("connect_four").facts.mirror
    mirrored_obs, mirrored_moves = mirror.observations(np.stack(obs_a)), mirror.actions(np.array(moves))
    np.testing.assert_array_equal(mirrored_obs, np.stack(obs_b))
    np.testing.assert_array_equal(mirrored_moves, 6 - np.array(moves))
    with pytest.raises(UserError, match="mirror"):
        dqn.DQNLearner("tic_tac_toe", tiny(mirror_augment=True))


def test_replay_ring_keeps_the_newest_rows_and_restores_from_its_arrays():
    replay = dqn.target_replay(5, 2)
    for start in (0, 3, 6):  # 9 rows into 5: rows 4..8 stay
        rows = np.arange(start, start + 3)
        replay.add({"obs": np.stack([rows, rows], 1).astype(np.float32), "actions": rows, "targets": rows + 0.5})
    assert replay.size == 5 and sorted(replay.columns["actions"].tolist()) == [4, 5, 6, 7, 8]
    assert replay.pos == 4 and sorted(replay.columns["targets"].tolist()) == [4.5, 5.5, 6.5, 7.5, 8.5]
    copy = dqn.target_replay(5, 2)
    copy.restore(replay.arrays(), replay.size, replay.pos)
    for name, column in replay.columns.items():
        np.testing.assert_array_equal(copy.columns[name], column)
    assert copy.pos == replay.pos
    sampled = replay.sample(np.random.default_rng(0), (3, 4))
    assert sampled["obs"].shape == (3, 4, 2) and set(sampled["actions"].ravel()) <= {4, 5, 6, 7, 8}
    with pytest.raises(ValueError, match="do not fit"):
        dqn.target_replay(3, 2).restore(replay.arrays(), replay.size, 2)


# --- masking ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", games.GAME_NAMES)
def test_untrained_agents_never_choose_illegal_actions(game_name):
    game = games.make(game_name)
    rng = np.random.default_rng(1)
    sizes = [game.observation_size, 16, game.num_actions]
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(scale=3.0, size=(a, b)), rng.normal(size=b)]
    net = NumpyNetwork(weights, ["relu", "tanh"])
    states = random_states(game, 300, rng)
    masks = np.stack([s.legal_mask() for s in states])
    recorder = dqn.SelfPlayRecorder(net, rng)
    recorder.start(states, epsilon=0.5)
    for agent in (LearnedAgent(game, net), recorder):
        actions = agent.act(states)
        assert masks[np.arange(len(states)), actions].all()


def test_numpy_forward_equals_keras_forward():
    game = games.make("tic_tac_toe")
    config = tiny(seed=5, hidden_layers=[40, 30])
    init_tensorflow(5)
    model = dqn.build_q_network(game, config)
    obs = np.random.default_rng(0).random((64, game.observation_size)).astype(np.float32)
    np.testing.assert_allclose(dqn.numpy_network(model, config)(obs), model(obs).numpy(), atol=1e-5)


# --- config ------------------------------------------------------------------------------------------
def test_config_file_unknown_key_and_bad_type_are_user_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("learning_rate = 0.01\nlearnign_rate = 0.1\n")
    with pytest.raises(UserError, match="learnign_rate"):
        dqn.load_config("tic_tac_toe", bad)
    bad.write_text('batch_size = "big"\n')
    with pytest.raises(UserError, match="batch_size"):
        dqn.load_config("tic_tac_toe", bad)
    bad.write_text("hidden_layers = [64, 0]\n")
    with pytest.raises(UserError, match="hidden_layers"):
        dqn.load_config("tic_tac_toe", bad)
    good = tmp_path / "good.toml"
    good.write_text("learning_rate = 1\nhidden_layers = [64, 64]\n[game_config]\n[opponent_mix]\nrandom = 0\n")
    config = dqn.load_config("tic_tac_toe", good, seed=7)
    assert config.learning_rate == 1.0 and config.hidden_layers == [64, 64] and config.seed == 7
    assert config.opponent_mix == {"random": 0.0}
    assert config.eval_opponents == ["random", "heuristic", "minimax"]  # the per-game default stays


def test_config_refuses_non_finite_numbers_and_seeds_numpy_cannot_take(tmp_path):
    nan = tmp_path / "nan.toml"
    nan.write_text("learning_rate = nan\n")
    with pytest.raises(UserError, match="learning_rate must be a finite number"):
        dqn.load_config("tic_tac_toe", nan)
    for seed in (-1, 2**32):
        with pytest.raises(UserError, match="seed must be in 0..4294967295"):
            dqn.load_config("tic_tac_toe", seed=seed)
    with pytest.raises(UserError, match="unknown game"):
        dqn.load_config("chess")


def test_config_from_json_and_the_per_game_defaults(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"gamma": 0.5, "opponent_mix": {"heuristic": 0.25}}))
    config = dqn.load_config("connect_four", path)
    assert config.gamma == 0.5 and config.opponent_mix == {"heuristic": 0.25}
    assert config.mirror_augment and config.random_opening_moves == 6  # connect_four's defaults
    assert dqn.default_config("tic_tac_toe").episodes == 80_000
    assert dqn.default_config("gwent_lite") == DQNConfig(**dqn.GAME_DEFAULTS["gwent_lite"])


def test_every_setting_has_help_and_the_command_line_gets_a_flag_for_it():
    from deckopt.commands._config_flags import add_config_flags, config_overrides

    names = {f for f in DQNConfig.__dataclass_fields__}
    assert set(settings_help(DQNConfig)) == names
    parser = argparse.ArgumentParser()
    add_config_flags(parser, DQNConfig, skip=("seed",))
    args = parser.parse_args(
        [
            "--hidden-layers",
            "64,32",
            "--learning-rate",
            "3e-4",
            "--eval-opponents",
            "random,heuristic",
            "--mirror-augment",
        ]
    )
    assert config_overrides(args, DQNConfig) == {
        "hidden_layers": [64, 32],
        "learning_rate": 3e-4,
        "eval_opponents": ["random", "heuristic"],
        "mirror_augment": True,
    }
