"""Fitness of a pool: plan its pairings (population round robin, hall of fame, fresh random decks,
a panel of reference decks), play them through the parallel map, score every deck in place.

A deck's fitness is its mean match score with a 95 % interval, over this generation's games pooled
with a survivor's games of its last `score_memory - 1` generations (so a deck that stays is
measured ever more precisely, and a lucky score is diluted).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evolution import fitness as fit
from evolution import genome
from evolution.config import EvolveConfig
from evolution.individuals import set_score


class Evaluator:
    """Plays a pool's pairings and scores each deck."""

    def __init__(self, config: EvolveConfig, agent, pmap, panel: list | None = None):
        self.config = config
        self.agent = agent
        self.pmap = pmap
        self.panel = panel or []

    def plan(self, pool: list, hof, gen: int):
        """(pairings, credits, kinds): credits[p] = [(deck index, from B's side?), ...] for pairing p,
        kinds[p] its opponent kind."""
        c = self.config
        decks = [tuple(ind) for ind in pool]
        deals = c.games_per_pair // 2
        pairings, credits, kind_of = [], [], []
        kinds = list(c.opponents)
        if kinds == ["hall-of-fame"] and len(hof) == 0:
            kinds = ["population"]  # nothing in the hall of fame yet (generation 0)
        for kind in kinds:
            start = len(pairings)
            if kind == "population":
                ps, who = fit.round_robin(decks, deals, c.seed, fit.STAGE_EVOLVE, gen, start)
                credits += [[(i, False), (j, True)] for i, j in who]
            else:
                ps, who = fit.against(
                    decks, self.opponents(kind, hof, gen), deals, c.seed, fit.STAGE_EVOLVE, gen, start
                )
                credits += [[(i, False)] for i, _ in who]
            pairings += ps
            kind_of += [kind] * len(ps)
        return pairings, credits, kind_of

    def opponents(self, kind: str, hof, gen: int) -> list[tuple[int, ...]]:
        if kind == "hall-of-fame":
            return [tuple(h) for h in list(hof)[: self.config.hof_opponents]]
        if kind == "random":
            return self.random_opponents(gen)
        return [r.cards for r in self.panel]

    def random_opponents(self, gen: int) -> list[tuple[int, ...]]:
        """Fresh random decks for generation `gen`, from their own seed (not the run's stream)."""
        c = self.config
        rng = np.random.default_rng([c.seed, fit.STAGE_EVOLVE, gen, 7919])
        return [tuple(genome.random_deck(c.rules, rng, tuple(c.init_shapes))) for _ in range(c.random_opponents)]

    def evaluate(self, pool: list, hof, gen: int, progress: Callable | None = None, what: str = "") -> int:
        """Score every deck of `pool` in place (`ind.fitness`, `ind.stats`); returns the number of
        games played. `progress(done, total, what)` counts the games."""
        c = self.config
        pairings, credits, kind_of = self.plan(pool, hof, gen)
        for p in pairings:
            genome.assert_legal(p.a, c.rules)
            genome.assert_legal(p.b, c.rules)
        results = fit.play_pairings(
            pairings,
            self.agent,
            c.rules,
            self.pmap,
            c.games_per_task,
            (c.seed, fit.STAGE_EVOLVE, gen),
            progress=progress,
            what=what or f"gen {gen}",
        )
        scores = [fit.Score() for _ in pool]
        # the same games split by opponent kind: fresh random decks are a fixed distribution, so a
        # deck's score against them is comparable across generations (the population's is not)
        by_kind = [{} for _ in pool]
        for outcomes, credit, kind in zip(results, credits, kind_of):
            for i, flip in credit:
                scores[i].add(outcomes, flip=flip)
                by_kind[i].setdefault(kind, fit.Score()).add(outcomes, flip=flip)
        keep = c.score_memory - 1  # past generations that count
        for ind, fresh, kinds in zip(pool, scores, by_kind):
            past = ind.stats.past[-keep:] if keep else []
            pooled = fresh
            for p in past:
                pooled = pooled.merge(p)
            set_score(ind, pooled.score, pooled.ci95, pooled.record)
            ind.stats.past = (past + [fresh])[-keep:] if keep else []
            ind.stats.by_opponents = {
                k: {key: v for key, v in ks.as_dict().items() if key in ("score", "ci95", "games")}
                for k, ks in kinds.items()
            }
        return sum(p.games for p in pairings)
