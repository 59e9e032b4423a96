"""Learning curves of LOCM 1.2 drafters: evolution, random search and the Active-Genes baseline on the
`locm_drafter` deck space at the same game budget, each from several seeds, measured on held-out drafts.

Each (method, seed) is one evolution run (evolution.loop.evolve, in `OUT/METHOD-sSEED`; a run started
again resumes where it stopped) of `--budget` games, with the same pool and the same field, both
seats, battled by `--battler`:
- `evolution`: the space's default selection, `--games-per-opponent` games against each field drafter
  a generation (`--evolution-settings` may change them);
- `random`: `--selection random`, fresh random drafters every generation (random search), the same
  games a generation;
- `active-genes`: `--selection active-genes` (evolution.active_genes: Kowalski and Miernik, CEC 2020)
  with the settings of its authors' code for the paper (`PAPER`): a population of 100, tournaments of
  4, a uniform crossover for every pair of children, 5 % of the genes drawn afresh, one draft a
  generation (two games against each field drafter, seats swapped), so many more generations in the
  same budget (`--active-genes-settings` may change them, the population with `pool`).

At `--points` marks of the budget a run returns a drafter: with `--returned best-so-far` the
best-scored drafter it has met so far, with `last` the best-scored of its latest generation (a method
whose fitness plays few games meets lucky scores that stay the best so far; Active-Genes' scores are
its population's running fitness, evolution.active_genes); that drafter is measured on held-out
drafts (`--held-out` games whose offers and shuffles come from `--held-out-seed`, never a run's):
against each drafter of the field, both seats. The plot (`OUT/curves-RETURNED.png`) draws the win
rate against the field by games played, each method's mean over its seeds with the 95 % interval over
seeds, each seed's curve thin, and the field's best member on the
same games. The tables (Markdown, stdout) give each run's final drafter with its Wilson interval, and
the paired comparisons at the final budget or at each mark `--compare-at` names (evolution minus
random search, evolution minus Active-Genes, on the same held-out games): the mean difference with a
95 % t-interval over seeds and a 95 % interval over the games (each game's difference, all seeds
pooled). Progress goes to stderr.

    nice -n 10 .venv/bin/python scripts/results/locm_drafter_curves.py --out runs/locm_drafter_curves
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy.stats import t as student_t

import games
from agents.heuristics.locm_drafter_file import score_table, write_drafter
from agents.heuristics.locm_field import DRAFTERS_BATCH, ScoreDrafter, play_from_chance
from agents.stats import wilson_ci
from evolution.config import EvolveConfig, config_from_settings
from evolution.designer.plots import png_bytes
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from games.fileio import atomic_write_bytes, atomic_write_json
from games.locm_batch import LocmBatch

ROOT = Path(__file__).resolve().parent.parent.parent
FIELD = ("random", "max-attack", "rule-based", "icebox", "closet-ai", "uji1", "uji2", "coac", "chad")
METHODS = ("evolution", "random", "active-genes")
#: Active-Genes as github.com/radekmie/LoCM's Makefile target run-CEC-2020-greedy runs it (evolution.active_genes)
PAPER = {"selection": "active-genes", "pool": 100, "tournament_size": 4, "cx_prob": 1.0, "mut_card_rate": 0.05}
COLOURS = {"evolution": "tab:blue", "random": "tab:gray", "active-genes": "tab:orange"}


def games_per_opponent(method: str, args) -> int:
    return 2 * args.active_drafts if method == "active-genes" else args.games_per_opponent


def pool(method: str, args) -> int:
    """The drafters `method` scores a generation: `--pool`, Active-Genes' population `PAPER`'s."""
    if method == "active-genes":
        return int((PAPER | json.loads(args.active_genes_settings))["pool"])
    return args.pool


def generations(method: str, args) -> int:
    """The generations of `method` that play `--budget` games (all games of a generation: the pool
    against every field drafter)."""
    return max(1, args.budget // (pool(method, args) * len(FIELD) * games_per_opponent(method, args)))


def method_config(method: str, seed: int, args) -> EvolveConfig:
    """The run of `method` from `seed`: the space's settings in its table, the run's at the top."""
    games = games_per_opponent(method, args)
    space = {"games_per_opponent": games, "battlers": [args.battler]} | json.loads(args.space_settings)
    settings = {
        "game": "locm_drafter",
        "seed": seed,
        "pool": pool(method, args),
        "generations": generations(method, args),
        "games_per_task": pool(method, args) * len(FIELD) * games,  # a generation's games: one batch
        "jobs": args.jobs,
        "validate": False,
        "plot_every": 0,
    }
    if method == "random":
        settings["selection"] = "random"
    elif method == "active-genes":
        settings |= PAPER | json.loads(args.active_genes_settings)
    else:
        settings |= json.loads(args.evolution_settings)
    return config_from_settings(settings | {"locm_drafter": space})


def run(method: str, seed: int, args) -> Path:
    """The run's folder, its generations all played (started or resumed here)."""
    folder = args.out / f"{method}-s{seed}"
    started = (folder / "config.json").exists()
    config = None if started else method_config(method, seed, args)
    log = lambda line: print(f"[{method} s{seed}] {line}", file=sys.stderr, flush=True)  # noqa: E731
    evolve(config, folder, resume=started, finish=False, log=log)
    return folder


def returned(folder: Path, marks: list[int], rule: str) -> list[tuple[int, list]]:
    """At each mark of games: (games played by then, the drafter the run returns by then: the
    best-scored met so far, or the best-scored of the latest generation with `rule` "last")."""
    best = json.loads(RunFolder(folder).best_decks.read_text())["generations"]
    rows = RunFolder(folder).read_logbook()
    steps, played, top = [], 0, None
    for entry, row in zip(best, rows):
        played += int(float(row["games"]))
        if top is None or rule == "last" or entry["best"]["score"] > top[1]:
            top = (entry["best"]["cards"], entry["best"]["score"])
        steps.append((played, top[0]))
    return [next((played, cards) for played, cards in reversed(steps) if played <= mark) for mark in marks]


def held_out(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Offers and shuffles of `n` games dealt from `seed` (deckopt's deal)."""
    batch = LocmBatch.deal(games.make("locm"), np.random.default_rng(seed), n)
    return batch.offers.copy(), batch.shuffles.copy()


def field_wins(pick, offers: np.ndarray, shuffles: np.ndarray, battler: str, seed: int) -> np.ndarray:
    """(2 x 9, games) whether the drafter `pick` (a batch drafter) wins each held-out game against each
    field drafter, as first player (first 9 rows) and as second player."""
    rng = np.random.default_rng(seed)
    matchups = [(pick, DRAFTERS_BATCH[o], rng) for o in FIELD] + [(DRAFTERS_BATCH[o], pick, rng) for o in FIELD]
    winners = play_from_chance(games.make("locm"), offers, shuffles, matchups, battler)
    return winners == np.repeat([0, 1], len(FIELD))[:, None]


def drafter_of(cards) -> ScoreDrafter:
    return ScoreDrafter("drafter", score_table(cards))


def rate(wins: np.ndarray) -> tuple[float, float, float]:
    lo, hi = wilson_ci(int(wins.sum()), wins.size)
    return float(wins.mean()), lo, hi


def t_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95 % t-interval of a few values (nan without two)."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, float("nan"), float("nan")
    half = student_t.ppf(0.975, len(values) - 1) * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def curves(args, chance) -> dict:
    """Each run's curve: [(games, win rate, lo, hi)] at each mark of the budget (kept in OUT/curves.json)."""
    path = args.out / f"curves-{args.returned}.json"
    saved = json.loads(path.read_text()) if path.exists() else {}
    for method in args.methods:
        for seed in args.seeds:
            key = f"{method}-s{seed}"
            if len(saved.get(key, [])) == len(args.marks):
                continue
            points, measured = [], {}
            for played, cards in returned(args.out / key, args.marks, args.returned):
                token = json.dumps(cards)
                if token not in measured:
                    measured[token] = list(rate(field_wins(drafter_of(cards).pick_batch, *chance, args.battler, 1)))
                points.append([played, *measured[token]])
            saved[key] = points
            atomic_write_json(path, saved)
            print(f"[curves] {key}: {' '.join(f'{p[1]:.3f}' for p in points)}", file=sys.stderr, flush=True)
    return saved


def field_reference(args, chance) -> tuple[str, float]:
    """The field member with the highest win rate against the field on the held-out games, and that rate."""
    best = ("", -1.0)
    for name in FIELD:
        r = rate(field_wins(DRAFTERS_BATCH[name], *chance, args.battler, 1))[0]
        best = max(best, (name, r), key=lambda x: x[1])
    return best


def plot(saved: dict, args, reference: tuple[str, float]) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 5))
    ax = fig.add_subplot()
    for method in args.methods:
        runs = [np.array(saved[f"{method}-s{seed}"]) for seed in args.seeds]
        length = min(len(r) for r in runs)
        x = runs[0][:length, 0]
        y = np.stack([r[:length, 1] for r in runs])
        for r in runs:
            ax.plot(r[:, 0], r[:, 1], color=COLOURS[method], linewidth=0.6, alpha=0.5)
        bands = np.array([t_interval(column) for column in y.T])
        ax.plot(x, bands[:, 0], color=COLOURS[method], linewidth=2, label=f"{method} (mean of {len(runs)} seeds)")
        if len(runs) > 1:
            ax.fill_between(x, bands[:, 1], bands[:, 2], color=COLOURS[method], alpha=0.15)
    ax.axhline(reference[1], color="black", linestyle="--", linewidth=1, label=f"{reference[0]} (the field's best)")
    ax.set_xlabel("games played")
    ax.set_ylabel("win rate against the field (held-out drafts)")
    ax.set_title(
        f"LOCM drafters ({args.returned}), battler {args.battler}: "
        f"{args.held_out} held-out drafts x 9 opponents x 2 seats"
    )
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    atomic_write_bytes(args.out / f"curves-{args.returned}.png", png_bytes(fig))


def final_tables(saved: dict, args, chance) -> str:
    """Each run's final drafter, and the paired comparisons at each of `--compare-at` (the final
    budget by default)."""
    lines = ["| method | seed | games played | win rate against the field | 95 % CI |", "|---|---|---|---|---|"]
    measured: dict[str, np.ndarray] = {}

    def wins_of(cards) -> np.ndarray:
        token = json.dumps(cards)
        if token not in measured:
            measured[token] = field_wins(drafter_of(cards).pick_batch, *chance, args.battler, 1)
        return measured[token]

    drafters = {
        f"{m}-s{s}": returned(args.out / f"{m}-s{s}", args.marks, args.returned)
        for m in args.methods
        for s in args.seeds
    }
    for method in args.methods:
        for seed in args.seeds:
            key = f"{method}-s{seed}"
            played, cards = drafters[key][-1]
            name = key if args.returned == "best-so-far" else f"{key}-{args.returned}"
            write_drafter(args.out / f"{name}.toml", name, cards_as_scores(cards), f"{method}, seed {seed}")
            r, lo, hi = rate(wins_of(cards))
            lines.append(f"| {method} | {seed} | {played} | {r:.3f} | {lo:.3f}-{hi:.3f} |")
    lines += [
        "",
        "| budget | comparison | per-seed differences | mean difference | 95 % CI over seeds "
        "| 95 % CI over games (paired) |",
        "|---|---|---|---|---|---|",
    ]
    for mark in args.compare_at:
        k = args.marks.index(mark)
        wins = {key: wins_of(steps[k][1]) for key, steps in drafters.items()}
        for other in ("random", "active-genes"):
            if "evolution" not in args.methods or other not in args.methods:
                continue
            per_seed = np.array([wins[f"evolution-s{s}"].mean() - wins[f"{other}-s{s}"].mean() for s in args.seeds])
            mean, lo, hi = t_interval(per_seed)
            games_diff = np.concatenate(
                [(wins[f"evolution-s{s}"].astype(float) - wins[f"{other}-s{s}"]).ravel() for s in args.seeds]
            )
            half = 1.959964 * games_diff.std(ddof=1) / math.sqrt(games_diff.size)
            lines.append(
                f"| {mark} | evolution - {other} | {' '.join(f'{d:+.3f}' for d in per_seed)} | {mean:+.3f} | "
                f"{lo:+.3f} to {hi:+.3f} | {games_diff.mean() - half:+.3f} to {games_diff.mean() + half:+.3f} "
                f"({games_diff.size} games) |"
            )
    return "\n".join(lines)


def cards_as_scores(cards) -> list:
    """A genome as a drafter file's scores: one list of 160, or one per seat."""
    values = list(cards)
    return values if len(values) == 160 else [values[:160], values[160:]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--budget", type=int, default=500_000, help="games a run plays")
    parser.add_argument("--points", type=int, default=10, help="marks of the budget the curves are measured at")
    parser.add_argument("--pool", type=int, default=30, help="evolution and random search")
    parser.add_argument("--games-per-opponent", type=int, default=40, help="evolution and random search")
    parser.add_argument("--active-drafts", type=int, default=1, help="Active-Genes: drafts a generation")
    parser.add_argument("--battler", default="max-attack", choices=["max-attack", "greedy"])
    parser.add_argument("--space-settings", default="{}", help="JSON: more settings of the space, every run")
    parser.add_argument("--evolution-settings", default="{}", help="JSON: more settings of the evolution runs")
    parser.add_argument("--active-genes-settings", default="{}", help="JSON: more settings of the Active-Genes runs")
    parser.add_argument("--returned", default="best-so-far", choices=["best-so-far", "last"])
    parser.add_argument("--held-out", type=int, default=200, help="held-out games (drafts), each with every opponent")
    parser.add_argument("--held-out-seed", type=int, default=987_654_321)
    parser.add_argument("--jobs", type=int, default=1, help="each run's worker processes")
    parser.add_argument("--workers", type=int, default=1, help="runs played at once, each in its own process")
    parser.add_argument(
        "--compare-at", nargs="+", type=int, metavar="GAMES", help="marks of the budget compared (default: the budget)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "locm_drafter_curves")
    args = parser.parse_args(argv)
    args.marks = [round(args.budget * (k + 1) / args.points) for k in range(args.points)]
    args.compare_at = args.compare_at or [args.marks[-1]]
    if not set(args.compare_at) <= set(args.marks):
        parser.error(f"--compare-at takes marks of the budget: {' '.join(map(str, args.marks))}")
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    runs = [(method, seed, args) for seed in args.seeds for method in args.methods]
    if args.workers > 1:  # whole runs side by side, each in a process of its own
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(run, *zip(*runs)))
    else:
        for method, seed, _ in runs:
            run(method, seed, args)
    print(f"[curves] runs done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    chance = held_out(args.held_out, args.held_out_seed)
    saved = curves(args, chance)
    reference = field_reference(args, chance)
    plot(saved, args, reference)
    print(f"Battler {args.battler}; {args.held_out} held-out drafts, each against the 9 of the field on both seats.\n")
    print(final_tables(saved, args, chance))
    print(
        f"\nThe field's best on the same games: {reference[0]} {reference[1]:.3f}. "
        f"Plot: {args.out / f'curves-{args.returned}.png'}"
    )


if __name__ == "__main__":
    main()
