"""Rules engines: pure Python + numpy, no TensorFlow, no knowledge of agents.

    game = games.make("connect_four")
    state = game.new_initial_state(np.random.default_rng(0))
    games.make("incan_gold", num_players=4)      # keyword arguments: the game's config fields

The rules of every game are in games/RULES.md. A game registers by name in games/registry.py, or
from its own package by an entry point of the group `deckopt.games` (docs/plugins.md); the
conformance suite (games/conformance.py, `deckopt check GAME`) tests it like every other game.
"""

from __future__ import annotations

import dataclasses

from games.base import TERMINAL, Game, State
from games.config import config_from_dict
from games.errors import IllegalActionError, UserError, one_line
from games.registry import engine_class, game_names, is_ours

#: our games, then the installed plug-ins (entry point group `deckopt.games`)
GAME_NAMES = game_names()


def game_class(name: str) -> type[Game]:
    """The class of the game `name`: ours, an installed plug-in, or `package.module:Class`
    (games/registry.py; imported on first use)."""
    cls = engine_class(name)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise UserError(f"game {name!r} is not a games.Game subclass")
    if not dataclasses.is_dataclass(getattr(cls, "config_class", None)):
        raise UserError(f"game {name!r}: its config_class is not a dataclass of its settings")
    return cls


def make(name: str, **config) -> Game:
    """The game `name` with its config given as keyword arguments: the fields of the game's
    `config_class`, type-checked and validated (one-line UserError naming the setting)."""
    game_cls = game_class(name)
    settings = config_from_dict(game_cls.config_class, config, where=name)
    try:
        return game_cls(settings)
    except UserError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plug-in's own failure, not deckopt's
        if is_ours(name):
            raise
        raise UserError(f"game {name!r} cannot be made: {one_line(exc)}") from None


__all__ = ["make", "game_class", "Game", "State", "TERMINAL", "UserError", "IllegalActionError", "GAME_NAMES"]
