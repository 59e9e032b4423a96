"""Game.observations / Game.legal_masks: a whole batch in one call equals the states one by one."""
from __future__ import annotations

import numpy as np
import pytest

import games


def mixed_states(game, count: int, seed: int) -> list:
    """States after random numbers of random moves: openings, middles and finished games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        s = game.new_initial_state(np.random.default_rng(rng.integers(2**32)))
        for _ in range(int(rng.integers(0, 60))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        out.append(s)
    return out


@pytest.mark.parametrize("name", games.GAME_NAMES)
def test_batch_observations_and_masks_equal_the_states_one_by_one(name):
    game = games.make(name)
    states = mixed_states(game, 300, seed=len(name))
    assert any(s.is_terminal() for s in states) and not all(s.is_terminal() for s in states)
    live = [s for s in states if not s.is_terminal()]
    got = game.observations(live)
    assert got.dtype == np.float32 and got.shape == (len(live), game.observation_size)
    np.testing.assert_array_equal(got, np.stack([s.observation(s.current_player) for s in live]))
    # any seat's view, finished games included
    players = [int(p) for p in np.random.default_rng(1).integers(game.num_players, size=len(states))]
    np.testing.assert_array_equal(game.observations(states, players),
                                  np.stack([s.observation(p) for s, p in zip(states, players)]))
    masks = game.legal_masks(states)
    assert masks.dtype == bool and masks.shape == (len(states), game.num_actions)
    np.testing.assert_array_equal(masks, np.stack([s.legal_mask() for s in states]))
