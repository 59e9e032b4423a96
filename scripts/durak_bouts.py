"""How many bouts a Durak game between uniformly random players lasts (the figure in games/RULES.md §6.10).

    python scripts/durak_bouts.py --games 10000 --seed 0

prints, for 2, 3 and 4 players, the mean number of bouts, its standard error, the median and the share of
games that reach the bout limit (a draw).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, whatever is installed

import games  # noqa: E402


def bouts_of_random_games(num_players: int, num_games: int, seed: int) -> list[int]:
    """The bout count of `num_games` random Durak games (every player picks uniformly among its legal actions)."""
    game = games.make("durak", num_players=num_players)
    rng = np.random.default_rng([seed, num_players])
    counts = []
    for _ in range(num_games):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        counts.append(state.bout)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per player count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args(argv)
    limit = games.make("durak").config.max_bouts
    print("players  games  mean bouts  SE     median  at the limit")
    for n in args.players:
        counts = bouts_of_random_games(n, args.games, args.seed)
        mean = statistics.fmean(counts)
        se = statistics.stdev(counts) / len(counts) ** 0.5 if len(counts) > 1 else 0.0
        at_limit = sum(c >= limit for c in counts) / len(counts)
        print(f"{n:7d}  {len(counts):5d}  {mean:10.1f}  {se:5.2f}  {statistics.median(counts):6.0f}  {at_limit:.4f}")


if __name__ == "__main__":
    main()
