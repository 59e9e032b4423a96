"""LOCM 1.2 games per second in one process: gym-locm 2.0.0b1 (under the oracle environment, `make
oracle`) and games/locm.py, whole games (a uniform draft, then the max-attack battler on both sides),
timed alternately in the same run. deckopt has no max-attack agent yet: this script plays one written
for the measurement, and first checks that it chooses gym-locm's action on every battle state of
recorded gym-locm games. Prints one Markdown row per repeat.

    .venv/bin/python scripts/results/locm_speed.py --games 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

import games
from games.locm import ATTACK, CARDS, CREATURE, FIELDS, GUARD, KW, LANE_LIMIT, LANE_SPAN, PASS, PICK, SUMMON, LocmState

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"


def max_attack(state: LocmState) -> int:
    """The max-attack battler: attack with the strongest creature that may (left lane first), into
    the lane's first Guard or the opponent; else summon the strongest affordable creature into the
    first lane with room; else pass."""
    p = state.current_player
    o = 1 - p
    board = state._board
    for lane in (0, 1):
        base = (2 * p + lane) * LANE_SPAN
        ready = [i for i in range(state._lane_sizes[2 * p + lane]) if state._able(base + i * FIELDS)]
        if ready:
            strongest = max(ready, key=lambda i: (board[base + i * FIELDS + 2], -i))
            enemy = (2 * o + lane) * LANE_SPAN
            guards = [j for j in range(state._lane_sizes[2 * o + lane]) if board[enemy + j * FIELDS + KW] & GUARD]
            return ATTACK + 4 * (3 * lane + strongest) + (1 + guards[0] if guards else 0)
    mana = state._mana[p]
    creatures = [
        (h, CARDS[c]) for h, c in enumerate(state.hand(p)) if CARDS[c].type == CREATURE and CARDS[c].cost <= mana
    ]
    lanes = [lane for lane in (0, 1) if state._lane_sizes[2 * p + lane] < LANE_LIMIT]
    if creatures and lanes:
        h, _ = max(creatures, key=lambda hc: (hc[1].attack, -hc[0]))
        return SUMMON + 2 * h + lanes[0]
    return PASS


def same_choices(games_count: int, oracle: Path) -> tuple[int, int]:
    """(battle states where max_attack chose gym-locm's action, battle states) over recorded games."""
    command = [str(oracle), str(DRIVER), "--games", str(games_count), "--seed", "7000000", "--battler", "max-attack"]
    records = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    game = games.make("locm")
    same = total = 0
    for line in records:
        record = json.loads(line)
        state = game.state_from_chance(record["offers"], record["shuffles"])
        for action, _ in record["steps"]:
            if state.phase == "battle":
                total += 1
                same += max_attack(state) == action
            state.apply_action(action)
    return same, total


def ours(games_count: int, seed: int) -> float:
    """Games per second of games/locm.py: uniform picks, max-attack on both sides."""
    game = games.make("locm")
    start = time.perf_counter()
    for g in range(games_count):
        rng = np.random.default_rng(seed + g)
        state = game.new_initial_state(rng)
        picks = rng.integers(3, size=60).tolist()
        for k in picks:
            state.apply_action(PICK + k)
        while not state.is_terminal():
            state.apply_action(max_attack(state))
    return games_count / (time.perf_counter() - start)


def theirs(games_count: int, seed: int, oracle: Path) -> float:
    command = [str(oracle), str(DRIVER), "--games", str(games_count), "--seed", str(seed)]
    out = subprocess.run(command + ["--battler", "max-attack", "--time"], capture_output=True, text=True, check=True)
    timing = json.loads(out.stdout)
    return timing["games"] / timing["seconds"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per engine and repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--check-games", type=int, default=200, help="recorded games for the battler's check")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    same, total = same_choices(args.check_games, args.oracle_python)
    print(f"max-attack: gym-locm's action on {same} of {total} battle states of {args.check_games} recorded games")
    print()
    print("| repeat | gym-locm games/s | deckopt games/s | ratio |")
    print("|---|---|---|---|")
    for r in range(args.repeats):
        gym = theirs(args.games, 8_000_000, args.oracle_python)
        our = ours(args.games, 8_000_000)
        print(f"| {r + 1} | {gym:.0f} | {our:.0f} | {our / gym:.2f}x |")


if __name__ == "__main__":
    main()
