"""Concurrent writers of one run folder: WRITERS `deckopt evolve --out SAME` started together, REPEATS
times. Each time exactly one must succeed (the others refused in one line: the folder is locked or
already holds a run) and the folder must equal that of a run made alone.

    .venv/bin/python scripts/concurrent_writers.py --repeats 20 --writers 10

Prints one line a repeat and a verdict; exit 1 if any repeat fails. The test suite runs it smaller
(tests/test_folder_lock.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: a run of a few seconds: two generations of four decks, two games a pair, no validation
TINY = ["--generations", "2", "--pool", "4", "--games-per-pair", "2", "--hof-opponents", "1"]
TINY += ["--random-opponents", "1", "--playoff-top", "2", "--playoff-games-per-pair", "2", "--no-validate"]
TINY += ["--seed", "5", "--jobs", "1", "--quiet"]
#: fields of the JSON files that hold wall-clock times
TIMINGS = {"seconds", "games_per_s"}
#: files whose content depends on the clock or the plotting library, not on the run
TIMED = {"logbook.csv", "report.html", "fitness.png", "best_deck_powers.png"}


def evolve_command(out: Path) -> list[str]:
    return [sys.executable, "-m", "deckopt", "evolve", *TINY, "--out", str(out)]


def without_timings(data):
    """JSON data without its wall-clock fields (at any depth); NaN made comparable."""
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k not in TIMINGS}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return "NaN" if isinstance(data, float) and data != data else data


def folder_content(run: Path) -> dict[str, object]:
    """Every file of a run folder by relative path: JSON files without their timings, others as bytes
    (files that hold timings or plots: present only)."""
    content: dict[str, object] = {}
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        name = str(path.relative_to(run))
        if path.name in TIMED:
            content[name] = "present"
        elif path.suffix == ".json":
            content[name] = without_timings(json.loads(path.read_text()))
        else:
            content[name] = path.read_bytes()
    return content


def one_repeat(workdir: Path, writers: int, alone: dict) -> tuple[bool, str]:
    """`writers` concurrent runs into one new folder: (passed, a line saying what happened)."""
    out = workdir / "same"
    procs = [
        subprocess.Popen(evolve_command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(writers)
    ]
    results = [(p.wait(timeout=600), *p.communicate()) for p in procs]
    ok = [r for r in results if r[0] == 0]
    refused = [r for r in results if r[0] == 2 and r[2].count("\n") == 1 and "Traceback" not in r[2]]
    locked = sum("being written by another deckopt process (pid " in r[2] for r in refused)
    same = out.is_dir() and folder_content(out) == alone
    passed = len(ok) == 1 and len(refused) == writers - 1 and same
    line = (
        f"{len(ok)} succeeded, {len(refused)} refused in one line ({locked} by the lock, "
        f"{len(refused) - locked} as not empty), folder {'equals' if same else 'DIFFERS from'} a run made alone"
    )
    if not passed:
        line += "; stderr: " + " | ".join(r[2].strip()[-300:] for r in results if r not in refused)
    return passed, line


def run_repeats(repeats: int, writers: int, log=print) -> int:
    """The number of failed repeats."""
    with tempfile.TemporaryDirectory(prefix="deckopt-writers-") as tmp:
        base = Path(tmp)
        subprocess.run(evolve_command(base / "alone" / "same"), check=True, capture_output=True)
        alone = folder_content(base / "alone" / "same")  # the same folder name: the champion's deck names it
        failed = 0
        for k in range(repeats):
            t0 = time.perf_counter()
            passed, line = one_repeat(base / f"repeat_{k}", writers, alone)
            failed += not passed
            log(f"repeat {k + 1}/{repeats}: {line} ({time.perf_counter() - t0:.1f} s)")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--writers", type=int, default=10)
    args = parser.parse_args(argv)
    failed = run_repeats(args.repeats, args.writers)
    ok = args.repeats - failed
    print(f"{ok} of {args.repeats} repeats: exactly one writer succeeded, the folder as a run made alone")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
