"""Print a LOCM `deck_pool` (a TOML line) of decks drafted by the competition's drafters, for training a
battler on the decks that battles are played with (`games.make("locm", deck_pool=...)`):

    python scripts/locm_deck_pool.py --decks 200 --seed 0 > pool.toml

Each drafter of `--drafters` (default: the whole field, random included) drafts `--decks` games from
fresh offers, both seats itself; both seats' decks join the pool, so each drafter gives 2 x `--decks`
decks. The same seed gives the same pool.

With `--files DIR` the decks are written as deck files instead (games.deckfile's, which `deckopt match
locm --deck` and the locm_constructed deck space read), one folder per drafter: DIR/DRAFTER/K.toml.
The reference decks of the locm_constructed space are made so:

    python scripts/locm_deck_pool.py --decks 1 --seed 1 --files decks/locm/yardstick
    python scripts/locm_deck_pool.py --decks 2 --seed 2 --files decks/locm/field
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from agents.heuristics.locm_field import DRAFTERS, draft_decks  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafters", nargs="+", default=list(DRAFTERS), choices=list(DRAFTERS), metavar="NAME")
    parser.add_argument("--decks", type=int, default=200, help="drafts per drafter (two decks each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--files", metavar="DIR", help="write deck files DIR/DRAFTER/K.toml instead of a pool")
    args = parser.parse_args(argv)
    if args.decks < 1:
        parser.error("--decks must be at least 1")
    rng = np.random.default_rng(args.seed)
    game = games.make("locm")
    drafted = {name: draft_decks(game, name, args.decks, rng) for name in args.drafters}
    if args.files:
        for name, decks in drafted.items():
            folder = Path(args.files) / name
            folder.mkdir(parents=True, exist_ok=True)
            for k, deck in enumerate(decks, 1):
                seat = "first" if k % 2 else "second"
                (folder / f"{k}.toml").write_text(
                    f"# drafted by {name} in the {seat} seat on fresh offers: scripts/locm_deck_pool.py "
                    f"--decks {args.decks} --seed {args.seed} --files {args.files}\n"
                    f'name = "{name} {k}"\ncards = {deck}\n'
                )
        print(f"wrote {sum(map(len, drafted.values()))} deck files under {args.files}")
        return 0
    pool = [deck for decks in drafted.values() for deck in decks]
    print(f"# {len(pool)} decks: {args.decks} drafts of each of {', '.join(args.drafters)}, seed {args.seed}")
    print("deck_pool = [" + ", ".join(str(d) for d in pool) + "]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
