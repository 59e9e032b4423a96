"""Write the score drafters of the competition's field as drafter files, the form `deckopt evolve
--game locm_drafter --start` and every LOCM agent spec read:

    python scripts/locm_field_drafter_files.py decks/locm/drafters

- `chad.toml`: Chad's per-seat card scores as they are (the same picks as `chad`).
- `coac.toml`: Coac's per-seat rankings, card r of a seat's list scored 1000 - 6 r (the same picks as
  `coac`: its lists for a seat short of creatures are the same as its main lists).

The scores come from agents/pretrained/locm_drafter_scores.json (gym-locm 2.0.0b1, MIT; its licence is
beside it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.heuristics.locm_drafter_file import drafter_toml  # noqa: E402
from agents.heuristics.locm_field import SCORES  # noqa: E402
from games.locm import NUM_CARDS  # noqa: E402

#: the score of a ranked list's card r (0 the best): 1000 down to 46, 6 apart
RANK_STEP = 6


def rank_scores(order: list[int]) -> list[int]:
    """160 scores, card 1 first, of a ranking of the card numbers (best first)."""
    scores = [0] * NUM_CARDS
    for r, number in enumerate(order):
        scores[number - 1] = 1000 - RANK_STEP * r
    return scores


def drafter_files() -> dict[str, str]:
    """{file name: drafter file text} of the field's score drafters."""
    source = "agents/pretrained/locm_drafter_scores.json (gym-locm 2.0.0b1, MIT)"
    return {
        "chad.toml": drafter_toml(
            "chad", [list(row) for row in SCORES["chad"]], f"Chad's per-seat card scores, from {source}"
        ),
        "coac.toml": drafter_toml(
            "coac",
            [rank_scores(order) for order in SCORES["coac"]],
            f"Coac's per-seat rankings, card r scored 1000 - {RANK_STEP} r, from {source}",
        ),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where the drafter files go")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    for name, text in drafter_files().items():
        (args.folder / name).write_text(text)
        print(f"wrote {args.folder / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
