"""The Legends of Code and Magic 1.2 field (agents/heuristics/locm_field.py) against gym-locm 2.0.0b1's
own agents on at least `--states` states each: seeded games in which gym-locm's agent chooses, recorded
by scripts/locm_gym_driver.py --agent under the oracle environment (`make oracle`), each choice asked
of ours in the same state of our engine; each battler twice: playing both seats itself, and watching
games played by uniform actions (states it would not reach itself: items on the board, many creatures).
uji2 draws its pick: each recorded pick is weighed by the
chance ours gives it (impossible picks, and a z score of the sum of those chances). Prints a Markdown
table.

    .venv/bin/python scripts/results/locm_field_check.py --states 10000
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
from pathlib import Path

from agents.heuristics.locm_field import BATTLERS, DRAFTERS, agreement, chance_agreement, uji2_chances

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"
BATTLE_AGENTS = ("max-attack", "greedy", "rule-based")
EXACT = (
    [("battle", name, "itself") for name in BATTLE_AGENTS]
    + [("battle", name, "uniform") for name in BATTLE_AGENTS]
    + [
        ("draft", name, "itself")
        for name in ("max-attack", "rule-based", "icebox", "closet-ai", "uji1", "coac", "chad")
    ]
)
STATES_PER_GAME = {"draft": 60, "battle": 45}  # at least, to size the recorded games
SEED = 10_000_000


def recorded(agent: str, games_count: int, oracle: Path, random_play: bool = False) -> list[dict]:
    command = [str(oracle), str(DRIVER), "--games", str(games_count), "--seed", str(SEED), "--agent", agent]
    command += ["--random-play"] if random_play else []
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=10_000, help="states compared per agent, at least")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    print("| agent | phase | played by | games | states | same action | first difference |")
    print("|---|---|---|---|---|---|---|")
    for phase, name, played_by in EXACT:
        games_count = math.ceil(args.states / STATES_PER_GAME[phase])
        records = recorded(f"{phase}:{name}", games_count, args.oracle_python, played_by == "uniform")
        choose = (BATTLERS if phase == "battle" else DRAFTERS)[name]
        result = agreement(records, phase, lambda s, choose=choose: choose(s, None))
        cells = [name, phase, played_by, games_count, result.states, result.same, result.first_difference or "-"]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    games_count = math.ceil(args.states / STATES_PER_GAME["draft"])
    chances = chance_agreement(recorded("draft:uji2", games_count, args.oracle_python), uji2_chances)
    print()
    print("| agent | phase | played by | games | states | picks ours never makes | z of the picks' chances |")
    print("|---|---|---|---|---|---|---|")
    print(f"| uji2 | draft | itself | {games_count} | {chances.states} | {chances.impossible} | {chances.z:+.2f} |")


if __name__ == "__main__":
    main()
