"""Gwent Abilities' settings: the run settings of its deck space (evolution.spaces.gwent_abilities)."""

from __future__ import annotations

from evolution.spaces.settings import HeadToHeadSettings
from games.config import need
from games.gwent_abilities_cards import AbilityDeckRules

#: the reference decks a champion is validated against
REFERENCE_DECKS = ["decks/gwent_abilities"]
#: the fixed decks the best decks of every generation are measured against
YARDSTICK = ["decks/gwent_abilities/yardstick"]
#: the default agent: the panel of the game's three trained networks (agents.PANELS)
EVALUATOR = "gwent_abilities_evaluator"
#: Gwent Lite's agents, the default one first, which this space reads as its own evaluator
GWENT_LITE_AGENTS = ("evaluator", "pretrained")


class GwentAbilitiesSettings(HeadToHeadSettings):
    """Decks of the card pool under `AbilityDeckRules` (`[gwent_abilities.rules]`)."""

    game = "gwent_abilities"
    table = "gwent_abilities"
    rules_field = "ability_rules"
    fields = frozenset({"ability_rules"})
    #: `style` (card advantage against board synergy) or `rows` (melee against ranged units)
    descriptor_sets = ("style", "rows")
    reference_decks = True

    @classmethod
    def check(cls, config) -> None:
        """Gwent Lite's decks, rules and constraints refused; the agent defaults to
        `gwent_abilities_evaluator` (so do `evaluator`, Gwent Lite's default, and `pretrained`), the
        validation panel to decks/gwent_abilities and the yardstick to decks/gwent_abilities/yardstick
        (none under other than the default deck rules, for which its decks are built)."""
        need(not config.game_config, "game_config applies to exploding_kittens only")
        need(not config.constraints, "constraints apply to gwent_lite only")
        need(not config.panel and "panel" not in config.opponents, "panel decks apply to gwent_lite only")
        if config.agent in GWENT_LITE_AGENTS:  # Gwent Lite's networks: this game's evaluator
            config.agent = EVALUATOR
        if config.validation_panel is None:
            config.validation_panel = list(REFERENCE_DECKS)
        if config.yardstick is None:  # its decks are built for the default rules
            config.yardstick = list(YARDSTICK) if config.ability_rules == AbilityDeckRules() else []
