"""How well does racing choose the kept decks, and at what cost? Measured against ground truth.

`ground_truth` plays every deck of a pool against a fixed set of opponent decks for many mirrored
deals once and keeps each deal's score: (decks, opponents, deals). A deck's true score is its mean
over all of them. `study` then replays selection many times by drawing deals from that store
(without replacement; replicate r draws the same deals for every method, so methods are compared
on the same luck): fixed counts (every pairing the same number of deals), the racing rule of
evolution.scoring.racing (the same code the evolution uses) and an oracle that knows the true scores and
spreads a fixed budget over the decks where it helps most (a reference no rule can see).

Two measures of a selection: accuracy, the share of the true best `kept` that is kept, and regret,
the mean true score of the true best `kept` less that of the decks kept (what selection loses).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evolution.designer.plots import png_bytes
from evolution.scoring import fitness as fit
from evolution.scoring import racing


def ground_truth(decks, opponents, deals: int, play, seed: int, progress=None):
    """Deal scores (decks, opponents, deals) of every deck against every opponent, the mirrored
    games played by `play` (a deck space's matches: evolution.scoring.yardstick.Play)."""
    pairings, who = fit.against(decks, opponents, deals, seed, fit.STAGE_VALIDATE, 9000)
    results = play(pairings, (seed, fit.STAGE_VALIDATE, 9000), progress, "ground truth")
    out = np.empty((len(decks), len(opponents), deals))
    for outcomes, (i, k) in zip(results, who):
        out[i, k] = (outcomes.astype(np.float64) + 1.0).mean(axis=1) / 2.0
    return out


def _draw(store: np.ndarray, order: np.ndarray, deals: np.ndarray) -> list[np.ndarray]:
    """Each deck's first `deals[i]` deals of every pairing in the replicate's order: (m, deals[i])."""
    return [np.take_along_axis(store[i], order[i, :, : deals[i]], axis=1) for i in range(len(store))]


def _chosen(means: np.ndarray, kept: int) -> np.ndarray:
    return np.argsort(-means, kind="stable")[:kept]


def fixed_counts(store: np.ndarray, kept: int, deals: int, order: np.ndarray):
    """(chosen decks, games per deck) of one replicate with `deals` deals per pairing."""
    n, m, _ = store.shape
    got = _draw(store, order, np.full(n, deals))
    return _chosen(np.array([g.mean() for g in got]), kept), 2 * m * deals


def racing_counts(
    store: np.ndarray, kept: int, deals: int, rounds: int, z: float, order: np.ndarray, margin=0.0, strata=False
):
    """(chosen decks, games per deck) of one replicate of the racing rule, `deals` per pairing at most."""
    n, m, _ = store.shape
    cuts = np.linspace(0, deals, rounds + 1).astype(int)  # rounds as equal as the deals allow
    used = np.zeros(n, int)
    got: list[list[np.ndarray]] = [[] for _ in range(n)]

    def sample(r, active):
        pieces = []
        for i in np.flatnonzero(active):
            d = np.take_along_axis(store[i], order[i, :, cuts[r] : cuts[r + 1]], axis=1)
            pieces += [(int(i), row) for row in d]  # one piece a pairing
            got[i].append(d.ravel())
            used[i] += 2 * d.size
        return pieces

    racing.race(sample, n, kept, rounds, z, margin=margin, strata=strata)
    return _chosen(np.array([np.concatenate(g).mean() for g in got]), kept), used.mean()


def oracle_allocation(store: np.ndarray, kept: int, games: float, cap: int) -> np.ndarray:
    """Deals per pairing for each deck, `games` per deck on average and `cap` deals at most, given
    greedily (one deal a pairing at a time) where the chance of ranking a deck on the right side of
    the true boundary grows most: the allocation only someone knowing the true scores could make."""
    from scipy.stats import norm

    n, m, _ = store.shape
    truth = store.mean(axis=(1, 2))
    within = np.sqrt(((store - store.mean(axis=2, keepdims=True)) ** 2).mean(axis=(1, 2)))
    top = np.sort(truth)[::-1]
    gap = np.abs(truth - (top[kept - 1] + top[kept]) / 2)
    deals = np.ones(n, int)
    budget = int(round(games / (2 * m) * n))
    for _ in range(budget - n):
        right = norm.cdf(gap * np.sqrt(m * (deals + 1)) / within) - norm.cdf(gap * np.sqrt(m * deals) / within)
        right[deals >= cap] = -1.0
        if right.max() < 0:
            break
        deals[np.argmax(right)] += 1
    return deals


def study(
    store: np.ndarray,
    kept: int,
    fixed_games: list[int],
    rounds: int,
    zs: list[float],
    replicates: int,
    seed: int,
    progress: Callable | None = None,
    margins: list[float] = (0.0,),
    strata: list[bool] = (False,),
    oracle: bool = True,
) -> dict:
    """Accuracy, regret and games per deck of fixed counts (`fixed_games` per deck each), of racing
    with at most max(fixed_games) per deck in `rounds` rounds for each z, margin and kind of standard
    error, and of the oracle at each fixed count. Each row also gives its accuracy and regret less
    those of the largest fixed count, paired by replicate."""
    n, m, total = store.shape
    truth = store.mean(axis=(1, 2))
    best = np.sort(truth)[::-1][:kept].mean()
    big = max(fixed_games) // (2 * m)
    plans = [("fixed", g // (2 * m), None, None, None) for g in fixed_games]
    plans += [("racing", big, z, mg, st) for st in strata for mg in margins for z in zs]
    if oracle:
        plans += [("oracle", oracle_allocation(store, kept, g, big), None, None, None) for g in fixed_games]
    acc = np.empty((len(plans), replicates))
    regret = np.empty((len(plans), replicates))
    games = np.empty((len(plans), replicates))
    for rep in range(replicates):
        order = np.argsort(np.random.default_rng([seed, rep]).random((n, m, total)), axis=2)
        for k, (method, deals, z, mg, st) in enumerate(plans):
            if method == "fixed":
                chosen, g = fixed_counts(store, kept, deals, order)
            elif method == "racing":
                chosen, g = racing_counts(store, kept, deals, rounds, z, order, mg, st)
            else:
                got = _draw(store, order, deals)
                chosen, g = _chosen(np.array([x.mean() for x in got]), kept), 2 * m * deals.mean()
            top = np.argsort(-truth, kind="stable")[:kept]
            acc[k, rep] = np.isin(chosen, top).mean()
            regret[k, rep] = best - truth[chosen].mean()
            games[k, rep] = g
        if progress is not None:
            progress(rep + 1, replicates, "replicates")
    ref = [k for k, p in enumerate(plans) if p[0] == "fixed" and p[1] == big][0]

    def se(x):
        return float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")

    rows = []
    for k, (method, deals, z, mg, st) in enumerate(plans):
        rows.append(
            {
                "method": method,
                "max_games_per_deck": int(2 * m * np.max(deals)),
                "z": z,
                "margin": mg,
                "strata": st,
                "games_per_deck": float(games[k].mean()),
                "share_of_max_fixed": float(games[k].mean() / (2 * m * big)),
                "accuracy": float(acc[k].mean()),
                "accuracy_se": se(acc[k]),
                "accuracy_vs_max_fixed": float((acc[k] - acc[ref]).mean()),
                "accuracy_vs_max_fixed_se": se(acc[k] - acc[ref]),
                "regret": float(regret[k].mean()),
                "regret_se": se(regret[k]),
                "regret_vs_max_fixed": float((regret[k] - regret[ref]).mean()),
                "regret_vs_max_fixed_se": se(regret[k] - regret[ref]),
            }
        )
    within = np.sqrt(((store - store.mean(axis=2, keepdims=True)) ** 2).mean(axis=(1, 2)))
    top = np.sort(truth)[::-1]
    boundary = (top[kept - 1] + top[kept]) / 2
    near = int(np.sum(np.abs(truth - boundary) < within / np.sqrt(big * m)))
    return {
        "decks": n,
        "opponents": m,
        "kept": kept,
        "replicates": replicates,
        "truth": truth.tolist(),
        "boundary": float(boundary),
        "near_boundary_at_max_fixed": near,
        "rows": rows,
    }


def plot_study(res: dict) -> bytes:
    """Accuracy and regret against games per deck: fixed counts and the oracle as lines, racing as points."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.5))
    rows = res["rows"]
    for ax, key, label in zip(
        fig.subplots(1, 2), ("accuracy", "regret"), ("accuracy (share of true top kept)", "regret (true score lost)")
    ):
        for method, color in (("fixed", "black"), ("oracle", "tab:green")):
            rs = [r for r in rows if r["method"] == method]
            if rs:
                ax.errorbar(
                    [r["games_per_deck"] for r in rs],
                    [r[key] for r in rs],
                    yerr=[1.96 * r[f"{key}_se"] for r in rs],
                    color=color,
                    marker="o",
                    ms=4,
                    capsize=3,
                    label=f"{method} counts" if method == "fixed" else "oracle (knows the true scores)",
                )
        groups = sorted({(r["margin"], r["strata"]) for r in rows if r["method"] == "racing"})
        for g, (mg, st) in enumerate(groups):
            rs = [r for r in rows if r["method"] == "racing" and (r["margin"], r["strata"]) == (mg, st)]
            ax.errorbar(
                [r["games_per_deck"] for r in rs],
                [r[key] for r in rs],
                yerr=[1.96 * r[f"{key}_se"] for r in rs],
                ls=":",
                color=("tab:blue", "tab:orange", "tab:red", "tab:purple", "tab:brown", "tab:pink")[g % 6],
                marker="s^vD<>"[g % 6],
                ms=5,
                capsize=3,
                label=f"racing margin {mg:g}{', stratified SE' if st else ''} (points: z)",
            )
            for r in rs:
                ax.annotate(
                    f"{r['z']:g}", (r["games_per_deck"], r[key]), fontsize=7, xytext=(3, 3), textcoords="offset points"
                )
        ax.set_xlabel("games per deck")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(
        f"keep {res['kept']} of {res['decks']} decks; {res['replicates']} replicates; bars: 95% CI", fontsize=10
    )
    return png_bytes(fig)
