"""The state of an evolution between generations: DEAP's checkpoint dictionary, typed.

    state = EvolutionState.start(config)            # before generation 0
    ...                                              # the loop fills it generation by generation
    data = state.to_json(config)                     # what checkpoints/checkpoint.json holds
    state = EvolutionState.from_json(data, config)   # UserError in one line if damaged

It holds everything the next generation depends on (the random generator, the pool with each deck's
past games, the hall of fame, the logbook, the best deck of every generation) and the resolved
config it was made under, so a resumed run continues exactly where it stopped, and a run folder
whose config was edited in between is noticed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from deap import tools

from evolution.config import EvolveConfig
from evolution.individuals import deck_entry, individual_from_entry
from games.errors import UserError

CHECKPOINT_FORMAT = "deckopt-evolve-checkpoint-2"
#: the first format (no config inside); still read
OLD_CHECKPOINT_FORMATS = ("deckopt-evolve-checkpoint-1",)
LOGBOOK_FIELDS = [
    "gen",
    "decks",
    "games",
    "best",
    "best_lo",
    "best_hi",
    "mean",
    "mean_lo",
    "mean_hi",
    "std",
    "min",
    "max",
    "hof_best",
    "best_vs_random",
    "mean_vs_random",
    "yardstick",
    "yardstick_lo",
    "yardstick_hi",
    "seconds",
    "games_per_s",
]
TIMING_FIELDS = ("seconds", "games_per_s")


def new_logbook() -> tools.Logbook:
    logbook = tools.Logbook()
    logbook.header = LOGBOOK_FIELDS
    return logbook


@dataclass
class EvolutionState:
    generation: int  # the last finished generation (-1: none yet)
    rng: np.random.Generator  # the run's one stream of selection and variation choices
    pool: list | None  # the last evaluated pool (DEAP individuals)
    hall_of_fame: tools.HallOfFame
    logbook: tools.Logbook = field(default_factory=new_logbook)
    best_decks: list[dict] = field(default_factory=list)  # {"generation", "best": {cards, score, ci95, games}}
    config: dict | None = None  # the resolved config the checkpoint was written under (None in old checkpoints)

    @classmethod
    def start(cls, config: EvolveConfig) -> EvolutionState:
        return cls(-1, np.random.default_rng(config.seed), None, tools.HallOfFame(config.hof_size))

    @property
    def next_generation(self) -> int:
        return self.generation + 1

    def to_json(self, config: EvolveConfig) -> dict:
        return {
            "format": CHECKPOINT_FORMAT,
            "generation": self.generation,
            "rng": self.rng.bit_generator.state,
            "pool": [deck_entry(ind, with_past=True) for ind in self.pool or []],
            "hall_of_fame": [deck_entry(h, with_generation=True) for h in self.hall_of_fame],
            "logbook": [dict(r) for r in self.logbook],
            "best_decks": self.best_decks,
            "config": config.to_dict(),
        }

    @classmethod
    def from_json(cls, data, config: EvolveConfig, space) -> EvolutionState:
        """The state saved in a checkpoint; UserError naming what is wrong if it is damaged or does
        not fit `config` and its deck `space` (an illegal deck, a pool of another size)."""
        if not isinstance(data, dict):
            raise UserError("not a checkpoint (expected a JSON object)")
        fmt = data.get("format")
        if fmt != CHECKPOINT_FORMAT and fmt not in OLD_CHECKPOINT_FORMATS:
            raise UserError(f"unknown checkpoint format {fmt!r}")
        try:
            return cls._parse(data, config, space)
        except KeyError as exc:
            raise UserError(f"damaged checkpoint (missing {exc})") from None
        except (TypeError, ValueError, AttributeError, IndexError) as exc:
            if isinstance(exc, UserError):
                raise
            raise UserError(f"damaged checkpoint ({type(exc).__name__}: {exc})") from None

    @classmethod
    def _parse(cls, data: dict, config: EvolveConfig, space) -> EvolutionState:
        generation = data["generation"]
        if not isinstance(generation, int) or isinstance(generation, bool) or generation < 0:
            raise UserError(f"damaged checkpoint (generation {generation!r})")
        rng = np.random.default_rng(config.seed)
        rng.bit_generator.state = data["rng"]
        pool = [individual_from_entry(_checked_deck(d, space, "pool")) for d in data["pool"]]
        if len(pool) != config.pool:
            raise UserError(f"damaged checkpoint (a pool of {len(pool)} decks, the run's config says {config.pool})")
        hof = tools.HallOfFame(config.hof_size)
        # inserting from worst to best reproduces the saved order exactly (bisect_right on ties)
        for d in reversed(data["hall_of_fame"]):
            hof.insert(individual_from_entry(_checked_deck(d, space, "hall of fame")))
        logbook = new_logbook()
        for row in data["logbook"]:
            logbook.record(**row)
        best_decks = data["best_decks"]
        if not isinstance(best_decks, list) or len(best_decks) != generation + 1 or len(logbook) != generation + 1:
            raise UserError(
                f"damaged checkpoint (generation {generation} but {len(best_decks)} best decks and "
                f"{len(logbook)} logbook rows)"
            )
        saved = data.get("config")
        if saved is not None and not isinstance(saved, dict):
            raise UserError("damaged checkpoint (config is not a table)")
        return cls(generation, rng, pool, hof, logbook, best_decks, saved)


def _checked_deck(entry, space, where: str) -> dict:
    """A deck entry whose cards are whole numbers making a legal deck of the run's space."""
    if not isinstance(entry, dict):
        raise UserError(f"damaged checkpoint ({where}: {entry!r} is not a deck)")
    cards = entry["cards"]
    if not isinstance(cards, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in cards):
        raise UserError(f"damaged checkpoint ({where}: cards {cards!r} are not whole numbers)")
    problems = space.problems(cards)
    if problems:
        raise UserError(f"damaged checkpoint ({where}: an illegal deck: {'; '.join(problems)})")
    return entry


def update_hall_of_fame(hof: tools.HallOfFame, pool: list, gen: int) -> None:
    """DEAP's update, except that a deck evaluated again takes its fresh score (a lucky score does
    not stay in the hall of fame because the deck was re-evaluated)."""
    current = {tuple(ind) for ind in pool}
    for i in reversed(range(len(hof))):
        if tuple(hof[i]) in current:
            hof.remove(i)
    for ind in pool:
        ind.stats.generation = gen
    hof.update(pool)
