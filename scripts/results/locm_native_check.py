"""deckopt's host of native LOCM bots (agents/native.py) against gym-locm 2.0.0b1's (its NativeAgent,
through scripts/locm_gym_driver.py --native under the oracle environment that `make oracle` builds):
deterministic bots play the same seeds in both hosts and every game is compared action by action
(each action, the commands skipped as the referee skips them, the winner). Prints one Markdown row per
ordered pair of bots: games, games identical throughout, actions compared, the first difference.

    .venv/bin/python scripts/results/locm_native_check.py --games 50
    .venv/bin/python scripts/results/locm_native_check.py --games 50 --competition PATH

Bots: `--bot CMD` (repeatable; default the two deterministic bots of scripts/results/locm_bots/), and with
`--competition PATH` (a checkout of acatai/Strategy-Card-Game-AI-Competition) its CEC 2020 Python
baselines Baseline1 and Baseline2. Our host runs with `slack` (default 10) so that a loaded machine
does not make a bot forfeit: the check is of the moves, not of the clock.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import agents
from games.locm import Locm

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"
OWN_BOTS = [
    f"{sys.executable} {ROOT / 'scripts' / 'results' / 'locm_bots' / name}"
    for name in ("lane_greedy.py", "input_hash.py")
]
COMPETITION_BOTS = ("Baseline1", "Baseline2")
SEED = 7_000_000


def bot_name(command: str) -> str:
    """A bot's short name: its script's folder for a competition bot (Baseline1/main.py), else its stem."""
    path = Path(shlex.split(command)[-1])
    return path.parent.name if path.stem == "main" else path.stem


def gym_locm_games(commands: list[str], games: int, seed: int, oracle: Path) -> list[dict]:
    """`games` games of the bots `commands` (seat 0's, seat 1's) hosted by gym-locm."""
    command = [str(oracle), str(DRIVER), "--games", str(games), "--seed", str(seed)]
    for c in commands:
        command += ["--native", c]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600 + 60 * games)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"the gym-locm driver failed (exit {out.returncode}): {last}")
    return [json.loads(line) for line in out.stdout.splitlines()]


def compare_game(record: dict, commands: list[str], slack: float) -> tuple[int, str | None]:
    """Play `record`'s game (its offers and shuffles) with the same bots in deckopt's host: the actions
    that agreed and the first difference, or None."""
    game = Locm()
    state = game.state_from_chance(record["offers"], record["shuffles"])
    players = [agents.make(f"native:{commands[p]},slack={slack}", game) for p in (0, 1)]
    theirs = record["actions"]
    try:
        for n, action in enumerate(theirs):
            if state.is_terminal():
                return n, f"our game ended after {n} actions, theirs has {len(theirs)}"
            p = state.current_player
            ours = int(players[p].act([state])[0])
            if state.is_terminal():
                return n, f"action {n}: our host's bot forfeited: {players[p].stats.failures[-1]}"
            if ours != action:
                return n, f"action {n} (player {p}): ours {game.action_name(ours)}, theirs {game.action_name(action)}"
            state.apply_action(ours)
        if not state.is_terminal():
            return len(theirs), f"their game ended after {len(theirs)} actions, ours goes on"
        if state._winner != record["winner"]:
            return len(theirs), f"the winner differs: ours {state._winner}, theirs {record['winner']}"
        skipped = sum(player.stats.skipped for player in players)
        if skipped != record["skipped"]:
            return len(theirs), f"commands skipped differ: ours {skipped}, theirs {record['skipped']}"
        return len(theirs), None
    finally:
        for player in players:
            player.close()


def check_pair(commands: list[str], games: int, seed: int, slack: float, oracle: Path) -> dict:
    """Counts for one ordered pair of bots."""
    identical = actions = 0
    first = None
    records = gym_locm_games(commands, games, seed, oracle)
    for record in records:
        agreed, difference = compare_game(record, commands, slack)
        actions += agreed
        identical += difference is None
        if difference is not None and first is None:
            first = f"seed {record['seed']}: {difference}"
    return {"games": len(records), "identical": identical, "actions": actions, "first": first}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games per ordered pair of bots")
    parser.add_argument("--seed", type=int, default=SEED, help="the first game's seed; game i plays seed + i")
    parser.add_argument("--bot", action="append", metavar="CMD", help="a bot's command (default: ours)")
    parser.add_argument("--competition", type=Path, help="a checkout of the competition's repository")
    parser.add_argument("--slack", type=float, default=10.0, help="our host's time-limit multiplier")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    bots = list(args.bot or OWN_BOTS)
    if args.competition is not None:
        folder = args.competition / "contest-2020-07-CEC"
        if not folder.is_dir():
            raise SystemExit(f"no contest-2020-07-CEC folder in {args.competition}")
        bots += [f"{sys.executable} {folder / name / 'main.py'}" for name in COMPETITION_BOTS]
    print("| seat 0 | seat 1 | games | identical | actions compared | first difference | seconds |")
    print("|---|---|---|---|---|---|---|")
    for a in bots:
        for b in bots:
            start = time.perf_counter()
            row = check_pair([a, b], args.games, args.seed, args.slack, args.oracle_python)
            print(
                f"| `{bot_name(a)}` | `{bot_name(b)}` | {row['games']} | {row['identical']} | {row['actions']} "
                f"| {row['first'] or 'none'} | {time.perf_counter() - start:.0f} |"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
