"""A deck game's settings: a dataclass of the run settings the game's deck space reads, with its
facts (deck rules, objectives, MAP-Elites descriptor pairs) and its checks. One small class per deck
game in this folder (`gwent_settings`, `gwent_abilities_settings`, `kittens_settings`, ...; a
plug-in's beside its space), importing only games/: reading and checking a run's settings never
loads a space, its scoring or its reports (evolution.decks.settings_registry finds them by name).

The run's `EvolveConfig` holds one instance as `config.settings`; a settings file and config.json
hold its values in the game's table (`[gwent]`, its deck rules `[gwent.rules]`). Every field is a
`games.config.setting` (its help text makes the flag `deckopt evolve --NAME`); `__post_init__`
checks the values alone, `check(config)` what depends on the run's other settings.

    @dataclass
    class HighCardSettings(HeadToHeadSettings):
        game = "high_card"
        table = "high_card"
        descriptor_sets = ("extremes",)
        rules: HighCardRules = setting(factory=HighCardRules, help="the deck rules", flag=False)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import games
from games.config import need, setting

#: games of one pairing: a pairing is one batch of the vectorised engine in one worker (about 7 KB a
#: game: 200 000 games take 1.4 GB)
MAX_GAMES_PER_PAIR = 200_000
#: decks of a pool, the hall of fame, the opponents or a playoff
MAX_DECKS = 10_000
#: the decks a head-to-head deck plays each generation, together
OPPONENT_KINDS = ("population", "panel", "hall-of-fame", "random")


def check_racing_split(name: str, games: int, rounds: int, unit: str = "") -> None:
    """A racing fitness plays `games` (a setting `name`, mirrored pairs) in `rounds` equal rounds."""
    need(
        (games // 2) % rounds == 0,
        f"racing: {name} / 2 ({games // 2}{unit}) must split into racing_rounds ({rounds}) equal rounds",
    )


def check_counts(settings, at_least: int, names: tuple[str, ...]) -> None:
    """Each setting in `names` a whole number >= `at_least`."""
    for name in names:
        value = getattr(settings, name)
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= at_least
        need(ok, f"{name} must be a whole number >= {at_least}, got {value!r}")


def check_even(settings, names: tuple[str, ...]) -> None:
    """Each setting in `names` even: games come in mirrored pairs."""
    for name in names:
        value = getattr(settings, name)
        need(value % 2 == 0, f"{name} must be even (mirrored pairs of games), got {value}")


@dataclass
class SpaceSettings:
    """The settings of a deck game: its facts (class attributes) and the fields every game has (the
    fixed decks of reference a run measures its best decks against, none for a game whose decks are
    judged alone)."""

    #: the game's name (games.make, `EvolveConfig.game`)
    game: ClassVar[str] = ""
    #: the table of the game's settings in a settings file and config.json
    table: ClassVar[str] = ""
    #: what a deck may be scored on, the default first
    objectives: ClassVar[tuple[str, ...]] = ("win",)
    #: the names of the MAP-Elites descriptor pairs a run chooses from, the default first
    descriptor_sets: ClassVar[tuple[str, ...]] = ("default",)
    #: two decks play each other (one per seat): matchups, advise and study agents take its decks
    head_to_head: ClassVar[bool] = False
    #: the run's default agent when it is not the game's own (GameFacts.default_agent); None: the game's
    default_agent: ClassVar[str | None] = None
    #: what the agent of its games is called in the designer's tables (a drafter space's decks draft, and
    #: its agent battles: "battler")
    agent_role: ClassVar[str] = "agent"
    #: the settings that name the agent of its games (a drafter space's `battlers`): the designer commands'
    #: `--agent` stands for them, so the run folders they read need not agree on them when it is given
    agent_settings: ClassVar[tuple[str, ...]] = ()
    #: a deck is a multiset of card powers under games.decks.DeckRules, which its deck files carry: the
    #: designer commands read the rules from the files, and the advisor moves power between cards (--step)
    power_multisets: ClassVar[bool] = False
    #: the run's crossover chance (`EvolveConfig.cx_prob`) where the run names none
    default_cx_prob: ClassVar[float] = 0.0
    #: the reference decks the game ships: the yardstick's and the validation panel's defaults
    default_yardstick: ClassVar[tuple[str, ...]] = ()
    default_validation_panel: ClassVar[tuple[str, ...]] = ()
    #: the name of the deck rules (the field `rules`) in run folders written with every setting at
    #: the top level (Gwent Abilities': `ability_rules`; a plug-in's: `plugin_rules`)
    flat_rules_name: ClassVar[str] = "plugin_rules"

    yardstick: list[str] | None = setting(
        None,
        metavar="FILE|DIR",
        append=True,
        help="fixed panel of decks the best decks of every generation are measured against (logged, plotted, "
        "and the champion is chosen on it); never part of the fitness (default: the game's own, if it ships some)",
    )
    yardstick_top: int = setting(
        3, "the best decks of each generation measured against the yardstick", metavar="K", maximum=MAX_DECKS
    )
    validation_panel: list[str] | None = setting(
        None,
        metavar="FILE|DIR",
        append=True,
        help="reference deck files or folders of the validation (default: the game's own, if it ships some)",
    )

    def __post_init__(self):
        check_counts(self, 0, ("yardstick_top",))

    @classmethod
    def ships_reference_decks(cls) -> bool:
        """Whether the game ships reference decks (a default yardstick or validation panel)."""
        return bool(cls.default_yardstick or cls.default_validation_panel)

    @classmethod
    def played_under(cls) -> tuple[str, ...]:
        """The settings a run's decks are played under, which the designer commands take from the run
        folders they read (the runs must agree on them): the deck rules, where the game has them."""
        return ("rules",) if cls.has_rules() else ()

    @classmethod
    def names(cls) -> frozenset[str]:
        """The names of the game's settings."""
        return frozenset(f.name for f in dataclasses.fields(cls))

    @classmethod
    def has_rules(cls) -> bool:
        """Whether the game has deck rules (its setting `rules`: `--set rules.NAME=VALUE`, `sweep --rule`)."""
        return "rules" in cls.names()

    @classmethod
    def rules_class(cls) -> type:
        """The dataclass of the game's deck rules (a game with deck rules)."""
        return type(next(f for f in dataclasses.fields(cls) if f.name == "rules").default_factory())

    @classmethod
    def flat_names(cls) -> dict[str, str]:
        """Each field by its name in run folders written with every setting at the top level."""
        return {(cls.flat_rules_name if f.name == "rules" else f.name): f.name for f in dataclasses.fields(cls)}

    def make_game(self):
        """The game the decks are played in, as these settings make it (its facts name the run's
        default agent)."""
        return games.make(self.game)

    def check(self, config) -> None:
        """Check (and complete) these settings within the run's EvolveConfig `config` (the agent,
        the reference decks' defaults); UserError in one line."""
        if self.yardstick is None:
            self.yardstick = list(self.default_yardstick)
        if self.validation_panel is None:
            self.validation_panel = list(self.default_validation_panel)
        if not self.head_to_head:
            for name in ("yardstick", "validation_panel"):
                need(
                    not getattr(self, name), f"{name} applies to games judged against reference decks, not {self.game}"
                )

    def check_racing(self, config) -> None:
        """Check that the game's games per deck split into the racing rounds."""


@dataclass
class HeadToHeadSettings(SpaceSettings):
    """The settings of a game whose decks play each other: `games_per_pair` mirrored games per
    pairing against the opponent sets, the yardstick's and the validation's games."""

    head_to_head = True
    #: the game takes reference decks as `panel` opponents
    panel_opponents: ClassVar[bool] = False

    games_per_pair: int = setting(
        10, "games per pairing, even: each deal is played twice, seats swapped", metavar="K", maximum=MAX_GAMES_PER_PAIR
    )
    # population + hall of fame: games against fresh random decks (and random refills of
    # the pool) measure what every strong deck wins anyway and cannot tell the strong decks apart
    opponents: list[str] = setting(
        factory=lambda: ["population", "hall-of-fame"],
        metavar="KINDS",
        help=f"fitness = mean score against these opponent sets together: a comma list of {', '.join(OPPONENT_KINDS)}",
    )
    panel: list[str] = setting(
        factory=list,
        metavar="FILE|DIR",
        append=True,
        help="reference deck file or folder for 'panel' opponents (repeatable)",
    )
    random_opponents: int = setting(
        10, "fresh random decks met as 'random' opponents each generation", metavar="N", maximum=MAX_DECKS
    )
    hof_opponents: int = setting(
        10,
        "how many of the hall of fame's best decks serve as 'hall-of-fame' opponents",
        metavar="N",
        maximum=MAX_DECKS,
    )
    yardstick_games: int = setting(
        20, "games of each of those decks against each yardstick deck, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    playoff_games_per_pair: int = setting(
        200, "games per pair in the champion's playoff, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    # 2000 each: the champion's edge over the ancestor's best decks is small (0.52-0.53) and takes a
    # CI of +-0.014 to show; 70 000 games, under a minute on 2 cores
    validation_games: int = setting(
        2000, "champion's games against each reference deck, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.opponents, str):
            self.opponents = [self.opponents]
        check_counts(self, 1, ("games_per_pair",))
        check_counts(self, 0, ("random_opponents", "hof_opponents", "playoff_games_per_pair", "validation_games"))
        check_even(self, ("games_per_pair", "playoff_games_per_pair", "validation_games", "yardstick_games"))
        need(isinstance(self.opponents, list) and self.opponents, "opponents must be a non-empty list")
        if not self.panel_opponents:
            need(not self.panel and "panel" not in self.opponents, f"panel decks do not apply to {self.game}")
        bad = [o for o in self.opponents if o not in OPPONENT_KINDS]
        need(not bad, f"unknown opponents {bad}; choose from {', '.join(OPPONENT_KINDS)}")
        need(len(set(self.opponents)) == len(self.opponents), f"opponents listed twice: {self.opponents}")
        need(
            "panel" not in self.opponents or bool(self.panel), "opponents include 'panel' but no panel decks are given"
        )
        need(
            "random" not in self.opponents or self.random_opponents >= 1, "random opponents need random_opponents >= 1"
        )

    def check(self, config) -> None:
        """The opponents within the run (a population round robin needs a pool, hall-of-fame opponents
        a hall of fame); no validation without reference decks."""
        super().check(config)
        need(
            "population" not in self.opponents or config.pool >= 2,
            "a population round robin needs a pool of at least 2",
        )
        need(
            "hall-of-fame" not in self.opponents or (config.hof_size >= 1 and self.hof_opponents >= 1),
            "hall-of-fame opponents need hof_size >= 1 and hof_opponents >= 1",
        )
        if not self.validation_panel:  # no reference decks to validate against
            config.validate = False

    def check_racing(self, config) -> None:
        check_racing_split("games_per_pair", self.games_per_pair, config.racing_rounds, " deals")
