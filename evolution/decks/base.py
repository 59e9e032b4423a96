"""The deck-space protocol: what a deck game tells the evolution, in 15 members.

A deck is always a list of ints (so DEAP individuals, the hall of fame, checkpoints and run files are
the same for every game): a multiset of cards kept sorted, or, in a space that declares `ordered`, a
genome whose places mean something (the locm_drafter space's one score per card). Every sort of a
deck goes through `canonical`. What the ints mean, which decks are legal, how a deck changes and how
a pool is scored is the space's. The loop, the archive, the run folder, the reports and the
command line ask the run's space (made once per run by `evolution.spaces.registry.space_for`) and
never branch on the game's name. Every member returns plain data (ints, strings, dicts of them):
the tables, plots and verdicts of evolution.designer are drawn from those rows for every space, so
no space writes HTML or a text table.

A new deck game is one module of evolution/spaces, listed in `evolution.spaces.registry.SPACES`,
and its settings module in evolution/decks, listed in `evolution.decks.settings_registry.SETTINGS`
(or, outside deckopt, a plug-in package's class registered in the entry point group
`deckopt.spaces`, docs/plugins.md): a class with the members below whose `__init__(config)` takes
the run's checked EvolveConfig, and the settings class it names (`Settings`, importing only games/
and evolution/decks). A space whose decks play each other (one deck per seat) derives from
`evolution.spaces.head_to_head.HeadToHeadSpace`, which answers `scorer` for it from a few facts of
the game, and the members the designer commands ask of such a space (`references`,
`reference_problems`, `build_agent`, `matches`; `advise` also `card_pool`); a space whose decks play
each other otherwise (the locm_drafter space's drafters draft, then battle) answers those members
itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np


class Scorer(Protocol):
    """How a run's pools are scored: made once per run by `DeckSpace.scorer` (the agent and every deck
    file read and checked there, before a file is written); every method plays its games through the
    caller's worker pool `pmap` (agents.parallel.Mapper or any map of the same shape)."""

    #: the agent that plays the run's games
    agent: object
    #: what a generation file says about how its decks were scored (plain data)
    header: dict

    def evaluate(self, pool: list, hof, gen: int, pmap, progress: Callable | None = None, what: str = "") -> int:
        """Score every deck of `pool` in place (evolution.individuals.set_score); the games played."""

    def measure_yardstick(self, pool: list, gen: int, pmap, progress: Callable | None = None) -> int:
        """The pool's best decks against the run's fixed yardstick decks, if it has any (recorded in
        their `stats.yardstick`); the games played."""

    def remeasure(self, decks: list, gen: int, stage: int, pmap, progress: Callable | None = None):
        """(each deck's {score, ci95, games}, games played, how) of an archive's best elites measured
        again with fresh seeds of `stage`."""

    def finish(self, folder, pmap, log: Callable | None = None, progress: Callable | None = None) -> dict:
        """The champion (written with `folder.write_champion`) and, when the run validates, its
        validation (`folder.write_validation`): {"champion": ..., ["validation": ...]}."""

    def validate(self, cards, pmap, *, seed: int, games: int | None = None, panel=None, baseline=None,
                 progress: Callable | None = None) -> dict:  # fmt: skip
        """The deck validated with fresh seeds `seed` (`games` each, default the run's; `panel`:
        reference deck paths, default the run's; `baseline`: another deck on the same deals), as the
        report of a run's validation.json."""


class DeckSpace(Protocol):
    """A game's decks and how the evolution treats them (see the module docstring)."""

    # --- what a deck is ---------------------------------------------------------------------------
    #: the game's name (games.make)
    name: str
    #: the game's settings class (evolution.decks.settings.SpaceSettings): which EvolveConfig
    #: fields the game uses, its deck rules, objectives and descriptor pairs, and their checks
    Settings: type
    #: the longest legal deck (the MAP-Elites archive stores decks in rows of this width)
    max_cards: int
    #: whether a deck's order matters: False for a multiset of cards (kept sorted), True for a genome
    #: whose places mean something (kept as it is)
    ordered: bool

    def problems(self, cards) -> list[str]:
        """What makes `cards` an illegal deck ([] for a legal one)."""

    def words(self, cards) -> str:
        """The deck in a few words, as every table and log line shows it."""

    def row(self, cards) -> dict:
        """The deck's facts beside its cards in every generation file and `deckopt decks --json`
        (plain JSON values: `{"deck": {card name: copies}, "total": provisions}`; `{}` for none)."""

    def save(self, cards, path, name: str, comment: str) -> None:
        """The deck as a deck file of the game (`deckopt play`, the reference decks of a run)."""

    # --- operators (each returns a legal deck, every random choice from `rng`) ---------------------
    def random_deck(self, rng: np.random.Generator) -> list[int]: ...
    def mutate(self, cards, rng: np.random.Generator) -> list[int]: ...
    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]: ...
    def repair(self, cards, rng: np.random.Generator) -> list[int]: ...

    # --- how a pool is scored ---------------------------------------------------------------------
    def scorer(self, config) -> Scorer:
        """The run's scoring (reads and checks the agent and deck files; UserError in one line)."""

    # --- MAP-Elites descriptors (the pair named by the run's `archive_descriptors`) ----------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The names and ranges of the run's descriptor pair (the archive's grid spans the ranges)."""

    def descriptors(self, cards) -> tuple[float, float]:
        """A deck's values of the run's descriptor pair."""


def canonical(space, cards) -> list[int]:
    """The one form of a deck of `space`: its ints, sorted unless the space is `ordered`."""
    ints = [int(c) for c in cards]
    return ints if space.ordered else sorted(ints)


def assert_legal(space, cards) -> list[int]:
    """The guard before a deck reaches a game (a bug, not a user error, if it fires): the deck in its
    canonical form."""
    problems = space.problems(cards)
    if problems:
        raise AssertionError(f"illegal deck {list(cards)}: {'; '.join(problems)}")
    return canonical(space, cards)
