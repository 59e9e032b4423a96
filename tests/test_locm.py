"""LOCM 1.2 rules (games/RULES.md §9) on hand-worked positions. The cross-check against gym-locm over
whole games is tests/test_locm_oracle.py."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games.locm import (
    ATTACK,
    CARDS,
    FIELDS,
    LANE_SPAN,
    PASS,
    PICK,
    SUMMON,
    USE,
    LocmState,
    keyword_bits,
)

BEAVRAT = 3  # 2/2 for 1
STEELPLUME = 65  # 2/2 Ward for 2
HEDGEHOG = 48  # 1/1 Lethal for 1
BOARHOUND = 69  # 4/4 Breakthrough for 3
IMP = 39  # 2/1 Drain for 1
ROOTKIN_DEFENDER = 94  # 1/4 Guard for 2
OWL = 83  # 1/1 Charge for 0
HERMIT_SLIME = 55  # 0/5 Guard for 2


def battle(deck0=(BEAVRAT,) * 30, deck1=(BEAVRAT,) * 30) -> LocmState:
    """A battle from given decks, not shuffled (each deck draws in its listed order)."""
    game = games.make("locm", decks=[list(deck0), list(deck1)])
    return game.state_from_chance(None, [list(range(30)), list(range(30))])


def put(state: LocmState, player: int, lane: int, card: int, ready: bool = True) -> int:
    """A creature of `card` placed on the board by hand (instance 100 + its place); its board index."""
    slot = 2 * player + lane
    at = slot * LANE_SPAN + state._lane_sizes[slot] * FIELDS
    c = CARDS[card]
    state._board[at : at + FIELDS] = [100 + at, card, c.attack, c.defense, c.keywords, int(ready), 0, 0]
    state._lane_sizes[slot] += 1
    return at


def creature(state: LocmState, player: int, lane: int, i: int) -> dict:
    return state.lanes(player)[lane][i]


def test_setup_draws_four_and_five_and_gives_player_1_the_bonus_mana():
    s = battle()
    assert s.phase == "battle" and s.current_player == 0
    assert s.hand_sizes == (5, 5) and s.deck_sizes == (25, 25)  # player 0 has drawn for turn 1
    assert s.player_facts(0)["mana"] == 1 and s.player_facts(1)["max_mana"] == 1  # 0 + the bonus
    s.apply_action(PASS)
    assert s.current_player == 1 and s.hand_sizes == (5, 6)
    assert s.player_facts(1)["mana"] == 2 and s.player_facts(1)["max_mana"] == 2


def test_player_1_loses_the_bonus_after_a_turn_that_spends_all_mana():
    s = battle()
    s.apply_action(PASS)
    s.apply_action(SUMMON)  # a Beavrat for 1 of 2 mana: the bonus stays
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.player_facts(1)["max_mana"] == 3  # 2 + bonus
    for _ in range(3):
        s.apply_action(SUMMON if s._lane_sizes[2] < 3 else SUMMON + 1)
    assert s.player_facts(1)["mana"] == 0
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.player_facts(1)["max_mana"] == 3  # 3 without the bonus, which is gone for good


def test_a_summoned_creature_waits_a_turn_unless_it_has_charge():
    s = battle(deck0=(BEAVRAT, OWL) + (BEAVRAT,) * 28)
    s.apply_action(SUMMON)  # Beavrat
    assert not creature(s, 0, 0, 0)["can_attack"]
    s.apply_action(SUMMON + 1)  # Owl, now at hand place 0, into the right lane: 0 mana
    assert creature(s, 0, 1, 0)["can_attack"]
    assert ATTACK + 4 * 3 in s.legal_actions() and ATTACK not in s.legal_actions()


def test_ward_stops_the_first_damage_and_zero_damage_keeps_it():
    s = battle()
    put(s, 0, 0, BEAVRAT)
    put(s, 1, 0, STEELPLUME)
    s.apply_action(ATTACK + 1)  # Beavrat (2) into the Ward 2/2: no damage, the Ward is lost
    target = creature(s, 1, 0, 0)
    assert target["defense"] == 2 and "W" not in target["keywords"]
    assert s.lanes(0)[0] == []  # the Beavrat took 2 and died
    s2 = battle()
    put(s2, 0, 0, HERMIT_SLIME)  # attack 0
    put(s2, 1, 0, STEELPLUME)
    s2.apply_action(ATTACK + 1)
    assert creature(s2, 1, 0, 0)["keywords"] == "-----W"  # 0 damage does not use the Ward


def test_lethal_kills_whatever_it_damages_but_not_through_a_ward():
    s = battle()
    put(s, 0, 0, HEDGEHOG)
    put(s, 1, 0, BOARHOUND)
    s.apply_action(ATTACK + 1)
    assert s.lanes(1)[0] == [] and s.lanes(0)[0] == []  # both die: lethal 1 damage, and 4 against 1
    s = battle()
    put(s, 0, 0, HEDGEHOG)
    put(s, 1, 0, STEELPLUME)
    s.apply_action(ATTACK + 1)
    assert creature(s, 1, 0, 0)["defense"] == 2  # the Ward took the hit: no damage, no kill


def test_breakthrough_deals_the_excess_to_the_opponent_and_drain_heals():
    s = battle()
    put(s, 0, 0, BOARHOUND)  # 4 attack
    put(s, 1, 0, IMP)  # 1 defense
    s.apply_action(ATTACK + 1)
    assert s.health == (30, 27) and creature(s, 0, 0, 0)["defense"] == 2  # 3 broke through; the Imp hit back
    s = battle()
    put(s, 0, 1, IMP)
    s._health[0] = 20
    s.apply_action(ATTACK + 4 * 3)  # the Imp attacks the opponent from the right lane
    assert s.health == (22, 28)


def test_guard_must_be_attacked_first_in_its_lane_only():
    s = battle()
    put(s, 0, 0, BOARHOUND)
    put(s, 0, 1, BOARHOUND)
    put(s, 1, 0, BEAVRAT)
    put(s, 1, 0, ROOTKIN_DEFENDER)
    legal = s.legal_actions()
    assert [a for a in legal if ATTACK <= a < ATTACK + 4] == [ATTACK + 2]  # only the Guard, enemy place 1
    assert ATTACK + 4 * 3 in legal  # the right lane has no Guard: the opponent is open


def test_runes_break_at_five_step_thresholds_and_give_a_draw_each():
    s = battle()
    put(s, 0, 0, BOARHOUND)
    s._board[2] = 11  # an 11-attack Boarhound
    s.apply_action(ATTACK)
    assert s.health[1] == 19 and s.player_facts(1)["rune"] == 15 and s.player_facts(1)["bonus_draw"] == 2
    s.apply_action(PASS)
    assert s.hand_sizes[1] == 5 + 3  # one card, plus two for the runes


def test_a_draw_from_an_empty_deck_costs_the_next_rune():
    s = battle()
    s._decks[1] = []
    s._health[1] = 23  # next rune 20
    s._rune[1] = 20
    s.apply_action(PASS)
    assert s.health[1] == 20 and s.player_facts(1)["rune"] == 15
    s._rune[1] = 0
    s._health[1] = 7
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.is_terminal() and s.returns().tolist() == [1.0, -1.0]


def test_a_full_hand_cancels_the_draw_and_a_full_lane_the_summon():
    s = battle()
    s._hands[1] += s._decks[1][-3:]
    del s._decks[1][-3:]
    assert s.hand_sizes[1] == 8
    s.apply_action(PASS)
    assert s.hand_sizes[1] == 8 and s.deck_sizes[1] == 22  # nothing drawn, the card stays in the deck
    for _ in range(3):
        put(s, 1, 0, BEAVRAT)
    assert all((a - SUMMON) % 2 == 1 for a in s.legal_actions() if SUMMON <= a < USE)


def test_items_change_creatures_and_players():
    protein, knife, firebolt = 117, 141, 155  # green +1/+1 B; red -1/-1; blue: 3 damage and 1 to the opponent
    s = battle(deck0=(protein, knife, firebolt) + (BEAVRAT,) * 27)
    s._mana[0] = 12
    put(s, 0, 0, BEAVRAT)
    put(s, 1, 1, BOARHOUND)
    s.apply_action(USE + 13 * 0 + 1)  # Protein on own left creature 0
    assert creature(s, 0, 0, 0) | {"can_attack": None} == {
        "instance": 100,
        "card": BEAVRAT,
        "attack": 3,
        "defense": 3,
        "keywords": "B-----",
        "can_attack": None,
    }
    s.apply_action(USE + 13 * 0 + 10)  # the knife (now hand place 0) on the enemy right creature 0
    assert (creature(s, 1, 1, 0)["attack"], creature(s, 1, 1, 0)["defense"]) == (3, 3)
    s.apply_action(USE + 13 * 0)  # Firebolt on no creature
    assert s.health == (30, 26) and s.player_facts(0)["mana"] == 12 - 1 - 0 - 3
    assert s.played[0] == (protein, knife, firebolt)


def test_the_draft_offers_the_same_three_to_both_and_each_pick_is_secret():
    game = games.make("locm")
    s = game.new_initial_state(np.random.default_rng(4))
    offered = s.offers()
    assert len(set(offered)) == 3 and s.legal_actions() == [PICK, PICK + 1, PICK + 2]
    before, seen = s.clone(), s.observation(1)
    s.apply_action(PICK + 2)
    assert s.current_player == 1 and s.offers() == offered and np.array_equal(s.observation(1), seen)
    assert s.describe_move(before, PICK + 2, viewer=1) == "player 0 picks a card"
    assert s.describe_move(before, PICK + 2, viewer=0) == f"you pick {CARDS[offered[2]].name}"
    for _ in range(59):
        s.apply_action(PICK)
    assert s.phase == "battle" and sorted(s.hand(0) + s.deck(0)) == sorted(s.picks(0))


def test_resampling_keeps_every_card_the_opponent_played_among_their_picks():
    game = games.make("locm")
    rng = np.random.default_rng(0)
    s = game.new_initial_state(np.random.default_rng(1))
    while not (s.phase == "battle" and len(s.played[1]) >= 4) and not s.is_terminal():
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert len(s.played[1]) >= 4
    for seed in range(5):
        r = s.resample_hidden(0, np.random.default_rng(seed))
        picks = r.picks(1)
        assert all(picks[t] in s._offers[t] for t in range(30))
        remaining = list(picks)
        for card in s.played[1]:
            remaining.remove(card)  # raises if a played card is not among the picks
        assert sorted(remaining) == sorted(r.hand(1) + r.deck(1))
        assert r.hand(0) == s.hand(0) and sorted(r.deck(0)) == sorted(s.deck(0))


@pytest.mark.parametrize(
    "decks, message",
    [
        ([[3] * 29, [3] * 30], "29 cards"),
        ([[3] * 30, [0] * 30], "card number"),
    ],
)
def test_bad_decks_are_refused_in_one_line(decks, message):
    with pytest.raises(games.UserError, match=message):
        games.make("locm", decks=decks)


def test_a_draft_and_decks_together_are_refused():
    with pytest.raises(games.UserError, match="not decks and draft"):
        games.make("locm", decks=[[3] * 30] * 2, draft=[[1, 2, 3]] * 30)
    assert keyword_bits("B-D--W") == 0b100101


def test_apply_action_accepts_exactly_the_listed_legal_actions():
    game = games.make("locm")
    rng = np.random.default_rng(7)
    for seed in range(6):
        s = game.new_initial_state(np.random.default_rng(seed))
        while not s.is_terminal():
            legal = set(s.legal_actions())
            assert {a for a in range(game.num_actions) if s.is_legal(a)} == legal
            s.apply_action(int(rng.choice(sorted(legal))))
        assert not any(s.is_legal(a) for a in range(game.num_actions))
