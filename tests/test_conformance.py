"""The game interface, checked for every registered game (and a few configs) by the conformance
suite of games/conformance.py, the same checks `deckopt check` runs: invariants at every step, cards
conserved, illegal actions refused, clone, determinism, pickling, hidden-information resampling,
batch views, and a vectorised engine stepped beside its game. A new game gets all of it by
registering in games/registry.py (see tests/conftest.py for the configs); a plug-in's vectorised
engine is held to its game alike (Take Away, tests/take_away.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GAME_CONFIGS, state_fields
from take_away import TakeAway, TakeAwayBatch

import games
from deckopt.cli import main
from games.base import RareRule
from games.config import config_to_dict
from games.conformance import BATCH_ENGINE_GAMES, CHECK_NAMES, FAILED, PASSED, SKIPPED, run_check, run_checks

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
        skippable = {
            "cards conserved": any_game.name not in COUNTS_CARDS,
            "vectorised engine": not any_game.batch_class,
        }
        assert skippable.get(check), result.detail
    else:
        assert result.status == PASSED, result.detail
    if check == "vectorised engine" and any_game.batch_class:
        assert any_game.rare_rules and "not reached" not in result.detail, result.detail


DECK_POOL = np.random.default_rng(2).integers(1, 161, size=(5, 30)).tolist()


@pytest.mark.parametrize(
    "name, config",
    [
        ("locm", {"deck_pool": DECK_POOL}),
        ("gwent_lite", {"deck_pool": [[4] * 25, [1] * 24 + [76]], "pool_share": 0.5}),
    ],
)
def test_vectorised_engines_step_as_their_games_with_given_decks(name, config):
    result = run_check(games.make(name, **config), "vectorised engine", BATCH_ENGINE_GAMES)
    assert result.status == PASSED, result.detail


def test_a_plugins_vectorised_engine_is_held_to_its_game(capsys):
    results = {r.name: r for r in run_checks(TakeAway(), 60)}
    assert {n for n, r in results.items() if r.status != PASSED} == {"cards conserved"}
    engine = results["vectorised engine"].detail
    assert "TakeAwayBatch; rare rules reached: the last stones taken three at once" in engine, engine
    assert "a move from a pile of one" in engine  # by the rule's script at least
    assert main(["check", "take_away:TakeAway", "--games", "40"]) == 0
    out = capsys.readouterr().out
    assert f"ok    vectorised engine: {BATCH_ENGINE_GAMES + 1} games" in out and "take_away" in out


class MiscountingBatch(TakeAwayBatch):
    """A fault: a take of three from a pile of seven takes only two."""

    def apply_actions(self, games, actions) -> None:
        short = (self.stones[games] == 7) & (actions == 2)
        super().apply_actions(games, np.where(short, 1, actions))


class NeverReached(TakeAway):
    """A declared rule no game can fire."""

    rare_rules = TakeAway.rare_rules + (RareRule("more than three taken", lambda before, action, after: action > 2),)


def test_a_vectorised_engine_that_steps_otherwise_or_a_rule_never_reached_fails(monkeypatch):
    monkeypatch.setattr(TakeAway, "batch_class", MiscountingBatch)
    result = run_check(TakeAway(), "vectorised engine", 60)
    assert result.status == FAILED and "fields differ: ['_stones']" in result.detail, result.detail
    monkeypatch.undo()
    result = run_check(NeverReached(), "vectorised engine", 60)
    assert result.status == FAILED, result.detail
    assert result.detail == f"rare rules never reached in {BATCH_ENGINE_GAMES + 1} games: more than three taken"
    few = run_check(NeverReached(), "vectorised engine", 5)  # too few games to ask for every rule: reported
    assert few.status == PASSED and few.detail.endswith(
        "not reached in so few games: the last stones taken three at once, more than three taken"
    )


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
