"""Print a `deck_pool` (a TOML line) from the decks that deck-evolution runs explored, each deck as its
game's settings name one (the space's `game_deck`: Gwent Lite's card powers, Gwent Abilities' card
names); `--game` names the runs' game (default: the default deck game).

A training recipe that fine-tunes an agent on the decks evolution visits (not only on random legal
decks) takes its pool from runs made with other seeds than the run it will judge:

    python scripts/training_pool.py runs/ev_s1 runs/ev_s2 runs/ev_s3 --generations 10 20 29 \\
        --decks decks/ancestor decks > pool.toml

    python scripts/training_pool.py runs/ga_s1 runs/ga_s2 runs/ga_s3 --game GAME \\
        --generations 10 20 29 --decks decks/GAME > pool.toml

The pool holds each named generation's population, each run's hall of fame and champion, and every
deck file under the `--decks` folders; repeated decks appear once, sorted, so the same runs give
the same pool.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evolution.config import load_config  # noqa: E402
from evolution.decks.base import canonical  # noqa: E402
from evolution.decks.settings_registry import DEFAULT_GAME, SETTINGS  # noqa: E402
from evolution.spaces.registry import space_for  # noqa: E402
from games.errors import UserError  # noqa: E402


def run_decks(run: Path, generations: list[int]) -> list[list[int]]:
    """The decks of `run`: the populations of `generations` (the last one where a number is past
    the run's end), the hall of fame and the champion."""
    files = sorted((run / "generations").glob("gen_*.json"))
    if not files:
        raise UserError(f"{run}: no generations/gen_*.json (not a deck-evolution run folder)")
    decks = []
    for g in generations:
        path = run / "generations" / f"gen_{g:04d}.json"
        for entry in json.loads((path if path.exists() else files[-1]).read_text())["decks"]:
            decks.append(entry["cards"])
    for name in ("hall_of_fame.json", "champion.json"):
        path = run / name
        if path.exists():
            data = json.loads(path.read_text())
            decks.extend(e["cards"] for e in (data if isinstance(data, list) else [data]))
    return decks


def pool(space, runs: list[Path], generations: list[int], folders: list[Path]) -> list[tuple]:
    """The runs' decks and the deck files of the folders, each legal under the space's default rules,
    as the game's settings name a deck, once each, sorted."""
    decks = [d for run in runs for d in run_decks(run, generations)]
    decks += [space.read_deck(p)[1] for folder in folders for p in sorted(folder.glob("*.toml"))]
    out = set()
    for cards in decks:
        problems = space.problems(cards)
        if problems:
            raise UserError(f"pool deck is illegal: {problems[0]}")
        out.add(tuple(space.game_deck(canonical(space, cards))))
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="deck-evolution run folders")
    parser.add_argument("--generations", nargs="+", type=int, default=[29], help="populations to take")
    parser.add_argument("--decks", nargs="*", type=Path, default=[], help="deck folders to add")
    games_with_pools = [s.game for s in SETTINGS.values() if s.head_to_head]
    parser.add_argument("--game", choices=games_with_pools, default=DEFAULT_GAME, help="the runs' game")
    args = parser.parse_args(argv)
    try:
        decks = pool(space_for(load_config(game=args.game)), args.runs, args.generations, args.decks)
    except (UserError, OSError, KeyError, IndexError, json.JSONDecodeError) as err:
        print(f"training_pool: {err}", file=sys.stderr)
        return 2
    print(f"# {len(decks)} decks: {' '.join(map(str, args.runs))}; generations {args.generations}")
    print("deck_pool = [")
    for deck in decks:
        print(f"    {json.dumps(list(deck))},")
    print("]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
