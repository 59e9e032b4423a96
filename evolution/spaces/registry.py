"""The deck games the evolution knows, by name, and the one way to make a run's deck space.

space = space_for(config)       # once per run, then passed along

Two kinds of deck space are found by their game's name:
- ours, in SPACES below;
- plug-ins: a package installed with an entry point in the group `deckopt.spaces`, named by the
  game and naming the space's class (`high_card = "high_card.space:HighCardSpace"` in its
  pyproject.toml, next to the game's entry point in `deckopt.games`; docs/plugins.md).

A deck space is registered apart from its game so that the game's engine never imports the
evolution (a game is played, trained and checked without it) and so that the space is found by
name before any game is made (a run's settings are checked against it). A plug-in space has no
settings of its own (`settings` empty): its runs use the settings every game shares.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points

from evolution.spaces.base import DeckSpace
from evolution.spaces.gwent import GwentSpace
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from evolution.spaces.kittens import KittensSpace
from games.errors import UserError

#: every deck space of ours by its game's name (`EvolveConfig.game`)
SPACES: dict[str, type[DeckSpace]] = {space.name: space for space in (GwentSpace, KittensSpace, GwentAbilitiesSpace)}
#: the settings some game uses alone (a run of another game ignores them)
GAME_SETTINGS = frozenset().union(*(space.settings for space in SPACES.values()))
ENTRY_POINT_GROUP = "deckopt.spaces"


@functools.cache
def plugin_spaces() -> dict[str, EntryPoint]:
    """The installed plug-in deck spaces: entry points of the group `deckopt.spaces`, by game name
    (a name of ours is left to our space)."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return {ep.name: ep for ep in found if ep.name not in SPACES}


def space_names() -> tuple[str, ...]:
    """The games whose decks evolve: ours, then the installed plug-ins."""
    return tuple(SPACES) + tuple(plugin_spaces())


def space_class(game: str) -> type[DeckSpace]:
    """The deck space class of game `game`; UserError in one line for a game without one, or a
    plug-in space that cannot be loaded or declares settings of its own."""
    if game in SPACES:
        return SPACES[game]
    point = plugin_spaces().get(game)
    if point is None:
        raise UserError(
            f"game {game!r} has no deck space; decks evolve in: {', '.join(space_names())} "
            f"(a plug-in registers its space in the entry point group {ENTRY_POINT_GROUP})"
        )
    try:
        space = point.load()
    except (ImportError, AttributeError) as exc:
        raise UserError(f"deck space of {game!r}: cannot load {point.value}: {exc}") from None
    if getattr(space, "settings", None):
        raise UserError(f"deck space {point.value}: a plug-in space has no settings of its own (make settings empty)")
    return space


def space_for(config) -> DeckSpace:
    """The deck space of a checked EvolveConfig."""
    return space_class(config.game).from_config(config)


def space_of_game(game) -> DeckSpace | None:
    """The default deck space of a made game for the conformance check, or None when its decks do
    not evolve."""
    if game.name not in space_names():
        return None
    return space_class(game.name).default()
