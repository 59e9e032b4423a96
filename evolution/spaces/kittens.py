"""The Exploding Kittens deck space: card counts within `KittensBounds`, scored on an objective of
the agent's own games on each deck (evolution.scoring.objectives), validated against exact values.

A deck is the multiset of card *types* in the deck besides the Kitten (indices into
games.exploding_kittens.CARD_NAMES), i.e. card counts, each within `KittensBounds.counts[name]`, the
deck's size within `min_cards..max_cards`. The default bounds (Skip 0..8, Attack 0..8, Defuse 0..4
in the deck, 4..16 cards; with one Defuse in each hand from the game settings) hold 365
compositions, within the counts the composition-trained agent met. Objectives: `fairness` (the
default) and `skill`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import games
from agents.parallel import Mapper
from evolution.designer import plots, tables, verdicts
from evolution.scoring import fitness as fit
from evolution.scoring import objectives
from evolution.spaces.base import RunInputs, check_racing_split
from evolution.studies import kittens_validation
from games.config import need, setting
from games.errors import UserError
from games.exploding_kittens import CARD_NAMES, DEFUSE, MAX_COUNT
from games.fileio import atomic_write_json, atomic_write_text

#: game settings a kittens run starts from: exact values (the validation) exist for open hands only,
#: and the default agent was trained on open hands
KITTENS_GAME_DEFAULTS = {"open_hands": True, "hand_defuses": 1}
#: the default agent of a run (a Gwent Lite panel), which stands here for the composition-trained agent
#: `pretrained` (evolution.scoring.objectives.agent_spec_path)
GWENT_DEFAULT_AGENT = "evaluator"


def _default_counts() -> dict[str, list[int]]:
    return {"skip": [0, 8], "attack": [0, 8], "defuse": [0, 4]}


@dataclass
class KittensBounds:
    """The Exploding Kittens deck space: each listed card type's count in the deck (besides the
    Kitten; Defuses in hands come from the game settings) within [lo, hi], the others 0, and the
    deck's size within min_cards..max_cards."""

    min_cards: int = setting(4, "a deck holds at least this many cards besides the Kitten", metavar="N")
    max_cards: int = setting(16, "a deck holds at most this many cards besides the Kitten", metavar="N")
    counts: dict[str, list[int]] = setting(
        factory=_default_counts, help="card name -> [least, most] copies in the deck", flag=False
    )

    def __post_init__(self):
        for name in ("min_cards", "max_cards"):
            v = getattr(self, name)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"bounds: {name} must be >= 0, got {v!r}")
        need(isinstance(self.counts, dict) and self.counts, "bounds: counts must be a table of card -> [least, most]")
        for name, lohi in self.counts.items():
            need(name in CARD_NAMES, f"bounds: unknown card {name!r}; cards: {', '.join(CARD_NAMES)}")
            ok = isinstance(lohi, (list, tuple)) and len(lohi) == 2 and all(isinstance(x, int) for x in lohi)
            need(ok, f"bounds: {name} must be [least, most], got {lohi!r}")
            need(0 <= lohi[0] <= lohi[1] <= MAX_COUNT, f"bounds: {name} needs 0 <= least <= most <= {MAX_COUNT}")
        self.counts = {n: [int(v) for v in self.counts[n]] for n in CARD_NAMES if n in self.counts}
        lo = sum(v[0] for v in self.counts.values())
        hi = sum(v[1] for v in self.counts.values())
        need(
            max(lo, self.min_cards) <= min(hi, self.max_cards),
            f"bounds admit no deck: counts allow {lo}..{hi} cards, the deck size must be "
            f"{self.min_cards}..{self.max_cards}",
        )


class KittensSpace:
    """Exploding Kittens card counts within `KittensBounds`; a deck is the sorted list of its card
    types (0 = Defuse, 1 = Skip, 2 = Attack, ... as games.exploding_kittens.CARD_NAMES)."""

    name = "exploding_kittens"
    objectives = ("fairness", "skill")
    #: the settings only this game uses: its table in a settings file and config.json
    table = "kittens"
    #: no deck rules apart from the [bounds] of the space
    rules_field = None
    settings = frozenset({"bounds", "game_config", "games_per_deck", "playoff_games_per_deck"})
    #: a deck is judged alone: no reference decks to validate against or play matchups with
    reference_decks = False
    #: one deck is shared by every seat: the designer commands do not take its decks
    head_to_head = False
    #: one descriptor pair: the Skip and Attack counts (the cards that end a turn without drawing)
    descriptor_sets = ("turns",)

    def __init__(self, bounds: KittensBounds, game_config: dict | None = None):
        self.bounds = bounds
        self.game_config = dict(game_config or {})
        self.types = [CARD_NAMES.index(n) for n in bounds.counts]  # the card types a deck may vary
        self.lo = np.array([bounds.counts[CARD_NAMES[t]][0] for t in self.types], dtype=np.int64)
        self.hi = np.array([bounds.counts[CARD_NAMES[t]][1] for t in self.types], dtype=np.int64)
        if DEFUSE in self.types:  # the Defuses in hands count towards a type's limit
            hands = 2 * int(self.game_config.get("hand_defuses", 1))
            i = self.types.index(DEFUSE)
            if self.hi[i] + hands > MAX_COUNT:
                raise UserError(
                    f"bounds: at most {MAX_COUNT - hands} Defuses in the deck with {hands // 2} in each hand"
                )

    # --- counts <-> cards ------------------------------------------------------------------------
    def counts(self, cards) -> np.ndarray:
        """Counts of the space's card types (in `self.types` order)."""
        c = np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=10)
        return c[self.types].astype(np.int64)

    def cards(self, counts) -> list[int]:
        return [t for t, n in zip(self.types, counts) for _ in range(int(n))]

    def deck(self, cards) -> dict[str, int]:
        """The composition as a games.make `deck` table (every listed card name, zeros included)."""
        return {CARD_NAMES[t]: int(n) for t, n in zip(self.types, self.counts(cards))}

    # --- operators --------------------------------------------------------------------------------
    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return self.cards(self._repair_counts(self.counts(cards), rng))

    def _repair_counts(self, counts, rng: np.random.Generator) -> np.ndarray:
        """Each count clipped into its bounds, then the size brought inside min..max one card at a
        time, the type chosen uniformly among those that can give (or take) one: no type is pushed
        up or down on average. A legal deck comes back unchanged."""
        c = np.clip(np.asarray(counts, dtype=np.int64), self.lo, self.hi)
        b = self.bounds
        while c.sum() > b.max_cards:
            can = np.flatnonzero(c > self.lo)
            c[can[int(rng.integers(0, can.size))]] -= 1
        while c.sum() < b.min_cards:
            can = np.flatnonzero(c < self.hi)
            c[can[int(rng.integers(0, can.size))]] += 1
        return c

    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        """A size drawn uniformly from the legal sizes, the cards above the lower bounds spread one at a
        time over the types chosen uniformly among those still below their upper bound (`shapes`
        are Gwent Lite's, ignored here)."""
        b = self.bounds
        lo_n, hi_n = max(b.min_cards, int(self.lo.sum())), min(b.max_cards, int(self.hi.sum()))
        n = int(rng.integers(lo_n, hi_n + 1))
        c = self.lo.copy()
        for _ in range(n - int(c.sum())):
            can = np.flatnonzero(c < self.hi)
            c[can[int(rng.integers(0, can.size))]] += 1
        return self.assert_legal(self.cards(c))

    def mutate(self, cards, rng: np.random.Generator, config=None) -> list[int]:
        """A changed legal copy: one to three single-card steps (each: move a card to another type,
        add a card, or remove one, with equal chances), then the repair. Tries again (up to 20 times)
        when the steps and the repair give the parent back."""
        parent = self.counts(cards)
        for _ in range(20):
            c = parent.copy()
            for _ in range(1 + int(rng.binomial(2, 0.25))):
                kind = int(rng.integers(0, 3))
                k = len(self.types)
                if kind in (0, 2) and c.sum() > 0:  # take a card away (move or remove)
                    have = np.flatnonzero(c > 0)
                    c[have[int(rng.integers(0, have.size))]] -= 1
                if kind in (0, 1):  # add a card (move or add)
                    c[int(rng.integers(0, k))] += 1
            c = self._repair_counts(c, rng)
            if not np.array_equal(c, parent):
                break
        return self.assert_legal(self.cards(c))

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the counts: each type's count swapped with chance 1/2, then repair."""
        ca, cb = self.counts(a), self.counts(b)
        swap = rng.random(len(self.types)) < 0.5
        ca[swap], cb[swap] = cb[swap].copy(), ca[swap].copy()
        return self.cards(self._repair_counts(ca, rng)), self.cards(self._repair_counts(cb, rng))

    # --- legality and words ----------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        """What makes `cards` illegal here ([] for a legal deck)."""
        cards = list(cards)
        types = range(len(CARD_NAMES))
        if not all(isinstance(t, int) and not isinstance(t, bool) and t in types for t in cards):
            return [f"cards must be card types 0..{len(CARD_NAMES) - 1}, got {cards!r}"]
        out = []
        outside = sorted(set(cards) - set(self.types))
        if outside:
            out.append(f"{', '.join(CARD_NAMES[t] for t in outside)} not in the deck space")
        c = self.counts(cards)
        for t, n, lo, hi in zip(self.types, c, self.lo, self.hi):
            if not lo <= n <= hi:
                out.append(f"{n} {CARD_NAMES[t]} outside {lo}..{hi}")
        b = self.bounds
        if not b.min_cards <= len(cards) <= b.max_cards:
            out.append(f"{len(cards)} cards outside {b.min_cards}..{b.max_cards}")
        return out

    def assert_legal(self, cards) -> list[int]:
        """The guard before a deck reaches a game: a bug, not a user error, if it fires."""
        problems = self.problems(cards)
        if problems:
            raise AssertionError(f"illegal deck {list(cards)}: {'; '.join(problems)}")
        return sorted(int(t) for t in cards)

    def short_text(self, cards) -> str:
        return ", ".join(f"{n} {k}" for k, n in self.deck(cards).items())

    def text(self, cards) -> str:
        return f"{self.short_text(cards)} ({len(list(cards))} cards)"

    def entry_extra(self, cards) -> dict:
        # "total" of a Gwent Lite deck is its power budget; here the number of cards
        return {"deck": self.deck(cards), "total": len(list(cards))}

    def game_settings(self, cards) -> dict:
        return {**self.game_config, "deck": self.deck(cards)}

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file: the composition and the game settings it was judged under (TOML or JSON).
        Play it with `--set deck={...}` and the same settings."""
        data = {"game": self.name, "name": name, **self.game_settings(cards)}
        if Path(path).suffix.lower() == ".json":
            atomic_write_text(path, json.dumps(data, indent=1) + "\n")
            return
        lines = [f"# {comment}"] if comment else []
        inline = "{" + ", ".join(f"{k} = {v}" for k, v in data["deck"].items()) + "}"
        lines.append(f"# play it: deckopt play exploding_kittens --set 'deck={inline}'")
        for k, v in data.items():
            if k != "deck":
                lines.append(f"{k} = {json.dumps(v)}")
        lines.append("[deck]")
        lines += [f"{k} = {v}" for k, v in data["deck"].items()]
        atomic_write_text(path, "\n".join(lines) + "\n")

    def all_decks(self) -> list[list[int]]:
        """Every legal deck (small spaces only: the validation enumerates the default's 365)."""
        out = []
        for c in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(self.lo, self.hi))):
            if self.bounds.min_cards <= sum(c) <= self.bounds.max_cards:
                out.append(self.cards(c))
        return out

    # --- settings ---------------------------------------------------------------------------------
    @classmethod
    def check_config(cls, config) -> None:
        """The bounds and game settings checked with a deck of the space; deck files refused (its decks
        are judged alone, against exact values); the agent defaults to `pretrained` (the
        composition-trained agent)."""
        if config.agent == GWENT_DEFAULT_AGENT:
            config.agent = "pretrained"
        for name in ("yardstick", "validation_panel"):
            need(not getattr(config, name), f"{name} applies to games judged against reference decks, not {cls.name}")
        need(not config.panel and "panel" not in config.opponents, "panel decks apply to gwent_lite only")
        need(not config.constraints, "constraints apply to gwent_lite only (exploding_kittens has [bounds])")
        fixed = config.game_config.get("composition", "fixed") == "fixed" and not config.game_config.get("preset")
        need(
            "deck" not in config.game_config and fixed,
            "game_config: the deck is what evolves (no deck, composition or preset); set its [bounds] instead",
        )
        config.game_config = {**KITTENS_GAME_DEFAULTS, **config.game_config}
        try:  # every setting checked once here, with a deck of the space
            games.make(cls.name, **config.game_config)
        except TypeError as exc:
            raise UserError(f"game_config: {exc}") from None
        cls.from_config(config)

    @classmethod
    def check_racing(cls, config) -> None:
        check_racing_split("games_per_deck", config.games_per_deck, config.racing_rounds)

    @classmethod
    def from_config(cls, config) -> KittensSpace:
        return cls(config.bounds, config.game_config)

    @classmethod
    def default(cls) -> KittensSpace:
        return cls(KittensBounds(), KITTENS_GAME_DEFAULTS)

    # --- a run ------------------------------------------------------------------------------------
    def inputs(self, config) -> RunInputs:
        """No deck files: the objective is a property of each deck alone."""
        return RunInputs(objectives.build_agent(config, seed=config.seed))

    def evaluator(self, config, inputs: RunInputs, pmap) -> objectives.ObjectiveEvaluator:
        return objectives.ObjectiveEvaluator(config, inputs.agent, pmap, self)

    def measure_yardstick(self, pool, inputs, config, pmap, gen, progress=None) -> int:
        return 0

    def generation_header(self, config) -> dict:
        return {"objective": config.objective, "games_per_deck": config.games_per_deck}

    def fitness_plot(self, rows: list[dict], name: str, config) -> bytes:
        title = f"{name}: {config.objective} per generation (agent self-play)"
        return plots.plot_fitness(rows, title, **plots.OBJECTIVE_AXES[config.objective])

    def best_plot(self, best: list[dict], name: str) -> bytes:
        return plots.plot_best_counts(best, self, f"{name}: card counts of the best deck per generation")

    def finish_run(self, folder, config, agent, pmap, log=None, progress=None) -> dict:
        return kittens_validation.finish_run(folder, config, agent, pmap, self, log=log, progress=progress)

    def validation_table(self, report: dict) -> str:
        return kittens_validation.validation_table(report)

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The Skip count and the Attack count, each within its bounds."""
        counts = self.bounds.counts
        skip, attack = counts.get("skip", [0, 0]), counts.get("attack", [0, 0])
        # half a count of margin, so each whole count sits inside a cell, not on an edge
        return ("skips", "attacks"), [(skip[0] - 0.5, skip[1] + 0.5), (attack[0] - 0.5, attack[1] + 0.5)]

    def descriptors(self, cards) -> tuple[float, float]:
        cards = list(cards)
        return float(cards.count(CARD_NAMES.index("skip"))), float(cards.count(CARD_NAMES.index("attack")))

    @property
    def max_cards(self) -> int:
        return self.bounds.max_cards

    def remeasure_elites(self, decks, config, inputs, pmap, generation, stage, progress=None):
        games_per_deck = config.playoff_games_per_deck
        scored = objectives.measure(
            decks, config, inputs.agent, pmap, games_per_deck, stage, generation, progress, "elites"
        )
        again = [{"score": v, "ci95": list(ci), "games": s.games} for v, ci, s in scored]
        how = (
            f"best {config.objective} of the archive's {len(decks)} best elites, each measured again with "
            f"{games_per_deck} fresh games"
        )
        return again, sum(a["games"] for a in again), how

    # --- reports ----------------------------------------------------------------------------------
    def deck_json(self, entry: dict) -> dict:
        out = tables.deck_json(entry)
        out["deck"] = self.deck(entry["cards"])
        rate = next(iter((entry.get("by_opponents") or {}).items()), None)
        if rate:  # the rate behind the objective (first-player win rate, score against random)
            out[rate[0]] = {"score": rate[1]["score"], "ci95": list(rate[1]["ci95"])}
        return out

    def report_header(self, config) -> dict:
        return {"game": self.name, "objective": config.objective}

    def decks_table(self, report: dict) -> str:
        return tables.objective_decks_table(report)

    def best_rows(self, best: list[dict]) -> tuple[list[str], list[list]]:
        # a kittens deck's "total" would sum card types: no total column
        rows = [[b["generation"], self.short_text(b["best"]["cards"]), len(b["best"]["cards"])] for b in best]
        return ["gen", "deck", "cards"], rows

    def verdict_blocks(self, champion: dict, validation: dict | None) -> list:
        return verdicts.exact_verdict(validation)

    # --- the decks command ------------------------------------------------------------------------
    def revalidate(self, run, cards, how: str, options: dict, progress=None) -> dict:
        """The deck and the best deck of every generation, measured again with fresh seeds (`games`
        each, default the run's playoff_games_per_deck), beside their exact first-player values;
        written to RUN/validation_exact.json."""
        c = run.config
        if options.get("panel"):
            raise UserError("--panel applies to gwent_lite runs (a kittens deck is judged alone)")
        if options.get("agent"):
            c = c.replace(agent=options["agent"])
        decks = [tuple(cards)]
        decks += [t for t in dict.fromkeys(tuple(b["best"]["cards"]) for b in run.best) if t != tuple(cards)]
        seed = options["seed"] if options.get("seed") is not None else c.seed + 1
        games_per_deck = options.get("games") or c.playoff_games_per_deck
        agent = objectives.build_agent(c, seed=seed)
        with Mapper(options.get("jobs") or c.jobs, "loky", task_timeout=c.task_timeout) as pmap:
            scored = objectives.measure(
                decks, c.replace(seed=seed), agent, pmap, games_per_deck, fit.STAGE_VALIDATE, 0, progress, "validation"
            )
        entries = [
            {
                "cards": list(d),
                "score": v,
                "ci95": list(ci),
                "rate": s.score,
                "rate_ci95": list(s.ci95),
                "games": s.games,
            }
            for d, (v, ci, s) in zip(decks, scored)
        ]
        report = kittens_validation.validation_report({"playoff": entries}, [], self, c)
        report.update({"how": how, "seed": seed, "games_per_deck": games_per_deck})
        atomic_write_json(run.folder.path / "validation_exact.json", report)
        return report
