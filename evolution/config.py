"""The configuration of an evolution run: one dataclass, read from TOML and overridden by flags.

    generations = 40
    pool = 30
    selection = "truncation"         # or "mu+lambda", "random" (the random-search baseline), "active-genes"
    fitness = "racing"
    [gwent]                          # Gwent Lite's settings (the deck space's table)
    games_per_pair = 10
    opponents = ["population", "hall-of-fame", "random"]
    yardstick = ["decks/yardstick"]  # fixed decks the best decks of each generation are measured against
    [gwent.rules]                    # the deck-building rules (games.decks.DeckRules)
    min_cards = 25
    max_total = 100
    min_power = 1
    [gwent_abilities.rules]          # a gwent_abilities run's deck rules (AbilityDeckRules)
    copy_limit = 1
    [racing]
    rounds = 5
    [archive]
    enabled = true
    cells = "12x12"
    descriptors = "power"            # the deck space's descriptor pair (gwent_abilities: "style" or "rows")

The settings of each deck game are a table of their own (`[gwent]`, `[kittens]`, `[gwent_abilities]`,
named by the game's deck space; a game's deck rules are its table's `rules`, whatever their field),
and so are MAP-Elites (`[archive]`) and racing (`[racing]`): `TABLES` maps each table's names to the
fields of EvolveConfig, which are flat; the flags keep the fields' names (`--games-per-pair`,
`--racing-rounds`, `--archive-cells`; deck rules: `deckopt evolve --set rules.NAME=VALUE`). Settings
files and run folders written with every setting at the top level (as earlier versions wrote them)
are read as they are; a run folder without its game's deck rules has the default rules.

Every field carries its help text (`games.config.setting`); `deckopt evolve` makes its flags from
them. The resolved config is saved in the run folder as `config.json` and inside every checkpoint;
a resumed run reads it back. Only the fields in `EXECUTION_FIELDS` (how and how long to run, not
what to compute) may change on resume.

One module on purpose: every setting of a run with its help text and its checks in one dataclass, from
which the command-line flags are generated, so a reader finds any setting on this one page.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

from agents import split_agent_specs
from agents.parallel import MAX_JOBS, MAX_TASK_TIMEOUT, check_jobs
from evolution.spaces.kittens_settings import KittensBounds
from evolution.spaces.settings import PLUGIN_RULES
from evolution.spaces.settings_registry import SETTINGS, settings_class, space_names
from games.config import check_maximums, config_from_dict, config_to_dict, need, read_settings, setting
from games.decks import DeckConstraints, DeckRules, shape_name
from games.errors import UserError
from games.gwent_abilities_cards import AbilityDeckRules

OPPONENT_KINDS = ("population", "panel", "hall-of-fame", "random")
SELECTIONS = ("truncation", "mu+lambda", "random", "active-genes")
FITNESS_MODES = ("fixed", "racing")
#: old names of a selection, accepted in settings and old run folders' config.json
SELECTION_ALIASES = {"ancestor": "truncation"}
BACKENDS = ("loky", "dask")
#: a Dask scheduler's address: [PROTOCOL://]HOST:PORT (an IPv6 host in brackets)
SCHEDULER_ADDRESS = r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})"
#: the random-deck shapes of evolution.spaces.genome.SHAPES (listed here so reading a config needs no numpy code)
INIT_SHAPES = ("uniform", "normal", "flat", "spiky", "more_cards")


#: the tables of a settings file and of config.json: table -> {name in the table: EvolveConfig field}
TABLES = {
    **{
        s.table: {("rules" if field == s.rules_field else field): field for field in sorted(s.fields)}
        for s in SETTINGS.values()
    },
    "archive": {
        "enabled": "archive",
        "cells": "archive_cells",
        "descriptors": "archive_descriptors",
        "population": "archive_population",
    },
    "racing": {"rounds": "racing_rounds", "z": "racing_z", "margin": "racing_margin"},
}
_FIELD_TABLE = {field: (table, name) for table, names in TABLES.items() for name, field in names.items()}


def flat_settings(data: dict) -> dict:
    """Settings (a settings file, config.json) as EvolveConfig's fields: each table's settings under
    their fields' names; settings already at the top level stay. UserError for a setting given twice
    or an unknown name in a table."""
    if not isinstance(data, dict):
        return data
    out: dict = {}
    for key, value in data.items():
        names = TABLES.get(key)
        if names is None or not isinstance(value, dict):  # a top-level setting (`archive = true` of old files)
            pairs = [(key, value, key)]
        else:
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise UserError(f"[{key}]: unknown setting {unknown[0]!r}; settings: {', '.join(names)}")
            pairs = [(names[n], v, f"[{key}] {n}") for n, v in value.items()]
        for field, v, where in pairs:
            need(field not in out, f"{where} is given twice (in its table and at the top level)")
            out[field] = v
    return out


def nested_settings(flat: dict) -> dict:
    """EvolveConfig's fields as the tables of a settings file (the top-level settings first)."""
    top = {k: v for k, v in flat.items() if k not in _FIELD_TABLE}
    tables: dict = {table: {} for table in TABLES}
    for field, value in flat.items():
        if field in _FIELD_TABLE:
            table, name = _FIELD_TABLE[field]
            tables[table][name] = value
    return {**top, **tables}


#: games of one pairing: a pairing is one batch of the vectorised engine in one worker (about 7 KB a
#: game: 200 000 games take 1.4 GB)
MAX_GAMES_PER_PAIR = 200_000
#: decks of a pool, the hall of fame, the opponents or a playoff
MAX_DECKS = 10_000
MAX_GENERATIONS = 1_000_000


#: the archive's grid is held whole (cells x cells) and drawn: 1000 x 1000 is far beyond any useful run
MAX_CELLS_PER_SIDE = 1000


def parse_cells(text: str) -> tuple[int, int]:
    """'10x10' -> (10, 10); ValueError on anything else."""
    parts = str(text).lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"archive_cells must look like 10x10, got {text!r}")
    if any(int(p) > MAX_CELLS_PER_SIDE for p in parts):
        raise ValueError(f"archive_cells: at most {MAX_CELLS_PER_SIDE} cells a side, got {text!r}")
    return int(parts[0]), int(parts[1])


def _whole(value, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


@dataclass
class EvolveConfig:
    seed: int = setting(0, "root seed (0 .. 2**32-1)", metavar="S")
    game: str = setting(
        "gwent_lite",
        "the game whose decks evolve: gwent_lite (power multisets), exploding_kittens (card counts), "
        "gwent_abilities (decks of its card pool), locm_constructed (30 of Legends of Code and Magic's 160 cards under "
        "a copy limit) or an installed plug-in's (entry point group deckopt.spaces)",
        choices=space_names(),
    )
    objective: str | None = setting(
        None,
        "what a deck is scored on: gwent_lite: win (match score against opponents, the default); "
        "exploding_kittens: fairness (default: -|first-player win rate - 0.5| in the agent's self-play) or "
        "skill (the agent's win rate against random play, seats rotated)",
        metavar="NAME",
    )
    # 30: with the yardstick choosing the champion, 30 generations of the settings below validate as
    # well as 150 against the ancestor's decks, and the yardstick curve is level after the first
    # generations (docs/results/evolution.md)
    generations: int = setting(
        30, "number of generations (on resume: extend to this many)", metavar="G", maximum=MAX_GENERATIONS
    )
    pool: int = setting(30, "decks per generation", metavar="N", maximum=MAX_DECKS)
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
        10,
        "fresh random decks (of init_shapes) met as 'random' opponents each generation",
        metavar="N",
        maximum=MAX_DECKS,
    )
    hof_size: int = setting(10, "decks kept in the hall of fame", metavar="N", maximum=MAX_DECKS)
    hof_opponents: int = setting(
        10,
        "how many of the hall of fame's best decks serve as 'hall-of-fame' opponents",
        metavar="N",
        maximum=MAX_DECKS,
    )
    # each generation still plays fresh seeds, so a lucky score is diluted rather than kept, and a deck
    # that stays gets measured ever more precisely (decks at the top differ by 0.01-0.02, well inside
    # one generation's +-0.05). 4: the default run's champion went from 34 to 35 of 35 reference
    # decks beaten (docs/results/evolution.md)
    score_memory: int = setting(
        4,
        "a deck's fitness pools its fresh games of this many generations "
        "(this one and those it survived just before; 1 = this one only)",
        metavar="G",
        maximum=MAX_GENERATIONS,
    )
    selection: str = setting(
        "truncation",
        "selection scheme: truncation (keep the best `survivors`, add mutants, "
        "refill with random decks; 'ancestor' is its old name), mu+lambda, random (a random-search "
        "baseline: fresh random decks every generation, the same fitness and hall of fame), or active-genes "
        "(mu+lambda varying only the genes the generation's games test, for spaces that tell which)",
        choices=SELECTIONS + tuple(SELECTION_ALIASES),
    )
    survivors: int | None = setting(
        None,
        "truncation selection: decks kept each generation (default: a third of the pool, as the ancestor's 10 of 30)",
        metavar="K",
        maximum=MAX_DECKS,
    )
    # 2: the pool is survivors and their mutants only, no random refills (docs/results/evolution.md)
    offspring_per_survivor: int = setting(
        2, "truncation selection: mutated copies of each survivor", metavar="N", maximum=MAX_DECKS
    )
    mu: int | None = setting(
        None,
        "mu+lambda and active-genes selection: parents chosen by tournaments (default: a third of the pool)",
        metavar="MU",
        maximum=MAX_DECKS,
    )
    tournament_size: int = setting(
        3, "mu+lambda and active-genes selection: decks per selection tournament", metavar="N", maximum=MAX_DECKS
    )
    cx_prob: float = setting(
        0.0, "chance that a child comes from a multiset crossover of two parents (then mutated)", metavar="P"
    )
    mut_card_rate: float = setting(0.1, "mutation: fraction of the cards that change", metavar="P")
    mut_step_sigma: float = setting(1.0, "mutation: standard deviation of a card's change", metavar="S")
    mut_add_prob: float = setting(0.1, "mutation: chance to add a copy of a card", metavar="P")
    mut_remove_prob: float = setting(0.1, "mutation: chance to remove a card", metavar="P")
    init_shapes: list[str] = setting(
        factory=lambda: list(INIT_SHAPES),
        metavar="SHAPES",
        help=f"random-deck shapes of the first pool and the refills: {', '.join(INIT_SHAPES)}",
    )
    agent: str = setting(
        "evaluator",
        "the agent that plays every seat (an agent spec; default: evaluator, the Gwent Lite evaluator panel of "
        "three networks; gwent_abilities: gwent_abilities_evaluator; exploding_kittens: pretrained, its "
        "composition-trained agent; locm_constructed: max-attack, the competition's battler); a comma list of "
        "specs is a panel of evaluators: each pairing's deals are split across them",
        metavar="SPEC",
    )
    fitness: str = setting(
        "fixed",
        "fixed: every pairing plays games_per_pair games; racing: the games come in racing_rounds rounds and a "
        "deck whose rank (in or out of the kept decks) is clear from its interval stops early",
        choices=FITNESS_MODES,
    )
    racing_rounds: int = setting(
        5, "racing: rounds a pairing's games are split into", metavar="R", maximum=MAX_GENERATIONS
    )
    racing_z: float = setting(
        1.0, "racing: a deck stops when its score +- z standard errors clears the boundary of the kept", metavar="Z"
    )
    racing_margin: float = setting(
        0.0,
        "racing: an indifference margin of score; a deck whose place can cost the selection at most this stops too",
        metavar="M",
    )
    yardstick: list[str] | None = setting(
        None,
        metavar="FILE|DIR",
        append=True,
        help="fixed panel of decks the best decks of every generation are measured against (logged, plotted, "
        "and the champion is chosen on it); never part of the fitness (default: the game's, gwent_lite "
        "decks/yardstick, gwent_abilities decks/gwent_abilities/yardstick, locm_constructed decks/locm/yardstick)",
    )
    yardstick_top: int = setting(
        3, "the best decks of each generation measured against the yardstick", metavar="K", maximum=MAX_DECKS
    )
    yardstick_games: int = setting(
        20, "games of each of those decks against each yardstick deck, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    rules: DeckRules = setting(
        factory=DeckRules, help="gwent_lite: the deck-building rules (a [gwent.rules] table)", flag=False
    )
    ability_rules: AbilityDeckRules = setting(
        factory=AbilityDeckRules,
        help="gwent_abilities: the deck rules (a [gwent_abilities.rules] table: min_cards, max_cards, copy_limit, "
        "gold_copy_limit, provision_budget)",
        flag=False,
    )
    constraints: DeckConstraints = setting(
        factory=DeckConstraints,
        help="gwent_lite: a designer's limits every evolved deck keeps (a [constraints] table: locked, forbidden, "
        "[[constraints.count]]; or --constraints FILE)",
        flag=False,
    )
    # --- exploding_kittens (evolution.spaces.gwent, evolution.scoring.objectives) ---
    bounds: KittensBounds = setting(
        factory=KittensBounds,
        help="exploding_kittens: the deck space (a [bounds] table: min_cards, max_cards, counts)",
        flag=False,
    )
    game_config: dict = setting(
        factory=dict,
        help="exploding_kittens: game settings of every game (a [game_config] table; default open_hands = true, "
        "hand_defuses = 1: exact values, the validation, exist for open hands only)",
        flag=False,
    )
    plugin_rules: dict = setting(
        factory=dict,
        help="a plug-in space's deck rules (a [plugin_rules] table, checked by its settings' Rules class; "
        "or --set rules.NAME=VALUE)",
        flag=False,
    )
    # 400: a first-player rate's SE is 0.025 a generation; score_memory pools a survivor's games
    games_per_deck: int = setting(
        400, "exploding_kittens: games each deck plays a generation, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    playoff_games_per_deck: int = setting(
        4000,
        "exploding_kittens: games of each champion candidate in the final re-measurement, even",
        metavar="N",
        maximum=MAX_GAMES_PER_PAIR,
    )
    # fixed by the config, not by the number of workers, so results do not depend on jobs or the backend
    games_per_task: int = setting(200, "games per work unit sent to a worker", metavar="N", maximum=MAX_GAMES_PER_PAIR)
    playoff_top: int = setting(
        5,
        "the champion is chosen by a round robin of the last generation's top decks (this many) and the hall of fame",
        metavar="K",
        maximum=MAX_DECKS,
    )
    playoff_games_per_pair: int = setting(
        200, "games per pair in the champion's playoff, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    # --- execution (may change on resume) ---
    jobs: int = setting(2, f"worker processes (loky) or local Dask workers, 1-{MAX_JOBS}", metavar="J")
    backend: str = setting("loky", "loky: local processes; dask: a Dask cluster", choices=BACKENDS)
    scheduler: str | None = setting(
        None, "Dask scheduler address (tcp://host:8786); implies the dask backend", metavar="ADDRESS"
    )
    validate: bool = setting(True, "validate the champion against the reference decks at the end")
    validation_panel: list[str] | None = setting(
        None,
        metavar="FILE|DIR",
        append=True,
        help="reference deck files or folders of the validation (default: the game's, gwent_lite decks and "
        "decks/ancestor, gwent_abilities decks/gwent_abilities, locm_constructed decks/locm/field)",
    )
    # 2000 each: the champion's edge over the ancestor's best decks is small (0.52-0.53) and takes a
    # CI of +-0.014 to show; 70 000 games, under a minute on 2 cores
    validation_games: int = setting(
        2000, "champion's games against each reference deck, even", metavar="N", maximum=MAX_GAMES_PER_PAIR
    )
    plot_every: int = setting(
        5, "redraw the plots every this many generations (0: at the end only)", metavar="G", maximum=MAX_GENERATIONS
    )
    # a task is a few hundred games (seconds); a worker that takes minutes is stopped or hung
    task_timeout: float = setting(
        300.0,
        "seconds one work unit may take before the run stops (a hung or stopped worker)",
        metavar="SECONDS",
        maximum=MAX_TASK_TIMEOUT,
    )
    archive: bool = setting(False, "MAP-Elites: fill a quality-diversity archive of decks instead of selection")
    archive_cells: str = setting(
        "12x12", "MAP-Elites: cells of the archive's grid over its two descriptors (at most 1000 a side)", metavar="NxM"
    )
    archive_descriptors: str | None = setting(
        None,
        "MAP-Elites: the archive's pair of descriptors, by name (default: the game's first): "
        + "; ".join(f"{s.game}: {', '.join(s.descriptor_sets)}" for s in SETTINGS.values()),
        metavar="NAME",
    )
    archive_population: float = setting(
        0.5,
        "MAP-Elites: share of each pool's children bred from the run's own population (the `survivors` best "
        "decks of the last pool, kept and measured again as a plain run keeps its survivors, in place of the "
        "elites); the rest from elites chosen uniformly; 0: every child from elites, the elites measured again",
        metavar="F",
    )

    def __post_init__(self):
        self._resolve_game()
        self.selection = SELECTION_ALIASES.get(self.selection, self.selection)
        if isinstance(self.opponents, str):
            self.opponents = [self.opponents]
        # a third of the pool, as the ancestor's 10 of 30, resolved here so the saved config is explicit
        if self.survivors is None and isinstance(self.pool, int):
            self.survivors = max(1, self.pool // 3)
        if self.mu is None and isinstance(self.pool, int):
            self.mu = max(1, self.pool // 3)
        self._check_numbers()
        self._check_opponents()
        self._check_selection()
        if isinstance(self.init_shapes, list):
            self.init_shapes = [shape_name(s) for s in self.init_shapes]  # an earlier shape name is today's
        need(
            isinstance(self.init_shapes, list) and self.init_shapes and all(s in INIT_SHAPES for s in self.init_shapes),
            f"init_shapes must be a non-empty list of {', '.join(INIT_SHAPES)}, got {self.init_shapes!r}",
        )
        need(self.backend in BACKENDS, f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.scheduler is not None:
            address = re.fullmatch(SCHEDULER_ADDRESS, self.scheduler) if isinstance(self.scheduler, str) else None
            need(
                address is not None and int(address.group(1)) <= 65535,
                f"scheduler must be a Dask scheduler address such as tcp://host:8786, got {self.scheduler!r}",
            )
        need(isinstance(self.agent, str) and self.agent.strip() != "", "agent must be an agent spec")
        need(isinstance(self.rules, DeckRules), "rules must be a table of min_cards, max_total, min_power")
        self._check_archive()

    def _resolve_plugin_rules(self, space) -> None:
        """A plug-in's deck rules as its settings' `Rules` (a table given, or the defaults); refused
        for a game without them."""
        if space.rules_field != PLUGIN_RULES:
            need(not self.plugin_rules, f"plugin_rules applies to a plug-in space with deck rules, not {self.game}")
            return
        if isinstance(self.plugin_rules, dict):
            self.plugin_rules = config_from_dict(space.Rules, self.plugin_rules, where=f"[{space.table}.rules]")
        need(isinstance(self.plugin_rules, space.Rules), f"[{space.table}.rules] must be a table of deck rules")

    def _check_archive(self) -> None:
        need(isinstance(self.archive, bool), f"archive must be true or false, got {self.archive!r}")
        share = self.archive_population
        need(
            isinstance(share, (int, float)) and not isinstance(share, bool) and 0 <= share <= 1,
            f"archive_population must be a number in [0, 1], got {share!r}",
        )
        if not self.archive:
            return

        try:
            parse_cells(self.archive_cells)
        except ValueError as exc:
            raise UserError(str(exc)) from None

    def _resolve_game(self) -> None:
        """The objective and settings of the chosen game, checked by its deck space (which refuses
        the settings of other games)."""
        need(isinstance(self.game, str), f"game must be a game's name, got {self.game!r}")
        space = settings_class(self.game)
        if self.objective is None:
            self.objective = space.objectives[0]
        need(
            self.objective in space.objectives,
            f"objective {self.objective!r} is not available for {self.game}; choose {', '.join(space.objectives)}",
        )
        if self.archive_descriptors is None:
            self.archive_descriptors = space.descriptor_sets[0]
        need(
            self.archive_descriptors in space.descriptor_sets,
            f"archive_descriptors {self.archive_descriptors!r} is not available for {self.game}; "
            f"choose {', '.join(space.descriptor_sets)}",
        )
        need(isinstance(self.game_config, dict), "game_config must be a table of game settings")
        if isinstance(self.bounds, dict):
            self.bounds = config_from_dict(KittensBounds, self.bounds, where="bounds")
        need(isinstance(self.bounds, KittensBounds), "bounds must be a table of min_cards, max_cards, counts")
        if isinstance(self.constraints, dict):
            self.constraints = config_from_dict(DeckConstraints, self.constraints, where="constraints")
        need(isinstance(self.constraints, DeckConstraints), "constraints must be a table (locked, forbidden, count)")
        if isinstance(self.ability_rules, dict):
            self.ability_rules = config_from_dict(AbilityDeckRules, self.ability_rules, where="[gwent_abilities.rules]")
        need(
            isinstance(self.ability_rules, AbilityDeckRules),
            "[gwent_abilities.rules] must be a table of min_cards, max_cards, copy_limit, gold_copy_limit, "
            "provision_budget",
        )
        need(
            isinstance(self.racing_margin, (int, float)) and 0 <= self.racing_margin < 1,
            f"racing_margin must be from 0 to 1, got {self.racing_margin!r}",
        )
        for other in SETTINGS.values():  # another game's deck rules: refused unless left at their defaults
            field = other.rules_field
            if field and field != space.rules_field:
                default = self.__dataclass_fields__[field].default_factory()
                need(getattr(self, field) == default, f"[{other.table}.rules] applies to {other.game} only")
        self._resolve_plugin_rules(space)
        space.check(self)
        for name in ("yardstick", "validation_panel"):  # none unless the game's space names its own
            if getattr(self, name) is None:
                setattr(self, name, [])
        if space.head_to_head and not self.validation_panel:  # no reference decks to validate against
            self.validate = False
        if not space.fields:  # a plug-in space: the settings of our games are not its own
            need(not self.constraints, f"constraints apply to gwent_lite only, not {self.game}")
            need(
                not self.panel and "panel" not in self.opponents,
                f"panel decks apply to gwent_lite only, not {self.game}",
            )
        need(
            self.archive or self.archive_descriptors == space.descriptor_sets[0],
            f"archive_descriptors {self.archive_descriptors!r} applies to the MAP-Elites archive, which is off",
        )

    def _check_numbers(self) -> None:
        for name in (
            "generations",
            "pool",
            "games_per_pair",
            "games_per_task",
            "jobs",
            "score_memory",
            "racing_rounds",
            "games_per_deck",
            "playoff_games_per_deck",
        ):
            value = getattr(self, name)
            need(_whole(value, 1), f"{name} must be a whole number >= 1, got {value!r}")
        for name in (
            "random_opponents",
            "hof_size",
            "hof_opponents",
            "survivors",
            "offspring_per_survivor",
            "mu",
            "tournament_size",
            "playoff_top",
            "playoff_games_per_pair",
            "validation_games",
            "plot_every",
        ):
            value = getattr(self, name)
            need(_whole(value, 0), f"{name} must be a whole number >= 0, got {value!r}")
        need(
            _whole(self.seed, 0) and self.seed < 2**32,
            f"seed must be a whole number in 0..{2**32 - 1}, got {self.seed!r}",
        )
        for name in (
            "games_per_pair",
            "playoff_games_per_pair",
            "validation_games",
            "yardstick_games",
            "games_per_deck",
            "playoff_games_per_deck",
        ):
            value = getattr(self, name)
            need(value % 2 == 0, f"{name} must be even (mirrored pairs of games), got {value}")
        for name in ("cx_prob", "mut_card_rate", "mut_add_prob", "mut_remove_prob"):
            value = getattr(self, name)
            need(isinstance(value, (int, float)) and 0.0 <= value <= 1.0, f"{name} must be in [0, 1], got {value!r}")
        need(isinstance(self.mut_step_sigma, (int, float)) and self.mut_step_sigma > 0, "mut_step_sigma must be > 0")
        need(isinstance(self.racing_z, (int, float)) and self.racing_z > 0, "racing_z must be > 0")
        need(self.fitness in FITNESS_MODES, f"fitness must be one of {', '.join(FITNESS_MODES)}, got {self.fitness!r}")
        if self.fitness == "racing":
            settings_class(self.game).check_racing(self)
        check_jobs(self.jobs)
        check_maximums(self)
        need(
            isinstance(self.task_timeout, (int, float)) and self.task_timeout > 0,
            f"task_timeout must be a number of seconds > 0, got {self.task_timeout!r}",
        )

    def _check_opponents(self) -> None:
        need(isinstance(self.opponents, list) and self.opponents, "opponents must be a non-empty list")
        bad = [o for o in self.opponents if o not in OPPONENT_KINDS]
        need(not bad, f"unknown opponents {bad}; choose from {', '.join(OPPONENT_KINDS)}")
        need(len(set(self.opponents)) == len(self.opponents), f"opponents listed twice: {self.opponents}")
        need(
            "panel" not in self.opponents or bool(self.panel), "opponents include 'panel' but no panel decks are given"
        )
        need(
            "population" not in self.opponents or self.pool >= 2, "a population round robin needs a pool of at least 2"
        )
        need(
            "random" not in self.opponents or self.random_opponents >= 1, "random opponents need random_opponents >= 1"
        )
        need(
            "hall-of-fame" not in self.opponents or (self.hof_size >= 1 and self.hof_opponents >= 1),
            "hall-of-fame opponents need hof_size >= 1 and hof_opponents >= 1",
        )

    def _check_selection(self) -> None:
        choices = ", ".join(SELECTIONS)
        need(self.selection in SELECTIONS, f"selection must be one of {choices}, got {self.selection!r}")
        if self.selection == "truncation":
            k = self.survivors
            need(1 <= k <= self.pool, f"survivors must be in 1..pool ({self.pool}), got {k}")
            kept = k * (1 + self.offspring_per_survivor)
            need(
                kept <= self.pool, f"survivors x (1 + offspring_per_survivor) = {kept} exceeds the pool of {self.pool}"
            )
        elif self.selection in ("mu+lambda", "active-genes"):
            need(
                1 <= self.mu < self.pool,
                f"mu must be in 1..pool-1 ({self.pool - 1}) so there is room for offspring, got {self.mu}",
            )
            need(self.tournament_size >= 1, "tournament_size must be >= 1")

    @property
    def agents(self) -> list[str]:
        """The evaluator specs of `agent` (options such as `rollout=heuristic` stay with their spec)."""
        return split_agent_specs(self.agent)

    @property
    def kept(self) -> int:
        """How many decks selection keeps: the boundary a racing fitness has to settle."""
        if self.selection == "truncation":
            return self.survivors
        if self.selection in ("mu+lambda", "active-genes"):
            return self.mu
        return min(self.pool, max(1, self.yardstick_top))

    def to_dict(self) -> dict:
        """The settings as config.json holds them (in their tables)."""
        return nested_settings(config_to_dict(self))

    def replace(self, **changes) -> EvolveConfig:
        """A copy with `changes` (None = unchanged), checked again."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


#: how and how long to run, not what to compute: these may change when a run is resumed
EXECUTION_FIELDS = frozenset(
    {
        "generations",
        "jobs",
        "backend",
        "scheduler",
        "validate",
        "validation_panel",
        "validation_games",
        "plot_every",
        "task_timeout",
    }
)


#: where the games run. A run folder is data: on resume these come from the command line only, never
#: from the folder's config.json (an address there would make deckopt connect to a stranger's
#: scheduler and unpickle what it sends back)
CLUSTER_FIELDS = frozenset({"backend", "scheduler"})


def with_cluster_from(config: EvolveConfig, cluster: dict) -> EvolveConfig:
    """`config` with its cluster settings (CLUSTER_FIELDS) taken from `cluster` (the command line's),
    their defaults where `cluster` has none: never those saved with a run."""
    defaults = {f.name: f.default for f in dataclasses.fields(EvolveConfig) if f.name in CLUSTER_FIELDS}
    return dataclasses.replace(config, **{**defaults, **{k: v for k, v in cluster.items() if k in CLUSTER_FIELDS}})


#: settings of runs made before they existed, and what those runs did
LEGACY_DEFAULTS = {"score_memory": 1, "yardstick": []}


def with_legacy_defaults(data):
    """Saved settings (config.json, a checkpoint's config) as fields, with the old behaviour for
    absent fields."""
    data = flat_settings(data)
    if isinstance(data, dict):
        data = dict(data)
        for k, v in LEGACY_DEFAULTS.items():
            data.setdefault(k, v)
    return data


def config_from_settings(data: dict, where: str = "") -> EvolveConfig:
    """An EvolveConfig from plain settings (a settings file, a run's config.json, in tables or flat);
    UserError in one line."""
    try:
        flat = flat_settings(data)
    except UserError as exc:
        raise UserError(f"{where}: {exc}" if where else str(exc)) from None
    return config_from_dict(EvolveConfig, flat, where=where)


def rules_field(game: str) -> str:
    """The EvolveConfig field of `game`'s deck rules; UserError for a game without deck rules."""
    field = settings_class(game).rules_field
    with_rules = [name for name in space_names() if settings_class(name).rules_field]
    need(field is not None, f"{game} has no deck rules (deck rules apply to {', '.join(with_rules)})")
    return field


def rules_class(game: str) -> type:
    """The dataclass of `game`'s deck rules (a game with deck rules)."""
    settings = settings_class(game)
    if settings.rules_field == PLUGIN_RULES:
        return settings.Rules
    return type(EvolveConfig.__dataclass_fields__[settings.rules_field].default_factory())


def with_deck_rule(config: EvolveConfig, name: str, value) -> EvolveConfig:
    """A copy of `config` whose game's deck rule `name` is `value`, checked again; UserError in one
    line for a game without deck rules, an unknown rule or a bad value."""
    field = rules_field(config.game)
    rules = getattr(config, field)
    known = [f.name for f in dataclasses.fields(rules)]
    need(name in known, f"{config.game} has no deck rule {name!r}; its rules: {', '.join(known)}")
    changed = config_from_dict(type(rules), {**dataclasses.asdict(rules), name: value}, where=f"{name} = {value!r}")
    return dataclasses.replace(config, **{field: changed})


def load_config(path: str | os.PathLike | None = None, deck_rules: dict | None = None, **overrides) -> EvolveConfig:
    """Defaults < the settings file at `path` (its tables or flat) < `overrides` (the flags; None =
    not given), checked once together; UserError with one clear line if anything is off. A `panel`
    given without `opponents` is played too (added to the file's or the default opponents), a
    `game_config` given adds to the file's, and `deck_rules` (rule -> value) to the file's deck rules
    of the run's game."""
    file = flat_settings(read_settings(path, what="config file")) if path is not None else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    if deck_rules:
        game = given.get("game", file.get("game", EvolveConfig.game))
        field = rules_field(game)
        base = file.get(field) or {}
        table = settings_class(game).table
        need(isinstance(base, dict), f"[{table}.rules] must be a table of deck rules")
        rules = config_from_dict(rules_class(game), {**base, **deck_rules}, where=f"[{table}.rules]")
        given[field] = dataclasses.asdict(rules)  # checked here, as a table like a settings file's
    opponents = file.get("opponents", EvolveConfig.__dataclass_fields__["opponents"].default_factory())
    if "panel" in given and "opponents" not in given and isinstance(opponents, list) and "panel" not in opponents:
        given["opponents"] = list(opponents) + ["panel"]
    if isinstance(file.get("game_config"), dict) and isinstance(given.get("game_config"), dict):
        given["game_config"] = {**file["game_config"], **given["game_config"]}
    if "archive_descriptors" in given and not {**file, **given}.get("archive"):
        # given now, and no archive to apply to (a saved config holds the game's pair whether or not
        # its run kept an archive, so only what is given beside it is checked here)
        raise UserError(
            f"archive_descriptors {given['archive_descriptors']!r} applies to the MAP-Elites archive: add --archive"
        )
    where = ""
    if path is not None:
        where = f"config file {str(path)!r}" + (" with the command-line settings" if given else "")
    return config_from_settings({**file, **given}, where=where)
