"""Reference decks: deck files and folders of deck files, for `panel` opponents and validation.

A folder is one *group* (e.g. `decks/ancestor`: the ancestor's 30 evolved decks, reported together
as well as one by one); a file given alone is its own group. Relative paths that do not exist from
the current directory are looked up from the project root, so `decks/...` works from anywhere in
a source checkout.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.errors import UserError
from games.fileio import resolve_path

DECK_SUFFIXES = (".toml", ".json")


@dataclass(frozen=True)
class ReferenceDeck:
    name: str
    group: str
    cards: tuple[int, ...]
    path: str


def deck_files(raw, what: str = "deck") -> tuple[list[Path], str]:
    """The deck files named by `raw` (a file, or a folder whose *.toml / *.json files are taken, not
    recursively) and their group (the folder's name, or the file's stem); UserError in one line if
    there are none."""
    p = resolve_path(raw)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix in DECK_SUFFIXES)
        if not files:
            raise UserError(f"{what} folder {str(raw)!r} holds no deck files (*.toml, *.json)")
        return files, p.name
    if p.is_file():
        return [p], p.stem
    raise UserError(f"{what} {str(raw)!r} not found (a deck file or a folder of deck files)")
