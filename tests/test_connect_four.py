"""Connect Four (games/RULES.md §3): hand-worked positions and Connect-Four-specific properties over
seeded random games (the game interface itself: tests/test_conformance.py)."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games import TERMINAL, IllegalActionError, UserError
from games.connect_four import winning_cells


@pytest.fixture(scope="module")
def game():
    return games.make("connect_four")


def play(game, moves):
    s = game.new_initial_state(np.random.default_rng(0))
    for a in moves:
        s.apply_action(a)
    return s


def test_interface_facts(game):
    assert (game.name, game.num_players, game.num_actions, game.observation_size) == ("connect_four", 2, 7, 84)
    s = game.new_initial_state(np.random.default_rng(0))
    assert s.current_player == 0 and not s.is_terminal()
    assert s.legal_mask().tolist() == [True] * 7
    assert s.legal_actions() == list(range(7))
    assert s.returns().tolist() == [0.0, 0.0]
    assert (s.board == -1).all() and s.board.shape == (6, 7)
    assert s.winner is None


def test_pieces_fall_to_the_bottom_row_zero_is_top(game):
    s = play(game, [3, 3, 0])
    b = s.board
    assert b[5, 3] == 0 and b[4, 3] == 1 and b[5, 0] == 0
    assert (b == -1).sum() == 42 - 3
    assert s.heights == (1, 0, 0, 2, 0, 0, 0)
    text = str(s).splitlines()
    assert text[5] == "X . . X . . ." and text[4] == ". . . O . . ."
    assert "player 1 (O) to move" in str(s)


def test_board_is_a_copy(game):
    s = play(game, [3])
    b = s.board
    b[:] = 1
    assert s.board[5, 3] == 0 and (s.board == -1).sum() == 41


def line_directions(board: np.ndarray, player: int) -> set[str]:
    """Directions in which `player` has four in a row on a board array (row 0 at the top)."""
    found = set()
    steps = {"horizontal": (0, 1), "vertical": (1, 0), "diagonal \\": (1, 1), "diagonal /": (1, -1)}
    for r in range(6):
        for c in range(7):
            for name, (dr, dc) in steps.items():
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < 6 and 0 <= cc < 7 and board[rr, cc] == player for rr, cc in cells):
                    found.add(name)
    return found


# (moves, winner, direction): every direction of four, for each player
WINS = [
    ([0, 6, 1, 6, 2, 6, 3], 0, "horizontal"),  # bottom row
    ([3, 0, 3, 0, 3, 0, 3], 0, "vertical"),
    ([6, 0, 5, 1, 5, 2, 4, 3], 1, "horizontal"),
    ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 0, "diagonal /"),  # rising from the bottom of column 0
    ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 0, "diagonal \\"),  # rising from the bottom of column 6
    ([6, 0, 1, 1, 2, 2, 6, 2, 3, 3, 6, 3, 5, 3], 1, "diagonal /"),
    ([0, 2, 0, 1, 0, 3, 1, 5, 4, 2, 5, 1, 1, 0], 1, "diagonal \\"),  # from the top of column 0 down
    ([6, 4, 4, 2, 2, 2, 4, 3, 0, 0, 1, 3, 4, 6, 5, 1, 3], 0, "diagonal /"),
    ([3, 0, 3, 3, 1, 3, 1, 3, 2, 3], 1, "vertical"),  # on top of two X in column 3
]


@pytest.mark.parametrize("moves,winner,direction", WINS)
def test_four_in_a_row_wins(game, moves, winner, direction):
    s = play(game, moves[:-1])
    assert not s.is_terminal(), "the win must come with the last move, not before"
    s.apply_action(moves[-1])
    assert s.is_terminal() and s.current_player == TERMINAL
    assert s.winner == winner
    assert line_directions(s.board, winner) == {direction}
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert s.returns().tolist() == expected
    assert not s.legal_mask().any() and s.legal_actions() == []
    assert f"player {winner}" in str(s) and "wins" in str(s)


def test_three_in_a_row_and_split_lines_do_not_win(game):
    # X at cols 0,1,2 and 4 (gap at 3): no four
    s = play(game, [0, 0, 1, 1, 2, 2, 4, 6])
    assert not s.is_terminal()
    # no wrap-around between columns: X on the top three rows of column 0 and the bottom of
    # column 1 (bits 3, 4, 5 and 7; bit 6 is the empty sentinel) is not a line
    s = play(game, [1, 0, 6, 0, 6, 0, 0, 5, 0, 5, 0])
    assert s.board[:3, 0].tolist() == [0, 0, 0] and s.board[5, 1] == 0
    assert not s.is_terminal() and s.current_player == 1


def test_full_column_is_illegal(game):
    s = play(game, [2, 2, 2, 2, 2, 2])
    assert s.legal_mask().tolist() == [True, True, False, True, True, True, True]
    assert 2 not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="not legal"):
        s.apply_action(2)
    # the failed move changed nothing
    assert s.current_player == 0 and s.num_moves == 6 and s.heights[2] == 6


@pytest.mark.parametrize("bad", [-1, 7, 100, 2.0, 2.5, "3", None, True, np.float32(1)])
def test_bad_actions_raise_and_change_nothing(game, bad):
    s = play(game, [3])
    before = s.board
    with pytest.raises(IllegalActionError):
        s.apply_action(bad)
    assert (s.board == before).all() and s.current_player == 1
    assert issubclass(IllegalActionError, UserError)


def test_numpy_integers_are_accepted(game):
    s = play(game, [np.int64(3), np.int32(4)])
    assert s.board[5, 3] == 0 and s.board[5, 4] == 1


def test_no_move_after_the_end(game):
    s = play(game, WINS[0][0])
    with pytest.raises(IllegalActionError, match="ended"):
        s.apply_action(5)


# a drawn full board: columns filled in pairs in an order that never lines up four
DRAW = [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 2, 3, 2, 3, 2, 3, 3, 2, 3, 2, 3, 2, 4, 5, 4, 5, 4, 5, 5, 4, 5, 4, 5, 4]
DRAW += [6, 6, 6, 6, 6, 6]


def test_full_board_is_a_draw(game):
    s = play(game, DRAW[:-1])
    assert not s.is_terminal() and s.legal_actions() == [6]
    s.apply_action(DRAW[-1])
    assert s.is_terminal() and s.winner is None and s.is_draw
    assert s.returns().tolist() == [0.0, 0.0]
    assert not (s.board == -1).any()
    assert line_directions(s.board, 0) == line_directions(s.board, 1) == set()
    assert "draw" in str(s)


def test_winning_cells(game):
    s = play(game, [0, 6, 1, 6, 2])  # X threatens column 3 on the bottom row
    b0, b1 = s.bitboards
    w = winning_cells(b0, b0 | b1)
    assert w == s.landing_bit(3)
    assert winning_cells(b1, b0 | b1) == 0


def test_clone_is_independent(game):
    s = play(game, [3, 3])
    c = s.clone()
    c.apply_action(4)
    assert s.num_moves == 2 and c.num_moves == 3
    assert s.board[5, 4] == -1 and c.board[5, 4] == 0
    assert s.bitboards != c.bitboards


def test_observation_planes_from_the_viewer(game):
    s = play(game, [3, 4])  # X at (5,3), O at (5,4); X to move
    obs0 = s.observation(0).reshape(2, 6, 7)
    obs1 = s.observation(1).reshape(2, 6, 7)
    assert obs0[0, 5, 3] == 1 and obs0[1, 5, 4] == 1 and obs0.sum() == 2
    assert (obs1[0] == obs0[1]).all() and (obs1[1] == obs0[0]).all()


def random_games(game, n, seed=0):
    """n random games from one seed; yields (moves, list of states along the way)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        s = game.new_initial_state(rng)
        trail = [s.clone()]
        moves = []
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            s.apply_action(a)
            moves.append(a)
            trail.append(s.clone())
        yield moves, trail


def test_properties_over_random_games(game):
    n_wins = [0, 0, 0]  # player 0, player 1, draws
    for moves, trail in random_games(game, 500):
        assert 7 <= len(moves) <= 42
        for k, s in enumerate(trail):
            mask = s.legal_mask()
            assert mask.dtype == bool and mask.shape == (7,)
            assert np.flatnonzero(mask).tolist() == s.legal_actions()
            if s.is_terminal():
                assert k == len(trail) - 1 and not mask.any()
                r = s.returns()
                assert r.sum() == 0 and set(r.tolist()) <= {-1.0, 0.0, 1.0}
                n_wins[2 if s.winner is None else s.winner] += 1
                # the winner moved last
                if s.winner is not None:
                    assert s.winner == (len(moves) - 1) % 2
            else:
                assert mask.any() and s.current_player == k % 2
                assert s.returns().tolist() == [0.0, 0.0]
                me = s.current_player
                obs = s.observation(me)
                assert obs.dtype == np.float32 and obs.shape == (84,)
                assert np.isfinite(obs).all() and set(np.unique(obs).tolist()) <= {0.0, 1.0}
                # own pieces first: the mover has as many pieces as the opponent (X) or one fewer (O)
                own, other = obs[:42].sum(), obs[42:].sum()
                assert own == other - me
                assert obs[:42].sum() + obs[42:].sum() == s.num_moves
                board = s.board.ravel()
                assert (obs[:42] == (board == me)).all() and (obs[42:] == (board == 1 - me)).all()
    assert n_wins[0] > n_wins[1] > 0  # the first player wins more often at random


def test_same_seed_same_game(game):
    a = [m for m, _ in random_games(game, 20, seed=7)]
    b = [m for m, _ in random_games(game, 20, seed=7)]
    c = [m for m, _ in random_games(game, 20, seed=8)]
    assert a == b and a != c


def test_matches_a_plain_array_referee(game):
    """The bitboard engine agrees with a naive 6x7 array check on every move of random games."""

    def naive_winner(board):
        for r in range(6):
            for c in range(7):
                p = board[r][c]
                if p == -1:
                    continue
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    cells = [(r + k * dr, c + k * dc) for k in range(4)]
                    if all(0 <= rr < 6 and 0 <= cc < 7 and board[rr][cc] == p for rr, cc in cells):
                        return p
        return None

    for _, trail in random_games(game, 300, seed=3):
        for s in trail:
            board = s.board.tolist()
            assert naive_winner(board) == s.winner
