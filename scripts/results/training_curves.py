"""Training curves of several `deckopt train` runs side by side: each run's evaluations (its
`metrics.csv`: the win rate against each evaluation opponent every `eval_every` games) by games played
and by wall clock (the run's `seconds` column, evaluations included), each point with its 95 % interval (Wilson,
over the run's `eval_games` games, from its `config.json`).

Runs are named `LABEL=RUN_DIR`. The plot (`--out`, PNG) has one panel per opponent and x axis; the
table (Markdown, stdout) gives each run's last evaluation and its best, against each opponent:

    python scripts/results/training_curves.py --run afterstate=runs/locm_afterstate_0/run \\
        --run ppo=runs/locm_ppo/run --run dqn=runs/locm_dqn/run --opponents greedy max-attack \\
        --out docs/images/locm-learners.png
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from agents.stats import wilson_ci
from evolution.designer.plots import png_bytes
from games.fileio import atomic_write_bytes


def read_run(path: Path) -> tuple[list[dict], int]:
    """The rows of a run folder's metrics.csv and its games an evaluation; SystemExit in one line if the
    folder is not a training run."""
    metrics, config = path / "metrics.csv", path / "config.json"
    if not metrics.is_file() or not config.is_file():
        raise SystemExit(f"{path}: not a training run folder (no metrics.csv and config.json)")
    with metrics.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return rows, int(json.loads(config.read_text(encoding="utf-8"))["eval_games"])


def evaluations(rows: list[dict], opponent: str) -> np.ndarray:
    """(n, 3): games played, seconds, win rate, at each evaluation against `opponent`."""
    key = f"{opponent}_win"
    points = [(float(r["episodes"]), float(r["seconds"]), float(r[key])) for r in rows if r.get(key, "") != ""]
    return np.array(points, dtype=float).reshape(-1, 3)


def plot(runs: dict[str, tuple[list[dict], int]], opponents: list[str]) -> bytes:
    fig = Figure(figsize=(11, 3.6 * len(opponents)))
    axes = fig.subplots(len(opponents), 2, squeeze=False)
    for row, opponent in enumerate(opponents):
        for col, (x_index, x_label) in enumerate(((0, "games played"), (1, "seconds of training, wall clock"))):
            ax = axes[row][col]
            for i, (label, (rows, n)) in enumerate(runs.items()):
                points = evaluations(rows, opponent)
                if not len(points):
                    continue
                lo, hi = np.array([wilson_ci(round(p * n), n) for p in points[:, 2]]).T
                ax.plot(points[:, x_index], points[:, 2], marker="o", ms=3, color=f"C{i}", label=label)
                ax.fill_between(points[:, x_index], lo, hi, color=f"C{i}", alpha=0.15, lw=0)
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
            ax.set_xlabel(x_label)
            ax.set_ylabel(f"win rate against {opponent}")
            ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return png_bytes(fig)


def table(runs: dict[str, tuple[list[dict], int]], opponents: list[str]) -> str:
    head = "| run | games | seconds | " + " | ".join(f"last vs {o} | best vs {o}" for o in opponents) + " |"
    lines = [head, "|" + "---|" * (3 + 2 * len(opponents))]
    for label, (rows, n) in runs.items():
        cells = [label, rows[-1]["episodes"] if rows else "-", rows[-1]["seconds"] if rows else "-"]
        for opponent in opponents:
            points = evaluations(rows, opponent)
            if not len(points):
                cells += ["-", "-"]
                continue
            last, best = points[-1], points[np.argmax(points[:, 2])]
            lo, hi = wilson_ci(round(last[2] * n), n)
            cells += [f"{last[2]:.3f} [{lo:.3f}, {hi:.3f}]", f"{best[2]:.3f} at {int(best[0])}"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, metavar="LABEL=RUN_DIR")
    parser.add_argument("--opponents", nargs="+", default=["greedy"], metavar="SPEC")
    parser.add_argument("--out", type=Path, required=True, help="the plot, PNG")
    args = parser.parse_args(argv)
    runs = {}
    for item in args.run:
        label, sep, folder = item.partition("=")
        if not sep or not label or not folder:
            raise SystemExit(f"--run takes LABEL=RUN_DIR, got {item!r}")
        runs[label] = read_run(Path(folder))
    for opponent in args.opponents:
        if not any(len(evaluations(rows, opponent)) for rows, _ in runs.values()):
            raise SystemExit(f"--opponents: no run was evaluated against {opponent!r}")
    atomic_write_bytes(args.out, plot(runs, args.opponents))
    print(table(runs, args.opponents))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
