"""The plots of an evolution run, drawn on a `matplotlib.figure.Figure` with the Agg canvas (no
pyplot: nothing global changes, no display needed); each returns PNG bytes for the run folder."""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np

from games.fileio import atomic_write_bytes


def png_bytes(fig) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):  # "" in a logbook written before the column existed
        return float("nan")


def _rolling_mean(y: np.ndarray, window: int) -> np.ndarray:
    """Centred mean over `window` points (fewer at the ends), ignoring nan."""
    half = window // 2
    out = np.full(len(y), np.nan)
    for i in range(len(y)):
        part = y[max(0, i - half) : i + half + 1]
        if np.isfinite(part).any():
            out[i] = np.nanmean(part)
    return out


#: the fitness axis of each non-"win" objective (evolution.spaces.kittens_objectives): label, limits, reference line
OBJECTIVE_AXES = {
    "fairness": {"ylabel": "fitness: -|first-player win rate - 0.5|", "ylim": None, "reference": 0.0},
    "skill": {"ylabel": "fitness: the agent's score against random play", "ylim": (0.0, 1.0), "reference": 0.5},
}


def plot_fitness(
    rows: list[dict],
    title: str,
    ylabel: str = "fitness (mean match score: win 1, draw 0.5)",
    ylim: tuple[float, float] | None = (0.0, 1.0),
    reference: float = 0.5,
) -> bytes:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5))
    ax = fig.add_subplot()
    g = np.array([r["gen"] for r in rows])
    for key, label, color in (("best", "best deck", "tab:red"), ("mean", "pool mean", "tab:blue")):
        y = np.array([r[key] for r in rows])
        lo = np.array([r[f"{key}_lo"] for r in rows])
        hi = np.array([r[f"{key}_hi"] for r in rows])
        ax.plot(g, y, color=color, marker="o" if len(g) < 40 else None, ms=3, label=label)
        ax.fill_between(g, lo, hi, color=color, alpha=0.2, lw=0, label=f"{label}: 95% CI")
    # against fresh random decks (the same distribution every generation): an absolute yardstick,
    # where the population-relative fitness above stays near its level by construction
    for key, label, color in (
        ("best_vs_random", "best deck vs fresh random decks", "tab:red"),
        ("mean_vs_random", "pool mean vs fresh random decks", "tab:blue"),
    ):
        y = np.array([_number(r.get(key)) for r in rows])
        if np.isfinite(y).any():
            if len(y) >= 40:  # each generation draws new random decks: show the trend, not the draw
                y, label = _rolling_mean(y, 9), f"{label} (9-generation mean)"
            ax.plot(g, y, color=color, ls=":", lw=1.2, label=label)
    # against the fixed yardstick panel: the one curve that shows whether the run improves at all
    y = np.array([_number(r.get("yardstick")) for r in rows])
    if np.isfinite(y).any():
        lo = np.array([_number(r.get("yardstick_lo")) for r in rows])
        hi = np.array([_number(r.get("yardstick_hi")) for r in rows])
        ax.plot(g, y, color="tab:green", lw=1.5, label="best decks vs the fixed yardstick")
        ax.fill_between(g, lo, hi, color="tab:green", alpha=0.15, lw=0)
    ax.axhline(reference, color="grey", lw=0.8, ls="--")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel(ylabel)
    if ylim is not None:  # None: fitted to the data (fairness lives just below 0)
        ax.set_ylim(*ylim)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return png_bytes(fig)


def plot_best_values(best: list[dict], title: str, max_rows: int = 20) -> bytes:
    """Rows = card value (the int a deck holds; the top row gathers everything >= max_rows), columns =
    generation, cell = how many cards of that value the generation's best deck holds."""
    from matplotlib.figure import Figure

    gens = [b["generation"] for b in best]
    top = min(max_rows, max(max(b["best"]["cards"]) for b in best))
    grid = np.zeros((top, len(gens)), dtype=int)
    for col, b in enumerate(best):
        for c in b["best"]["cards"]:
            grid[min(c, top) - 1, col] += 1
    fig = Figure(figsize=(max(6, min(18, 0.35 * len(gens) + 2)), max(3.5, 0.32 * top + 1.5)))
    ax = fig.add_subplot()
    masked = np.ma.masked_equal(grid, 0)
    im = ax.imshow(
        masked,
        origin="lower",
        aspect="auto",
        cmap="viridis",
        extent=(-0.5, len(gens) - 0.5, 0.5, top + 0.5),
        interpolation="nearest",
    )
    if len(gens) <= 40:
        for r in range(top):
            for col in range(len(gens)):
                if grid[r, col]:
                    v = grid[r, col]
                    ax.text(
                        col,
                        r + 1,
                        str(v),
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if v < 0.6 * grid.max() else "black",
                    )
    labels = [str(p) for p in range(1, top + 1)]
    if max(max(b["best"]["cards"]) for b in best) > top:
        labels[-1] = f"{top}+"
    ax.set_yticks(range(1, top + 1), labels)
    step = max(1, len(gens) // 20)
    ax.set_xticks(range(0, len(gens), step), [str(gens[i]) for i in range(0, len(gens), step)])
    ax.set_xlabel("generation")
    ax.set_ylabel("card")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="copies in the best deck")
    return png_bytes(fig)


def plot_best_counts(best: list[dict], decks: list[dict], title: str, label: str = "copies in the best deck") -> bytes:
    """Rows = the cards named by the best decks' rows (`decks[i]`: generation i's {card name:
    copies}, or another count per label such as a mana curve), columns = generation, cell = that count
    in the generation's best deck (`label`)."""
    from matplotlib.figure import Figure

    gens = [b["generation"] for b in best]
    names = list(dict.fromkeys(n for d in decks for n in d))
    grid = np.array([[d.get(n, 0) for d in decks] for n in names])
    fig = Figure(figsize=(max(6, min(18, 0.35 * len(gens) + 2)), 1.0 + 0.5 * len(names) + 1.5))
    ax = fig.add_subplot()
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis", interpolation="nearest")
    if len(gens) <= 40:
        for r in range(len(names)):
            for col in range(len(gens)):
                v = grid[r, col]
                ax.text(
                    col,
                    r,
                    str(v) if float(v).is_integer() else f"{v:.1f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if v < 0.6 * grid.max() else "black",
                )
    ax.set_yticks(range(len(names)), names)
    step = max(1, len(gens) // 20)
    ax.set_xticks(range(0, len(gens), step), [str(gens[i]) for i in range(0, len(gens), step)])
    ax.set_xlabel("generation")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label=label)
    return png_bytes(fig)


def plot_sweep(report: dict) -> bytes:
    """A rule sweep (evolution.studies.sweep): the champion's score with its 95 % CI against each
    held-out field per rule value, the dominance threshold, and below the champion's descriptors."""
    from matplotlib.figure import Figure

    rows = report["rows"]
    x = np.arange(len(rows))
    names = report["descriptors"]
    fig = Figure(figsize=(8, 3.2 + 1.6 * len(names)))
    axes = fig.subplots(1 + len(names), 1, sharex=True, height_ratios=[2] + [1] * len(names))
    ax = axes[0]
    for k, (field, label, color) in enumerate(
        (("rivals", "vs the run's last generation", "tab:red"), ("random", "vs random legal decks", "tab:blue"))
    ):
        have = [i for i, r in enumerate(rows) if r[field] is not None]
        y = np.array([rows[i][field]["score"] for i in have])
        lo = np.array([rows[i][field]["ci95"][0] for i in have])
        hi = np.array([rows[i][field]["ci95"][1] for i in have])
        offset = (k - 0.5) * 0.08
        ax.errorbar(x[have] + offset, y, yerr=[y - lo, hi - y], fmt="o-", color=color, capsize=4, label=label)
    ax.axhline(report["dominance"], color="grey", lw=0.8, ls="--", label=f"dominance ({report['dominance']})")
    ax.axhline(0.5, color="grey", lw=0.5, ls=":")
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("champion's score (95% CI)")
    ax.set_title(f"{report['game']}: the champion as {report['rule']} changes")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    for j, name in enumerate(names):
        axd = axes[1 + j]
        axd.plot(x, [r["descriptors"][j] for r in rows], "s-", color="tab:green")
        axd.set_ylabel(name.replace("_", " "), fontsize=8)
        axd.grid(alpha=0.3)
    axes[-1].set_xticks(x, [str(r["value"]) for r in rows])
    axes[-1].set_xlabel(report["rule"])
    fig.tight_layout()
    return png_bytes(fig)


def fitness_plot(rows: list[dict], name: str, config) -> bytes:
    """The fitness per generation of a run's logbook rows, on its objective's axis."""
    if config.objective in OBJECTIVE_AXES:
        title = f"{name}: {config.objective} per generation (agent self-play)"
        return plot_fitness(rows, title, **OBJECTIVE_AXES[config.objective])
    against = getattr(config.settings, "opponents", None)  # a head-to-head game's opponent sets
    return plot_fitness(rows, f"{name}: fitness per generation" + (f" ({' + '.join(against)})" if against else ""))


def best_plot(best: list[dict], space, name: str) -> bytes:
    """The best deck of every generation: the mana curve of its drafts where the space's rows give one
    (`curve`), copies per card name where they name its cards (`deck`), else copies per card value."""
    rows = [space.row(b["best"]["cards"]) for b in best]
    curves = [r.get("curve") for r in rows]
    if all(isinstance(c, dict) for c in curves):
        title = f"{name}: mana curve of the best drafter's decks per generation"
        return plot_best_counts(best, curves, title, label="cards per deck of that cost")
    decks = [r.get("deck") for r in rows]
    if all(isinstance(d, dict) for d in decks):
        return plot_best_counts(best, decks, f"{name}: card copies of the best deck per generation")
    return plot_best_values(best, f"{name}: cards of the best deck per generation")


def write_plots(folder, space, config, log: Callable[[str], None] | None = None) -> list:
    """The run folder's fitness.png and best-deck plot, drawn for the run's deck `space`; a plot that
    fails is reported, never fatal."""
    written = []
    try:
        rows = folder.read_logbook()
        if rows:
            atomic_write_bytes(folder.fitness_plot, fitness_plot(rows, folder.name, config))
            written.append(folder.fitness_plot)
        atomic_write_bytes(folder.powers_plot, best_plot(folder.read_best_decks(), space, folder.name))
        written.append(folder.powers_plot)
    except Exception as exc:  # noqa: BLE001 - a plot must never cost a run
        if log is not None:
            log(f"warning: plots not written ({type(exc).__name__}: {exc})")
    return written
