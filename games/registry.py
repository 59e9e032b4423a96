"""The registered games by name: each game's engine and its helper modules.

Three kinds of game are found by name:
- ours, in GAMES below;
- plug-ins: a package installed with an entry point in the group `deckopt.games`
  (`high_card = "high_card:HighCard"` in its pyproject.toml; docs/plugins.md);
- any Game subclass named by its import path, `package.module:Class` (importable from the current
  directory or the Python path); once loaded it is also found by its `name`.

An engine never imports its helpers (the words of `deckopt play`, a vectorised engine): each helper
imports its engine, this module imports both and attaches the helpers to the engine's class
(`Game.text_module`, `Game.batch_class`). A plug-in is loaded by its entry point when first named.
A game registers here; the conformance suite (games/conformance.py) then tests it like every other
game.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

import games.durak_text as durak_text
import games.exploding_kittens_text as exploding_kittens_text
import games.gwent_abilities_text as gwent_abilities_text
import games.gwent_lite_text as gwent_lite_text
import games.incan_gold_text as incan_gold_text
import games.locm_text as locm_text
from games.connect_four import ConnectFour
from games.connect_four_batch import ConnectFourBatch
from games.durak import Durak
from games.errors import UserError, one_line
from games.exploding_kittens import ExplodingKittens
from games.gwent_abilities import GwentAbilities
from games.gwent_lite import GwentLite
from games.gwent_lite_batch import GwentLiteBatch
from games.incan_gold import IncanGold
from games.locm import Locm
from games.locm_batch import LocmBatch
from games.tic_tac_toe import TicTacToe


@dataclass(frozen=True)
class Entry:
    engine: type  # a games.base.Game subclass
    text: ModuleType | None = None  # the module of the game's words: render, describe_move, ...
    batch: type | None = None  # a games.batch.BatchState subclass (a vectorised engine)


GAMES = {
    "tic_tac_toe": Entry(TicTacToe),
    "connect_four": Entry(ConnectFour, batch=ConnectFourBatch),
    "incan_gold": Entry(IncanGold, text=incan_gold_text),
    "gwent_lite": Entry(GwentLite, text=gwent_lite_text, batch=GwentLiteBatch),
    "durak": Entry(Durak, text=durak_text),
    "exploding_kittens": Entry(ExplodingKittens, text=exploding_kittens_text),
    "gwent_abilities": Entry(GwentAbilities, text=gwent_abilities_text),
    "locm": Entry(Locm, text=locm_text, batch=LocmBatch),
}
for _entry in GAMES.values():
    _entry.engine.text_module = _entry.text
    _entry.engine.batch_class = _entry.batch


ENTRY_POINT_GROUP = "deckopt.games"
#: games loaded by their import path in this process, by their `name`
_BY_PATH: dict[str, type] = {}


@functools.cache
def plugins() -> dict[str, EntryPoint]:
    """The installed plug-in games: entry points of the group `deckopt.games`, by entry point name
    (a name of ours is left to our game)."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return {ep.name: ep for ep in found if ep.name not in GAMES}


def game_names() -> tuple[str, ...]:
    """Our games, then the installed plug-ins."""
    return tuple(GAMES) + tuple(plugins())


@contextlib.contextmanager
def _importable_from_cwd():
    """The current folder on the module search path for a while (as `python -m` has it), so a game
    named by its import path is found in ./module.py whichever way deckopt was started."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        yield
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


def is_ours(name: str) -> bool:
    """Whether `name` is one of deckopt's own games (not a plug-in, not an import path)."""
    return name in GAMES


def engine_class(name: str) -> type:
    """The class registered as `name` (or named by its import path `package.module:Class`, looked
    for in the current folder too). A module that cannot be imported (it raises, it is not valid
    Python) is a UserError in one line."""
    if name in GAMES:
        return GAMES[name].engine
    entry = plugins().get(name)
    if entry is None and name in _BY_PATH:
        return _BY_PATH[name]
    by_path = entry is None and isinstance(name, str) and ":" in name
    if by_path:
        entry = EntryPoint(name=name, value=name, group=ENTRY_POINT_GROUP)
    if entry is None:
        raise UserError(
            f"unknown game {name!r}; choose one of: {', '.join(game_names())}, "
            "or give a Game class as package.module:Class"
        )
    try:
        with _importable_from_cwd() if by_path else contextlib.nullcontext():
            loaded = entry.load()
    except Exception as exc:  # noqa: BLE001 - another package's module: whatever it raises on import
        raise UserError(f"game {name!r}: cannot load {entry.value}: {one_line(exc)}") from None
    if by_path and isinstance(getattr(loaded, "name", None), str):
        _BY_PATH.setdefault(loaded.name, loaded)
    return loaded


def text_module(name: str) -> ModuleType:
    """The module that puts game `name`'s states into words."""
    entry = GAMES.get(name)
    if entry is None or entry.text is None:
        raise LookupError(f"{name} has no text module")
    return entry.text
