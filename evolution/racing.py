"""Racing fitness: a generation's games go to the decks whose rank is still in doubt.

Selection keeps `kept` decks (truncation's survivors, mu+lambda's parents). Each pairing's deals
come in `racing_rounds` equal rounds; after each round every deck's score (its deal scores, pooled
with its past generations' as the fixed fitness does) gets an interval of +- `z` standard errors.
A deck is *clearly out* when at least `kept` other decks' lower bounds lie above its upper bound,
*clearly in* when fewer than `kept` other decks' upper bounds lie above its lower bound; a deck
clearly in or out plays no further pairings of its own (a pairing is played while either of its
two decks is still racing, and its games count for both). `decide` is the whole rule; the
evaluator (evolution.evaluation) and the selection-accuracy study (`deckopt racing`) share it.
"""

from __future__ import annotations

import numpy as np


def mean_se(deal_scores: np.ndarray) -> tuple[float, float]:
    """Mean deal score and its standard error (a deal score's variance is at most 1/4: used below
    two deals or with no spread, so a few lucky deals never look certain)."""
    x = np.asarray(deal_scores, dtype=np.float64)
    n = x.size
    if n == 0:
        return 0.5, float("inf")
    sd = float(x.std(ddof=1)) if n > 1 else 0.5
    return float(x.mean()), max(sd, 0.05) / np.sqrt(n)


def decide(means: np.ndarray, ses: np.ndarray, kept: int, z: float) -> np.ndarray:
    """True for the decks whose rank (among the `kept` best, or not) is still in doubt."""
    means, ses = np.asarray(means, float), np.asarray(ses, float)
    n = means.size
    if kept >= n:
        return np.zeros(n, bool)
    lo, hi = means - z * ses, means + z * ses
    doubt = np.ones(n, bool)
    for i in range(n):
        others = np.arange(n) != i
        clearly_out = np.sum(lo[others] > hi[i]) >= kept
        clearly_in = np.sum(hi[others] > lo[i]) < kept
        doubt[i] = not (clearly_out or clearly_in)
    return doubt


def race(sample, n_decks: int, kept: int, rounds: int, z: float, prior=None) -> np.ndarray:
    """Run the racing rule: `sample(r, active)` plays round r of the decks still `active` and returns
    (deck index, deal scores) pieces (for them and any others their pairings credit). `prior[i]`: deck
    i's deal scores of past generations, which count in the decisions. Returns the round after which
    each deck stopped (`rounds`: never)."""
    scores: list[list[np.ndarray]] = [[np.asarray(p, float)] for p in prior] if prior else [[] for _ in range(n_decks)]
    active = np.ones(n_decks, bool)
    stopped = np.full(n_decks, rounds)
    for r in range(rounds):
        for i, x in sample(r, active):
            scores[i].append(np.asarray(x, float))
        if r + 1 < rounds:
            ms = [mean_se(np.concatenate(s) if s else np.empty(0)) for s in scores]
            still = decide(np.array([m for m, _ in ms]), np.array([s for _, s in ms]), kept, z)
            stopped[active & ~still] = r + 1
            active &= still
            if not active.any():
                break
    return stopped
