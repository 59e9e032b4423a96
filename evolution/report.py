"""Reading run folders: the best decks per generation (table / JSON), plots, exporting a champion."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from evolution.genome import counts_text
from games.errors import UserError
from games.fileio import atomic_write_bytes


class Run:
    """A finished or running evolution folder, read-only."""

    def __init__(self, path):
        from evolution.config import EvolveConfig
        from evolution.loop import RunFolder

        self.folder = RunFolder(path)
        p = self.folder.path
        if not p.is_dir():
            raise UserError(f"run folder {str(p)!r} not found")
        if not self.folder.config.is_file():
            raise UserError(f"{str(p)!r} is not an evolution run folder (no config.json)")
        self.config = EvolveConfig.from_dict(self._json(self.folder.config), where=str(self.folder.config))
        if not self.folder.best_decks.is_file():
            raise UserError(f"run {str(p)!r} has no finished generation yet (no best_decks.json)")
        data = self._json(self.folder.best_decks)
        if not isinstance(data, dict) or not isinstance(data.get("generations"), list):
            raise UserError(f"{self.folder.best_decks}: not a best-decks file")
        self.best = data["generations"]
        if not self.best:
            raise UserError(f"run {str(p)!r} has no finished generation yet")

    @property
    def name(self) -> str:
        return self.folder.path.name

    @staticmethod
    def _json(path: Path):
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"{path}: unreadable ({exc})") from None

    @property
    def generations(self) -> list[int]:
        return [b["generation"] for b in self.best]

    def generation(self, gen: int) -> dict:
        path = self.folder.generation_file(gen)
        if gen not in self.generations or not path.is_file():
            last = self.generations[-1]
            raise UserError(f"run {self.name!r} has no generation {gen} (generations 0..{last})")
        return self._json(path)

    def champion(self, generation: int | None = None) -> tuple[list[int], str]:
        """The run's champion (chosen by the playoff at the end), or the best deck of `generation`
        (or of the last generation when the run has no champion yet)."""
        if generation is None and self.folder.champion.is_file():
            c = self._json(self.folder.champion)
            return list(c["cards"]), c.get("how", "champion")
        gen = self.generations[-1] if generation is None else generation
        decks = self.generation(gen)["decks"]
        return list(decks[0]["cards"]), f"best of generation {gen}"

    def logbook(self) -> list[dict]:
        if not self.folder.logbook.is_file():
            return []
        with open(self.folder.logbook, newline="") as f:
            rows = list(csv.DictReader(f))
        out = []
        for r in rows:
            out.append({k: (float(v) if v not in ("", None) else float("nan")) for k, v in r.items()})
        return out


# ------------------------------------------------------------------------------------------------
# Tables and JSON


def _deck_json(d: dict) -> dict:
    return {"cards": list(d["cards"]), "score": d["score"], "ci95": list(d["ci95"]), "games": d.get("games", 0)}


def decks_report(run: Run, generation: int | None = None, top: int | None = None) -> dict:
    """`deckopt decks --json`: {"run", "generations": [{"generation", "best", ["top"]}]}."""
    gens = [generation] if generation is not None else run.generations
    k = top if top is not None else (10 if generation is not None else 1)
    out = []
    for g in gens:
        if k > 1 or generation is not None:
            decks = run.generation(g)["decks"][:k]
            row = {"generation": g, "best": _deck_json(decks[0]), "top": [_deck_json(d) for d in decks]}
        else:
            best = next(b["best"] for b in run.best if b["generation"] == g)
            row = {"generation": g, "best": _deck_json(best)}
        out.append(row)
    return {"run": run.name, "generations": out}


def decks_table(report: dict) -> str:
    rows = []
    for g in report["generations"]:
        decks = g.get("top") or [g["best"]]
        for rank, d in enumerate(decks, 1):
            rows.append((str(g["generation"]) if rank == 1 else "", str(rank), counts_text(d["cards"]),
                         str(sum(d["cards"])), str(len(d["cards"])),
                         f"{d['score']:.3f} [{d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}]", str(d["games"])))
    head = ("gen", "rank", "powers (count x power)", "total", "cards", "score [95% CI]", "games")
    if all(r[1] == "1" for r in rows):  # one deck per generation: no rank column
        rows = [r[:1] + r[2:] for r in rows]
        head = head[:1] + head[2:]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    left = {head.index("powers (count x power)")}
    fmt = lambda r: "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([f"run {report['run']}", fmt(head)] + [fmt(r) for r in rows])


def export_deck(run: Run, path, generation: int | None = None) -> tuple[list[int], str]:
    from games.decks import Deck, save_deck

    cards, how = run.champion(generation)
    deck = Deck(cards, run.config.rules, name=f"{run.name}_champion" if generation is None else f"{run.name}_gen{generation}")
    save_deck(deck, path, comment=f"from evolution run {run.name}: {how}")
    return cards, how


# ------------------------------------------------------------------------------------------------
# Plots (Agg canvas, no pyplot: nothing global changes, no display needed)


def _png(fig) -> bytes:
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
        part = y[max(0, i - half): i + half + 1]
        if np.isfinite(part).any():
            out[i] = np.nanmean(part)
    return out


def plot_fitness(rows: list[dict], title: str) -> bytes:
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
    for key, label, color in (("best_vs_random", "best deck vs fresh random decks", "tab:red"),
                              ("mean_vs_random", "pool mean vs fresh random decks", "tab:blue")):
        y = np.array([_number(r.get(key)) for r in rows])
        if np.isfinite(y).any():
            if len(y) >= 40:  # each generation draws new random decks: show the trend, not the draw
                y, label = _rolling_mean(y, 9), f"{label} (9-generation mean)"
            ax.plot(g, y, color=color, ls=":", lw=1.2, label=label)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness (mean match score: win 1, draw 0.5)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def plot_best_heatmap(best: list[dict], title: str, max_rows: int = 20) -> bytes:
    """Rows = card power (the top row gathers everything >= max_rows), columns = generation, cell =
    how many cards of that power the generation's best deck holds."""
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
    im = ax.imshow(masked, origin="lower", aspect="auto", cmap="viridis",
                   extent=(-0.5, len(gens) - 0.5, 0.5, top + 0.5), interpolation="nearest")
    if len(gens) <= 40:
        for r in range(top):
            for col in range(len(gens)):
                if grid[r, col]:
                    v = grid[r, col]
                    ax.text(col, r + 1, str(v), ha="center", va="center", fontsize=7,
                            color="white" if v < 0.6 * grid.max() else "black")
    labels = [str(p) for p in range(1, top + 1)]
    if max(max(b["best"]["cards"]) for b in best) > top:
        labels[-1] = f"{top}+"
    ax.set_yticks(range(1, top + 1), labels)
    step = max(1, len(gens) // 20)
    ax.set_xticks(range(0, len(gens), step), [str(gens[i]) for i in range(0, len(gens), step)])
    ax.set_xlabel("generation")
    ax.set_ylabel("card power")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="cards of this power in the best deck")
    return _png(fig)


def write_plots(run_folder) -> list[Path]:
    """fitness.png and best_deck_powers.png in the run folder (atomically)."""
    run = Run(run_folder.path if hasattr(run_folder, "path") else run_folder)
    written = []
    rows = run.logbook()
    if rows:
        path = run.folder.path / "fitness.png"
        atomic_write_bytes(path, plot_fitness(rows, f"{run.name}: fitness per generation ({run.config.opponents and ' + '.join(run.config.opponents)})"))
        written.append(path)
    path = run.folder.path / "best_deck_powers.png"
    atomic_write_bytes(path, plot_best_heatmap(run.best, f"{run.name}: card powers of the best deck per generation"))
    written.append(path)
    return written
