"""The quality-diversity archive's best elite against a plain run's champion, seed by seed.

    python scripts/results/archive_vs_plain.py --seeds 0 1 2 3 4 5 --out runs/qd_vs_plain

For each seed S: `deckopt evolve --seed S` (plain) and `deckopt evolve --archive --seed S` (plus
`--archive-args`), both `--jobs 1 --no-validate`, into OUT/plain_sS and OUT/archive_sS (a finished run
is reused, so other settings need an OUT of their own); then `deckopt decks RUN --validate` and
`deckopt decks RUN --archive --validate` play the plain champion and the best elite against the
reference decks on the same deals (seed S + 1, the runs' validation games). Prints one Markdown row
per seed (both scores with their 95 % intervals, "met" when the best elite's interval reaches the plain
champion's or lies above it, the number of elites), then the paired difference best elite minus plain
champion over the seeds with its 95 % t-interval.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

from scipy.stats import t as student_t

ROOT = Path(__file__).resolve().parents[2]


def deckopt(*args: str) -> str:
    """One `deckopt` command of this checkout: its stdout; progress goes to stderr, a failure stops the script."""
    done = subprocess.run([sys.executable, "-m", "deckopt", *args], cwd=ROOT, check=True, stdout=subprocess.PIPE)
    return done.stdout.decode()


def validated(run: Path, evolve_args: list[str], decks_args: list[str]) -> dict:
    """The run (made if missing) and its `deckopt decks --validate --json` report (saved beside it)."""
    if not (run / "champion.json").exists():
        deckopt("evolve", *evolve_args, "--jobs", "1", "--no-validate", "--out", str(run))
    saved = run / "validate_report.json"
    if not saved.exists():
        report = deckopt("decks", str(run), *decks_args, "--validate", "--jobs", "1", "--json")
        saved.write_text(report, encoding="utf-8")
    return json.loads(saved.read_text(encoding="utf-8"))


def compare(out: Path, seeds: list[int], evolve_args: list[str], archive_args: list[str], decks_args: list[str]):
    """One row a seed: the plain champion's and the best elite's validation, and the number of elites."""
    rows = []
    for seed in seeds:
        both = ["--seed", str(seed), *evolve_args]
        plain = validated(out / f"plain_s{seed}", both, decks_args)
        archive = validated(out / f"archive_s{seed}", ["--archive", *both, *archive_args], ["--archive", *decks_args])
        rows.append(
            {
                "seed": seed,
                "plain": plain["validation"]["overall"],
                "elite": archive["validation"]["overall"],
                "elites": len(archive["entries"]),
                "met": archive["validation"]["overall"]["ci95"][1] >= plain["validation"]["overall"]["ci95"][0],
            }
        )
    return rows


def _score(x: dict) -> str:
    return f"{x['score']:.3f} [{x['ci95'][0]:.3f}, {x['ci95'][1]:.3f}]"


def table_lines(rows: list[dict]) -> list[str]:
    lines = ["| seed | plain champion | best elite | met | elites |", "|---|---|---|---|---|"]
    for r in rows:
        met = "yes" if r["met"] else "no"
        lines.append(f"| {r['seed']} | {_score(r['plain'])} | {_score(r['elite'])} | {met} | {r['elites']} |")
    diffs = [r["elite"]["score"] - r["plain"]["score"] for r in rows]
    if len(diffs) > 1:
        mean = statistics.fmean(diffs)
        half = student_t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
        plain_mean = statistics.fmean(r["plain"]["score"] for r in rows)
        elite_mean = statistics.fmean(r["elite"]["score"] for r in rows)
        lines.append(
            f"\nbest elite minus plain champion over {len(diffs)} seeds: {mean:+.3f}, 95 % t-interval "
            f"[{mean - half:+.3f}, {mean + half:+.3f}] (means {elite_mean:.3f} and {plain_mean:.3f}); "
            f"met on {sum(r['met'] for r in rows)} of {len(diffs)}; "
            f"elites {min(r['elites'] for r in rows)}-{max(r['elites'] for r in rows)}"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(16)))
    parser.add_argument("--out", type=Path, default=Path("runs/qd_vs_plain"), help="folder of the runs")
    parser.add_argument(
        "--archive-args", default="", help='more flags of the archive runs, e.g. "--archive-cells 10x10"'
    )
    parser.add_argument("--evolve-args", default="", help='more flags of both runs, e.g. "--generations 10"')
    parser.add_argument("--validate-games", type=int, help="games against each reference deck (default: the run's)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    decks_args = ["--games", str(args.validate_games)] if args.validate_games else []
    rows = compare(out, args.seeds, shlex.split(args.evolve_args), shlex.split(args.archive_args), decks_args)
    print("\n".join(table_lines(rows)))


if __name__ == "__main__":
    main()
