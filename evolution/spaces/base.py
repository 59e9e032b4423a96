"""The deck-space protocol: everything the evolution does differently from one deck game to another.

A deck is always a sorted list of ints (so DEAP individuals, the hall of fame, checkpoints and run
files are the same for every game); what the ints mean, which decks are legal, how a deck changes,
how it is scored and reported is the space's. The loop, the archive, the run folder, the reports
and the command line ask the run's space (made once per run by `evolution.spaces.registry.space_for`)
and never branch on the game's name. A new deck game is one module of this package: a class with
the methods below, listed in `evolution.spaces.registry.SPACES` (or, outside deckopt, a plug-in
package's class registered in the entry point group `deckopt.spaces`, docs/plugins.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from games.config import need


def check_racing_split(name: str, games: int, rounds: int, unit: str = "") -> None:
    """A racing fitness plays `games` (a setting `name`, mirrored pairs) in `rounds` equal rounds."""
    need(
        (games // 2) % rounds == 0,
        f"racing: {name} / 2 ({games // 2}{unit}) must split into racing_rounds ({rounds}) equal rounds",
    )


@dataclass
class RunInputs:
    """What a run reads before it plays a game: the agent, the panel decks it plays as opponents and
    the fixed yardstick decks its best decks are measured against (both empty where the game has none)."""

    agent: object
    panel: list = field(default_factory=list)
    yardstick: list = field(default_factory=list)


class Evaluator(Protocol):
    def evaluate(self, pool: list, hof, gen: int, progress: Callable | None = None, what: str = "") -> int:
        """Score every deck of `pool` in place; the number of games played."""


class DeckSpace(Protocol):
    """A game's decks and how the evolution treats them (see the module docstring)."""

    #: the game's name (games.make) and the objectives a deck may be scored on, the default first
    name: str
    objectives: tuple[str, ...]
    #: the settings of a config that only this game uses, and the name of their table in a settings file
    settings: frozenset[str]
    table: str
    #: the EvolveConfig field of the game's deck rules (a frozen dataclass, its table's `rules`;
    #: `deckopt sweep` varies one of them), or None when the game has none
    rules_field: str | None
    #: whether a deck is judged against reference decks (validation panel, yardstick)
    reference_decks: bool
    #: whether two decks play each other (one deck per seat): the designer commands (matchups,
    #: advise, study agents) take such a space's decks; it answers `references`, `build_agent`,
    #: `card_pool` and its evaluator's `play`
    head_to_head: bool
    #: the names of the MAP-Elites descriptor pairs a run chooses from (`archive_descriptors`), the
    #: default first; a space made by `from_config` answers `descriptor_space` and `descriptors` for
    #: the run's pair
    descriptor_sets: tuple[str, ...]

    # --- settings -------------------------------------------------------------------------------
    @classmethod
    def check_config(cls, config) -> None:
        """Check (and complete) the game's settings of an EvolveConfig; UserError in one line."""

    @classmethod
    def check_racing(cls, config) -> None:
        """Check that the game's games per deck split into the racing rounds."""

    @classmethod
    def from_config(cls, config) -> DeckSpace:
        """The space of a checked config."""

    @classmethod
    def default(cls) -> DeckSpace:
        """The space under the default settings (the conformance check)."""

    # --- decks ----------------------------------------------------------------------------------
    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]: ...
    def mutate(self, cards, rng: np.random.Generator, config) -> list[int]: ...
    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]: ...
    def repair(self, cards, rng: np.random.Generator) -> list[int]: ...
    def problems(self, cards) -> list[str]: ...
    def text(self, cards) -> str: ...
    def short_text(self, cards) -> str: ...
    def entry_extra(self, cards) -> dict: ...
    def save(self, cards, path, name: str, comment: str) -> None: ...
    def game_settings(self, cards) -> dict: ...

    # --- a run ----------------------------------------------------------------------------------
    def inputs(self, config) -> RunInputs:
        """The agent and deck files of a run, checked before a file is written."""

    def evaluator(self, config, inputs: RunInputs, pmap) -> Evaluator:
        """The run's scoring; where `head_to_head`, its `play(pairings, key_prefix, progress, what)`
        plays the space's matches with `inputs.agent` (evolution.scoring.yardstick.Play;
        evolution.scoring.fitness.play_game_pairings plays any two-deck game)."""

    def references(self, paths) -> list:
        """The ReferenceDecks of the deck files named by `paths` (files or folders), legal under the
        space's rules; UserError in one line if one is bad. Only where `head_to_head`."""

    def build_agent(self, spec: str, seed: int):
        """The agent of every seat of the space's games (a comma list of specs: a panel sharing the
        games); UserError in one line. Only where `head_to_head`."""

    def card_pool(self) -> dict[int, str]:
        """Every card value a deck may hold, in order, and its name: the single-card changes of
        `deckopt advise` (evolution.designer.neighbourhoods.CardNeighbourhood). Only where
        `head_to_head`; Gwent Lite's powers change by its own neighbourhood instead."""

    def game_deck(self, cards) -> list:
        """A deck as the game's settings name one (`decks`, `deck_pool`). Only where `reference_decks`."""

    def measure_yardstick(self, pool: list, inputs: RunInputs, config, pmap, gen: int, progress=None) -> int:
        """The pool's best decks against the yardstick (recorded in their stats); games played."""

    def generation_header(self, config) -> dict:
        """What a generation file says about how its decks were scored."""

    def fitness_plot(self, rows: list[dict], name: str, config) -> bytes:
        """The fitness per generation of a run's logbook rows (a PNG)."""

    def best_plot(self, best: list[dict], name: str) -> bytes:
        """The best deck of every generation (a PNG)."""

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        """The champion and, with `config.validate`, its validation (written into `folder`)."""

    def validation_table(self, report: dict) -> str: ...

    # --- MAP-Elites -----------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The names and ranges of the chosen descriptor pair (the archive's grid spans the ranges)."""

    def descriptors(self, cards) -> tuple[float, float]:
        """A deck's values of the chosen descriptor pair."""

    @property
    def max_cards(self) -> int: ...
    def remeasure_elites(self, decks, config, inputs: RunInputs, pmap, generation: int, stage: int, progress=None):
        """(each deck's {score, ci95, games}, games played, how) of the best elites measured again."""

    # --- reports --------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        """A generation file's deck entry as `deckopt decks --json` shows it."""

    def report_header(self, config) -> dict: ...
    def decks_table(self, report: dict) -> str: ...
    def best_rows(self, best: list[dict]) -> tuple[list[str], list[list]]:
        """The HTML report's best-deck-per-generation table (head, rows)."""

    def verdict_blocks(self, champion: dict, validation: dict | None) -> list:
        """The report's verdict on the champion: blocks of evolution.designer.html (text, tables),
        never HTML; the report's template escapes every text."""

    # --- the decks command ----------------------------------------------------------------------
    def revalidate(self, run, cards, how: str, options: dict, progress=None) -> dict:
        """`deckopt decks --validate`: a run's deck validated again (options: panel, agent, seed,
        games, jobs, baseline; None = the run's)."""
