"""How well does racing choose the kept decks, and at what cost? Measured against ground truth.

`ground_truth` plays every deck of a pool against a fixed set of opponent decks for many mirrored
deals once and keeps each deal's score: (decks, opponents, deals). A deck's true score is its mean
over all of them. `study` then replays selection many times by drawing deals from that store
(without replacement, independently per replicate): fixed counts (every pairing the same number of
deals) against the racing rule of evolution.racing (the same code the evolution uses), and reports
each method's selection accuracy (the share of the true top `kept` it keeps) and mean games per deck.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evolution import fitness as fit
from evolution import racing


def ground_truth(decks, opponents, deals: int, agent, rules, pmap, seed: int, games_per_task: int = 200, progress=None):
    """Deal scores (decks, opponents, deals) of every deck against every opponent."""
    pairings, who = fit.against(decks, opponents, deals, seed, fit.STAGE_VALIDATE, 9000)
    results = fit.play_pairings(
        pairings, agent, rules, pmap, games_per_task, (seed, fit.STAGE_VALIDATE, 9000), progress, "ground truth"
    )
    out = np.empty((len(decks), len(opponents), deals))
    for outcomes, (i, k) in zip(results, who):
        out[i, k] = (outcomes.astype(np.float64) + 1.0).mean(axis=1) / 2.0
    return out


def _accuracy(chosen, truth_top) -> float:
    return len(set(chosen) & truth_top) / len(truth_top)


def fixed_counts(store: np.ndarray, kept: int, deals: int, rng) -> tuple[float, float]:
    """(accuracy, games per deck) of one replicate with `deals` deals per pairing."""
    n, m, total = store.shape
    idx = np.argsort(rng.random((n, m, total)), axis=2)[:, :, :deals]
    sample = np.take_along_axis(store, idx, axis=2)
    chosen = np.argsort(-sample.mean(axis=(1, 2)), kind="stable")[:kept]
    return chosen, 2 * m * deals


def racing_counts(store: np.ndarray, kept: int, deals: int, rounds: int, z: float, rng):
    """(chosen decks, games per deck) of one replicate of the racing rule, `deals` per pairing at most."""
    n, m, total = store.shape
    cuts = np.linspace(0, deals, rounds + 1).astype(int)  # rounds as equal as the deals allow
    order = np.argsort(rng.random((n, m, total)), axis=2)[:, :, :deals]
    used = np.zeros(n, int)

    def sample(r, active):
        pieces = []
        for i in np.flatnonzero(active):
            d = np.take_along_axis(store[i], order[i, :, cuts[r] : cuts[r + 1]], axis=1).ravel()
            pieces.append((int(i), d))
            used[i] += 2 * d.size
        return pieces

    got: list[list[np.ndarray]] = [[] for _ in range(n)]

    def recording(r, active):
        pieces = sample(r, active)
        for i, d in pieces:
            got[i].append(d)
        return pieces

    racing.race(recording, n, kept, rounds, z)
    means = np.array([np.concatenate(g).mean() for g in got])
    return np.argsort(-means, kind="stable")[:kept], used.mean()


def study(
    store: np.ndarray,
    kept: int,
    fixed_games: list[int],
    rounds: int,
    zs: list[float],
    replicates: int,
    seed: int,
    progress: Callable | None = None,
) -> dict:
    """Accuracy and games per deck of fixed counts (`fixed_games` per deck each) and of racing with
    at most max(fixed_games) per deck, `rounds` rounds, for each z."""
    n, m, _ = store.shape
    truth = store.mean(axis=(1, 2))
    top = set(np.argsort(-truth, kind="stable")[:kept].tolist())
    rng = np.random.default_rng(seed)
    rows = []
    plans = [("fixed", g, None) for g in fixed_games] + [("racing", max(fixed_games), z) for z in zs]
    for k, (method, games, z) in enumerate(plans):
        deals = games // (2 * m)
        acc, used = [], []
        for _ in range(replicates):
            if method == "fixed":
                chosen, g = fixed_counts(store, kept, deals, rng)
            else:
                chosen, g = racing_counts(store, kept, deals, rounds, z, rng)
            acc.append(_accuracy(chosen.tolist(), top))
            used.append(g)
        a = np.array(acc)
        rows.append(
            {
                "method": method,
                "max_games_per_deck": 2 * m * deals,
                "z": z,
                "games_per_deck": float(np.mean(used)),
                "accuracy": float(a.mean()),
                "accuracy_se": float(a.std(ddof=1) / np.sqrt(len(a))),
            }
        )
        if progress is not None:
            progress(k + 1, len(plans), "study")
    return {"decks": n, "opponents": m, "kept": kept, "truth": truth.tolist(), "rows": rows}
