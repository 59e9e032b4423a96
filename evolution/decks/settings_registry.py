"""The settings classes of the deck games, by game name, without loading a space.

Ours are listed in SETTINGS; a plug-in's is its space's `Settings` (the space class registered in
the entry point group `deckopt.spaces`, docs/plugins.md), loaded with it.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points

from evolution.decks.gwent_abilities_settings import GwentAbilitiesSettings
from evolution.decks.gwent_settings import GwentSettings
from evolution.decks.kittens_settings import KittensSettings
from evolution.decks.locm_constructed_settings import LocmConstructedSettings
from evolution.decks.locm_drafter_settings import LocmDrafterSettings
from evolution.decks.settings import SpaceSettings
from games.errors import UserError

#: the settings of every deck space of ours by its game's name (`EvolveConfig.game`)
SETTINGS: dict[str, type[SpaceSettings]] = {
    s.game: s
    for s in (GwentSettings, KittensSettings, GwentAbilitiesSettings, LocmConstructedSettings, LocmDrafterSettings)
}
#: the game whose decks evolve when none is named
DEFAULT_GAME = GwentSettings.game
ENTRY_POINT_GROUP = "deckopt.spaces"


@functools.cache
def plugin_spaces() -> dict[str, EntryPoint]:
    """The installed plug-in deck spaces: entry points of the group `deckopt.spaces`, by game name
    (a name of ours is left to our space)."""
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return {ep.name: ep for ep in found if ep.name not in SETTINGS}


def space_names() -> tuple[str, ...]:
    """The games whose decks evolve: ours, then the installed plug-ins."""
    return tuple(SETTINGS) + tuple(plugin_spaces())


@functools.cache
def load_plugin_space(game: str) -> type:
    """The space class of plug-in game `game`; UserError in one line for a game without one, or a
    space that cannot be loaded or names no settings class of its own game."""
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
    settings = getattr(space, "Settings", None)
    if not (isinstance(settings, type) and issubclass(settings, SpaceSettings) and settings.game == game):
        raise UserError(
            f"deck space {point.value}: its Settings must be a class of evolution.decks.settings "
            f"(SpaceSettings or HeadToHeadSettings) whose game is {game!r}"
        )
    return space


def settings_class(game: str) -> type[SpaceSettings]:
    """The settings class of deck game `game`; UserError in one line for a game without a deck space."""
    if game in SETTINGS:
        return SETTINGS[game]
    return load_plugin_space(game).Settings
