"""A quality-diversity archive (MAP-Elites) of decks: a `ribs.archives.GridArchive` over two deck-shape
descriptors, filled by a small emitter of our own (pyribs has no emitter for discrete decks), with
elites that are measured again and again (the fitness is noisy).

    archive = DeckArchive(config, space)              # empty, cells from config.archive_cells
    pool = archive.ask(config.pool, rng)              # elites to re-measure + children of elites
    ...evaluate the pool as a normal run does...
    archive.tell(pool, gen)                           # elites take their new scores; children enter
    archive.entries()                                 # the elites as archive.json entries
    best = choose_best_elite(archive, ...)            # at the end (evolution/archive/results.py)

Re-measurement. The fitness is noisy, so each generation's pool measures `survivors` decks again,
as a plain run does: they play with the children, against the same opponents and fresh seeds, and
a deck's fitness pools its games of its last `score_memory` measurements (the evaluator's own rule
for a deck that stays); a child competes with the incumbent's pooled score. With
`archive_population` > 0 (0.5 by default) the run keeps a plain run's population (the `survivors`
best decks of each pool, whatever their cells): they are the decks measured again, and they breed
that share of the children, the rest bred from elites chosen uniformly. With 0 the elites measured
again are those with the highest upper bound of their interval. The pool has the plain run's size,
so both runs play the same games per generation. At the end (`choose_best_elite`,
evolution/archive/results.py) the `playoff_top` elites best on their yardstick games of the run
(then by pooled fitness) are measured again against the yardstick (`playoff_games_per_pair` games
per yardstick deck, fresh seeds), and the best of that look is the best elite
(docs/results/archive.md compares it with a plain run's champion).

Descriptors (each bounded, so the grid covers every legal deck):
- Gwent Lite: the share of the deck's cards at the minimum power (0 .. 1) and the share of its total
  power in its five strongest cards (from 5 / max_cards to what five big cards beside min_cards - 5
  weak ones reach, 0.05 .. 0.8 by default): flat decks (no fillers, top five about a fifth of the
  power) against decks of weak fillers and a few big cards, and the mixes between.
- Exploding Kittens: the Skip count and the Attack count (each within its bounds).

The grid holds each elite's cards (a fixed-length vector padded with -1), pooled score, interval,
games, how often it was measured and since when it holds its cell; its past games (for the pooling)
are kept beside it by cards. archive.json holds all of it, so a resumed run rebuilds the archive
exactly (written before the checkpoint each generation). The emitter draws every random choice from
the run's numpy Generator (parents chosen among the elites sorted by cell index, not with ribs's own
sampler), so the same seed gives the same archive.
"""

from __future__ import annotations

import numpy as np

from evolution.config import parse_cells
from evolution.decks.base import canonical
from evolution.individuals import kept_individual, make_individual, score_of
from evolution.scoring import fitness as fit
from games.errors import UserError

PAD = -1
ELITE = "elite"  # the origin of an elite measured again in a pool
SURVIVOR = "survivor"  # the origin of a deck of the run's own population (archive_population > 0)
NEW_TRIES = 10  # draws of a child before a copy of a deck in the archive or the pool is kept
#: seed-key stage of the best elite's final re-measurement (evolution.scoring.fitness's stages are 0..4)
STAGE_ELITE_FINAL = 40


class DeckArchive:
    """The MAP-Elites archive of one run and its emitter."""

    def __init__(self, config, space):
        self.config = config
        self.space = space  # the run's deck space: its operators and the two descriptors of a deck
        self.names, ranges = space.descriptor_space()
        self.width = space.max_cards
        # pyribs brings pandas, numba and scikit-learn (seconds to import): loaded when an archive is made,
        # so that the commands that make none start without them
        from ribs.archives import GridArchive

        self.grid = GridArchive(
            solution_dim=self.width,
            dims=list(parse_cells(config.archive_cells)),
            ranges=ranges,
            extra_fields={
                "ci_lo": ((), np.float64),
                "ci_hi": ((), np.float64),
                "games": ((), np.int64),
                "measured": ((), np.int64),  # generations it was evaluated in (its first included)
                "since": ((), np.int64),  # the generation it took its cell
            },
            dtype=np.float64,
        )
        #: each elite's fresh games of its last score_memory - 1 measurements (the evaluator's
        #: `stats.past`), by cards: what its next measurement is pooled with
        self.past: dict[tuple[int, ...], list[fit.Score]] = {}
        #: archive_population > 0: the best decks of the last pool, kept as a plain run keeps its
        #: survivors (individuals with their past games), whatever their cells
        self.population: list = []

    @classmethod
    def read(cls, config, space, folder, generation: int) -> DeckArchive:
        """The archive of a run resumed after `generation`, rebuilt from its archive.json (each elite
        into its empty cell: the same archive); UserError if the file is not that generation's."""
        archive = cls(config, space)
        path = folder.path / "archive.json"
        data = folder.read_archive() if path.is_file() else None
        if not isinstance(data, dict) or data.get("generation") != generation:
            raise UserError(f"{path} is missing or not of generation {generation}; the archive run cannot be resumed")
        entries = data["entries"]
        archive._put(
            [e["cards"] for e in entries],
            [e["score"] for e in entries],
            [e["ci95"] for e in entries],
            [e["games"] for e in entries],
            [e.get("measured", 1) for e in entries],
            [e.get("since", 0) for e in entries],
        )
        archive.past = {tuple(e["cards"]): [fit.Score.from_json(p) for p in e.get("past_scores", [])] for e in entries}
        for p in data.get("population", []):
            ind = make_individual(p["cards"], SURVIVOR)
            ind.stats.past = [fit.Score.from_json(s) for s in p["past_scores"]]
            archive.population.append(ind)
        return archive

    def __len__(self) -> int:
        return len(self.grid)

    def _put(self, cards, scores, cis, games, measured, since) -> np.ndarray:
        """Offer decks to the grid (ribs keeps the best per cell); the add status of each."""
        if not len(cards):
            return np.zeros(0, dtype=np.int64)
        solutions = np.full((len(cards), self.width), PAD, dtype=np.float64)
        for i, c in enumerate(cards):
            solutions[i, : len(c)] = list(c)
        return self.grid.add(
            solutions,
            np.asarray(scores, dtype=np.float64),
            np.array([self.space.descriptors(c) for c in cards]),
            ci_lo=np.array([ci[0] for ci in cis], dtype=np.float64),
            ci_hi=np.array([ci[1] for ci in cis], dtype=np.float64),
            games=np.asarray(games, dtype=np.int64),
            measured=np.asarray(measured, dtype=np.int64),
            since=np.asarray(since, dtype=np.int64),
        )["status"]

    # --- the emitter ---------------------------------------------------------------------------
    def remeasured(self) -> list[dict]:
        """The elites a pool measures again: `survivors` of them (at most pool - 1, so a child is
        always made), those with the highest upper bound of their interval (ties in cell order)."""
        entries = self.entries()
        k = min(self.config.survivors, self.config.pool - 1, len(entries))
        order = np.argsort([-e["ci95"][1] for e in entries], kind="stable")
        return [entries[i] for i in order[:k]]

    def ask(self, n: int, rng: np.random.Generator) -> list:
        """`n` decks: random ones while the archive is empty, else the elites to measure again
        (`remeasured`, with their past games, origin 'elite') and children of elites chosen uniformly
        (crossover of two with chance cx_prob, then mutation; each operator repairs, so every child
        is legal). A child that copies an elite or an earlier child is made again (up to NEW_TRIES
        times): a mutation often lands back on its parent (15 % of the children of a default run),
        and a copy's games would be spent on a deck already measured."""
        parents = [e["cards"] for e in self.entries()]
        if not parents:
            return [make_individual(canonical(self.space, self.space.random_deck(rng))) for _ in range(n)]
        pool = []
        if self.population:  # the run's own survivors are measured again instead of elites
            pool = [kept_individual(ind, SURVIVOR) for ind in self.population]
        else:
            for e in self.remeasured():
                ind = make_individual(e["cards"], ELITE)
                ind.stats.past = list(self.past.get(tuple(e["cards"]), []))
                pool.append(ind)
        seen = {tuple(p) for p in parents} | {tuple(p) for p in pool}
        children = n - len(pool)
        from_population = int(round(self.config.archive_population * children)) if self.population else 0
        breeders = [list(ind) for ind in self.population]
        for k in range(children):
            for _try in range(NEW_TRIES):
                child = self._child(breeders if k < from_population else parents, rng)
                if tuple(child) not in seen:
                    break
            seen.add(tuple(child))
            pool.append(child)
        return pool

    def _child(self, parents: list, rng: np.random.Generator):
        a = parents[int(rng.integers(0, len(parents)))]
        origin = "mutant"
        if len(parents) > 1 and rng.random() < self.config.cx_prob:
            b = parents[int(rng.integers(0, len(parents)))]
            a, origin = self.space.crossover(a, b, rng)[0], "crossover"
        return make_individual(canonical(self.space, self.space.mutate(a, rng)), origin)

    def tell(self, pool: list, generation: int) -> int:
        """Take the evaluated pool of `generation`: each elite measured again takes its new pooled
        score (lower or higher), then the children are offered (one enters its cell if the cell is
        empty or it beats the elite's pooled score; a copy of an elite is not). Returns how many
        children entered. (A child may take a cell on one lucky look; requiring it to beat the elite
        by a standard error of the difference freezes the archive on two of three seeds: the fitness
        falls as the opponents improve, so an old elite's pooled score stays out of reach;
        docs/results/archive.md.)"""
        elites = {tuple(e["cards"]): e for e in self.entries()}
        if self.config.archive_population > 0:  # the best of this pool, kept as a plain run's survivors
            best = sorted(pool, key=score_of, reverse=True)[: min(self.config.survivors, len(pool) - 1)]
            self.population = [kept_individual(ind, SURVIVOR) for ind in best]
        for ind in pool:
            e = elites.get(tuple(ind))
            if ind.stats.origin in (ELITE, SURVIVOR) and e is not None:
                e.update(score=score_of(ind), ci95=list(ind.stats.ci95), games=ind.stats.record.games)
                e["measured"] += 1
                self.past[tuple(ind)] = list(ind.stats.past)
        self.grid.clear()
        kept = list(elites.values())
        self._put(
            [e["cards"] for e in kept],
            [e["score"] for e in kept],
            [e["ci95"] for e in kept],
            [e["games"] for e in kept],
            [e["measured"] for e in kept],
            [e["since"] for e in kept],
        )
        # a child equal to an elite is not offered: one look must not replace the elite's pooled record
        # (a survivor that holds no cell is offered with its pooled score, as a child)
        children = [ind for ind in pool if ind.stats.origin != ELITE and tuple(ind) not in elites]
        status = self._put(
            [list(ind) for ind in children],
            [score_of(ind) for ind in children],
            [ind.stats.ci95 for ind in children],
            [ind.stats.record.games for ind in children],
            [1] * len(children),
            [generation] * len(children),
        )
        for ind, s in zip(children, status):
            if s:  # a new elite
                self.past[tuple(ind)] = list(ind.stats.past)
        held = {tuple(e["cards"]) for e in self.entries()}
        self.past = {k: v for k, v in self.past.items() if k in held}
        # a child that entered may still have lost its cell to a better child of the same batch
        return len({tuple(ind) for ind, s in zip(children, status) if s} & held)

    # --- reading -------------------------------------------------------------------------------
    def entries(self, with_past: bool = False) -> list[dict]:
        """The elites in cell order, as archive.json entries (cards, pooled score, ci95 and games,
        how often measured and since when in its cell, cell and descriptors; `with_past`: also the
        past games the next measurement is pooled with)."""
        d = self.grid.data()
        out = []
        for k in np.argsort(d["index"], kind="stable"):
            cards = [int(c) for c in d["solution"][k] if c != PAD]
            cell = self.grid.int_to_grid_index(np.array([d["index"][k]]))[0]
            entry = {
                "cards": cards,
                "score": float(d["objective"][k]),
                "ci95": [float(d["ci_lo"][k]), float(d["ci_hi"][k])],
                "games": int(d["games"][k]),
                "measured": int(d["measured"][k]),
                "since": int(d["since"][k]),
                "cell": [int(c) for c in cell],
            }
            entry.update({name: float(v) for name, v in zip(self.names, d["measures"][k])})
            if with_past:
                entry["past_scores"] = [p.to_json() for p in self.past.get(tuple(cards), [])]
            out.append(entry)
        return out

    def to_json(self, generation: int) -> dict:
        lows, highs = self.grid.lower_bounds, self.grid.upper_bounds
        return {
            "generation": generation,
            "descriptors": list(self.names),
            "cells": [int(x) for x in self.grid.dims],
            "ranges": [[float(lo), float(hi)] for lo, hi in zip(lows, highs)],
            "entries": self.entries(with_past=True),
            **(
                {
                    "population": [
                        {"cards": list(ind), "past_scores": [p.to_json() for p in ind.stats.past]}
                        for ind in self.population
                    ]
                }
                if self.population
                else {}
            ),
        }
