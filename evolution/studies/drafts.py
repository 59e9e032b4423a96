"""The decks of a game whose decks are drafted in the game (LOCM): its verdicts are made on the decks
its field of drafters (agents.heuristics.locm_field.DRAFTERS) drafts on fresh offers, the drafts its
drafter x drafter matrix is judged on. Such a game declares the deck space that battles two given
decks of it (`GameFacts.drafted_in`; its yardstick and reference decks are field drafters' drafts);
`field_drafts` drafts fresh ones.
"""

from __future__ import annotations

import numpy as np

from agents.heuristics.locm_field import DRAFTERS, draft_decks
from games import make as make_game
from games.errors import UserError


def drafted_in(game: str) -> str | None:
    """The deck space that battles two decks of `game` if its decks are drafted in the game (the
    game's fact `drafted_in`), else None (also for a name that is no game: the caller names what is
    missing)."""
    try:
        return make_game(game).facts.drafted_in
    except UserError:
        return None


def space_game(game: str) -> str:
    """The deck space's game that plays `game`'s decks: its own name for a deck game, the battling
    space for a game whose decks are drafted."""
    return drafted_in(game) or game


def field_drafts(game: str, drafts: int, rng: np.random.Generator, drafters=tuple(DRAFTERS)) -> dict[str, list]:
    """Each of `drafters`' `drafts` drafts of `game` on fresh offers from `rng`, both seats drafted by
    it: {drafter: 2 x `drafts` decks (sorted card numbers), each draft's two seats side by side}."""
    played = make_game(game)
    return {name: draft_decks(played, name, drafts, rng) for name in drafters}
