"""The locm_drafter deck space's settings (evolution.spaces.locm_drafter): its opponents, battlers,
games and mutation, and their checks."""

from __future__ import annotations

from dataclasses import dataclass

import games
from evolution.decks.settings import MAX_GAMES_PER_PAIR, SpaceSettings, check_counts, check_even
from games.config import need, setting

#: the competition's drafters (agents.heuristics.locm_field.DRAFTERS), the default field
DRAFTERS = ("random", "max-attack", "rule-based", "icebox", "closet-ai", "uji1", "uji2", "coac", "chad")
#: the scripted battlers with a batch form (agents.heuristics.locm_field.BATTLERS_BATCH); a learned
#: battler is an agent spec beside them, checked where the space is made (agents.locm_battlers)
BATTLERS = ("random", "max-attack", "greedy", "greedy-count")
#: the default battler: the trusted panel of learned battlers (its trust figures in agents/pretrained/panels.toml)
DEFAULT_BATTLER = "locm_league3_scorer_panel"


@dataclass
class LocmDrafterSettings(SpaceSettings):
    """A LOCM draft policy, one score per card (`per_seat`: one list per seat), scored against the
    field's drafters (`[locm_drafter]`)."""

    game = "locm_drafter"
    table = "locm_drafter"
    #: one descriptor pair: the mean mana cost and the creature share of the decks it drafts
    descriptor_sets = ("curve",)
    #: the trusted panel of learned battlers stands for `battlers` (agents/pretrained/panels.toml)
    default_agent = DEFAULT_BATTLER
    #: its drafters draft; both seats battle with the run's battlers (`deckopt matchups --agent`)
    agent_role = "battler"
    agent_settings = ("battlers",)
    #: half of a truncation run's children bred by a uniform crossover of two survivors: with it, runs of
    #: 1 000 000 games from seeds 10, 11 and 12 (seeds no comparison uses) return drafters stronger on
    #: average against the field than with none, by 0.035 (the best met) and 0.019 (the last generation's
    #: best) (docs/results/locm.md)
    default_cx_prob = 0.5

    per_seat: bool = setting(False, "one list of scores per seat (Chad's kind of drafter) instead of one for both")
    field: list[str] = setting(
        factory=lambda: list(DRAFTERS),
        metavar="NAMES",
        help=f"the field's drafters every drafter plays, both seats (default all: {', '.join(DRAFTERS)})",
    )
    battlers: list[str] = setting(
        factory=lambda: [DEFAULT_BATTLER],
        metavar="NAMES",
        help=f"the battler both players battle with, in turn by draft with several ({', '.join(BATTLERS)}, "
        f"or a learned one: a LOCM model file (.npz) or a named LOCM panel; default {DEFAULT_BATTLER})",
    )
    games_per_opponent: int = setting(
        40,
        "games against each field drafter a generation, even: each draft played twice, seats swapped",
        metavar="N",
        maximum=MAX_GAMES_PER_PAIR,
    )
    playoff_games_per_opponent: int = setting(
        400,
        "games of each champion candidate against each field drafter, even",
        metavar="N",
        maximum=MAX_GAMES_PER_PAIR,
    )
    validation_games: int = setting(
        1000, "the champion's games against each field drafter, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    # 0.15 and 400: of (0.05, 100), (0.1, 250) and (0.15, 400), the one whose 60-generation run (seed 0)
    # ends with the strongest champion (docs/results/locm.md)
    mutation_rate: float = setting(0.15, "share of the scores a mutation changes (at least one)", metavar="P")
    mutation_sigma: float = setting(
        400.0, "standard deviation of a mutation's change of a score (0..1000)", metavar="S"
    )

    def __post_init__(self):
        super().__post_init__()
        for name in ("field", "battlers"):
            if isinstance(getattr(self, name), str):
                setattr(self, name, [getattr(self, name)])
        names = ("games_per_opponent", "playoff_games_per_opponent", "validation_games")
        check_counts(self, 2, names)
        check_even(self, names)
        need(isinstance(self.field, list) and self.field, "field must be a non-empty list of drafters")
        bad = [d for d in self.field if d not in DRAFTERS]
        need(not bad, f"field: unknown drafter {bad[0] if bad else ''!r}; drafters: {', '.join(DRAFTERS)}")
        need(len(set(self.field)) == len(self.field), f"field: a drafter listed twice: {self.field}")
        need(isinstance(self.battlers, list) and self.battlers, "battlers must be a non-empty list")
        bad = [b for b in self.battlers if not (isinstance(b, str) and b.strip())]
        need(not bad, f"battlers: a battler is a name or an agent spec, got {bad[0] if bad else ''!r}")
        need(0.0 < self.mutation_rate <= 1.0, f"mutation_rate must lie in (0, 1], got {self.mutation_rate}")
        need(self.mutation_sigma > 0, f"mutation_sigma must be > 0, got {self.mutation_sigma}")

    @classmethod
    def played_under(cls) -> tuple[str, ...]:
        """A run's drafters are played under its battlers."""
        return ("battlers",)

    def make_game(self):
        """The game its drafters play: LOCM 1.2 with its draft."""
        return games.make("locm")

    def check(self, config) -> None:
        """The run's agent is its battlers (the default agent stands for them, as max-attack does in a run
        folder written when it was the default); no racing (every drafter meets the same drafts) and no
        reference decks."""
        super().check(config)
        battlers = ",".join(self.battlers)
        need(
            config.agent in (battlers, DEFAULT_BATTLER, "max-attack"),
            f"locm_drafter: the battlers setting names who battles ({battlers}), not --agent {config.agent!r}",
        )
        config.agent = battlers
        need(config.fitness != "racing", 'locm_drafter: fitness racing does not apply (use fitness = "fixed")')
