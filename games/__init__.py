"""Rules engines: pure Python + numpy, no TensorFlow, no knowledge of agents.

    game = games.make("connect_four")
    state = game.new_initial_state(np.random.default_rng(0))
    games.make("incan_gold", num_players=4)      # keyword arguments: the game's config fields

The rules of every game are in games/RULES.md. A game registers here by name; the conformance
suite (tests/test_conformance.py) then tests it like every other game.
"""

from __future__ import annotations

import importlib

from games.base import TERMINAL, Game, State
from games.config import config_from_dict
from games.errors import IllegalActionError, UserError

# name -> "module:Class"; modules are imported on first use.
_REGISTRY = {
    "tic_tac_toe": "games.tic_tac_toe:TicTacToe",
    "connect_four": "games.connect_four:ConnectFour",
    "incan_gold": "games.incan_gold:IncanGold",
    "gwent_lite": "games.gwent_lite:GwentLite",
    "durak": "games.durak:Durak",
    "exploding_kittens": "games.exploding_kittens:ExplodingKittens",
}

GAME_NAMES = tuple(_REGISTRY)


def game_class(name: str) -> type[Game]:
    """The class of the registered game `name` (its module imported on first use)."""
    if name not in _REGISTRY:
        raise UserError(f"unknown game {name!r}; choose one of: {', '.join(GAME_NAMES)}")
    module, cls = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make(name: str, **config) -> Game:
    """The game `name` with its config given as keyword arguments: the fields of the game's
    `config_class`, type-checked and validated (one-line UserError naming the setting)."""
    game_cls = game_class(name)
    return game_cls(config_from_dict(game_cls.config_class, config, where=name))


__all__ = ["make", "game_class", "Game", "State", "TERMINAL", "UserError", "IllegalActionError", "GAME_NAMES"]
