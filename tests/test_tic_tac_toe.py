"""Tic Tac Toe (games/RULES.md §2): hand-worked positions and Tic-Tac-Toe-specific properties over
seeded random games (the game interface itself: tests/test_conformance.py)."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games import TERMINAL, IllegalActionError


@pytest.fixture(scope="module")
def game():
    return games.make("tic_tac_toe")


def play(game, moves):
    s = game.new_initial_state(np.random.default_rng(0))
    for a in moves:
        s.apply_action(a)
    return s


def test_interface_facts(game):
    assert (game.name, game.num_players, game.num_actions, game.observation_size) == ("tic_tac_toe", 2, 9, 18)
    s = game.new_initial_state(np.random.default_rng(0))
    assert s.current_player == 0 and s.legal_actions() == list(range(9))
    assert s.returns().tolist() == [0.0, 0.0] and s.winner is None


@pytest.mark.parametrize(
    "moves,winner",
    [
        ([0, 3, 1, 4, 2], 0),  # top row
        ([0, 3, 1, 4, 8, 5], 1),  # middle row for O
        ([0, 1, 3, 2, 6], 0),  # left column
        ([0, 1, 4, 2, 8], 0),  # main diagonal
        ([0, 2, 1, 4, 3, 6], 1),  # anti-diagonal for O
        ([1, 0, 2, 4, 3, 8], 1),  # O on the main diagonal
    ],
)
def test_three_in_a_line_wins(game, moves, winner):
    s = play(game, moves[:-1])
    assert not s.is_terminal()
    s.apply_action(moves[-1])
    assert s.is_terminal() and s.current_player == TERMINAL and s.winner == winner
    assert s.returns()[winner] == 1 and s.returns()[1 - winner] == -1
    assert not s.legal_mask().any() and s.legal_actions() == []
    with pytest.raises(IllegalActionError):
        s.apply_action(next(a for a in range(9) if a not in moves))


def test_full_board_without_a_line_is_a_draw(game):
    s = play(game, [0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert s.is_terminal() and s.winner is None and s.returns().tolist() == [0.0, 0.0]
    assert "draw" in str(s)


@pytest.mark.parametrize("bad", [4, -1, 9, 2.5, 1.0, True, "1", None])
def test_illegal_actions_raise(game, bad):
    s = play(game, [4])
    with pytest.raises(IllegalActionError):
        s.apply_action(bad)
    assert s.current_player == 1 and s.board.count(-1) == 8


def test_properties_over_random_games(game):
    rng = np.random.default_rng(0)
    for _ in range(500):
        s = game.new_initial_state(rng)
        n = 0
        while not s.is_terminal():
            mask = s.legal_mask()
            assert mask.any() and np.flatnonzero(mask).tolist() == s.legal_actions()
            me = s.current_player
            assert me == n % 2
            obs = s.observation(me)
            assert obs.dtype == np.float32 and obs.shape == (18,) and np.isfinite(obs).all()
            assert set(np.unique(obs).tolist()) <= {0.0, 1.0}
            assert obs[:9].sum() == obs[9:].sum() - me  # own plane first
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            n += 1
        assert 5 <= n <= 9
        r = s.returns()
        assert r.sum() == 0 and set(r.tolist()) <= {-1.0, 0.0, 1.0}


def test_config_has_nothing_to_set():
    with pytest.raises(games.UserError, match="tic_tac_toe: unknown setting"):
        games.make("tic_tac_toe", size=4)


def test_numpy_integers_are_accepted(game):
    s = play(game, [np.int64(4), np.int32(0)])
    assert s.board[4] == 0 and s.board[0] == 1
