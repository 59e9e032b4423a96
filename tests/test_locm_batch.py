"""The vectorised LOCM engine (games/locm_batch.py) plays exactly as games/locm.py: the same legal
masks, and after every step the same state, field for field, in random, passive and given-deck games."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games.conformance import assert_same_state
from games.errors import IllegalActionError
from games.locm import PASS, PICK
from games.locm_batch import LocmBatch


@pytest.mark.parametrize(
    "settings, passive",
    [({}, 0.0), ({}, 0.75), ({"decks": [[3, 65, 48, 69, 39, 94] * 5, [83, 55, 117, 141, 155, 7] * 5]}, 0.3)],
)
def test_the_batch_plays_as_the_states_do(settings, passive):
    game = games.make("locm", **settings)
    states = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(24)]
    batch = LocmBatch.from_states(states)
    rng = np.random.default_rng(5)
    steps = 0
    while live := [g for g, s in enumerate(states) if not s.is_terminal()]:
        masks = batch.legal_masks(np.array(live))
        assert np.array_equal(masks, np.stack([states[g].legal_mask() for g in live]))
        for seat in (0, 1):
            seen = batch.observations(np.array(live), np.full(len(live), seat))
            assert np.array_equal(seen, np.stack([states[g].observation(seat) for g in live]))
        actions = []
        for g in live:
            legal = states[g].legal_actions()
            actions.append(PASS if legal[0] == PASS and rng.random() < passive else int(rng.choice(legal)))
            states[g].apply_action(actions[-1])
        batch.apply_actions(np.array(live), np.array(actions))
        for g in live:
            assert_same_state(batch.state(g), states[g])
        steps += 1
    assert steps > 100
    assert np.array_equal(batch.returns(), np.stack([s.returns() for s in states]))
    assert (batch.current_players() == -1).all()


def test_dealt_games_are_legal_games_and_illegal_actions_are_refused():
    game = games.make("locm")
    batch = LocmBatch.deal(game, np.random.default_rng(0), 50)
    offers = np.array([batch.state(g).offers() for g in range(50)])
    assert offers.shape == (50, 3) and all(len(set(row)) == 3 for row in offers.tolist())
    with pytest.raises(IllegalActionError, match="game 7"):
        batch.apply_actions(np.array([3, 7]), np.array([PICK, PASS]))
    every = np.arange(50)
    for _ in range(60):
        batch.apply_actions(every, np.full(50, PICK + 1))
    state = batch.state(4)
    assert state.phase == "battle" and state.hand_sizes == (5, 5)
    assert sorted(state.hand(0) + state.deck(0)) == sorted(state.picks(0))
    given = LocmBatch.deal(games.make("locm", decks=[[3] * 30, [5] * 30]), np.random.default_rng(0), 4)
    assert given.state(0).phase == "battle" and given.state(3).hand(1) == [5] * 5


def test_battles_dealt_from_a_deck_pool_observe_as_their_states_do():
    rng = np.random.default_rng(2)
    game = games.make("locm", deck_pool=[rng.integers(1, 161, size=30).tolist() for _ in range(5)])
    batch = LocmBatch.deal(game, np.random.default_rng(1), 16)
    every = np.arange(16)
    for _ in range(40):
        for seat in (0, 1):
            seen = batch.observations(every, np.full(16, seat))
            assert np.array_equal(seen, np.stack([batch.state(g).observation(seat) for g in range(16)]))
        live = np.flatnonzero(batch.current_players() >= 0)
        masks = batch.legal_masks(live)
        batch.apply_actions(live, np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64))


def test_the_batch_accepts_exactly_the_actions_of_its_legal_masks():
    game = games.make("locm")
    states = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(12)]
    rng = np.random.default_rng(3)
    for state in states:
        for _ in range(int(rng.integers(60, 160))):
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
    batch = LocmBatch.from_states(states)
    every = np.arange(len(states))
    masks = batch.legal_masks(every)
    for action in range(-1, game.num_actions + 1):
        expected = masks[:, action] if 0 <= action < game.num_actions else np.zeros(len(states), bool)
        assert np.array_equal(batch._legal(every, np.full(len(states), action)), expected), action
