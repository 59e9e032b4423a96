"""Time per move of plain and pruned MCTS on the same positions, game by game (the pruning page's table).

    python scripts/results/pruning_timing.py --positions 30 --seed 0

For each game, `agents.pruning.timing.time_per_move`: `--positions` decisions of random self-play
drawn from `--seed`, every spec searching every position with the same search seed. Prints one Markdown
row per game: each spec's median CPU seconds per move.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's packages, whatever is installed

import games  # noqa: E402
from agents.pruning.timing import time_per_move  # noqa: E402

GAMES = {
    "Gwent Lite": ("gwent_lite", {}),
    "Durak 2 p.": ("durak", {"num_players": 2}),
    "Exploding Kittens (paper deck)": ("exploding_kittens", {"preset": "paper"}),
}
VARIANTS = ["", ",prune=uniform", ",prune=bimodal", ",prune=uniform,soft=1"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--iterations", type=int, default=300, help="MCTS iterations a move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), metavar="GAME")
    args = parser.parse_args(argv)
    specs = [f"mcts:{args.iterations}{v}" for v in VARIANTS]
    print("| game | plain | prune=uniform | prune=bimodal | prune=uniform,soft=1 |")
    print("|---|---|---|---|---|")
    for label in args.games:
        name, settings = GAMES[label]
        times = time_per_move(games.make(name, **settings), specs, args.positions, args.seed)
        cells = [f"{times[spec]['median_s']:.3f} s" for spec in specs]
        print(f"| {label} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
