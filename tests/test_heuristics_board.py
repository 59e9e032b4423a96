"""Board-game baselines: the heuristics beat random, minimax is perfect at Tic Tac Toe."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents.arena import play_match
from agents.minimax import MinimaxAgent, best_response_value, position_value, solve
from games import UserError


@pytest.fixture(scope="module")
def ttt():
    return games.make("tic_tac_toe")


@pytest.fixture(scope="module")
def c4():
    return games.make("connect_four")


def play(game, moves):
    s = game.new_initial_state(np.random.default_rng(0))
    for a in moves:
        s.apply_action(a)
    return s


def choices(agent, state, n=30):
    """Every action the agent picks over n asks (its tie-breaks are random)."""
    return {int(agent.act([state])[0]) for _ in range(n)}


def test_c4_heuristic_beats_random(c4):
    h = agents.make("heuristic", c4, seed=1)
    r = play_match(c4, [h, agents.make("random", c4, seed=2)], 200, seed=0)
    assert r.agents[0].win_rate >= 0.9
    assert r.agents[0].by_seat.keys() == {0, 1}  # it played both seats


def test_c4_heuristic_wins_blocks_and_does_not_feed(c4):
    h = agents.make("heuristic", c4, seed=0)
    # X to move with three on the bottom row (cols 0-2): win at 3
    assert choices(h, play(c4, [0, 6, 1, 6, 2, 5])) == {3}
    # O to move; X threatens column 3 on the bottom row: block
    assert choices(h, play(c4, [0, 6, 1, 6, 2])) == {3}
    # a win beats a block: O has three in column 6, X three on the bottom
    assert choices(h, play(c4, [0, 6, 1, 6, 2, 6, 5])) == {6}
    # X to move; O's three on the second row (cols 0-2) win at (row 1, col 3), right above
    # where a piece dropped in the centre column would land: X keeps out of column 3 and takes
    # the next most central columns instead
    s = play(c4, [0, 2, 1, 0, 5, 1, 6, 2])
    assert str(s).splitlines()[4:6] == ["O O O . . . .", "X X O . . X X"]
    assert choices(h, s, 60) == {2, 4}


def test_c4_heuristic_is_seeded(c4):
    s = play(c4, [])
    a = [int(agents.make("heuristic", c4, seed=5).act([s])[0]) for _ in range(5)]
    b = [int(agents.make("heuristic", c4, seed=5).act([s])[0]) for _ in range(5)]
    assert a == b == [3] * 5  # the centre, without doubt


def test_ttt_heuristic_takes_a_win_and_blocks(ttt):
    h = agents.make("heuristic", ttt, seed=0)
    # X: 0, 1 ; O: 3, 4 ; X to move: win at 2 (not the block at 5)
    assert choices(h, play(ttt, [0, 3, 1, 4])) == {2}
    # X: 0, 1 ; O: 4 ; O to move: block at 2
    assert choices(h, play(ttt, [0, 4, 1])) == {2}
    # empty board: the centre
    assert choices(h, play(ttt, [])) == {4}
    # after X takes the centre, O picks a corner, at random among the four
    assert choices(h, play(ttt, [4]), 80) == {0, 2, 6, 8}


def test_ttt_heuristic_beats_random(ttt):
    r = play_match(ttt, [agents.make("heuristic", ttt, 1), agents.make("random", ttt, 2)], 200, seed=0)
    assert r.agents[0].score >= 0.85 and r.agents[0].losses <= 10


def test_minimax_values(ttt):
    value, moves = solve(play(ttt, []))
    assert value == 0 and moves == tuple(range(9))  # every opening draws with best play
    # X 0, O 1 (an edge): X wins with best play
    s = play(ttt, [0, 1])
    assert solve(s)[0] == 1 and position_value(s, 0) == 1 and position_value(s, 1) == -1
    # X: 4, 8 ; O: 0, 1 ; X to move: only the block at 2 avoids losing
    s = play(ttt, [4, 0, 8, 1])
    assert solve(s)[1] == (2,)
    finished = play(ttt, [0, 3, 1, 4, 2])
    assert position_value(finished, 0) == 1
    with pytest.raises(UserError):
        MinimaxAgent(games.make("connect_four"), np.random.default_rng(0))


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_minimax_never_loses(ttt, opponent):
    m = agents.make("minimax", ttt, seed=1)
    r = play_match(ttt, [m, agents.make(opponent, ttt, seed=2)], 300, seed=0)
    assert r.agents[0].losses == 0
    assert r.agents[0].by_seat.keys() == {0, 1}
    if opponent == "random":
        assert r.agents[0].wins >= 200


def test_minimax_against_itself_always_draws(ttt):
    r = play_match(ttt, [agents.make("minimax", ttt, 1), agents.make("minimax", ttt, 2)], 200, seed=0)
    assert r.agents[0].draws == r.agents[1].draws == 200


def test_best_response_value(ttt):
    m = agents.make("minimax", ttt, seed=0)
    perfect = lambda s: int(m.act([s])[0])  # noqa: E731
    assert best_response_value(perfect, 0) == 0 and best_response_value(perfect, 1) == 0
    first_legal = lambda s: s.legal_actions()[0]  # noqa: E731
    assert best_response_value(first_legal, 0) == -1 and best_response_value(first_legal, 1) == -1
