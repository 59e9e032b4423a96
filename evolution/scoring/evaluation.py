"""Fitness of a pool: plan its pairings (population round robin, hall of fame, fresh random decks,
a panel of reference decks), play them through the parallel map, score every deck in place.

A deck's fitness is its mean match score with a 95 % interval, over this generation's games pooled
with a survivor's games of its last `score_memory - 1` generations (so a deck that stays is
measured ever more precisely, and a lucky score is diluted).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import score_summary
from evolution.individuals import set_score
from evolution.scoring import fitness as fit
from evolution.scoring import racing
from evolution.spaces import genome


class Evaluator:
    """Plays a pool's pairings and scores each deck."""

    def __init__(self, config, agent, pmap, panel: list | None = None):
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

    def check(self, deck) -> None:
        """The guard before a deck reaches a game (a bug, not a user error, if it fires)."""
        genome.assert_legal(deck, self.config.rules)

    def play(self, pairings: list, prefix, progress, what: str) -> list[np.ndarray]:
        """The (deals, 2) outcomes of every pairing, in order (evolution.scoring.fitness)."""
        c = self.config
        return fit.play_pairings(pairings, self.agent, c.rules, self.pmap, c.games_per_task, prefix, progress, what)

    def evaluate(self, pool: list, hof, gen: int, progress: Callable | None = None, what: str = "") -> int:
        """Score every deck of `pool` in place (`ind.fitness`, `ind.stats`); returns the number of
        games played. `progress(done, total, what)` counts the games."""
        c = self.config
        pairings, credits, kind_of = self.plan(pool, hof, gen)
        for p in pairings:
            self.check(p.a)
            self.check(p.b)
        scores = [fit.Score() for _ in pool]
        by_kind = [{} for _ in pool]  # the same games split by opponent kind

        def credit(results, which):
            for outcomes, p in zip(results, which):
                for i, flip in credits[p]:
                    scores[i].add(outcomes, flip=flip)
                    by_kind[i].setdefault(kind_of[p], fit.Score()).add(outcomes, flip=flip)

        what = what or f"gen {gen}"
        if c.fitness == "racing":
            games = self._race(pool, pairings, credits, credit, scores, gen, progress, what)
        else:
            prefix = (c.seed, fit.STAGE_EVOLVE, gen)
            credit(self.play(pairings, prefix, progress, what), range(len(pairings)))
            games = sum(p.games for p in pairings)
        self._set_scores(pool, scores, by_kind)
        return games

    def _race(self, pool, pairings, credits, credit, scores, gen, progress, what) -> int:
        """Racing fitness (evolution.scoring.racing): rounds of every pairing with a deck still in doubt."""
        c = self.config
        per_round = (c.games_per_pair // 2) // c.racing_rounds
        keep = c.score_memory - 1
        prior = (
            [
                np.concatenate([d for p in ind.stats.past[-keep:] for d in p.deal_scores] or [np.empty(0)])
                for ind in pool
            ]
            if keep
            else None
        )
        played = 0

        def sample(r, active):
            nonlocal played
            todo = [p for p in range(len(pairings)) if any(active[i] for i, _ in credits[p])]
            round_pairings = [
                fit.Pairing(pairings[p].a, pairings[p].b, pairings[p].key + (r,), per_round) for p in todo
            ]
            prefix = (c.seed, fit.STAGE_EVOLVE, gen, 1000 + r)
            before = [len(s.deal_scores) for s in scores]
            credit(self.play(round_pairings, prefix, progress, f"{what} round {r + 1}/{c.racing_rounds}"), todo)
            played += sum(p.games for p in round_pairings)
            return [(i, d) for i, s in enumerate(scores) for d in s.deal_scores[before[i] :]]

        racing.race(sample, len(pool), c.kept, c.racing_rounds, c.racing_z, prior, margin=c.racing_margin)
        for ind, s in zip(pool, scores):
            ind.stats.racing_games = s.games
        return played

    def _set_scores(self, pool, scores, by_kind) -> None:
        """A deck's fitness: this generation's games pooled with its last `score_memory - 1`."""
        keep = self.config.score_memory - 1  # past generations that count
        for ind, fresh, kinds in zip(pool, scores, by_kind):
            past = ind.stats.past[-keep:] if keep else []
            pooled = fresh
            for p in past:
                pooled = pooled.merge(p)
            set_score(ind, pooled.score, pooled.ci95, pooled.record)
            ind.stats.past = (past + [fresh])[-keep:] if keep else []
            ind.stats.by_opponents = {k: score_summary(ks.as_dict()) for k, ks in kinds.items()}
