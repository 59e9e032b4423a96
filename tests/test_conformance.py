"""The game interface, checked for every registered game (and a few configs) over random games, in
the spirit of OpenSpiel's random_sim_test and PettingZoo's api_test/seed_test: invariants at every
step, clone, determinism, pickling, hidden-information resampling, batch views. A new game gets all
of it by registering in games/__init__.py (see tests/conftest.py for the configs)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import (
    GAME_CONFIGS,
    assert_same_state,
    assert_unchanged,
    observation_range,
    public_facts,
    random_playout,
    random_states,
    same_value,
    snapshot,
    state_fields,
)

import games
from games import TERMINAL, IllegalActionError, State
from games.config import config_from_dict, config_to_dict

GAMES_PER_CONFIG = 250

# the configs of tests/conftest.py, plus Durak's (its default, 2 players, is there already)
CONFORMANCE_CONFIGS = GAME_CONFIGS + [
    ("durak-3_players", "durak", {"num_players": 3}),
    ("durak-4_players", "durak", {"num_players": 4}),
    ("durak-fixed_trump", "durak", {"fixed_trump": True}),
    ("exploding_kittens-open_hands", "exploding_kittens", {"open_hands": True}),
    ("exploding_kittens-paper", "exploding_kittens", {"preset": "paper"}),
    ("exploding_kittens-random_composition", "exploding_kittens", {"preset": "paper", "composition": "random"}),
]


@pytest.fixture(params=[c[1:] for c in CONFORMANCE_CONFIGS], ids=[c[0] for c in CONFORMANCE_CONFIGS])
def any_game(request) -> games.Game:
    """Each registered game in each config of CONFORMANCE_CONFIGS (overrides conftest's fixture here)."""
    name, config = request.param
    return games.make(name, **config)


def check_step(state: State) -> None:
    """The invariants of one state, finished or not."""
    game = state.game
    n = game.num_players
    mask = state.legal_mask()
    assert mask.dtype == bool and mask.shape == (game.num_actions,)
    assert np.flatnonzero(mask).tolist() == state.legal_actions()
    low, high = observation_range(game)
    for p in range(n):
        obs = state.observation(p)
        assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
        assert np.isfinite(obs).all() and obs.min() >= low and obs.max() <= high, (p, obs)
    r = state.returns()
    assert r.shape == (n,) and np.isfinite(r).all()
    if state.is_terminal():
        assert state.current_player == TERMINAL and not mask.any() and state.legal_actions() == []
    else:
        assert 0 <= state.current_player < n
        assert mask.any()
        assert not r.any()  # returns only at the end


def check_illegal_actions_refused(state: State) -> None:
    """Every kind of illegal action raises IllegalActionError and changes nothing."""
    game = state.game
    mask = state.legal_mask()
    bad = [-1, game.num_actions, 1.5, 0.0, True, "0", None]
    bad += np.flatnonzero(~mask).tolist()[:2]  # legal elsewhere, not here (everything once the game is over)
    before = snapshot(state)
    for action in bad:
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
    assert_unchanged(state, before)


def test_interface_facts_and_config_round_trip(any_game):
    game = any_game
    assert game.name in games.GAME_NAMES
    for attr in ("num_players", "num_actions", "observation_size"):
        assert type(getattr(game, attr)) is int and getattr(game, attr) >= 1
    assert isinstance(game.config, game.config_class)
    # the config as plain settings (what config.json holds) builds the same game
    again = games.make(game.name, **config_to_dict(game.config))
    assert again.config == game.config and again.observation_size == game.observation_size
    assert config_from_dict(game.config_class, config_to_dict(game.config)) == game.config
    with pytest.raises(games.UserError, match=f"{game.name}: unknown setting"):
        games.make(game.name, no_such_setting=1)


def test_random_games_keep_the_invariants(any_game):
    rng = np.random.default_rng(0)
    outcomes = set()
    for g in range(GAMES_PER_CONFIG):
        state = any_game.new_initial_state(np.random.default_rng(g))
        actions = random_playout(state, rng, on_state=check_step)
        assert actions and state.is_terminal()
        outcomes.add(tuple(state.returns().tolist()))
        if g < 10:  # the checks that copy the state: on a few games
            check_illegal_actions_refused(state)
            mid = any_game.new_initial_state(np.random.default_rng(g))
            for a in actions[: len(actions) // 2]:
                mid.apply_action(a)
            check_illegal_actions_refused(mid)
    assert len(outcomes) >= 2  # random play does not always end the same way


def test_same_seed_same_game(any_game):
    """Same seed and same actions: the same states, observation for observation."""
    for seed in range(20):
        trace = []
        for _ in range(2):
            state = any_game.new_initial_state(np.random.default_rng(seed))
            seen = []
            actions = random_playout(
                state,
                np.random.default_rng(seed + 1000),
                on_state=lambda s, seen=seen: seen.append((s.current_player, s.observation(max(s.current_player, 0)))),
            )
            trace.append((actions, seen, state.returns().tolist(), str(state)))
        (a1, o1, r1, s1), (a2, o2, r2, s2) = trace
        assert a1 == a2 and r1 == r2 and s1 == s2
        assert len(o1) == len(o2) and all(p == q and np.array_equal(x, y) for (p, x), (q, y) in zip(o1, o2))


def test_clone_is_equal_and_independent(any_game):
    rng = np.random.default_rng(3)
    for state in random_states(any_game, 40, seed=4):
        before = snapshot(state)
        clone = state.clone()
        assert clone is not state
        assert_same_state(clone, state)
        actions = random_playout(clone, rng)  # the clone plays on ...
        assert_unchanged(state, before)  # ... and the original does not move
        for a in actions:  # the original, given the same actions, ends where the clone did
            state.apply_action(a)
        assert_same_state(state, clone)


def test_pickle_round_trip_continues_identically(any_game):
    rng = np.random.default_rng(5)
    for state in random_states(any_game, 20, seed=6):
        restored = pickle.loads(pickle.dumps(state))
        assert_same_state(restored, state)
        assert restored.game.config == state.game.config
        actions = random_playout(restored, rng)
        for a in actions:
            state.apply_action(a)
        assert_same_state(state, restored)
        assert np.array_equal(state.returns(), restored.returns())


def test_resample_hidden_keeps_what_the_player_knows(any_game):
    rng = np.random.default_rng(7)
    perfect_information = type(any_game.new_initial_state(np.random.default_rng(0))).resample_hidden is (
        State.resample_hidden
    )
    for state in random_states(any_game, 40, seed=8):
        before = snapshot(state)
        facts = public_facts(state)
        for p in range(any_game.num_players):
            r = state.resample_hidden(p, rng)
            assert r is not state and type(r) is type(state)
            assert_unchanged(state, before)
            if perfect_information:
                assert_same_state(r, state)
            np.testing.assert_array_equal(r.observation(p), state.observation(p))
            assert r.view(p) == state.view(p)
            assert r.current_player == state.current_player and r.is_terminal() == state.is_terminal()
            if state.current_player == p:  # p's choices are p's to know
                np.testing.assert_array_equal(r.legal_mask(), state.legal_mask())
            now = public_facts(r)
            differ = [k for k in facts if not same_value(facts[k], now[k])]
            assert not differ, f"public facts changed by resampling for player {p}: {differ}"
            random_playout(r, rng)  # a resampled state is a state like any other


def test_batch_views_equal_the_states_one_by_one(any_game):
    game = any_game
    states = random_states(game, 120, seed=9)
    assert any(s.is_terminal() for s in states) and not all(s.is_terminal() for s in states)
    live = [s for s in states if not s.is_terminal()]
    got = game.observations(live)  # the player to move by default
    assert got.dtype == np.float32 and got.shape == (len(live), game.observation_size)
    np.testing.assert_array_equal(got, np.stack([s.observation(s.current_player) for s in live]))
    # any seat's view, finished games included
    players = [int(p) for p in np.random.default_rng(1).integers(game.num_players, size=len(states))]
    np.testing.assert_array_equal(
        game.observations(states, players), np.stack([s.observation(p) for s, p in zip(states, players)])
    )
    masks = game.legal_masks(states)
    assert masks.dtype == bool and masks.shape == (len(states), game.num_actions)
    np.testing.assert_array_equal(masks, np.stack([s.legal_mask() for s in states]))


def test_states_are_fields_only():
    """state_fields (what the suite compares) sees a state's data: a guard that the helper works."""
    s = games.make("connect_four").new_initial_state(np.random.default_rng(0))
    fields = state_fields(s)
    assert {"_bits", "_heights", "_outcome"} <= set(fields) and "game" not in fields
