"""LOCM 1.2 in deckopt against gym-locm 2.0.0b1: seeded games played in gym-locm
(scripts/locm_gym_driver.py, under the oracle environment that `make oracle` builds), each replayed
action by action in games/locm.py with every state and every set of legal actions compared
(games/locm_trace.py). Prints one Markdown row per battler: games, games that agree throughout,
actions compared, the first disagreement.

    .venv/bin/python scripts/results/locm_oracle.py --games 10000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from games.locm_trace import replay

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"
BATTLERS = ("random", "max-attack", "passive")
SEEDS = {"random": 1_000_000, "max-attack": 2_000_000, "passive": 3_000_000}


def compare(battler: str, games: int, oracle: Path) -> dict:
    """Stream `games` gym-locm games of `battler` through the replay; the counts."""
    command = [str(oracle), str(DRIVER), "--games", str(games), "--seed", str(SEEDS[battler]), "--battler", battler]
    agreeing = actions = played = 0
    first = None
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as driver:
        for line in driver.stdout:
            record = json.loads(line)
            result = replay(record)
            played += 1
            actions += result.steps
            agreeing += result.agrees
            if not result.agrees and first is None:
                first = f"seed {record['seed']}: {result.difference}"
    if driver.returncode != 0:
        raise SystemExit(f"the gym-locm driver failed (exit {driver.returncode})")
    return {"battler": battler, "games": played, "agreeing": agreeing, "actions": actions, "first": first}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per battler")
    parser.add_argument("--battlers", nargs="+", choices=BATTLERS, default=list(BATTLERS))
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    print("| battler | games | agree | actions compared | first disagreement | seconds |")
    print("|---|---|---|---|---|---|")
    for battler in args.battlers:
        start = time.perf_counter()
        row = compare(battler, args.games, args.oracle_python)
        seconds = time.perf_counter() - start
        print(
            f"| `{battler}` | {row['games']} | {row['agreeing']} | {row['actions']} | {row['first'] or 'none'} "
            f"| {seconds:.0f} |"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
