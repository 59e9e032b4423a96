"""Print a LOCM `deck_pool` (a TOML line) of decks drafted by the competition's drafters, for training a
battler on the decks that battles are played with (`games.make("locm", deck_pool=...)`):

    python scripts/locm_deck_pool.py --decks 200 --seed 0 > pool.toml

Each drafter of `--drafters` (default: the whole field, random included) drafts `--decks` games from
fresh offers, both seats itself; both seats' decks join the pool, so each drafter gives 2 x `--decks`
decks. The same seed gives the same pool.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from agents.heuristics.locm_field import DRAFTERS, FieldAgent  # noqa: E402
from games.locm import DRAFT  # noqa: E402
from games.locm_batch import LocmBatch  # noqa: E402


def drafted_decks(drafter: str, num_games: int, rng: np.random.Generator) -> list[list[int]]:
    """Both seats' decks (sorted card numbers) of `num_games` drafts by `drafter` on fresh offers."""
    game = games.make("locm")
    agent = FieldAgent(game, np.random.default_rng(rng.integers(2**63)), drafter=drafter, battler="max-attack")
    batch = LocmBatch.deal(game, rng, num_games)
    while True:
        g = np.flatnonzero(batch.phase == DRAFT)
        if not len(g):
            break
        batch.apply_actions(g, agent.act_batch(batch, g))
    return [sorted(batch.picks[k, p].tolist()) for k in range(num_games) for p in (0, 1)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafters", nargs="+", default=list(DRAFTERS), choices=list(DRAFTERS), metavar="NAME")
    parser.add_argument("--decks", type=int, default=200, help="drafts per drafter (two decks each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.decks < 1:
        parser.error("--decks must be at least 1")
    rng = np.random.default_rng(args.seed)
    pool = [deck for name in args.drafters for deck in drafted_decks(name, args.decks, rng)]
    print(f"# {len(pool)} decks: {args.decks} drafts of each of {', '.join(args.drafters)}, seed {args.seed}")
    print("deck_pool = [" + ", ".join(str(d) for d in pool) + "]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
