"""The registered games by name: each game's engine and its helper modules, imported on first use.

An engine never imports its helpers (the words of `deckopt play`, a vectorised engine): each helper
imports its engine, and the engine reaches the helper through this table (`text_module`,
`batch_class`). A game registers here; the conformance suite (tests/test_conformance.py) then tests
it like every other game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from games.errors import UserError


@dataclass(frozen=True)
class Entry:
    engine: str  # "module:Class", a games.base.Game subclass
    text: str | None = None  # the module of the game's words: render, describe_move, ...
    batch: str | None = None  # "module:Class", a games.batch.BatchState subclass (a vectorised engine)


GAMES = {
    "tic_tac_toe": Entry("games.tic_tac_toe:TicTacToe"),
    "connect_four": Entry("games.connect_four:ConnectFour", batch="games.connect_four_batch:ConnectFourBatch"),
    "incan_gold": Entry("games.incan_gold:IncanGold", text="games.incan_gold_text"),
    "gwent_lite": Entry(
        "games.gwent_lite:GwentLite", text="games.gwent_lite_text", batch="games.gwent_lite_batch:GwentLiteBatch"
    ),
    "durak": Entry("games.durak:Durak", text="games.durak_text"),
    "exploding_kittens": Entry("games.exploding_kittens:ExplodingKittens", text="games.exploding_kittens_text"),
}


def _load(path: str):
    module, _, attr = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attr) if attr else loaded


def _entry(name: str) -> Entry:
    if name not in GAMES:
        raise UserError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
    return GAMES[name]


def engine_class(name: str) -> type:
    """The Game subclass registered as `name`."""
    return _load(_entry(name).engine)


def text_module(name: str) -> ModuleType:
    """The module that puts game `name`'s states into words."""
    path = _entry(name).text
    if path is None:
        raise LookupError(f"{name} has no text module")
    return _load(path)


def batch_class(game_class: type) -> type | None:
    """The vectorised engine of a registered game's class (or of a subclass of it), else None."""
    entry = GAMES.get(getattr(game_class, "name", None))
    if entry is None or entry.batch is None or not issubclass(game_class, _load(entry.engine)):
        return None
    return _load(entry.batch)
