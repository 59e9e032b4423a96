"""The end of a quality-diversity run and what shows its archive (evolution/archive/grid.py holds the archive):
the best elite, chosen as a plain run chooses its champion (`choose_best_elite`, `finish_archive`),
archive.json and its heatmap archive.png (`write_archive`), and the elites as text (`elites_table`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.stats import score_summary
from evolution.archive.grid import STAGE_ELITE_FINAL, DeckArchive
from evolution.designer.plots import png_bytes
from evolution.scoring.yardstick import pooled_records
from games.fileio import atomic_write_bytes, atomic_write_json


# --- the best elite ------------------------------------------------------------------------------
def choose_best_elite(
    archive: DeckArchive,
    config,
    scorer,
    pmap,
    generation: int,
    progress: Callable | None = None,
    on_yardstick: dict | None = None,
) -> dict | None:
    """The archive's best elite, chosen as a plain run chooses its champion: `playoff_top`
    candidates (the elites best on their yardstick games of the run, `on_yardstick`: cards ->
    pooled Record, as yardstick.pooled_records gives; then the best by pooled fitness) measured again
    with fresh seeds of a stage of their own, as the run's deck space measures them
    (the run's scorer's `remeasure`: against the yardstick, or in a round robin without one; an
    objective's own games). The record: the best elite's cards, how it was chosen, the games played,
    the candidates best first."""
    entries = best_candidates(archive.entries(), on_yardstick or {}, max(1, config.playoff_top))
    if not entries:
        return None
    decks = [tuple(e["cards"]) for e in entries]
    again, played, how = scorer.remeasure(decks, generation, STAGE_ELITE_FINAL, pmap, progress)
    candidates = []
    for e, a in zip(entries, again):
        c = {"cards": e["cards"], "cell": e["cell"], "archive_score": e["score"], "archive_ci95": e["ci95"]}
        c["archive_games"] = e["games"]
        record = (on_yardstick or {}).get(tuple(e["cards"]))
        if record is not None:
            c.update(pooled_yardstick=record.score, pooled_yardstick_games=record.games)
        candidates.append({**c, **score_summary(a)})
    candidates.sort(key=lambda c: -c["score"])  # stable: pooled-fitness order on ties
    return {
        "generation": generation,
        "cards": candidates[0]["cards"],
        "how": how,
        "games": played,
        "candidates": candidates,
    }


def best_candidates(entries: list[dict], on_yardstick: dict, k: int) -> list[dict]:
    """The `k` elites a plain run would pick as champion candidates: those with yardstick games in the
    run best on them first (a generation's `yardstick_top` decks play the yardstick), then the rest by
    pooled fitness (ties in cell order). The fitness is relative to each generation's opponents and
    flat at the top of the archive; the yardstick is fixed, and is what the final choice is made on."""
    measured = [e for e in entries if tuple(e["cards"]) in on_yardstick]
    measured.sort(key=lambda e: -on_yardstick[tuple(e["cards"])].score)
    rest = sorted((e for e in entries if tuple(e["cards"]) not in on_yardstick), key=lambda e: -e["score"])
    return (measured + rest)[:k]


def finish_archive(
    folder, archive: DeckArchive, config, scorer, pmap, generation: int, progress=None, log=None
) -> dict | None:
    """The best elite of a finished archive run (`choose_best_elite`), written into archive.json
    (and marked on archive.png); read back if archive.json already has this generation's."""
    path = folder.path / "archive.json"
    done = folder.read_archive() if path.is_file() else None
    if isinstance(done, dict) and done.get("generation") == generation and done.get("best_elite"):
        return done["best_elite"]
    on_yardstick = {}
    if config.settings.yardstick:
        on_yardstick = pooled_records([folder.read_generation(g) for g in range(generation + 1)])
    best = choose_best_elite(archive, config, scorer, pmap, generation, progress, on_yardstick)
    write_archive(folder, archive, generation, best)
    if best and log:
        c = best["candidates"][0]
        log(
            f"best elite: {archive.space.words(best['cards'])}, {c['score']:.3f} [{c['ci95'][0]:.3f}, "
            f"{c['ci95'][1]:.3f}] (archive {c['archive_score']:.3f} over {c['archive_games']} games), {best['how']}; "
            f"{best['games']} games"
        )
    return best


# --- files and tables ----------------------------------------------------------------------------
def plot_archive(data: dict, title: str) -> bytes:
    """A heatmap of the elites' pooled (re-measured) fitness over the two descriptors (empty cells
    blank; the best elite, once chosen, ringed)."""
    from matplotlib.figure import Figure

    nx, ny = data["cells"]
    grid = np.full((ny, nx), np.nan)
    for e in data["entries"]:
        grid[e["cell"][1], e["cell"][0]] = e["score"]
    (x0, x1), (y0, y1) = data["ranges"]
    fig = Figure(figsize=(6.4, 4.8))
    ax = fig.add_subplot()
    image = ax.imshow(grid, origin="lower", extent=(x0, x1, y0, y1), aspect="auto", cmap="viridis")
    fig.colorbar(image, ax=ax, label="elite's fitness, pooled over its measurements")
    best = data.get("best_elite")
    if best:
        cell = best["candidates"][0]["cell"]
        cx, cy = x0 + (cell[0] + 0.5) * (x1 - x0) / nx, y0 + (cell[1] + 0.5) * (y1 - y0) / ny
        ax.plot([cx], [cy], "o", ms=14, mfc="none", mec="red", label="best elite (re-measured)")
        ax.legend(loc="upper left", fontsize="small")
    ax.set_xlabel(data["descriptors"][0].replace("_", " "))
    ax.set_ylabel(data["descriptors"][1].replace("_", " "))
    ax.set_title(f"{title}: {len(data['entries'])} elites after generation {data['generation']}")
    return png_bytes(fig)


def write_archive(folder, archive: DeckArchive, generation: int, best: dict | None = None) -> None:
    """archive.json (with the best elite once chosen) and archive.png in the run folder (atomically)."""
    data = archive.to_json(generation)
    if best:
        data["best_elite"] = best
    atomic_write_json(folder.path / "archive.json", data)
    atomic_write_bytes(folder.path / "archive.png", plot_archive(data, folder.name))


def best_elite_cards(data: dict) -> tuple[list[int], str]:
    """The best elite of an archive.json and how it was chosen (the highest pooled fitness if the
    run has not chosen one: an unfinished run)."""
    best = data.get("best_elite")
    if best:
        return best["cards"], f"best elite: {best['how']}"
    top = max(data["entries"], key=lambda e: e["score"])
    return top["cards"], "the elite of highest pooled fitness (the run has not chosen its best elite yet)"


def elites_table(data: dict, space) -> str:
    """The elites of an archive.json, best first by pooled fitness, one line each; then the best
    elite's re-measurement."""
    names = data["descriptors"]
    entries = sorted(data["entries"], key=lambda e: -e["score"])
    lines = [
        f"{len(entries)} elites over {names[0]} x {names[1]} ({data['cells'][0]}x{data['cells'][1]} cells) after "
        f"generation {data['generation']}; score: pooled over the elite's last measurements"
    ]
    for e in entries:
        niche = "  ".join(f"{n} {e[n]:.2f}" for n in names)
        history = f"  measured {e['measured']}x since gen {e['since']}" if "measured" in e else ""
        lines.append(
            f"{niche}  score {e['score']:.3f} [{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}]  "
            f"{e['games']} games{history}  {space.words(e['cards'])}"
        )
    best = data.get("best_elite")
    if best:
        lines.append(f"best elite ({best['how']}; {best['games']} games):")
        for i, c in enumerate(best["candidates"]):
            mark = "*" if i == 0 else " "
            run = f"archive {c['archive_score']:.3f} over {c['archive_games']}"
            if "pooled_yardstick" in c:
                run += f", yardstick {c['pooled_yardstick']:.3f} over {c['pooled_yardstick_games']}"
            lines.append(
                f"  {mark} {c['score']:.3f} [{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}] {c['games']} games  "
                f"({run})  {space.words(c['cards'])}"
            )
    return "\n".join(lines)
