"""The configuration of an evolution run: the run's own settings and its game's, read from TOML and
overridden by flags.

    generations = 40
    pool = 30
    selection = "truncation"         # or "mu+lambda", "random" (the random-search baseline), "active-genes"
    fitness = "racing"
    [gwent]                          # Gwent Lite's settings (evolution.decks.gwent_settings.GwentSettings)
    games_per_pair = 10
    opponents = ["population", "hall-of-fame", "random"]
    yardstick = ["decks/yardstick"]  # fixed decks the best decks of each generation are measured against
    [gwent.rules]                    # the deck-building rules (games.decks.DeckRules)
    min_cards = 25
    max_total = 100
    min_power = 1
    [racing]
    rounds = 5
    [archive]
    enabled = true
    cells = "12x12"
    descriptors = "power"            # the deck space's descriptor pair (--archive-descriptors)

`EvolveConfig` holds the run: its seed, selection, racing (`[racing]`), MAP-Elites archive
(`[archive]`) and execution (jobs, backend, ...), and the settings of its game as one object,
`config.settings`: the dataclass of the game's deck space (`evolution.decks.settings`; `[gwent]`,
`[kittens]`, ...: the table its settings class names, a plug-in's too), which holds what the game's decks play
(games per pairing, opponents, the reference decks) and its deck rules (the table's `rules`). The
flags keep the settings' names (`--games-per-pair`, `--racing-rounds`, `--archive-cells`; deck
rules: `deckopt evolve --set rules.NAME=VALUE`).

Every field carries its help text (`games.config.setting`); `deckopt evolve` makes its flags from
them. The resolved config is saved in the run folder as `config.json` and inside every checkpoint;
a resumed run reads it back. Only the settings in `EXECUTION_FIELDS` (how and how long to run, not
what to compute) may change on resume. Settings files and run folders written with every setting at
the top level, or with a table for each game, are read as they are (`split_settings`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from dataclasses import dataclass

from evolution.decks.settings import MAX_DECKS, MAX_GAMES_PER_PAIR, SpaceSettings
from evolution.decks.settings_registry import DEFAULT_GAME, SETTINGS, settings_class, space_names
from games import Game
from games.config import (
    MAX_JOBS,
    MAX_TASK_TIMEOUT,
    check_jobs,
    check_maximums,
    config_from_dict,
    config_to_dict,
    need,
    read_settings,
    setting,
)
from games.errors import UserError

SELECTIONS = ("truncation", "mu+lambda", "random", "active-genes")
FITNESS_MODES = ("fixed", "racing")
#: old names of a selection, accepted in settings and old run folders' config.json
SELECTION_ALIASES = {"ancestor": "truncation"}
BACKENDS = ("loky", "dask")
#: a Dask scheduler's address: [PROTOCOL://]HOST:PORT (an IPv6 host in brackets)
SCHEDULER_ADDRESS = r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})"
MAX_GENERATIONS = 1_000_000
#: the archive's grid is held whole (cells x cells) and drawn: 1000 x 1000 is far beyond any useful run
MAX_CELLS_PER_SIDE = 1000

#: the tables of the run's own settings: table -> {name in the table: EvolveConfig field}
RUN_TABLES = {
    "archive": {
        "enabled": "archive",
        "cells": "archive_cells",
        "descriptors": "archive_descriptors",
        "population": "archive_population",
    },
    "racing": {"rounds": "racing_rounds", "z": "racing_z", "margin": "racing_margin"},
}


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


def default_agent_spec(game: Game) -> str:
    """The agent that plays `game`'s decks where the run names none (`GameFacts.default_agent`);
    UserError in one line when the game names none."""
    spec = game.facts.default_agent
    if spec is None:
        raise UserError(
            f"{game.name} has no default agent; choose one with --agent "
            f"(heuristic, mcts:200, a model or a run folder of `deckopt train {game.name}`)"
        )
    return spec


@dataclass
class EvolveConfig:
    seed: int = setting(0, "root seed (0 .. 2**32-1)", metavar="S")
    game: str = setting(
        DEFAULT_GAME,
        f"the game whose decks evolve: {', '.join(SETTINGS)} or an installed plug-in's "
        "(entry point group deckopt.spaces)",
        choices=space_names(),
    )
    objective: str | None = setting(
        None,
        "what a deck is scored on (default: the game's first): "
        + "; ".join(f"{s.game}: {', '.join(s.objectives)}" for s in SETTINGS.values()),
        metavar="NAME",
    )
    # 30: with the yardstick choosing the champion, 30 generations of the settings below validate as
    # well as 150 against the ancestor's decks, and the yardstick curve is level after the first
    # generations (docs/results/evolution.md)
    generations: int = setting(
        30, "number of generations (on resume: extend to this many)", metavar="G", maximum=MAX_GENERATIONS
    )
    pool: int = setting(30, "decks per generation", metavar="N", maximum=MAX_DECKS)
    hof_size: int = setting(10, "decks kept in the hall of fame", metavar="N", maximum=MAX_DECKS)
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
        "(Kowalski and Miernik's: a population that scored offspring reach only through the genes the "
        "generation's games test, for spaces that tell which)",
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
        "mu+lambda selection: parents chosen by tournaments (default: a third of the pool)",
        metavar="MU",
        maximum=MAX_DECKS,
    )
    tournament_size: int = setting(
        3,
        "mu+lambda and active-genes selection: decks per selection tournament (active-genes: drawn without "
        "replacement, its two fittest a pair's parents)",
        metavar="N",
        maximum=MAX_DECKS,
    )
    cx_prob: float | None = setting(
        None,
        "chance that a child comes from a crossover of two parents (then mutated); default: the deck space's "
        "(SpaceSettings.default_cx_prob: 0 but for locm_drafter, 0.5)",
        metavar="P",
    )
    mut_card_rate: float = setting(
        0.1, "mutation: fraction of a deck's cards that change (active-genes: each gene drawn afresh)", metavar="P"
    )
    agent: str | None = setting(
        None,
        "the agent that plays every seat (an agent spec; default: the game's own, the default agent its facts "
        "declare, games.base.GameFacts.default_agent, or its deck space's settings); a comma list of specs is "
        "a panel of evaluators: each pairing's deals are split across them",
        metavar="SPEC",
    )
    fitness: str = setting(
        "fixed",
        "fixed: every pairing plays its games at once; racing: the games come in racing_rounds rounds and a "
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
    # fixed by the config, not by the number of workers, so results do not depend on jobs or the backend
    games_per_task: int = setting(200, "games per work unit sent to a worker", metavar="N", maximum=MAX_GAMES_PER_PAIR)
    playoff_top: int = setting(
        5,
        "the champion is chosen by a round robin of the last generation's top decks (this many) and the hall of fame",
        metavar="K",
        maximum=MAX_DECKS,
    )
    start: list[str] = setting(
        factory=list,
        metavar="FILE|DIR",
        append=True,
        help="decks the first pool starts from (deck files or folders of them, such as a run's champion.toml): "
        "these decks, then mutants of them in turn until the pool is full (default: random decks)",
    )
    # --- execution (may change on resume) ---
    jobs: int = setting(2, f"worker processes (loky) or local Dask workers, 1-{MAX_JOBS}", metavar="J")
    backend: str = setting("loky", "loky: local processes; dask: a Dask cluster", choices=BACKENDS)
    scheduler: str | None = setting(
        None, "Dask scheduler address (tcp://host:8786); implies the dask backend", metavar="ADDRESS"
    )
    validate: bool = setting(True, "validate the champion against the reference decks at the end")
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
    #: an instance of the game's settings class (evolution.decks.settings; None: its defaults)
    settings: SpaceSettings | None = setting(
        None, "the game's settings (its table in a settings file: [gwent], [kittens], ...)", flag=False
    )

    def __post_init__(self):
        need(isinstance(self.game, str), f"game must be a game's name, got {self.game!r}")
        space = settings_class(self.game)
        if self.settings is None:
            self.settings = space()
        need(isinstance(self.settings, space), f"the settings of {self.settings.game} do not apply to {self.game}")
        self.selection = SELECTION_ALIASES.get(self.selection, self.selection)
        # a third of the pool, as the ancestor's 10 of 30, resolved here so the saved config is explicit
        if self.survivors is None and isinstance(self.pool, int):
            self.survivors = max(1, self.pool // 3)
        if self.mu is None and isinstance(self.pool, int):
            self.mu = max(1, self.pool // 3)
        if self.cx_prob is None:
            self.cx_prob = self.settings.default_cx_prob
        self._check_numbers()
        self._resolve_game(space)
        self._check_selection()
        need(self.backend in BACKENDS, f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.scheduler is not None:
            address = re.fullmatch(SCHEDULER_ADDRESS, self.scheduler) if isinstance(self.scheduler, str) else None
            need(
                address is not None and int(address.group(1)) <= 65535,
                f"scheduler must be a Dask scheduler address such as tcp://host:8786, got {self.scheduler!r}",
            )
        need(isinstance(self.agent, str) and self.agent.strip() != "", "agent must be an agent spec")
        self._check_archive()
        need(
            isinstance(self.start, list) and all(isinstance(p, str) and p.strip() for p in self.start),
            f"start must be a list of deck files or folders, got {self.start!r}",
        )
        need(
            not self.start or (not self.archive and self.selection != "random"),
            "start applies to a run with selection (the MAP-Elites archive and random search make their own decks)",
        )

    def _check_archive(self) -> None:
        need(isinstance(self.archive, bool), f"archive must be true or false, got {self.archive!r}")
        share = self.archive_population
        need(
            isinstance(share, (int, float)) and not isinstance(share, bool) and 0 <= share <= 1,
            f"archive_population must be a number in [0, 1], got {share!r}",
        )
        if self.archive:
            try:
                parse_cells(self.archive_cells)
            except ValueError as exc:
                raise UserError(str(exc)) from None
        need(
            self.archive or self.archive_descriptors == settings_class(self.game).descriptor_sets[0],
            f"archive_descriptors {self.archive_descriptors!r} applies to the MAP-Elites archive, which is off",
        )

    def _resolve_game(self, space: type[SpaceSettings]) -> None:
        """The objective and descriptor pair among the game's, and its settings checked within the run."""
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
        if self.agent is None:
            self.agent = self.settings.default_agent or default_agent_spec(self.settings.make_game())
        self.settings.check(self)
        if self.fitness == "racing":
            self.settings.check_racing(self)

    def _check_numbers(self) -> None:
        for name in ("generations", "pool", "games_per_task", "jobs", "score_memory", "racing_rounds"):
            value = getattr(self, name)
            need(_whole(value, 1), f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("hof_size", "survivors", "offspring_per_survivor", "mu", "tournament_size", "playoff_top"):
            value = getattr(self, name)
            need(_whole(value, 0), f"{name} must be a whole number >= 0, got {value!r}")
        need(_whole(self.plot_every, 0), f"plot_every must be a whole number >= 0, got {self.plot_every!r}")
        need(
            _whole(self.seed, 0) and self.seed < 2**32,
            f"seed must be a whole number in 0..{2**32 - 1}, got {self.seed!r}",
        )
        for name in ("cx_prob", "mut_card_rate"):
            value = getattr(self, name)
            need(isinstance(value, (int, float)) and 0.0 <= value <= 1.0, f"{name} must be in [0, 1], got {value!r}")
        need(isinstance(self.racing_z, (int, float)) and self.racing_z > 0, "racing_z must be > 0")
        need(
            isinstance(self.racing_margin, (int, float)) and 0 <= self.racing_margin < 1,
            f"racing_margin must be from 0 to 1, got {self.racing_margin!r}",
        )
        need(self.fitness in FITNESS_MODES, f"fitness must be one of {', '.join(FITNESS_MODES)}, got {self.fitness!r}")
        check_jobs(self.jobs)
        check_maximums(self)
        check_maximums(self.settings)
        need(
            isinstance(self.task_timeout, (int, float)) and self.task_timeout > 0,
            f"task_timeout must be a number of seconds > 0, got {self.task_timeout!r}",
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
        elif self.selection == "mu+lambda":
            need(
                1 <= self.mu < self.pool,
                f"mu must be in 1..pool-1 ({self.pool - 1}) so there is room for offspring, got {self.mu}",
            )
            need(self.tournament_size >= 1, "tournament_size must be >= 1")
        elif self.selection == "active-genes":
            need(
                2 <= self.tournament_size <= self.pool,
                f"active-genes: tournament_size must be in 2..pool ({self.pool}): a tournament's two fittest "
                f"are a pair's parents, got {self.tournament_size}",
            )

    @property
    def kept(self) -> int:
        """How many decks selection keeps: the boundary a racing fitness has to settle."""
        if self.selection == "truncation":
            return self.survivors
        if self.selection == "mu+lambda":
            return self.mu
        return min(self.pool, max(1, self.settings.yardstick_top))

    def flat(self) -> dict:
        """Every setting by its name: the run's, then its game's (the settings objects as they are)."""
        run = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "settings"}
        return {**run, **{f.name: getattr(self.settings, f.name) for f in dataclasses.fields(self.settings)}}

    def to_dict(self) -> dict:
        """The settings as config.json holds them: the run's, its game's table, `[archive]`, `[racing]`."""
        data = config_to_dict(self)
        game = data.pop("settings")
        tables = {
            table: {name: data.pop(field) for name, field in names.items()} for table, names in RUN_TABLES.items()
        }
        return {**data, self.settings.table: game, **tables}

    def replace(self, **changes) -> EvolveConfig:
        """A copy with `changes` (settings of the run or of its game, by name; None = unchanged),
        checked again."""
        run, game = split_names({k: v for k, v in changes.items() if v is not None}, type(self.settings))
        return dataclasses.replace(self, settings=dataclasses.replace(self.settings, **game), **run)


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


def changed_settings(a: EvolveConfig, b: EvolveConfig) -> list[str]:
    """The settings (by name) in which two configs differ, execution settings aside."""
    fa, fb = a.flat(), b.flat()
    return [k for k in fa if k not in EXECUTION_FIELDS and (k not in fb or fa[k] != fb[k])]


RUN_FIELDS = frozenset(f.name for f in dataclasses.fields(EvolveConfig)) - {"settings"}
#: settings of runs made before they existed, and what those runs did
LEGACY_DEFAULTS = {"score_memory": 1}


@functools.cache
def _flat_defaults() -> dict:
    """Each setting of our games by its name at the top level, with its default (plain): a run folder
    written with every setting at the top level holds those of every game."""
    names = {flat: (cls, name) for cls in reversed(SETTINGS.values()) for flat, name in cls.flat_names().items()}
    defaults = {flat: config_to_dict(cls())[name] for flat, (cls, name) in names.items()}
    return {**defaults, SpaceSettings.flat_rules_name: {}}


def split_names(settings: dict, space: type[SpaceSettings]) -> tuple[dict, dict]:
    """(the run's settings, the game's) of settings given by their names (the flags', a caller's);
    UserError in one line for a name of neither."""
    own = space.names()
    unknown = sorted(set(settings) - RUN_FIELDS - own)
    need(not unknown, f"{', '.join(unknown)}: not a setting of a run of {space.game}")
    return (
        {k: v for k, v in settings.items() if k in RUN_FIELDS},
        {k: v for k, v in settings.items() if k in own},
    )


def with_named_settings(given: dict, named: dict, space: type[SpaceSettings]) -> dict:
    """`given` with the `named` settings: each a setting of the run or of `space` by its name, else a
    game option (`game_config`); UserError in one line for a name of neither."""
    out = dict(given)
    options = {k: v for k, v in named.items() if k not in RUN_FIELDS | space.names()}
    out.update({k: v for k, v in named.items() if k not in options})
    if options:
        need(
            "game_config" in space.names(),
            f"{', '.join(options)}: not a setting of a run of {space.game}, whose runs take no game options "
            f"(its settings: {', '.join(sorted(space.names()))})",
        )
        out["game_config"] = {**(out.get("game_config") or {}), **options}
    return out


def split_settings(data: dict, game: str | None = None, saved: bool = False) -> tuple[dict, dict]:
    """(the run's settings, the game's) of a settings file or a config.json: the run's at the top
    level and in `[archive]` and `[racing]`, the game's in its table (`game`: the run's game, default
    the one `data` names). Files written with every setting at the top level, or with a table for each
    of our games, read as they are: another game's settings are refused unless at their defaults
    (dropped, as they were unused, in a `saved` run's config.json, which gets LEGACY_DEFAULTS)."""
    need(isinstance(data, dict), "expected a table of settings")
    game = data.get("game", DEFAULT_GAME) if game is None else game
    need(isinstance(game, str), f"game must be a game's name, got {game!r}")
    space = settings_class(game)
    own_names = space.names()
    flat_names = space.flat_names()
    other_tables = {s.table: s for s in SETTINGS.values() if s.table != space.table}
    run: dict = {}
    own: dict = {}

    def put(into: dict, name: str, value, where: str) -> None:
        need(name not in into, f"{where} is given twice (in its table and at the top level)")
        into[name] = value

    def put_flat(name: str, value, where: str) -> None:
        if name in flat_names:
            put(own, flat_names[name], value, where)
        elif name in _flat_defaults() and name not in RUN_FIELDS:  # another game's
            need(saved or value == _flat_defaults()[name], f"{where} is not a setting of {game}")
        else:  # the run's (an unknown name is refused with the run's settings listed)
            put(run, name, value, where)

    for key, value in data.items():
        if not isinstance(value, dict) or key not in {*RUN_TABLES, space.table, *other_tables}:
            put_flat(key, value, key)  # a top-level setting (`archive = true` of old files)
            continue
        # the game's table (which held the run's mut_card_rate in earlier versions)
        names = RUN_TABLES.get(key) or ({*own_names, *RUN_FIELDS} if key == space.table else None)
        if names is None:  # another game of ours: its table as its settings' top-level names
            other = other_tables[key]
            for n, v in value.items():
                put_flat(other.flat_rules_name if n == "rules" else n, v, f"[{key}] {n}")
            continue
        unknown = sorted(set(value) - set(names))
        if unknown:
            known = own_names if key == space.table else names
            raise UserError(f"[{key}]: unknown setting {unknown[0]!r}; settings: {', '.join(sorted(known))}")
        for n, v in value.items():
            if key != space.table:
                put(run, names[n], v, f"[{key}] {n}")
            else:
                put(own if n in own_names else run, n, v, f"[{key}] {n}")
    if saved:
        run = {**LEGACY_DEFAULTS, **run}
        own.setdefault("yardstick", [])  # a run saved before the yardstick had none
    return run, own


def build_config(run: dict, own: dict, where: str = "") -> EvolveConfig:
    """An EvolveConfig from the run's settings and its game's (plain, checked); UserError in one line."""
    space = settings_class(run.get("game", DEFAULT_GAME))
    settings = config_from_dict(space, own, where=where)
    return config_from_dict(EvolveConfig, {**run, "settings": settings}, where=where)


def config_from_settings(data: dict, where: str = "", saved: bool = False) -> EvolveConfig:
    """An EvolveConfig from plain settings (a settings file; a run's config.json, `saved`); UserError
    in one line."""
    try:
        run, own = split_settings(data, saved=saved)
    except UserError as exc:
        raise UserError(f"{where}: {exc}" if where else str(exc)) from None
    return build_config(run, own, where)


def deck_rules_class(game: str) -> type:
    """The dataclass of `game`'s deck rules; UserError in one line for a game without deck rules."""
    space = settings_class(game)
    with_rules = [name for name in space_names() if settings_class(name).has_rules()]
    need(space.has_rules(), f"{game} has no deck rules (deck rules apply to {', '.join(with_rules)})")
    return space.rules_class()


def with_deck_rule(config: EvolveConfig, name: str, value) -> EvolveConfig:
    """A copy of `config` whose game's deck rule `name` is `value`, checked again; UserError in one
    line for a game without deck rules, an unknown rule or a bad value."""
    deck_rules_class(config.game)
    rules = config.settings.rules
    known = [f.name for f in dataclasses.fields(rules)]
    need(name in known, f"{config.game} has no deck rule {name!r}; its rules: {', '.join(known)}")
    changed = config_from_dict(type(rules), {**dataclasses.asdict(rules), name: value}, where=f"{name} = {value!r}")
    return config.replace(rules=changed)


def load_config(
    path: str | os.PathLike | None = None,
    deck_rules: dict | None = None,
    named_settings: dict | None = None,
    **overrides,
) -> EvolveConfig:
    """Defaults < the settings file at `path` < `overrides` (settings of the run or of its game by
    name, the flags; None = not given), checked once together; UserError with one clear line if
    anything is off. A `panel` given without `opponents` is played too (added to the file's or the
    default opponents), a `game_config` given adds to the file's, and `deck_rules` (rule -> value) to
    the file's deck rules of the run's game. `named_settings` (name -> value, as `--set NAME=VALUE`
    gives them): a setting of the run or of its game by its name (a plug-in's own settings too), else
    a game option added to `game_config` where the game's settings have one."""
    data = read_settings(path, what="config file") if path is not None else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    where = ""
    if path is not None:
        where = f"config file {str(path)!r}" + (
            " with the command-line settings" if given or deck_rules or named_settings else ""
        )
    try:
        game = given.get("game", data.get("game", DEFAULT_GAME))
        need(isinstance(game, str), f"game must be a game's name, got {game!r}")
        space = settings_class(game)
        if named_settings:
            given = with_named_settings(given, named_settings, space)
        run, own = split_settings(data, game)
        given_run, given_own = split_names(given, space)
        if deck_rules:
            base = own.get("rules") or {}
            need(isinstance(base, dict), f"[{space.table}.rules] must be a table of deck rules")
            rules = config_from_dict(deck_rules_class(game), {**base, **deck_rules}, where=f"[{space.table}.rules]")
            given_own["rules"] = dataclasses.asdict(rules)  # checked here, as a table like a settings file's
        if "panel" in given_own and "opponents" not in given_own:
            opponents = own.get("opponents", space.__dataclass_fields__["opponents"].default_factory())
            if isinstance(opponents, list) and "panel" not in opponents:
                given_own["opponents"] = [*opponents, "panel"]
        if isinstance(own.get("game_config"), dict) and isinstance(given_own.get("game_config"), dict):
            given_own["game_config"] = {**own["game_config"], **given_own["game_config"]}
        if "archive_descriptors" in given_run and not {**run, **given_run}.get("archive"):
            # given now, and no archive to apply to (a saved config holds the game's pair whether or not
            # its run kept an archive, so only what is given beside it is checked here)
            raise UserError(
                f"archive_descriptors {given_run['archive_descriptors']!r} applies to the MAP-Elites archive: "
                "add --archive"
            )
    except UserError as exc:
        raise UserError(f"{where}: {exc}" if where else str(exc)) from None
    return build_config({**run, **given_run, "game": game}, {**own, **given_own}, where=where)
