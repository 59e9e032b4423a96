"""Deck files, as `--deck FILE` gives them to a game (`deckopt match`, `eval`, `tournament`, `play`).

A deck file is a TOML (or, by suffix, JSON) file: the deck's card ids and a name for people.

    name = "low and high"
    cards = [1, 1, 2, 2, 8, 8, 9, 9]

A game whose decks are its config's `decks` setting (one list of card ids per seat) declares
`GameFacts(deck_files=deck_settings)`: the files, one per seat, become that setting, and the game's
own config checks each deck. A game whose deck files say more (Gwent's carry the deck rules they were
built for) declares its own function from the files' paths to its config's keywords.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from games.config import config_from_dict, need, read_settings, setting
from games.errors import UserError
from games.schema import MAX_NAME, is_name

T = TypeVar("T")


@dataclass
class DeckFile:
    """A deck as its file gives it; the fields are the file's keys."""

    cards: list[int] = setting(help="the deck's card ids, any order")
    name: str = setting("", "a name for people (default: the file's name)")


def read_deck(path: str | os.PathLike, deck_class: type[T]) -> T:
    """The deck in the file at `path` as a `deck_class` (a settings dataclass whose fields are the
    file's keys, `cards` among them; `name` defaults to the file's name); UserError in one line if the
    file is missing, unreadable or malformed, has no cards or unknown keys, or `deck_class` refuses
    a value."""
    path = Path(path)
    data = read_settings(path, what="deck file")
    need("cards" in data, f"deck file {str(path)!r} has no 'cards' list")
    need(
        is_name(data.get("name", "")),
        f"deck file {str(path)!r}: 'name' must be one line of at most {MAX_NAME} printable characters",
    )
    data.setdefault("name", path.stem)
    return config_from_dict(deck_class, data, where=f"deck file {str(path)!r}")


def read_deck_file(path: str | os.PathLike) -> DeckFile:
    """The deck in the file at `path` (`read_deck`); whether it is legal is the game's to say."""
    return read_deck(path, DeckFile)


def deck_settings(paths: Sequence[str | os.PathLike]) -> dict:
    """The config keywords of a game whose `decks` setting takes one list of card ids per seat, from
    one deck file per seat."""
    return {"decks": [list(read_deck_file(path).cards) for path in paths]}


def deck_settings_with_rules(load: Callable[[str | os.PathLike], Any], paths: Sequence[str | os.PathLike]) -> dict:
    """The config keywords `decks` and `rules` of a game whose deck files carry the deck rules they
    were built for (`load(path)` -> a deck with `.cards` and `.rules`, e.g. games.decks.load_deck):
    both decks are judged by one set of rules, so the files must agree on them (UserError in one
    line otherwise)."""
    decks = [load(path) for path in paths]
    for path, deck in zip(paths[1:], decks[1:]):
        if deck.rules != decks[0].rules:
            raise UserError(
                f"the deck files disagree on the rules: {paths[0]} has {decks[0].rules.describe()}, "
                f"{path} has {deck.rules.describe()}"
            )
    return {"decks": [d.cards for d in decks], "rules": decks[0].rules}
