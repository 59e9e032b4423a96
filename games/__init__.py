"""Rules engines: pure Python + numpy, no TensorFlow, no knowledge of agents.

    game = games.make("connect_four")
    state = game.new_initial_state(np.random.default_rng(0))
"""
from __future__ import annotations

import importlib

from games.base import TERMINAL, Game, State
from games.errors import IllegalActionError, UserError

# name -> "module:Class"; modules are imported on first use.
_REGISTRY = {
    "tic_tac_toe": "games.tic_tac_toe:TicTacToe",
    "connect_four": "games.connect_four:ConnectFour",
    "incan_gold": "games.incan_gold:IncanGold",
    "gwent_lite": "games.gwent_lite:GwentLite",
}

GAME_NAMES = tuple(_REGISTRY)


def make(name: str, **config) -> Game:
    """The game `name` with its config given as keyword arguments (see each game's Config)."""
    if name not in _REGISTRY:
        raise UserError(f"unknown game {name!r}; choose one of: {', '.join(GAME_NAMES)}")
    module, cls = _REGISTRY[name].split(":")
    game_cls = getattr(importlib.import_module(module), cls)
    try:
        return game_cls(**config)
    except TypeError as exc:  # an unknown config key
        raise UserError(f"{name}: bad config: {exc}") from None


__all__ = ["make", "Game", "State", "TERMINAL", "UserError", "IllegalActionError", "GAME_NAMES"]
