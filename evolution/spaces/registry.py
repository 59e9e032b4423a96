"""The deck games the evolution knows, by name, and the one way to make a run's deck space.

space = space_for(config)       # once per run, then passed along
"""

from __future__ import annotations

from evolution.spaces.base import DeckSpace
from evolution.spaces.gwent import GwentSpace
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from evolution.spaces.kittens import KittensSpace

#: every deck space by its game's name (`EvolveConfig.game`)
SPACES: dict[str, type[DeckSpace]] = {space.name: space for space in (GwentSpace, KittensSpace, GwentAbilitiesSpace)}
#: the settings some game uses alone (a run of another game ignores them)
GAME_SETTINGS = frozenset().union(*(space.settings for space in SPACES.values()))


def space_for(config) -> DeckSpace:
    """The deck space of a checked EvolveConfig."""
    return SPACES[config.game].from_config(config)


def space_of_game(game) -> DeckSpace | None:
    """The deck space of a made game for the conformance check, or None when decks do not evolve in
    it: our games' default spaces (SPACES), else the game's own `deck_space()` if it has one."""
    if game.name in SPACES:
        return SPACES[game.name].default()
    make_space = getattr(game, "deck_space", None)
    return make_space() if callable(make_space) else None
