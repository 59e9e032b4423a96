"""A drafter file against coac and against chad on the reference engine: the published tournament's
games (scripts/results/locm_tournament.py: for each seed s of the five, the games of seeds s, s + 1,
...) played in gym-locm 2.0.0b1 with gym-locm's own drafters and battle agents (max-attack, greedy:
scripts/locm_gym_driver.py --drafter-file under the oracle environment, `make oracle`), the file's
drafter on each seat in turn, and beside them the same games in deckopt's engine with the field's
agents, and deckopt's score on all the tournament's games of those seeds.

For each battler and opponent it prints the drafter's win rate (both seats, all seeds) in gym-locm
and in deckopt on the same games, each with its 95 % interval (Wilson), the games that end with the
same winner in both and whether gym-locm's score lies inside deckopt's interval of those games; then
deckopt's score on `--all-games` games a seed and whether it lies inside gym-locm's interval (a score
of a few games falls outside a narrow interval of many games by chance, so this is the fair way
round). gym-locm plays greedy at about 3 games/s, so `--games` (games a seed, seat and opponent) is
small for greedy. gym-locm's games are kept in `--out` as they are
played (a run started again plays only what is missing).

    make oracle
    nice -n 10 .venv/bin/python scripts/results/locm_drafter_replay.py --drafter d.toml --battlers max-attack \\
        --games 1000
    nice -n 10 .venv/bin/python scripts/results/locm_drafter_replay.py --drafter d.toml --battlers greedy --games 50
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import games
from agents.heuristics.locm_drafter_file import read_drafter
from agents.heuristics.locm_field import DRAFTERS_BATCH, play_from_chance
from agents.stats import wilson_ci
from deckopt.bench.locm import chance_of, driver
from games.errors import UserError

ROOT = Path(__file__).resolve().parent.parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
SEEDS = (32359627, 91615349, 88803987, 83140551, 50731732)
OPPONENTS = ("coac", "chad")


def gym_games(drafter: Path, against: str, seat: int, battler: str, seed: int, n: int, out: Path, oracle: Path):
    """gym-locm's games of seeds seed .. seed + n - 1 (kept in `out`): chance, picks and winner of each."""
    path = out / battler / against / f"seat{seat}-{seed}-{n}.jsonl"
    if not path.exists():
        command = ["--drafter-file", str(drafter), "--against", against, "--seat", str(seat)]
        text = driver(command + ["--battler", battler, "--games", str(n), "--seed", str(seed)], oracle)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".tmp").write_text(text)
        path.with_suffix(".tmp").replace(path)
    return [json.loads(line) for line in path.read_text().splitlines()]


def deckopt_wins(pick, against: str, battler: str, offers: np.ndarray, shuffles: np.ndarray) -> np.ndarray:
    """(2, games) whether the drafter (`pick`, a batch drafter) wins each game in deckopt's engine, on
    seat 0 (first row) and on seat 1."""
    rng = np.random.default_rng(0)  # coac and chad draw nothing
    matchups = [(pick, DRAFTERS_BATCH[against], rng), (DRAFTERS_BATCH[against], pick, rng)]
    winners = play_from_chance(games.make("locm"), offers, shuffles, matchups, battler)
    return winners == np.array([[0], [1]])


def interval(wins: int, n: int) -> str:
    lo, hi = wilson_ci(wins, n)
    return f"{100 * wins / n:.1f} ({100 * lo:.1f}-{100 * hi:.1f})"


def inside(wins: int, n: int, reference_wins: int, reference_n: int) -> str:
    lo, hi = wilson_ci(reference_wins, reference_n)
    return "yes" if lo <= wins / n <= hi else "no"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafter", type=Path, required=True, metavar="FILE.toml")
    parser.add_argument("--battlers", nargs="+", default=["max-attack", "greedy"], choices=["max-attack", "greedy"])
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS), choices=OPPONENTS)
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    parser.add_argument("--games", type=int, default=100, help="gym-locm's games a seed, seat and opponent")
    parser.add_argument("--all-games", type=int, default=1000, help="deckopt's games a seed, seat and opponent")
    parser.add_argument("--jobs", type=int, default=2, help="gym-locm processes at once")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "locm_drafter_replay", help="checkpoint folder")
    parser.add_argument("--oracle-python", type=Path, default=ORACLE_PYTHON)
    args = parser.parse_args(argv)
    if not args.oracle_python.exists():
        raise SystemExit(f"no oracle environment at {args.oracle_python}: `make oracle` builds it")
    try:
        drafter = read_drafter(args.drafter)
    except UserError as e:
        raise SystemExit(str(e)) from None
    out = args.out / drafter.name
    jobs = [
        (against, seat, battler, seed)
        for battler in args.battlers
        for against in args.opponents
        for seed in args.seeds
        for seat in (0, 1)
    ]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        records = dict(
            zip(
                jobs,
                pool.map(
                    lambda j: gym_games(args.drafter, j[0], j[1], j[2], j[3], args.games, out, args.oracle_python),
                    jobs,
                ),
            )
        )
    print(
        f"[replay] gym-locm: {len(jobs) * args.games} games in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    print(
        f"Drafter {drafter.name} ({args.drafter}); gym-locm plays {args.games} games a seed, seat and opponent, "
        f"deckopt the same games and all {args.all_games}; seeds {' '.join(map(str, args.seeds))}.\n"
    )
    print(
        "| battler | against | games | gym-locm | deckopt, same games | same winner | inside | "
        f"deckopt, {args.all_games} a seed | inside gym-locm's |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for battler in args.battlers:
        for against in args.opponents:
            gym = same = ours = 0
            all_wins = 0
            for seed in args.seeds:
                chance = chance_of(args.all_games, seed, args.oracle_python)
                full = deckopt_wins(drafter.pick_batch, against, battler, chance["offers"], chance["shuffles"])
                all_wins += int(full.sum())
                for seat in (0, 1):
                    games_ = records[(against, seat, battler, seed)]
                    theirs = np.array([r["winner"] == seat for r in games_])
                    offers = np.array([r["offers"] for r in games_])
                    shuffles = np.array([r["shuffles"] for r in games_])
                    mine = deckopt_wins(drafter.pick_batch, against, battler, offers, shuffles)[seat]
                    gym += int(theirs.sum())
                    ours += int(mine.sum())
                    same += int((theirs == mine).sum())
            n = 2 * args.games * len(args.seeds)
            n_all = 2 * args.all_games * len(args.seeds)
            print(
                f"| {battler} | {against} | {n} | {interval(gym, n)} | {interval(ours, n)} | {same} of {n} "
                f"| {inside(gym, n, ours, n)} | {interval(all_wins, n_all)} | {inside(all_wins, n_all, gym, n)} |"
            )


if __name__ == "__main__":
    main()
