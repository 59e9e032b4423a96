"""Rules engines: pure Python + numpy, no TensorFlow, no knowledge of agents.

    game = games.make("connect_four")
    state = game.new_initial_state(np.random.default_rng(0))
    games.make("incan_gold", num_players=4)      # keyword arguments: the game's config fields

The rules of every game are in games/RULES.md. A game registers by name in games/registry.py; the
conformance suite (tests/test_conformance.py) then tests it like every other game.
"""

from __future__ import annotations

from games.base import TERMINAL, Game, State
from games.config import config_from_dict
from games.errors import IllegalActionError, UserError
from games.registry import GAMES, engine_class

GAME_NAMES = tuple(GAMES)


def game_class(name: str) -> type[Game]:
    """The class of the registered game `name` (games/registry.py; imported on first use)."""
    return engine_class(name)


def make(name: str, **config) -> Game:
    """The game `name` with its config given as keyword arguments: the fields of the game's
    `config_class`, type-checked and validated (one-line UserError naming the setting)."""
    game_cls = game_class(name)
    return game_cls(config_from_dict(game_cls.config_class, config, where=name))


__all__ = ["make", "game_class", "Game", "State", "TERMINAL", "UserError", "IllegalActionError", "GAME_NAMES"]
