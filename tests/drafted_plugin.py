"""A plug-in game whose decks are drafted, for the tests: LOCM under another name, loaded by its
import path (`drafted_plugin:DraftedLocm`). Its fact `drafted_in` (inherited: `locm_constructed`),
not its name, sends `deckopt study` and `deckopt exploit` to the drafts."""

from games.locm import Locm


class DraftedLocm(Locm):
    name = "drafted_locm"
