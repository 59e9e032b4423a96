"""Durak bots (agents/heuristics/durak.py): legal over many random states, the rule book's aggressive and
defensive policies card for card in hand-built positions, and the heuristic's habits."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_states
from test_durak import c, play, position

import agents
import games
from agents.arena import play_match
from games.durak import PASS

BOTS = ("aggressive", "defensive", "heuristic", "random")


def choice(spec: str, state) -> int:
    return int(agents.make(spec, state.game, seed=0).act([state])[0])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_bot_plays_legal_moves(n):
    game = games.make("durak", num_players=n)
    states = [s for s in random_states(game, 300, seed=n) if not s.is_terminal()]
    masks = game.legal_masks(states)
    for spec in BOTS:
        actions = agents.make(spec, game, seed=1).act(states)
        assert masks[np.arange(len(states)), actions].all(), spec
    result = play_match(game, [agents.make(spec, game, seed=2) for spec in BOTS[:n]], num_games=2 * n, seed=0)
    assert result.games == 2 * n  # whole games, no illegal action on the way


def test_named_bots_are_for_durak_only():
    with pytest.raises(games.UserError, match="only for durak, not tic_tac_toe"):
        agents.make("aggressive", games.make("tic_tac_toe"))
    assert agents.make("defensive", games.make("durak")).spec == "defensive"


# --- aggressive: highest non-trump to attack, else lowest trump; lowest beating card to defend ---------
def test_aggressive_attacks_with_its_highest_non_trump():
    s = position([["6c", "Kd", "9s", "7h", "Ah"], ["8s", "9c", "Jh", "Kc", "Ks", "Ac"]])  # hearts trump
    assert choice("aggressive", s) == c("Kd")


def test_aggressive_attacks_with_its_lowest_trump_when_it_holds_only_trumps():
    s = position([["7h", "Ah", "10h"], ["8s", "9c", "Jh", "Kc", "Ks", "Ac"]])
    assert choice("aggressive", s) == c("7h")


def test_aggressive_adds_its_highest_non_trump_of_a_table_rank_and_never_passes_while_it_can():
    s = position([["8c", "8h", "Kd", "Ks", "6c"], ["8s", "Kh", "Jd", "Kc", "As", "10c"]])
    play(s, "8c", "Kc")  # ranks 8, K on the table: 0 may add 8h (trump), Kd, Ks
    assert choice("aggressive", s) in (c("Kd"), c("Ks"))
    s2 = position([["8c", "8h", "6c"], ["8s", "Kh", "Jd", "Kc", "As", "10c"]])
    play(s2, "8c", "10c")
    assert choice("aggressive", s2) == c("8h")  # only a trump is left to add: it plays it


def test_aggressive_defends_with_the_lowest_card_that_beats():
    s = position([["7s", "9c"], ["8s", "Js", "6h", "Kh", "9d", "Ac"]])
    play(s, "7s")
    assert choice("aggressive", s) == c("8s")  # not Js, not a trump
    s2 = position([["Ks", "9c"], ["8s", "Js", "Qh", "6h", "9d", "Ac"]])
    play(s2, "Ks")
    assert choice("aggressive", s2) == c("6h")  # only trumps beat: the lowest


# --- defensive: the lowest playable card, attacking and defending --------------------------------
def test_defensive_attacks_adds_and_defends_with_its_lowest_card():
    s = position([["Jc", "7d", "6h", "Ah"], ["8s", "9c", "Jh", "Kc", "Ks", "Ac"]])
    assert choice("defensive", s) == c("7d")  # not 6h: a trump is stronger than any non-trump
    s2 = position([["Jc", "7h", "Ah"], ["8s", "9c", "Jh", "Kc", "Ks", "Ac"]])
    assert choice("defensive", s2) == c("Jc")
    play(s2, "Jc", "Kc")
    assert s2.bout == 2  # nothing of rank J or K to add: it passed without being asked
    s3 = position([["Jc", "7h", "Kd", "Ah"], ["8s", "9c", "Jh", "Kc", "Ks", "Ac"]])
    play(s3, "Jc", "Kc")
    assert choice("defensive", s3) == c("Kd")
    s4 = position([["7s", "9c"], ["8s", "Js", "6h", "Kh", "9d", "Ac"]])
    play(s4, "7s")
    assert choice("defensive", s4) == c("8s")


# --- heuristic ---------------------------------------------------------------------------------------
def test_heuristic_keeps_trumps_and_leads_low_pairs():
    s = position([["6h", "9c", "Qd", "8s", "Ah"], ["8c", "Jc", "Jh", "Kc", "Ks", "Ac"]], deck=["6c", "7c", "10h"])
    assert s.trump_suit == "h"
    assert choice("heuristic", s) == c("8s")  # 8s (the lowest plain card) rather than 6h, the trump
    s2 = position([["6h", "9c", "9s", "8s", "Ah"], ["8c", "Jc", "Jh", "Kc", "Ks", "Ac"]], deck=["6c", "7c", "10h"])
    assert choice("heuristic", s2) in (c("9c"), c("9s"))  # a pair of 9s counts as lower than the 8


def test_heuristic_takes_rather_than_spend_a_high_trump_early():
    hands = [["7s", "9c"], ["8c", "Jd", "Qd", "Kc", "9h", "Ac"]]
    deck = ["6c", "7c", "8d", "9d", "10d", "6s", "7d", "8h", "10c", "6d"]  # diamonds trump, deck of 10
    s = position(hands, deck=deck)
    play(s, "7s")  # only Jd, Qd beat it
    assert choice("heuristic", s) == PASS and choice("defensive", s) == c("Jd")
    s2 = position(hands, deck=["6d"])  # the last card: beat
    play(s2, "7s")
    assert choice("heuristic", s2) == c("Jd")


def test_heuristic_beats_with_a_card_of_a_rank_on_the_table_when_it_costs_the_same():
    s = position([["9s", "9c", "Qc"], ["10c", "10s", "Js", "Ac", "Kh", "6h"]], deck=["7c", "8c", "6d"])
    play(s, "9s", "10s", "9c")  # 9c to beat: 10c (rank 10 on the table) or Ac, Jc...
    assert choice("heuristic", s) == c("10c")
