"""Game facts (games.base.GameFacts) decide what the agents and commands do with a game, never its
name: a game of another name with the same facts is treated alike, and one without them is refused
in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import games
from agents.base import RuleAgent
from agents.evaluate import default_opponents, evaluate_spec, exploitability
from agents.heuristics.tic_tac_toe import HeuristicAgent
from agents.learning.loop import columns_of
from agents.perfect_play import check_of
from games.base import GameFacts
from games.connect_four import ConnectFour
from games.tic_tac_toe import TicTacToe


class FirstLegal(RuleAgent):
    """Always the first legal cell: a deterministic agent, which the exact best response needs."""

    deterministic = True

    def choose(self, state) -> int:
        return state.legal_actions()[0]


BOTS = {"heuristic": HeuristicAgent, "first": FirstLegal}


class Noughts(TicTacToe):
    """Tic Tac Toe under another name (a plug-in's): its exact exploitability is computable."""

    name = "noughts"
    facts = GameFacts(exact_exploitability=True, bots=BOTS)


class Blind(TicTacToe):
    """Tic Tac Toe under another name, declaring nothing but its heuristic."""

    name = "blind"
    facts = GameFacts(bots=BOTS)


def test_exact_exploitability_follows_the_facts_not_the_name():
    noughts, blind = Noughts(), Blind()
    report = evaluate_spec(noughts, "first", ["random"], 4)
    first = FirstLegal(games.make("tic_tac_toe"), np.random.default_rng(0))
    assert report["exploitability"] == exploitability(games.make("tic_tac_toe"), first)
    assert report["exploitability"]["exploitability"] == 1.0  # the first free cell loses to a best response
    assert "exploitability" not in evaluate_spec(blind, "first", ["random"], 4)
    with pytest.raises(games.UserError, match="not blind"):
        exploitability(blind, agents.make("first", blind))


def test_the_training_logs_exploitability_where_the_facts_say_so():
    class Learner:
        COLUMNS, EXPLOITABILITY = (), True

    class Config:
        eval_opponents = ["random"]

    assert columns_of(Learner, Noughts(), Config)[-1] == "exploitability"
    assert "exploitability" not in columns_of(Learner, Blind(), Config)


def test_eval_opponents_and_perfect_play_are_facts():
    assert default_opponents(games.make("tic_tac_toe")) == ["random", "heuristic", "minimax"]
    assert default_opponents(Noughts()) == ["random", "heuristic"]
    assert check_of(games.make("connect_four")).report_key == "positions"
    assert check_of(games.make("exploding_kittens", open_hands=True)).report_key == "shortfall"
    with pytest.raises(games.UserError, match="known with open_hands = true only"):
        check_of(games.make("exploding_kittens"))

    class Renamed(ConnectFour):
        name = "four_in_a_row"

    assert check_of(Renamed()).report_key == "positions"  # its facts are Connect Four's


def test_the_seats_of_a_match_follow_the_players_fact(capsys):
    from deckopt.cli import main

    assert main(["match", "durak", "random", "random", "random", "--games", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {seat for a in result["agents"] for seat in a["by_seat"]} == {"0", "1", "2"}  # three specs, three seats
    assert games.make("durak").facts.players == (2, 4) and games.make("tic_tac_toe").facts.players is None


def test_a_state_of_noughts_is_checked_like_tic_tac_toe():
    state = Noughts().new_initial_state(np.random.default_rng(0))
    state.apply_action(np.int64(4))
    with pytest.raises(games.IllegalActionError):
        state.apply_action(4)
