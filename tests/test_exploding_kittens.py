"""Exploding Kittens (games/RULES.md "Exploding Kittens"): every card in hand-worked positions, card
conservation, the exact values of the rule book to every digit, the belief bot's worlds, the bots."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents.arena import play_match
from agents.heuristics.exploding_kittens import belief_worlds
from games.exploding_kittens import (
    ATTACK,
    CARD_NAMES,
    DEFUSE,
    DRAW,
    FAVOR,
    GIVE,
    KITTEN,
    NUM_TYPES,
    PLAY_ACTIONS,
    SHUFFLE,
    SKIP,
)
from games.exploding_kittens_exact import game_value
from games.exploding_kittens_text import a_card

CAT1 = CARD_NAMES.index("cat1")


def stacked(hands, deck_top_first, **config):
    """A state with the given hands (dicts of name -> count) and deck (names or KITTEN, top first)."""
    game = games.make("exploding_kittens", **config)
    s = game.new_initial_state(np.random.default_rng(0))
    for p in range(2):
        s._hands[p] = [hands[p].get(n, 0) for n in CARD_NAMES]
        s._known[p] = [0] * NUM_TYPES
    cards = [KITTEN if c == KITTEN else CARD_NAMES.index(c) for c in deck_top_first]
    s._deck = cards[::-1]
    s._comp = tuple(
        sum(h[n] if n != "defuse" else 0 for h in (hands[0], hands[1]) if n in h) + cards.count(CARD_NAMES.index(n))
        for n in CARD_NAMES
    )
    s._log = []
    return s


def totals(s) -> list[int]:
    out = [s._discard[t] + s._hands[0][t] + s._hands[1][t] + s._deck.count(t) for t in range(NUM_TYPES)]
    return out + [s._deck.count(KITTEN)]


def test_attack_under_attack_gives_exactly_two_turns():
    s = stacked([{"attack": 1}, {"attack": 1}], ["skip"] * 4 + [KITTEN])
    s.apply_action(PLAY_ACTIONS[ATTACK])
    assert (s.current_player, s.turns_owed) == (1, 2)
    s.apply_action(PLAY_ACTIONS[ATTACK])  # under attack: the opponent owes exactly 2, not 3 or 4
    assert (s.current_player, s.turns_owed) == (0, 2)
    s.apply_action(DRAW)
    assert (s.current_player, s.turns_owed) == (0, 1)
    s.apply_action(DRAW)
    assert (s.current_player, s.turns_owed) == (1, 1)


def test_skip_under_attack_ends_one_turn():
    s = stacked([{"attack": 1}, {"skip": 2}], ["attack"] * 4 + [KITTEN])
    s.apply_action(PLAY_ACTIONS[ATTACK])
    s.apply_action(PLAY_ACTIONS[SKIP])
    assert (s.current_player, s.turns_owed) == (1, 1)
    s.apply_action(PLAY_ACTIONS[SKIP])
    assert (s.current_player, s.turns_owed) == (0, 1)
    assert s.hand(1)[SKIP] == 0 and s.discard["skip"] == 2


def test_defuse_reinsertion_is_uniform_over_len_plus_one_places():
    counts = np.zeros(6, dtype=int)
    for seed in range(3000):
        s = stacked([{"defuse": 1}, {}], [KITTEN] + ["skip"] * 5)
        s._seed = seed
        s.apply_action(DRAW)
        assert s.hand(0)[DEFUSE] == 0 and s.discard["defuse"] == 1 and s.current_player == 1
        counts[s._deck[::-1].index(KITTEN)] += 1  # 0: on top
    expected = 3000 / 6
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 20.5, counts  # 5 degrees of freedom, p = 0.001


def test_kitten_without_defuse_explodes():
    s = stacked([{}, {"defuse": 1}], [KITTEN, "skip"])
    s.apply_action(DRAW)
    assert s.is_terminal() and s.winner == 1 and s.returns().tolist() == [-1.0, 1.0]


def test_favor_is_the_opponents_decision():
    s = stacked([{"favor": 1}, {"skip": 1, "attack": 1}], ["skip"] * 3 + [KITTEN])
    s.apply_action(PLAY_ACTIONS[FAVOR])
    assert s.current_player == 1 and s.turn == 0 and s.favor_pending
    assert s.legal_actions() == [GIVE + SKIP, GIVE + ATTACK]
    s.apply_action(GIVE + ATTACK)  # player 1 chooses what to give
    assert s.hand(0)[ATTACK] == 1 and s.hand(1)[ATTACK] == 0 and s.current_player == 0
    assert s.known_cards[0]["attack"] == 1  # given openly: player 1 knows player 0 holds it


def test_favor_against_an_empty_hand_does_nothing():
    s = stacked([{"favor": 1}, {}], ["skip"] * 3 + [KITTEN])
    s.apply_action(PLAY_ACTIONS[FAVOR])
    assert s.current_player == 0 and not s.favor_pending and s.hand(0)[FAVOR] == 0


def test_cat_pair_takes_a_card_from_the_opponents_hand():
    s = stacked([{"cat1": 2}, {"skip": 1}], ["skip"] * 3 + [KITTEN])
    s.apply_action(PLAY_ACTIONS[CAT1])
    assert s.hand(0)[SKIP] == 1 and sum(s.hand(1)) == 0 and s.discard["cat1"] == 2 and s.current_player == 0
    taken = np.zeros(2, dtype=int)
    for seed in range(400):  # uniformly at random among the opponent's cards
        s = stacked([{"cat1": 2}, {"skip": 1, "attack": 3}], ["skip"] * 3 + [KITTEN])
        s._seed = seed
        s.apply_action(PLAY_ACTIONS[CAT1])
        taken += [s.hand(0)[SKIP], s.hand(0)[ATTACK]]
    assert 60 < taken[0] < 140 and taken.sum() == 400


def test_shuffle_keeps_the_deck_and_max_plays_caps_the_plays():
    s = stacked([{"shuffle": 2, "skip": 1}, {}], ["skip", "attack", "defuse", KITTEN], max_plays_per_turn=1)
    before = sorted(s._deck)
    s.apply_action(PLAY_ACTIONS[SHUFFLE])
    assert sorted(s._deck) == before and s.current_player == 0
    assert s.legal_actions() == [DRAW]  # one play per turn


def test_cards_are_conserved_at_every_step():
    for config in ({}, {"preset": "paper"}, {"preset": "paper", "composition": "random", "open_hands": True}):
        game = games.make("exploding_kittens", **config)
        rng = np.random.default_rng(1)
        for g in range(40):
            s = game.new_initial_state(np.random.default_rng(g))
            start = totals(s)
            assert start[:NUM_TYPES] == s._total() and start[-1] == 1
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.integers(len(legal)))])
                now = totals(s)
                assert now[:NUM_TYPES] == start[:NUM_TYPES]
                assert now[-1] == (0 if s.is_terminal() else 1)


def test_exact_values_to_every_digit():
    assert game_value() == 0.5950722285652231
    assert game_value({"deck": {"skip": 4, "defuse": 2, "attack": 4}}) == 0.4852302630119859
    for k in range(11):  # Skips only, no Defuse: floor(n/2)/n for n = k + 1 cards
        assert game_value({"deck": {"skip": k}, "hand_defuses": 0}) == (k + 1) // 2 / (k + 1)


def test_belief_worlds_contain_the_true_world():
    configs = ({}, {"deck": {"skip": 3, "attack": 2, "favor": 2, "cat1": 2, "defuse": 1}, "deal": 2})
    for config in configs:
        game = games.make("exploding_kittens", **config)
        rng = np.random.default_rng(2)
        for g in range(60):
            s = game.new_initial_state(np.random.default_rng(g))
            while not s.is_terminal():
                for p in range(2):
                    worlds = belief_worlds(s, p)
                    assert worlds.get((s.hand(1 - p), s.deck_counts()), 0) > 0
                    assert abs(sum(worlds.values()) - 1) < 1e-9
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.integers(len(legal)))])


def test_exact_self_play_matches_the_game_value():
    game = games.make("exploding_kittens", open_hands=True)
    bots = [agents.make("exact", game, seed=i) for i in range(2)]
    result = play_match(game, bots, 4000, seed=3).as_dict()
    first = sum(a["by_seat"]["0"]["wins"] for a in result["agents"]) / 4000
    se = (0.595 * 0.405 / 2000) ** 0.5  # games come in identical mirrored pairs: 2000 independent ones
    assert abs(first - game_value()) < 3 * se


def test_bots_play_legally_and_exact_needs_open_hands():
    game = games.make("exploding_kittens", deck={"skip": 3, "attack": 2, "favor": 2, "cat1": 2, "defuse": 1})
    with pytest.raises(games.UserError, match="open_hands"):
        agents.make("exact", game)
    specs = ["belief", "heuristic", "always_draw", "always_skip", "random"]
    bots = [agents.make(spec, game, seed=1) for spec in specs]
    for i, bot in enumerate(bots):
        play_match(game, [bot, bots[(i + 1) % len(bots)]], 20, seed=i)  # raises on an illegal action


def test_belief_is_no_worse_than_the_simple_bots():
    game = games.make("exploding_kittens")
    for spec in ("always_draw", "heuristic"):
        result = play_match(game, [agents.make("belief", game), agents.make(spec, game)], 600, seed=5).as_dict()
        assert result["agents"][0]["win_rate"] > 0.5, spec


def test_hidden_cards_stay_hidden_from_the_view():
    game = games.make("exploding_kittens", preset="paper")
    s = game.new_initial_state(np.random.default_rng(4))
    view = s.view(1)
    assert "player 0: 5 cards (known: 1 defuse)" in view
    before = s.clone()
    s.apply_action(DRAW)
    assert "drew a card" in s.describe_move(before, DRAW, 1)
    assert "drew " + a_card(s._log[-1][2]) in s.describe_move(before, DRAW, 0)


def test_random_composition_stays_within_the_bounds_and_presets():
    game = games.make("exploding_kittens", composition="random")
    seen = {tuple(game.new_initial_state(np.random.default_rng(g)).composition.values()) for g in range(200)}
    assert len(seen) > 20 and all(c[SKIP] <= 4 and c[ATTACK] <= 3 and c[DEFUSE] <= 2 for c in seen)
    paper = games.make("exploding_kittens", preset="paper").config
    assert paper.deal == 4 and paper.max_plays_per_turn == 1 and paper.deck["cat5"] == 4 and paper.deck["defuse"] == 0
    with pytest.raises(games.UserError, match="unknown card"):
        games.make("exploding_kittens", deck={"nope": 1})
