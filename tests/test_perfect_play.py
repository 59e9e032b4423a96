"""Agents against perfect play (agents/perfect_play.py, `deckopt eval --perfect N`): Connect Four positions
solved exactly, and the Exploding Kittens shortfall from the game value with open hands."""

from __future__ import annotations

import numpy as np
import pytest

import games
from agents import make
from agents.base import Agent
from agents.connect_four_solver import Solver
from agents.perfect_play import connect_four_positions, kept_outcomes, kittens_shortfall, solved_connect_four_positions
from deckopt.cli import main
from games import UserError
from games import exploding_kittens_exact as dp


@pytest.fixture(scope="module")
def open_kittens():
    return games.make("exploding_kittens", open_hands=True)


def test_perfect_play_gives_up_nothing(open_kittens):
    out = kittens_shortfall(open_kittens, make("exact", open_kittens, seed=0), 60, seed=3)
    assert out["games"] == 60 and out["decisions"] > 60 and out["losing_decisions"] == 0
    for seat in ("0", "1"):
        r = out["by_seat"][seat]
        # nothing seen lost: a rule-of-three bound (a game loses at most 1, in under 3/30 of them)
        assert r["shortfall"] == 0.0 and r["games_losing_value"] == 0 and r["shortfall_ci95"] == [0.0, 0.1]


def test_the_shortfall_is_the_game_value_minus_the_result_on_average(open_kittens):
    # E[result] = game value - E[sum of the values given up]: checked for random play from each seat
    value0 = dp.game_value(open_kittens.config)
    out = kittens_shortfall(open_kittens, make("random", open_kittens, seed=1), 1200, seed=5)
    assert out["losing_decisions"] > 0
    for seat, value in (("0", value0), ("1", 1 - value0)):
        r = out["by_seat"][seat]
        lo, hi = r["shortfall_ci95"]
        assert 0.1 < lo <= r["shortfall"] <= hi < 0.5
        assert abs(value - r["shortfall"] - r["win_rate"]) < 0.06  # 600 games a seat: SE of the result 0.02
        assert hi - lo < 0.05  # far narrower than the result's own interval (+-0.035)


def test_the_shortfall_needs_open_hands(open_kittens):
    hidden = games.make("exploding_kittens")
    with pytest.raises(UserError, match="open_hands"):
        kittens_shortfall(hidden, make("random", hidden, seed=0), 2)
    with pytest.raises(UserError, match="Connect Four"):
        connect_four_positions(open_kittens, make("random", open_kittens, seed=0), 2)


class SolverAgent(Agent):
    """Perfect Connect Four play: a move of the best solved value."""

    spec = "solver"

    def act(self, states):
        out = []
        for s in states:
            solver, best = Solver(), None
            for a in s.legal_actions():
                child = s.clone()
                child.apply_action(a)
                v = -solver.value(child)
                if best is None or v > best[0]:
                    best = (v, a)
            out.append(best[1])
        return np.array(out)


def test_connect_four_positions_perfect_keeps_all_random_keeps_fewer():
    c4 = games.make("connect_four")
    late = (28, 32)  # few empty cells: every position solves at once
    perfect = connect_four_positions(c4, SolverAgent(), 12, seed=2, plies=late)
    assert perfect["kept"] == 1.0 and perfect["kept_critical"] in (1.0, None) and perfect["positions"] == 12
    rand = connect_four_positions(c4, make("random", c4, seed=0), 12, seed=2, plies=late)
    assert rand["critical"] == perfect["critical"] > 0  # the same positions for the same seed
    assert rand["kept"] < 1.0 and rand["kept_critical"] < 1.0
    lo, hi = rand["kept_ci95"]
    assert lo <= rand["kept"] <= hi


def test_solved_positions_check_several_agents_as_the_one_agent_check_does():
    c4 = games.make("connect_four")
    late = (28, 32)
    positions = solved_connect_four_positions(c4, 10, seed=4, plies=late)
    assert len(positions.states) == len(positions.move_values) == 10
    assert all(set(v) == set(s.legal_actions()) for s, v in zip(positions.states, positions.move_values))
    for spec in ("random", "heuristic"):
        alone = connect_four_positions(c4, make(spec, c4, seed=1), 10, seed=4, plies=late)
        assert kept_outcomes(make(spec, c4, seed=1), positions) == alone
    assert kept_outcomes(SolverAgent(), positions)["kept"] == 1.0


def test_eval_perfect_on_a_game_without_perfect_play_is_one_line(capsys):
    assert main(["eval", "tic_tac_toe", "random", "--games", "2", "--perfect", "3"]) == 2
    err = capsys.readouterr().err
    assert (
        "perfect play of tic_tac_toe is not known" in err
        and "Traceback" not in err
        and len(err.strip().splitlines()) == 1
    )
    assert main(["eval", "exploding_kittens", "random", "--games", "2", "--vs", "random", "--perfect", "3"]) == 2
    assert "is known with open_hands = true only" in capsys.readouterr().err


def test_eval_perfect_reports_the_shortfall(capsys):
    argv = ["eval", "exploding_kittens", "random", "--vs", "exact", "--games", "4", "--set", "open_hands=true"]
    assert main([*argv, "--perfect", "20"]) == 0
    out = capsys.readouterr().out
    assert "shortfall from the game value against exact (20 games" in out and "as player 1:" in out
