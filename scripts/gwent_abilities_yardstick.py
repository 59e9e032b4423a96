"""Write the Gwent Abilities yardstick (decks/gwent_abilities/yardstick/) from an independent run.

The yardstick is a fixed field that every generation's best decks are measured against: the best
distinct decks of an evolution run made with its own seed (strong decks of the kind evolution
finds), and random legal decks (the typical deck). As made:

    deckopt evolve --game gwent_abilities --seed 7 --generations 20 --pool 20 --no-validate \\
        --config no_yardstick.toml --out runs/ga_yardstick_src    # no_yardstick.toml: yardstick = []
    python scripts/gwent_abilities_yardstick.py runs/ga_yardstick_src --evolved 6 --random 4

The evolved decks are the run's last generation, best first, repeated decks once, any deck equal to
a reference deck of decks/gwent_abilities skipped (the validation stays held out); the random
decks are `AbilityDeckRules().random_deck(numpy.random.default_rng(2026))`, drawn in order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evolution.spaces.gwent_abilities import REFERENCE_DECKS, YARDSTICK, GwentAbilitiesSpace, names  # noqa: E402
from games.errors import UserError  # noqa: E402
from games.gwent_abilities_cards import CARD_INDEX, AbilityDeck, AbilityDeckRules, save_ability_deck  # noqa: E402


def evolved_decks(run: Path, count: int, held_out: set) -> list[list[str]]:
    """The best distinct decks of `run`'s last generation that are not reference decks."""
    files = sorted((run / "generations").glob("gen_*.json"))
    if not files:
        raise UserError(f"{run}: no generations/gen_*.json (not a deck-evolution run folder)")
    out, seen = [], set(held_out)
    for entry in json.loads(files[-1].read_text())["decks"]:
        key = tuple(sorted(entry["cards"]))
        if key not in seen and len(out) < count:
            seen.add(key)
            out.append(names(key))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the independent evolution run")
    parser.add_argument("--evolved", type=int, default=6, help="decks from the run")
    parser.add_argument("--random", type=int, default=4, help="random legal decks")
    parser.add_argument("--out", type=Path, default=ROOT / YARDSTICK[0], help="the yardstick folder")
    args = parser.parse_args(argv)
    rules = AbilityDeckRules()
    held_out = {r.cards for r in GwentAbilitiesSpace(rules).references([ROOT / p for p in REFERENCE_DECKS])}
    try:
        evolved = evolved_decks(args.run, args.evolved, held_out)
    except UserError as exc:
        print(f"gwent_abilities_yardstick: error: {exc}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(2026)
    drawn = [names(CARD_INDEX[n] for n in rules.random_deck(rng)) for _ in range(args.random)]
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.toml"):
        old.unlink()
    made = [(f"evolved_{i:02d}", d, f"rank {i} of {args.run.name}'s last generation") for i, d in enumerate(evolved, 1)]
    made += [
        (f"random_{i:02d}", d, "AbilityDeckRules().random_deck(default_rng(2026))") for i, d in enumerate(drawn, 1)
    ]
    for name, cards, how in made:
        comment = f"yardstick deck: {how}"
        save_ability_deck(AbilityDeck(cards, rules, name), args.out / f"{name}.toml", comment=comment)
    print(f"{len(made)} decks -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
