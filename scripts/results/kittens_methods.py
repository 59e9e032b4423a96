"""Fixed game counts, racing and random search on Exploding Kittens fairness, judged by exact values.

    python scripts/results/kittens_methods.py --seeds 1 2 3 4 5 6 7 8 --out runs/ek_methods

For each method and seed, one small fairness run (`deckopt evolve --game exploding_kittens --objective
fairness` with the sizes below, `--no-validate`) into OUT/METHOD_sSEED (a finished run is reused);
then `deckopt study kittens OUT/study --compositions 0 --runs ...` gives each champion's exact
first-player value. Prints one Markdown row per method: the evolution's games per run, the champions'
exact distance from 0.5 (mean with its standard error, median), how many are within 0.005, and the
distance on each seed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
METHODS = {
    "fixed": ("fixed games per deck, truncation", []),
    "racing": ("racing (5 rounds, z = 1), truncation", ["--fitness", "racing", "--racing-rounds", "5"]),
    "random": ("random search (`--selection random`)", ["--selection", "random"]),
}


def deckopt(*args: str) -> None:
    """One `deckopt` command of this checkout (its progress bars on stderr); a failure stops the script."""
    subprocess.run([sys.executable, "-m", "deckopt", *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def run_all(out: Path, seeds: list[int], generations: int, pool: int, games: int, playoff_games: int) -> dict:
    """{method: [the study's entry of each seed's run]}."""
    runs = {}
    for method, (_, flags) in METHODS.items():
        for seed in seeds:
            folder = out / f"{method}_s{seed}"
            if not (folder / "champion.json").exists():
                deckopt(
                    "evolve", "--game", "exploding_kittens", "--objective", "fairness",
                    "--generations", str(generations), "--pool", str(pool), "--games-per-deck", str(games),
                    "--hof-size", "5", "--playoff-top", "3", "--playoff-games-per-deck", str(playoff_games),
                    "--jobs", "1", "--no-validate", "--seed", str(seed), "--out", str(folder), *flags,
                )  # fmt: skip
            runs[str(folder.resolve())] = method
    study = out / "study"
    deckopt("study", "kittens", str(study), "--compositions", "0", *[a for r in runs for a in ("--runs", r)])
    entries = json.loads((study / "kittens.json").read_text(encoding="utf-8"))["runs"]
    by_method: dict[str, list[dict]] = {m: [] for m in METHODS}
    for entry in entries:
        by_method[runs[str(Path(entry["run"]).resolve())]].append(entry)
    return by_method


def table_lines(by_method: dict) -> list[str]:
    lines = [
        "| method | games per run (evolution) | champion's exact \\|value - 0.5\\|: mean (SE) | median "
        "| champions within 0.005 | per seed |",
        "|---|---|---|---|---|---|",
    ]
    for method, entries in by_method.items():
        d = [e["exact_distance_from_half"] for e in sorted(entries, key=lambda e: e["seed"])]
        se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else float("nan")
        games = statistics.fmean(e["evolution_games"] for e in entries)
        within = sum(x <= 0.005 for x in d)
        lines.append(
            f"| {METHODS[method][0]} | {games:.0f} | {statistics.fmean(d):.4f} ({se:.4f}) | "
            f"{statistics.median(d):.4f} | {within} / {len(d)} | {' '.join(f'{x:.4f}' for x in d)} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 7, 8])
    parser.add_argument("--out", type=Path, default=Path("runs/ek_methods"), help="folder of the runs and the study")
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--pool", type=int, default=16)
    parser.add_argument("--games-per-deck", type=int, default=200)
    parser.add_argument("--playoff-games-per-deck", type=int, default=2000)
    args = parser.parse_args(argv)
    out = args.out.resolve()
    by_method = run_all(out, args.seeds, args.generations, args.pool, args.games_per_deck, args.playoff_games_per_deck)
    print("\n".join(table_lines(by_method)))


if __name__ == "__main__":
    main()
