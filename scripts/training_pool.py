"""Print a `deck_pool` (a TOML line) from the decks that deck-evolution runs explored: Gwent Lite decks
(card powers), or with `--game gwent_abilities` Gwent Abilities decks (card names).

A training recipe that fine-tunes an agent on the decks evolution visits (not only on random legal
decks) takes its pool from runs made with other seeds than the run it will judge:

    python scripts/training_pool.py runs/ev_s1 runs/ev_s2 runs/ev_s3 --generations 10 20 29 \\
        --decks decks/ancestor decks > pool.toml

    python scripts/training_pool.py runs/ga_s1 runs/ga_s2 runs/ga_s3 --game gwent_abilities \\
        --generations 10 20 29 --decks decks/gwent_abilities > pool.toml

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

from games.decks import DeckRules, load_deck  # noqa: E402
from games.errors import UserError  # noqa: E402
from games.gwent_abilities_cards import CARDS, AbilityDeckRules, load_ability_deck  # noqa: E402


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


def folder_decks(folder: Path) -> list[list[int]]:
    return [list(load_deck(p).cards) for p in sorted(folder.glob("*.toml"))]


def ability_pool(runs: list[Path], generations: list[int], folders: list[Path]) -> list[tuple[str, ...]]:
    """The Gwent Abilities pool: a run's decks (indices into the card pool) and the deck files of the
    folders (card names), each as its card names in pool order, legal under the default rules."""
    rules = AbilityDeckRules()
    decks = [[CARDS[k].name for k in d] for run in runs for d in run_decks(run, generations)]
    decks += [load_ability_deck(p).cards for folder in folders for p in sorted(folder.glob("*.toml"))]
    return sorted({tuple(rules.validate(d, what="pool deck")) for d in decks})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="deck-evolution run folders")
    parser.add_argument("--generations", nargs="+", type=int, default=[29], help="populations to take")
    parser.add_argument("--decks", nargs="*", type=Path, default=[], help="deck folders to add")
    parser.add_argument("--game", choices=["gwent_lite", "gwent_abilities"], default="gwent_lite")
    args = parser.parse_args(argv)
    rules = DeckRules()
    try:
        if args.game == "gwent_abilities":
            pool = ability_pool(args.runs, args.generations, args.decks)
        else:
            decks = [d for run in args.runs for d in run_decks(run, args.generations)]
            decks += [d for folder in args.decks for d in folder_decks(folder)]
            pool = sorted({tuple(rules.validate(d, what="pool deck")) for d in decks})
    except (UserError, OSError, KeyError, IndexError, json.JSONDecodeError) as err:
        print(f"training_pool: {err}", file=sys.stderr)
        return 2
    print(f"# {len(pool)} decks: {' '.join(map(str, args.runs))}; generations {args.generations}")
    print("deck_pool = [")
    for deck in pool:
        print(f"    {json.dumps(list(deck))},")
    print("]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
