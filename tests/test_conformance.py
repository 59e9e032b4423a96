"""The game interface, checked for every registered game (and a few configs) by the conformance
suite of games/conformance.py, the same checks `deckopt check` runs: invariants at every step, cards
conserved, illegal actions refused, clone, determinism, pickling, hidden-information resampling,
batch views. A new game gets all of it by registering in games/registry.py (see tests/conftest.py
for the configs)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GAME_CONFIGS, state_fields

import games
from games.config import config_to_dict
from games.conformance import CHECK_NAMES, PASSED, SKIPPED, run_check

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
#: the games that count their cards (State.cards): the check may skip only the others
COUNTS_CARDS = {"gwent_lite", "gwent_abilities", "durak", "exploding_kittens", "incan_gold"}


@pytest.fixture(params=[c[1:] for c in CONFORMANCE_CONFIGS], ids=[c[0] for c in CONFORMANCE_CONFIGS])
def any_game(request) -> games.Game:
    """Each registered game in each config of CONFORMANCE_CONFIGS (overrides conftest's fixture here)."""
    name, config = request.param
    return games.make(name, **config)


@pytest.mark.parametrize("check", CHECK_NAMES)
def test_the_conformance_check_passes(any_game, check):
    result = run_check(any_game, check, GAMES_PER_CONFIG)
    if result.status == SKIPPED:
        assert check == "cards conserved" and any_game.name not in COUNTS_CARDS, result.detail
    else:
        assert result.status == PASSED, result.detail


def test_registered_config_round_trip(any_game):
    """The config as plain settings (what config.json holds) builds the same game by its name."""
    assert any_game.name in games.GAME_NAMES
    again = games.make(any_game.name, **config_to_dict(any_game.config))
    assert again.config == any_game.config and again.observation_size == any_game.observation_size
    with pytest.raises(games.UserError, match=f"{any_game.name}: unknown setting"):
        games.make(any_game.name, no_such_setting=1)


def test_states_are_fields_only():
    """state_fields (what the suite compares) sees a state's data: a guard that the helper works."""
    s = games.make("connect_four").new_initial_state(np.random.default_rng(0))
    fields = state_fields(s)
    assert {"_bits", "_heights", "_outcome"} <= set(fields) and "game" not in fields
