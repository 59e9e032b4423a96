"""The ancestor's way of play: one model call per move, greedy over the legal actions."""

from __future__ import annotations

import numpy as np

import games
from deckopt.bench import ancestor


class CountingModel:
    """Stands in for a Keras model: prefers the highest action index, counts its calls."""

    def __init__(self, num_actions: int):
        self.q = np.arange(num_actions, dtype=np.float32)[None]
        self.calls = 0

    def __call__(self, obs):
        assert obs.ndim == 2 and obs.shape[0] == 1  # one observation per call, the ancestor's way
        self.calls += 1
        return self.q


def test_one_call_per_move_and_only_legal_greedy_moves():
    game = games.make("tic_tac_toe")
    model = CountingModel(game.num_actions)
    state = game.new_initial_state(np.random.default_rng(0))
    moves = ancestor.play_game(model, state)
    assert state.is_terminal() and moves == model.calls
    # greedy: always the highest legal action, so replaying that policy ends after the same moves
    replay = game.new_initial_state(np.random.default_rng(0))
    for _ in range(moves):
        replay.apply_action(int(np.flatnonzero(replay.legal_mask())[-1]))
    assert replay.is_terminal()


def test_epsilon_one_never_calls_the_model():
    game = games.make("connect_four")
    model = CountingModel(game.num_actions)
    moves = ancestor.play_game(model, game.new_initial_state(np.random.default_rng(1)), np.random.default_rng(2), 1.0)
    assert moves > 0 and model.calls == 0
