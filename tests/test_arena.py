"""The lock-step arena: seating, mirrored chance, outcome counting, determinism."""

import numpy as np
import pytest

import agents
import games
from agents.arena import play_match, play_states, seating
from agents.base import Agent
from agents.panel import AgentPanel, seat_members
from agents.stats import mean_ci, wilson_ci


def test_outcomes_win_draw_loss():
    outcomes = games.make("incan_gold").outcomes
    assert outcomes(np.array([1.0, -1.0])).tolist() == [1, -1]
    assert outcomes(np.array([0.0, 0.0])).tolist() == [0, 0]
    # shared first place among three, the third loses
    assert outcomes(np.array([0.0, 0.0, -1.0])).tolist() == [0, 0, -1]
    # rank-based returns: only the top is a win
    assert outcomes(np.array([1.0, 0.0, -1.0])).tolist() == [1, -1, -1]
    # Durak: a win is not being the durak; no durak is a draw for everyone
    durak = games.make("durak", num_players=3).outcomes
    assert durak(np.array([0.5, -1.0, 0.5])).tolist() == [1, -1, 1]
    assert durak(np.array([0.0, 0.0, 0.0])).tolist() == [0, 0, 0]


def test_seatings_rotate_every_agent_through_every_seat():
    s = [seating(3, 3, g) for g in range(6)]
    assert s[:3] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    for agent in range(3):
        seats = [g.index(agent) for g in s[:3]]
        assert sorted(seats) == [0, 1, 2]
    # two agents in three seats: agent 0 fills the spare seat
    assert seating(3, 2, 0) == [0, 1, 0]
    assert seating(3, 2, 1, rotate=False) == [0, 1, 0]


class FirstLegal(Agent):
    spec = "first"

    def __init__(self):
        self.calls = 0

    def act(self, states):
        self.calls += 1
        return np.array([s.legal_actions()[0] for s in states])


def test_lockstep_calls_each_agent_once_per_step():
    game = games.make("tic_tac_toe")
    a, b = FirstLegal(), FirstLegal()
    states = [game.new_initial_state(np.random.default_rng(i)) for i in range(50)]
    play_states(states, [[0, 1]] * 50, [a, b])
    assert all(s.is_terminal() for s in states)
    # first-legal vs first-legal: player 0 wins on its 4th move (cells 0,2,4,6 -> diagonal 2-4-6)
    assert a.calls + b.calls <= 9
    assert all(s.returns().tolist() == [1.0, -1.0] for s in states)


def test_match_counts_and_is_reproducible():
    game = games.make("tic_tac_toe")

    def run(seed):
        players = [agents.make("random", game, seed=[seed, 1]), agents.make("random", game, seed=[seed, 2])]
        return play_match(game, players, 200, seed=seed).as_dict()

    r1, r2 = run(5), run(5)
    assert r1 == r2
    for a in r1["agents"]:
        assert a["wins"] + a["draws"] + a["losses"] == 200
        assert a["win_rate_ci95"][0] <= a["win_rate"] <= a["win_rate_ci95"][1]
        assert a["ci95"][0] <= a["score"] <= a["ci95"][1] and a["games"] == 200
        assert set(a["by_seat"]) == {"0", "1"}
    # zero-sum: one's wins are the other's losses
    assert r1["agents"][0]["wins"] == r1["agents"][1]["losses"]
    assert run(6) != r1


class CountingFirstLegal(FirstLegal):
    def __init__(self):
        super().__init__()
        self.moves = 0

    def act(self, states):
        self.moves += len(states)
        return super().act(states)


def test_panel_plays_each_deal_with_one_member():
    # first-legal vs first-legal: seat 0 moves 4 times (and wins), seat 1 moves 3 times; a deal is
    # two games (seats swapped), so one member's deal is 7 moves. Seed 1: deals 0, 1, 2 -> members 1, 0, 1
    game = games.make("tic_tac_toe")
    a, b = CountingFirstLegal(), CountingFirstLegal()
    result = play_match(game, [AgentPanel((a, b), ("a", "b"), "ab"), FirstLegal()], 6, seed=1)
    assert (a.moves, b.moves) == (7, 14)
    assert result.agents[0].spec == "ab" and result.agents[0].games == 6


def test_seat_members_maps_panel_seats_to_the_member_of_the_deal():
    a, b, c = FirstLegal(), FirstLegal(), FirstLegal()
    players, rows = seat_members([AgentPanel((a, b), ("a", "b")), c], [[0, 1], [1, 0], [0, 1]], [0, 0, 1], 1)
    assert players == [a, b, c]
    assert rows == [[1, 2], [2, 1], [0, 2]]


def test_match_rejects_too_many_agents():
    game = games.make("tic_tac_toe")
    with pytest.raises(ValueError):
        play_match(game, [agents.make("random", game)] * 3, 2)


def test_wilson_and_mean_ci():
    lo, hi = wilson_ci(50, 100)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(2 * 0.0963, abs=0.005)
    assert wilson_ci(0, 10)[0] == 0.0 and wilson_ci(10, 10)[1] == pytest.approx(1.0)
    m, lo, hi = mean_ci([0, 1] * 50)
    assert m == 0.5 and lo < 0.5 < hi
