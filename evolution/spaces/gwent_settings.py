"""Gwent Lite's settings: the run settings of its deck space (evolution.spaces.gwent) and their checks."""

from __future__ import annotations

from evolution.spaces.settings import HeadToHeadSettings
from games.config import need

#: the fixed decks the best decks of every generation are measured against
YARDSTICK = ["decks/yardstick"]
#: the reference decks a champion is validated against
REFERENCE_DECKS = ["decks", "decks/ancestor"]


class GwentSettings(HeadToHeadSettings):
    """Power multisets under `games.decks.DeckRules` (`[gwent.rules]`), a designer's constraints, the
    mutation's step sizes and the random-deck shapes; the yardstick and the validation panel default
    to Gwent Lite's decks."""

    game = "gwent_lite"
    table = "gwent"
    rules_field = "rules"
    fields = frozenset(
        {
            "games_per_pair",
            "opponents",
            "panel",
            "random_opponents",
            "hof_opponents",
            "init_shapes",
            "mut_card_rate",
            "mut_step_sigma",
            "mut_add_prob",
            "mut_remove_prob",
            "yardstick",
            "yardstick_top",
            "yardstick_games",
            "rules",
            "constraints",
            "playoff_games_per_pair",
            "validation_panel",
            "validation_games",
        }
    )
    #: one descriptor pair: the share of weak cards and the top five's share of the power
    descriptor_sets = ("power",)
    reference_decks = True

    @classmethod
    def check(cls, config) -> None:
        """No game settings; the yardstick and the validation panel default to Gwent Lite's decks."""
        need(not config.game_config, "game_config applies to exploding_kittens only (gwent_lite has [rules])")
        if config.yardstick is None:
            config.yardstick = list(YARDSTICK)
        if config.validation_panel is None:
            config.validation_panel = list(REFERENCE_DECKS)
