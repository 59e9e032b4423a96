"""Racing fitness: a generation's games go to the decks whose rank is still in doubt.

Selection keeps `kept` decks (truncation's survivors, mu+lambda's parents). Each pairing's deals
come in `racing_rounds` equal rounds; after each round every deck's score (its deal scores, pooled
with its past generations' as the fixed fitness does) gets an interval of +- `z` standard errors.
A deck is *clearly out* when at least `kept` other decks' lower bounds lie above its upper bound
less `margin`, *clearly in* when fewer than `kept` other decks' upper bounds lie above its lower
bound plus `margin`; a deck clearly in or out plays no further pairings of its own (a pairing is
played while either of its two decks is still racing, and its games count for both).

`margin` is an indifference zone: two decks whose scores differ by less than it are treated as
equally good, so a deck that can cost the selection at most `margin` of score stops (0: only a
settled rank stops a deck, the rule before the margin existed). `decide` is the whole rule; the
evaluator (evolution.scoring.evaluation), the advisor and the selection-accuracy study share it.
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


def strata_mean_se(pieces: list[np.ndarray]) -> tuple[float, float]:
    """Mean and standard error of a deck's deals when each piece is one pairing's deals of one round
    and every pairing plays in each round: the spread between opponents is the same for every deck
    and cancels in the ranking, so only the spread within a piece counts (stratified sampling)."""
    pieces = [p for p in (np.asarray(p, dtype=np.float64).ravel() for p in pieces) if p.size]
    sizes = np.array([p.size for p in pieces], dtype=np.int64)
    x = np.concatenate(pieces) if pieces else np.empty(0)
    df = x.size - sizes.size
    if df < 2:  # too few deals to see the spread within a pairing
        return mean_se(x)
    sums = np.add.reduceat(x, np.cumsum(sizes) - sizes)
    within = max(float((x**2).sum() - (sums**2 / sizes).sum()), 0.0) / df  # squares about each piece's mean
    return float(x.mean()), max(np.sqrt(within), 0.05) / np.sqrt(x.size)


def decide(means: np.ndarray, ses: np.ndarray, kept: int, z: float, margin: float = 0.0) -> np.ndarray:
    """True for the decks whose rank (among the `kept` best, or not) is still in doubt."""
    means, ses = np.asarray(means, float), np.asarray(ses, float)
    n = means.size
    if kept >= n:
        return np.zeros(n, bool)
    lo, hi = means - z * ses, means + z * ses
    other = ~np.eye(n, dtype=bool)  # [i, j]: j is another deck than i
    clearly_out = ((lo[None, :] > hi[:, None] - margin) & other).sum(axis=1) >= kept
    clearly_in = ((hi[None, :] > lo[:, None] + margin) & other).sum(axis=1) < kept
    return ~(clearly_out | clearly_in)


def race(
    sample, n_decks: int, kept: int, rounds: int, z: float, prior=None, margin: float = 0.0, strata: bool = False
) -> np.ndarray:
    """Run the racing rule: `sample(r, active)` plays round r of the decks still `active` and returns
    (deck index, deal scores) pieces (for them and any others their pairings credit). `prior[i]`: deck
    i's deal scores of past generations, which count in the decisions. `strata`: a piece is one
    pairing's deals of the round and the standard error is the stratified one (strata_mean_se; with
    one deal a piece it cannot see the spread within a pairing and is the plain one).
    Returns the round after which each deck stopped (`rounds`: never)."""
    scores: list[list[np.ndarray]] = [[np.asarray(p, float)] for p in prior] if prior else [[] for _ in range(n_decks)]
    active = np.ones(n_decks, bool)
    stopped = np.full(n_decks, rounds)
    estimate = strata_mean_se if strata else (lambda s: mean_se(np.concatenate(s) if s else np.empty(0)))
    ms = np.array([estimate(s) for s in scores])  # (mean, se) of each deck
    for r in range(rounds):
        fresh = set()
        for i, x in sample(r, active):
            scores[i].append(np.asarray(x, float))
            fresh.add(i)
        if r + 1 < rounds:
            for i in fresh:
                ms[i] = estimate(scores[i])
            still = decide(ms[:, 0], ms[:, 1], kept, z, margin)
            stopped[active & ~still] = r + 1
            active &= still
            if not active.any():
                break
    return stopped
