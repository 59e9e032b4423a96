"""A quality-diversity archive (MAP-Elites) of decks: a `ribs.archives.GridArchive` over two deck-shape
descriptors, filled by a small emitter of our own (pyribs has no emitter for discrete decks).

    archive = DeckArchive(config)                     # empty, cells from config.archive_cells
    pool = archive.ask(config.pool, rng)              # random decks first, then children of elites
    ...evaluate the pool as a normal run does...
    archive.tell(pool)                                # each deck enters its cell if it beats the elite there
    archive.entries()                                 # the elites as archive.json entries

Descriptors (each bounded, so the grid covers every legal deck):
- Gwent Lite: the share of the deck's cards at the minimum power (0 .. 1) and the share of its total
  power in its five strongest cards (0 .. 1): flat decks (no fillers, top five about a fifth of the
  power) against decks of weak fillers and a few big cards, and the mixes between. (The mean power
  would not do: nearly every deck spends the whole budget on the fewest cards, so it sits at the
  upper bound.)
- Exploding Kittens: the Skip count and the Attack count (each within its bounds).

A resumed run rebuilds the archive from archive.json (written before the checkpoint each generation).
The deck is stored in the archive itself as a fixed-length vector (its cards, padded with -1), so the
archive alone holds everything (no side table to keep in step). The emitter draws every random choice
from the run's numpy Generator (parents chosen among the elites sorted by cell index, not with ribs's
own sampler), so the same seed gives the same archive.
"""

from __future__ import annotations

import numpy as np

from evolution.individuals import make_individual, score_of
from evolution.space import space_for

PAD = -1
TOP = 5  # Gwent Lite: the strongest cards whose share of the power is a descriptor


def parse_cells(text: str) -> tuple[int, int]:
    """'10x10' -> (10, 10); ValueError on anything else."""
    parts = str(text).lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"archive_cells must look like 10x10, got {text!r}")
    return int(parts[0]), int(parts[1])


def descriptor_space(config) -> tuple[tuple[str, str], list[tuple[float, float]]]:
    """The two descriptor names and their ranges for the run's game and deck space."""
    if config.game == "exploding_kittens":
        counts = config.bounds.counts
        skip, attack = counts.get("skip", [0, 0]), counts.get("attack", [0, 0])
        # half a count of margin, so each whole count sits inside a cell, not on an edge
        return ("skips", "attacks"), [(skip[0] - 0.5, skip[1] + 0.5), (attack[0] - 0.5, attack[1] + 0.5)]
    return ("min_power_share", "top5_power_share"), [(0.0, 1.0), (0.0, 1.0)]


def descriptors(config, cards) -> tuple[float, float]:
    """The deck's two descriptors (see descriptor_space)."""
    cards = list(cards)
    if config.game == "exploding_kittens":
        from games.exploding_kittens import CARD_NAMES

        return float(cards.count(CARD_NAMES.index("skip"))), float(cards.count(CARD_NAMES.index("attack")))
    low = config.rules.min_power
    top5 = sum(sorted(cards)[-TOP:]) / sum(cards)
    return float(sum(c == low for c in cards) / len(cards)), float(top5)


def _max_cards(config) -> int:
    return config.bounds.max_cards if config.game == "exploding_kittens" else config.rules.max_cards


class DeckArchive:
    """The MAP-Elites archive of one run and its emitter."""

    def __init__(self, config):
        from ribs.archives import GridArchive

        self.config = config
        self.space = space_for(config)
        self.names, ranges = descriptor_space(config)
        self.width = _max_cards(config)
        self.grid = GridArchive(
            solution_dim=self.width,
            dims=list(parse_cells(config.archive_cells)),
            ranges=ranges,
            extra_fields={"ci_lo": ((), np.float64), "ci_hi": ((), np.float64), "games": ((), np.int64)},
            dtype=np.float64,
        )

    @classmethod
    def read(cls, config, folder, generation: int) -> DeckArchive:
        """The archive of a run resumed after `generation`, rebuilt from its archive.json (each elite
        into its empty cell: the same archive); UserError if the file is not that generation's."""
        from games.errors import UserError

        archive = cls(config)
        path = folder.path / "archive.json"
        data = folder.read_json(path) if path.is_file() else None
        if not isinstance(data, dict) or data.get("generation") != generation:
            raise UserError(f"{path} is missing or not of generation {generation}; the archive run cannot be resumed")
        entries = data["entries"]
        if entries:
            solutions = np.full((len(entries), archive.width), PAD, dtype=np.float64)
            for i, e in enumerate(entries):
                solutions[i, : len(e["cards"])] = e["cards"]
            archive.grid.add(
                solutions,
                np.array([e["score"] for e in entries]),
                np.array([[e[n] for n in archive.names] for e in entries]),
                ci_lo=np.array([e["ci95"][0] for e in entries]),
                ci_hi=np.array([e["ci95"][1] for e in entries]),
                games=np.array([e["games"] for e in entries]),
            )
        return archive

    def __len__(self) -> int:
        return len(self.grid)

    # --- the emitter ---------------------------------------------------------------------------
    def ask(self, n: int, rng: np.random.Generator) -> list:
        """`n` new decks: random ones while the archive is empty, else children of elites (crossover
        of two with chance cx_prob, then mutation; each operator repairs, so every child is legal)."""
        parents = [e["cards"] for e in self.entries()]
        if not parents:
            return [make_individual(self.space.random_deck(rng, self.config.init_shapes)) for _ in range(n)]
        pool = []
        for _ in range(n):
            a = parents[int(rng.integers(0, len(parents)))]
            origin = "mutant"
            if len(parents) > 1 and rng.random() < self.config.cx_prob:
                b = parents[int(rng.integers(0, len(parents)))]
                a, origin = self.space.crossover(a, b, rng)[0], "crossover"
            pool.append(make_individual(self.space.mutate(a, rng, self.config), origin))
        return pool

    def tell(self, pool: list) -> int:
        """Offer the evaluated decks to the archive; returns how many entered it (new cell or better)."""
        solutions = np.full((len(pool), self.width), PAD, dtype=np.float64)
        for i, ind in enumerate(pool):
            solutions[i, : len(ind)] = list(ind)
        status = self.grid.add(
            solutions,
            np.array([score_of(ind) for ind in pool]),
            np.array([descriptors(self.config, ind) for ind in pool]),
            ci_lo=np.array([ind.stats.ci95[0] for ind in pool]),
            ci_hi=np.array([ind.stats.ci95[1] for ind in pool]),
            games=np.array([ind.stats.record.games for ind in pool]),
        )["status"]
        return int(np.count_nonzero(status))

    # --- reading -------------------------------------------------------------------------------
    def entries(self) -> list[dict]:
        """The elites in cell order, as archive.json entries (cards, score, ci95, games, cell and
        descriptors)."""
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
                "cell": [int(c) for c in cell],
            }
            entry.update({name: float(v) for name, v in zip(self.names, d["measures"][k])})
            out.append(entry)
        return out

    def to_json(self, generation: int) -> dict:
        lows, highs = self.grid.lower_bounds, self.grid.upper_bounds
        return {
            "generation": generation,
            "descriptors": list(self.names),
            "cells": [int(x) for x in self.grid.dims],
            "ranges": [[float(lo), float(hi)] for lo, hi in zip(lows, highs)],
            "entries": self.entries(),
        }


def plot_archive(data: dict, title: str) -> bytes:
    """A heatmap of the elites' scores over the two descriptors (empty cells blank)."""
    from matplotlib.figure import Figure

    from evolution.plots import _png

    nx, ny = data["cells"]
    grid = np.full((ny, nx), np.nan)
    for e in data["entries"]:
        grid[e["cell"][1], e["cell"][0]] = e["score"]
    (x0, x1), (y0, y1) = data["ranges"]
    fig = Figure(figsize=(6.4, 4.8))
    ax = fig.add_subplot()
    image = ax.imshow(grid, origin="lower", extent=(x0, x1, y0, y1), aspect="auto", cmap="viridis")
    fig.colorbar(image, ax=ax, label="elite's fitness")
    ax.set_xlabel(data["descriptors"][0].replace("_", " "))
    ax.set_ylabel(data["descriptors"][1].replace("_", " "))
    ax.set_title(f"{title}: {len(data['entries'])} elites after generation {data['generation']}")
    return _png(fig)


def write_archive(folder, archive: DeckArchive, generation: int) -> None:
    """archive.json and archive.png in the run folder (atomically)."""
    from games.fileio import atomic_write_bytes, atomic_write_json

    data = archive.to_json(generation)
    atomic_write_json(folder.path / "archive.json", data)
    atomic_write_bytes(folder.path / "archive.png", plot_archive(data, folder.name))


def elites_table(data: dict, space) -> str:
    """The elites of an archive.json, best first, one line each."""
    names = data["descriptors"]
    entries = sorted(data["entries"], key=lambda e: -e["score"])
    lines = [f"{len(entries)} elites over {names[0]} x {names[1]} ({data['cells'][0]}x{data['cells'][1]} cells)"]
    for e in entries:
        niche = "  ".join(f"{n} {e[n]:.2f}" for n in names)
        lines.append(
            f"{niche}  score {e['score']:.3f} [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}]  "
            f"{e['games']} games  {space.short_text(e['cards'])}"
        )
    return "\n".join(lines)
