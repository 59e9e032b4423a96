"""A LOCM battler (a model, a panel or a field battler) against the field's battlers, on the decks of
each of the competition's drafters: for each drafter, fresh drafts by that drafter on both seats (a
deck_pool the battle deals from), then games against each opponent with seats mirrored (each deal
played twice, the decks and shuffles swapped between the seats). Prints one Markdown table: the win
rate on each drafter's decks and over all of them, each with its 95 % interval (Wilson), and the
games per second of the agent against itself beside the first opponent against itself, on the same
decks in one process: `--speed-rounds` rounds of `--speed-games` games each, the two timed in turn
within a round, with the medians over the rounds of each one's games/s and of the rounds' ratios.

    python scripts/results/locm_battler.py --agent agents/pretrained/locm_0.npz --games 1000

The drafts come from `--seed` (keep it apart from the training pool's seed, 1 in
agents/pretrained/locm_afterstate.toml); the games from `--seed` too.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import games  # noqa: E402
from agents.arena import play_match  # noqa: E402
from agents.heuristics.locm_field import DRAFTERS, draft_decks  # noqa: E402
from agents.stats import Record  # noqa: E402
from games.errors import UserError  # noqa: E402


def fmt(record: Record) -> str:
    lo, hi = record.ci95
    return f"{record.win_rate:.3f} [{lo:.3f}, {hi:.3f}]"


def speed(game, spec: str, games_count: int, seed: int) -> float:
    """Games per second of `spec` against itself in one process."""
    one, two = agents.make_panel(spec, game, seed), agents.make_panel(spec, game, seed + 1)
    t0 = time.perf_counter()
    play_match(game, [one, two], games_count, seed=seed)
    return games_count / (time.perf_counter() - t0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="the battler: a model, a panel (comma list) or a field name")
    parser.add_argument("--opponents", nargs="+", default=["greedy", "max-attack"], metavar="SPEC")
    parser.add_argument("--drafters", nargs="+", default=list(DRAFTERS), choices=list(DRAFTERS), metavar="NAME")
    parser.add_argument("--drafts", type=int, default=200, help="drafts per drafter (two decks each)")
    parser.add_argument("--games", type=int, default=1000, help="games per drafter and opponent (even)")
    parser.add_argument("--speed-games", type=int, default=200, help="games timed for games/s (0: no timing)")
    parser.add_argument("--speed-rounds", type=int, default=5, help="rounds of timing, the two battlers in turn")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2 or args.drafts < 1:
        parser.error("--games must be even and at least 2, --drafts at least 1")
    rng = np.random.default_rng(args.seed)
    pools = {d: draft_decks(games.make("locm"), d, args.drafts, rng) for d in args.drafters}
    try:
        totals = {o: Record() for o in args.opponents}
        print(
            f"{args.agent} against {', '.join(args.opponents)}: {args.games} games a drafter, seats mirrored, "
            f"{args.drafts} drafts a drafter, seed {args.seed}\n"
        )
        print("| drafter | " + " | ".join(f"vs {o}" for o in args.opponents) + " |")
        print("|---" * (len(args.opponents) + 1) + "|")
        for drafter, pool in pools.items():
            game = games.make("locm", deck_pool=pool)
            cells = []
            for k, opponent in enumerate(args.opponents):
                me = agents.make_panel(args.agent, game, args.seed)
                them = agents.make_panel(opponent, game, args.seed + 1)
                result = play_match(game, [me, them], args.games, seed=args.seed + k)
                totals[opponent] = totals[opponent] + result.agents[0].record
                cells.append(fmt(result.agents[0].record))
            print(f"| {drafter} | " + " | ".join(cells) + " |", flush=True)
        print("| **all** | " + " | ".join(f"**{fmt(totals[o])}**" for o in args.opponents) + " |")
        if args.speed_games:
            game = games.make("locm", deck_pool=[d for pool in pools.values() for d in pool])
            rounds = [
                (
                    speed(game, args.agent, args.speed_games, args.seed),
                    speed(game, args.opponents[0], args.speed_games, args.seed),
                )
                for _ in range(max(1, args.speed_rounds))
            ]
            mine, theirs = (float(np.median([r[i] for r in rounds])) for i in (0, 1))
            ratios = [a / b for a, b in rounds]
            print(
                f"\ngames/s against itself, one process, {args.speed_games} games, median of {len(rounds)} rounds: "
                f"{args.agent} {mine:.1f}, {args.opponents[0]} {theirs:.1f} (ratio {np.median(ratios):.2f}, "
                f"rounds {min(ratios):.2f} to {max(ratios):.2f})"
            )
    except UserError as exc:
        print(f"locm_battler: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
