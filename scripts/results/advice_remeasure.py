"""One change the swap advisor suggests, measured again on fresh seeds.

    python scripts/results/advice_remeasure.py decks/random_1.toml "move 4 power: 5->1, 5->9" --games 1000 --seeds 2 3

CHANGE is a change as `deckopt advise` prints it (one of the deck's neighbours, evolution/advisor.py).
For each seed, the deck and the changed deck play every deck of the field (`--vs`, default
decks/yardstick) `--games` mirrored games on the same deals, as `deckopt advise --check` does for its
top change (there on seed + 1). Prints one Markdown row per seed: both scores and the changed deck's
paired difference with its 95 % interval.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's packages, whatever is installed

from agents.parallel import Mapper  # noqa: E402
from evolution.config import load_config  # noqa: E402
from evolution.designer.advisor import remeasure  # noqa: E402
from evolution.designer.matchups import load_decks  # noqa: E402
from evolution.designer.neighbourhoods import neighbours  # noqa: E402
from evolution.spaces.gwent import build_agent  # noqa: E402
from evolution.spaces.registry import space_for  # noqa: E402
from games.decks import load_deck  # noqa: E402


def remeasured(deck_path: str, change: str, field_paths: list[str], agent_spec: str, games: int, seeds, jobs: int):
    """[(seed, remeasure report)] for the deck's neighbour described by `change`."""
    deck = load_deck(deck_path)
    field, rules = load_decks(field_paths, what="field deck")
    by_text = {c.describe(): c for c in neighbours(deck.cards, deck.rules, None)}
    if change not in by_text:
        raise SystemExit(f"advice_remeasure: {change!r} is not a single-card change of {deck_path}")
    field_cards = [d.cards for d in field]
    out = []
    with Mapper(jobs) as pmap:
        for seed in seeds:
            agent = build_agent(agent_spec, rules, seed=seed)
            config = load_config(game="gwent_lite", rules=rules, seed=seed, validate=False)
            play = space_for(config).matches(agent, pmap, config.games_per_task)
            report = remeasure(deck.cards, by_text[change].cards, field_cards, play, seed, games)
            out.append((seed, report))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deck", metavar="DECK")
    parser.add_argument("change", metavar="CHANGE", help='as deckopt advise prints it, e.g. "move 4 power: 5->1, 5->9"')
    parser.add_argument("--vs", nargs="+", default=["decks/yardstick"], metavar="FIELD")
    parser.add_argument("--agent", default="pretrained", metavar="SPEC")
    parser.add_argument("--games", type=int, default=1000, help="mirrored games per field deck (even)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    rows = remeasured(args.deck, args.change, args.vs, args.agent, args.games, args.seeds, args.jobs)
    print("| seed | games per field deck | deck | changed deck | delta [95 % CI] |")
    print("|---|---|---|---|---|")
    for seed, r in rows:
        lo, hi = r["delta_ci95"]
        print(
            f"| {seed} | {r['games_per_field_deck']} | {r['base']['score']:.3f} | {r['score']:.3f} | "
            f"{r['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] |"
        )


if __name__ == "__main__":
    main()
