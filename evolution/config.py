"""The configuration of an evolution run: one dataclass, read from TOML and overridden by flags.

    generations = 40
    pool = 30
    games_per_pair = 10
    opponents = ["population", "hall-of-fame", "random"]
    selection = "ancestor"           # or "mu+lambda"
    [rules]                          # the deck-building rules (games.decks.DeckRules)
    min_cards = 25
    max_total = 100
    min_power = 1

The resolved config is saved in the run folder as `config.json`; `--resume` reads it back. Only the
fields in `EXECUTION_FIELDS` (how and how long to run, not what to compute) may change on resume.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from games.decks import DeckRules
from games.errors import UserError

OPPONENT_KINDS = ("population", "panel", "hall-of-fame", "random")
SELECTIONS = ("ancestor", "mu+lambda")
BACKENDS = ("loky", "dask")


@dataclass
class EvolveConfig:
    seed: int = 0
    # 150: the 30-generation champion was level with the ancestor's best decks (0.49 against
    # gen840_6); by 150 generations it beats every one of them (measured, README)
    generations: int = 150
    #: decks evaluated per generation
    pool: int = 30
    #: games per pairing (an even number: each deal is played twice, seats swapped)
    games_per_pair: int = 10
    #: fitness = mean score against these opponent sets together
    #: (fresh random decks of every shape keep the fitness honest against archetypes the pool has
    #: lost, e.g. near-flat decks, which a converged pool stops meeting)
    opponents: list[str] = field(default_factory=lambda: ["population", "hall-of-fame", "random"])
    #: deck files or folders for the `panel` opponents
    panel: list[str] = field(default_factory=list)
    #: how many fresh random decks (of the `init_shapes`) serve as `random` opponents each generation
    random_opponents: int = 10
    hof_size: int = 10
    #: how many of the hall of fame's best decks serve as `hall-of-fame` opponents
    hof_opponents: int = 5
    #: a deck's fitness pools its fresh games of this many generations (this one and those it
    #: survived just before): 1 = this generation's games only. Each generation still plays fresh
    #: seeds, so a lucky score is diluted rather than kept, and a deck that stays gets measured ever
    #: more precisely (decks at the top differ by 0.01-0.02, well inside one generation's +-0.05).
    #: 4: the default run's champion went from 34 to 35 of 35 reference decks beaten (README)
    score_memory: int = 4
    selection: str = "ancestor"
    #: ancestor selection: keep the top `survivors` (default: a third of the pool, as the
    #: ancestor's 10 of 30), each with `offspring_per_survivor` mutated copies, refill with random
    #: decks
    survivors: int | None = None
    offspring_per_survivor: int = 1
    #: mu+lambda selection: `mu` parents (default: a third of the pool) chosen by tournaments of
    #: `tournament_size`, `pool - mu` offspring
    mu: int | None = None
    tournament_size: int = 3
    #: chance that a child comes from a multiset crossover of two parents (then mutated)
    cx_prob: float = 0.0
    #: mutation: fraction of the cards that change, their step size, chance to add / remove a card
    mut_card_rate: float = 0.1
    mut_step_sigma: float = 1.0
    mut_add_prob: float = 0.1
    mut_remove_prob: float = 0.1
    #: random-deck shapes for the first pool and the refills (evolution.genome.SHAPES)
    init_shapes: list[str] = field(default_factory=lambda: ["uniform", "ancestor", "flat", "spiky", "more_cards"])
    #: the agent that plays every seat (agents.make spec)
    agent: str = "pretrained"
    rules: DeckRules = field(default_factory=DeckRules)
    #: games per work unit; fixed by the config (not by the number of workers) so results do not
    #: depend on --jobs or the backend
    games_per_task: int = 200
    #: the champion is chosen by a round robin of the last generation's top decks, with many games
    playoff_top: int = 5
    playoff_games_per_pair: int = 200
    # --- execution (may change on --resume) ---
    jobs: int = 2
    backend: str = "loky"
    scheduler: str | None = None
    validate: bool = True
    validation_panel: list[str] = field(default_factory=lambda: ["decks", "decks/ancestor"])
    #: games of the champion against each reference deck (mirrored, fresh seeds)
    #: (2000 each: the champion's edge over the ancestor's best decks is small, 0.52-0.53, and
    #: takes a CI of +-0.014 to show; 70 000 games, under a minute on 2 cores)
    validation_games: int = 2000
    plot_every: int = 5

    def __post_init__(self):
        # a third of the pool, as the ancestor's 10 of 30, resolved here so the saved config is explicit
        if self.survivors is None:
            self.survivors = max(1, self.pool // 3) if isinstance(self.pool, int) else None
        if self.mu is None:
            self.mu = max(1, self.pool // 3) if isinstance(self.pool, int) else None
        self.check()

    def check(self) -> "EvolveConfig":
        def need(ok: bool, message: str):
            if not ok:
                raise UserError(f"evolve config: {message}")

        for name in ("generations", "pool", "games_per_pair", "games_per_task", "jobs", "score_memory"):
            value = getattr(self, name)
            need(isinstance(value, int) and not isinstance(value, bool) and value >= 1, f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("random_opponents", "hof_size", "hof_opponents", "survivors", "offspring_per_survivor", "mu", "tournament_size",
                     "playoff_top", "playoff_games_per_pair", "validation_games", "plot_every", "seed"):
            value = getattr(self, name)
            need(isinstance(value, int) and not isinstance(value, bool) and value >= 0, f"{name} must be a whole number >= 0, got {value!r}")
        need(self.games_per_pair % 2 == 0, f"games_per_pair must be even (mirrored pairs of games), got {self.games_per_pair}")
        need(self.playoff_games_per_pair % 2 == 0, f"playoff_games_per_pair must be even, got {self.playoff_games_per_pair}")
        need(self.validation_games % 2 == 0, f"validation_games must be even, got {self.validation_games}")
        need(isinstance(self.opponents, list) and self.opponents, "opponents must be a non-empty list")
        bad = [o for o in self.opponents if o not in OPPONENT_KINDS]
        need(not bad, f"unknown opponents {bad}; choose from {', '.join(OPPONENT_KINDS)}")
        need(len(set(self.opponents)) == len(self.opponents), f"opponents listed twice: {self.opponents}")
        need("panel" not in self.opponents or bool(self.panel), "opponents include 'panel' but no panel decks are given (--panel FILE|DIR)")
        need("population" in self.opponents or self.pool >= 1, "pool must be >= 1")
        need("population" not in self.opponents or self.pool >= 2, "a population round robin needs a pool of at least 2")
        need("random" not in self.opponents or self.random_opponents >= 1, "random opponents need random_opponents >= 1")
        need("hall-of-fame" not in self.opponents or (self.hof_size >= 1 and self.hof_opponents >= 1),
             "hall-of-fame opponents need hof_size >= 1 and hof_opponents >= 1")
        need(self.selection in SELECTIONS, f"selection must be one of {', '.join(SELECTIONS)}, got {self.selection!r}")
        if self.selection == "ancestor":
            k = self.survivors
            need(1 <= k <= self.pool, f"survivors must be in 1..pool ({self.pool}), got {k}")
            need(k * (1 + self.offspring_per_survivor) <= self.pool,
                 f"survivors x (1 + offspring_per_survivor) = {k * (1 + self.offspring_per_survivor)} exceeds the pool of {self.pool}")
        else:
            need(1 <= self.mu < self.pool, f"mu must be in 1..pool-1 ({self.pool - 1}) so there is room for offspring, got {self.mu}")
            need(self.tournament_size >= 1, "tournament_size must be >= 1")
        for name in ("cx_prob", "mut_card_rate", "mut_add_prob", "mut_remove_prob"):
            value = getattr(self, name)
            need(isinstance(value, (int, float)) and 0.0 <= value <= 1.0, f"{name} must be in [0, 1], got {value!r}")
        need(isinstance(self.mut_step_sigma, (int, float)) and self.mut_step_sigma > 0, "mut_step_sigma must be > 0")
        from evolution.genome import SHAPES

        bad = [s for s in self.init_shapes if s not in SHAPES]
        need(self.init_shapes and not bad, f"unknown init_shapes {bad}; choose from {', '.join(SHAPES)}")
        need(self.backend in BACKENDS, f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        need(isinstance(self.agent, str) and self.agent.strip() != "", "agent must be an agent spec")
        return self

    # --- (de)serialisation -------------------------------------------------------------------
    def to_dict(self) -> dict:
        out = asdict(self)
        out["rules"] = asdict(self.rules)
        return out

    @classmethod
    def from_dict(cls, data: dict, where: str = "evolve config") -> "EvolveConfig":
        if not isinstance(data, dict):
            raise UserError(f"{where}: expected a table of settings")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise UserError(f"{where or 'evolve config'}: unknown setting(s) {unknown}; known: {', '.join(sorted(known))}")
        data = dict(data)
        if "rules" in data:
            rules = data["rules"]
            if not isinstance(rules, dict) or set(rules) - {"min_cards", "max_total", "min_power"}:
                raise UserError(f"{where or 'evolve config'}: [rules] takes min_cards, max_total, min_power")
            try:
                data["rules"] = DeckRules(**rules)
            except UserError as exc:
                raise UserError(f"{where or 'evolve config'}: {exc}") from None
        for name in ("opponents", "panel", "init_shapes", "validation_panel"):
            if name in data and isinstance(data[name], str):
                data[name] = [data[name]]
        prefix = f"{where}: " if where else ""
        try:
            return cls(**data)
        except (UserError, TypeError) as exc:
            raise UserError(f"{prefix}{exc}") from None

    def replace(self, **changes) -> "EvolveConfig":
        changes = {k: v for k, v in changes.items() if v is not None}
        data = {**dataclasses.asdict(self), **changes}
        data["rules"] = changes.get("rules", self.rules)
        return type(self)(**data)


EXECUTION_FIELDS = frozenset({"generations", "jobs", "backend", "scheduler", "validate", "validation_panel",
                              "validation_games", "plot_every"})


def read_config_file(path: str | os.PathLike) -> dict:
    """The settings of a TOML (or JSON) config file, unchecked; UserError if it cannot be read."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"config file {str(path)!r} not found")
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"config file {str(path)!r} is malformed: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"config file {str(path)!r}: expected a table of settings")
    return data


def load_config(path: str | os.PathLike, **overrides) -> EvolveConfig:
    """Defaults < the file's settings < `overrides` (None = not given), checked once together;
    UserError with one clear line if anything is off."""
    data = read_config_file(path) if path is not None else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)
    where = f"config file {str(path)!r}" + (" with the command-line options" if given else "") if path is not None else ""
    return EvolveConfig.from_dict(data, where=where)
