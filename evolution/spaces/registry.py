"""The deck spaces by game name, and the one way to make a run's deck space.

space = space_for(config)       # once per run, then passed along

Two kinds of deck space are found by their game's name:
- ours, in SPACES below;
- plug-ins: a package installed with an entry point in the group `deckopt.spaces`, named by the
  game and naming the space's class (`high_card = "high_card.space:HighCardSpace"` in its
  pyproject.toml, next to the game's entry point in `deckopt.games`; docs/plugins.md).

A deck space is registered apart from its game so that the game's engine never imports the
evolution (a game is played, trained and checked without it). Its settings class is found without
loading it (evolution.decks.settings_registry), so reading a run's settings loads no space.
"""

from __future__ import annotations

from evolution.config import EvolveConfig
from evolution.decks.base import DeckSpace
from evolution.decks.settings_registry import load_plugin_space, settings_class, space_names
from evolution.spaces.gwent import GwentSpace
from evolution.spaces.gwent_abilities import GwentAbilitiesSpace
from evolution.spaces.kittens import KittensSpace
from evolution.spaces.locm_constructed import LocmConstructedSpace
from evolution.spaces.locm_drafter import LocmDrafterSpace

#: every deck space of ours by its game's name (`EvolveConfig.game`)
SPACES: dict[str, type[DeckSpace]] = {
    s.Settings.game: s for s in (GwentSpace, KittensSpace, GwentAbilitiesSpace, LocmConstructedSpace, LocmDrafterSpace)
}


def space_class(game: str) -> type[DeckSpace]:
    """The deck space class of game `game`; UserError in one line for a game without one."""
    return SPACES[game] if game in SPACES else load_plugin_space(game)


def space_for(config) -> DeckSpace:
    """The deck space of a checked EvolveConfig."""
    return space_class(config.game)(config)


def spaces_of_game(game) -> list[DeckSpace]:
    """The deck spaces whose decks are played in a made game (its own, and others such as LOCM's
    drafter space, whose settings make this game), each under the default settings (the conformance
    check); none when no decks of it evolve."""
    names = [n for n in space_names() if n == game.name or settings_class(n)().make_game().name == game.name]
    return [space_for(EvolveConfig(game=n)) for n in names]
