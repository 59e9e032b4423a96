"""Gwent Abilities' settings: the run settings of its deck space (evolution.spaces.gwent_abilities)."""

from __future__ import annotations

from dataclasses import dataclass

from evolution.decks.settings import HeadToHeadSettings
from games.config import setting
from games.gwent_abilities_cards import AbilityDeckRules

#: the default agent: the panel of the game's three trained networks (agents.PANELS)
EVALUATOR = "gwent_abilities_evaluator"
#: Gwent Lite's agents, the default one first, which this space reads as its own evaluator
GWENT_LITE_AGENTS = ("evaluator", "pretrained")


@dataclass
class GwentAbilitiesSettings(HeadToHeadSettings):
    """Decks of the card pool under `AbilityDeckRules` (`[gwent_abilities.rules]`)."""

    game = "gwent_abilities"
    table = "gwent_abilities"
    flat_rules_name = "ability_rules"
    #: `style` (card advantage against board synergy) or `rows` (melee against ranged units)
    descriptor_sets = ("style", "rows")
    default_validation_panel = ("decks/gwent_abilities",)
    #: its yardstick's decks are built for the default rules (none under others)
    default_yardstick = ("decks/gwent_abilities/yardstick",)

    rules: AbilityDeckRules = setting(
        factory=AbilityDeckRules,
        help="the deck rules (a [gwent_abilities.rules] table: min_cards, max_cards, copy_limit, "
        "gold_copy_limit, provision_budget)",
        flag=False,
    )

    def check(self, config) -> None:
        """`evaluator` and `pretrained` (Gwent Lite's networks by name) read as this game's evaluator,
        `gwent_abilities_evaluator`; the yardstick defaults to decks/gwent_abilities/yardstick under the
        default rules only."""
        if config.agent in GWENT_LITE_AGENTS:  # Gwent Lite's networks: this game's evaluator
            config.agent = EVALUATOR
        if self.yardstick is None and self.rules != AbilityDeckRules():
            self.yardstick = []
        super().check(config)
