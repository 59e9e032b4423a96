"""The registered games by name: each game's engine and its helper modules, imported on first use.

Three kinds of game are found by name:
- ours, in GAMES below;
- plug-ins: a package installed with an entry point in the group `deckopt.games`
  (`high_card = "high_card:HighCard"` in its pyproject.toml; docs/plugins.md);
- any Game subclass named by its import path, `package.module:Class` (importable from the current
  directory or the Python path); once loaded it is also found by its `name`.

An engine never imports its helpers (the words of `deckopt play`, a vectorised engine): each helper
imports its engine, and the engine reaches the helper through this table (`text_module`,
`batch_class`). A game registers here; the conformance suite (games/conformance.py) then tests
it like every other game.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType

from games.errors import UserError, one_line


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
    "gwent_abilities": Entry("games.gwent_abilities:GwentAbilities", text="games.gwent_abilities_text"),
    "locm": Entry("games.locm:Locm", text="games.locm_text", batch="games.locm_batch:LocmBatch"),
}


ENTRY_POINT_GROUP = "deckopt.games"
#: games loaded by their import path in this process, by their `name`
_BY_PATH: dict[str, Entry] = {}


@functools.cache
def plugins() -> dict[str, Entry]:
    """The installed plug-in games: entry points of the group `deckopt.games`, by entry point name
    (a name of ours is left to our game)."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return {ep.name: Entry(ep.value) for ep in found if ep.name not in GAMES}


def game_names() -> tuple[str, ...]:
    """Our games, then the installed plug-ins."""
    return tuple(GAMES) + tuple(plugins())


def _load(path: str):
    module, _, attr = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attr) if attr else loaded


def _find(name) -> Entry | None:
    return GAMES.get(name) or plugins().get(name) or _BY_PATH.get(name)


def _entry(name: str) -> Entry:
    entry = _find(name)
    if entry is not None:
        return entry
    if isinstance(name, str) and ":" in name:  # package.module:Class
        return Entry(name)
    raise UserError(
        f"unknown game {name!r}; choose one of: {', '.join(game_names())}, or give a Game class as package.module:Class"
    )


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
    entry = _entry(name)
    by_path = _find(name) is None
    try:
        with _importable_from_cwd() if by_path else contextlib.nullcontext():
            loaded = _load(entry.engine)
    except Exception as exc:  # noqa: BLE001 - another package's module: whatever it raises on import
        if is_ours(name):
            raise
        raise UserError(f"game {name!r}: cannot load {entry.engine}: {one_line(exc)}") from None
    if entry.engine == name and isinstance(getattr(loaded, "name", None), str):
        _BY_PATH.setdefault(loaded.name, entry)
    return loaded


def text_module(name: str) -> ModuleType:
    """The module that puts game `name`'s states into words."""
    path = _entry(name).text
    if path is None:
        raise LookupError(f"{name} has no text module")
    return _load(path)


def batch_class(game_class: type) -> type | None:
    """The vectorised engine of a registered game's class (or of a subclass of it), else None."""
    entry = _find(getattr(game_class, "name", None))
    if entry is None or entry.batch is None or not issubclass(game_class, _load(entry.engine)):
        return None
    return _load(entry.batch)
