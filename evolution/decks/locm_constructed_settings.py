"""LOCM constructed decks' settings: the deck rules of the locm_constructed deck space
(evolution.spaces.locm_constructed), its descriptor pair, its default agent and its reference decks.

The deck rule. A constructed deck is any 30 of LOCM 1.2's 160 cards with at most `copy_limit`
copies of a card, 2 by default. LOCM 1.2's draft has no copy limit (a card offered again may be
taken again: most drafted decks hold three or more copies of some card), but it has no constructed
format either; the constructed phase LOCM 1.5 introduced has each player choose 30 cards with at
most two copies of a card (gym-locm's `ConstructedPhase(max_copies=2)`), the rule of a
LOCM player building a deck from an open card pool. Without a limit the search space is dominated
by decks of a few cards repeated many times.
"""

from __future__ import annotations

from dataclasses import dataclass

import games
from evolution.decks.settings import HeadToHeadSettings
from games.config import need, setting
from games.locm import DECK_SIZE

#: the most copies of a card a constructed deck may hold by default (LOCM 1.5's constructed phase)
COPY_LIMIT = 2
#: the default agent: the trusted panel of learned battlers (its trust figures in agents/pretrained/panels.toml)
BATTLER = "locm_league3_scorer_panel"
#: the competition's drafters (agents.heuristics.locm_field.DRAFTERS), whose decks are the reference decks
FIELD_DRAFTERS = ("random", "max-attack", "rule-based", "icebox", "closet-ai", "uji1", "uji2", "coac", "chad")
#: the fixed decks the best decks of every generation are measured against: one draft of each drafter
#: of the field, both seats (scripts/locm_deck_pool.py --files)
YARDSTICK = [f"decks/locm/yardstick/{d}" for d in FIELD_DRAFTERS]
#: the reference decks a champion is validated against: two more drafts of each, on other offers
REFERENCE_DECKS = [f"decks/locm/field/{d}" for d in FIELD_DRAFTERS]
#: the agents a run of another deck game defaults to, which a constructed run reads as its battler
OTHER_DEFAULT_AGENTS = ("evaluator", "pretrained")


@dataclass(frozen=True)
class LocmConstructedRules:
    """The deck rules of a constructed run (`--set rules.copy_limit=3`, `deckopt sweep --rule copy_limit`)."""

    copy_limit: int = setting(COPY_LIMIT, f"copies of one card a deck may hold (1..{DECK_SIZE})", metavar="N")

    def __post_init__(self):
        need(
            isinstance(self.copy_limit, int) and not isinstance(self.copy_limit, bool) and 1 <= self.copy_limit,
            f"copy_limit must be a whole number 1..{DECK_SIZE}, got {self.copy_limit!r}",
        )
        need(self.copy_limit <= DECK_SIZE, f"copy_limit must be 1..{DECK_SIZE}, got {self.copy_limit}")


@dataclass
class LocmConstructedSettings(HeadToHeadSettings):
    """30 of the 160 cards under `LocmConstructedRules` (`[locm_constructed.rules]`); decks play each
    other with a battler (the run's agent, default the learned panel locm_league3_scorer_panel); the yardstick
    and the validation panel
    are decks the competition's drafters drafted."""

    game = "locm_constructed"
    table = "locm_constructed"
    #: `curve`: the deck's mean mana cost and its share of creatures
    descriptor_sets = ("curve",)
    #: its decks are played by the trusted panel of learned battlers
    default_agent = BATTLER
    default_yardstick = tuple(YARDSTICK)
    default_validation_panel = tuple(REFERENCE_DECKS)

    rules: LocmConstructedRules = setting(
        factory=LocmConstructedRules, help="the deck rules (a [locm_constructed.rules] table: copy_limit)", flag=False
    )

    def make_game(self):
        return games.make("locm")

    def check(self, config) -> None:
        """`evaluator` and `pretrained` (another game's default agents by name) read as the default
        battler."""
        if config.agent in OTHER_DEFAULT_AGENTS:
            config.agent = BATTLER
        super().check(config)
