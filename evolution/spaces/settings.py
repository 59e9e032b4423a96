"""A deck game's settings class: which settings of a run (`evolution.config.EvolveConfig`) the game
uses, its deck rules, objectives and MAP-Elites descriptor pairs, and their checks. One small class
per deck game beside its space (`gwent_settings`, `gwent_abilities_settings`, `kittens_settings`;
a plug-in's beside its space), importing only games/: reading and checking a run's settings never
loads a space, its scoring or its reports (evolution.spaces.settings_registry finds them by name).

    class HighCardSettings(HeadToHeadSettings):
        game = "high_card"
        table = "high_card"
        Rules = HighCardRules            # a frozen dataclass of games.config.setting fields
        descriptor_sets = ("extremes",)
"""

from __future__ import annotations

from games.config import need

#: the EvolveConfig field of a plug-in's deck rules (a table checked by its settings' `Rules`)
PLUGIN_RULES = "plugin_rules"


def check_racing_split(name: str, games: int, rounds: int, unit: str = "") -> None:
    """A racing fitness plays `games` (a setting `name`, mirrored pairs) in `rounds` equal rounds."""
    need(
        (games // 2) % rounds == 0,
        f"racing: {name} / 2 ({games // 2}{unit}) must split into racing_rounds ({rounds}) equal rounds",
    )


class SpaceSettings:
    """The settings facts of a deck game (class attributes; the values live in the run's EvolveConfig)."""

    #: the game's name (games.make, `EvolveConfig.game`)
    game: str = ""
    #: the table of the game's own settings in a settings file and config.json
    table: str = ""
    #: the EvolveConfig fields only this game uses (a plug-in's: none, its deck rules aside)
    fields: frozenset[str] = frozenset()
    #: the EvolveConfig field of the game's deck rules (its table's `rules`; `deckopt sweep --rule`
    #: varies one), or None without deck rules; a plug-in's is `plugin_rules`, a table checked by `Rules`
    rules_field: str | None = None
    #: a plug-in's deck rules: a frozen dataclass of games.config.setting fields (None: no rules)
    Rules: type | None = None
    #: what a deck may be scored on, the default first
    objectives: tuple[str, ...] = ("win",)
    #: the names of the MAP-Elites descriptor pairs a run chooses from, the default first
    descriptor_sets: tuple[str, ...] = ("default",)
    #: two decks play each other (one per seat): matchups, advise and study agents take its decks
    head_to_head: bool = False
    #: the game ships reference decks (a default validation panel or yardstick)
    reference_decks: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.Rules is not None and cls.rules_field is None:  # a plug-in's deck rules
            cls.rules_field = PLUGIN_RULES

    @classmethod
    def check(cls, config) -> None:
        """Check (and complete) the game's settings of an EvolveConfig; UserError in one line."""

    @classmethod
    def check_racing(cls, config) -> None:
        """Check that the game's games per deck split into the racing rounds."""


class HeadToHeadSettings(SpaceSettings):
    """The settings of a game whose decks play each other: `games_per_pair` mirrored games per pairing."""

    head_to_head = True

    @classmethod
    def check_racing(cls, config) -> None:
        check_racing_split("games_per_pair", config.games_per_pair, config.racing_rounds, " deals")
