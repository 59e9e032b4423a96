"""Small helpers shared by the subcommands (argument types, JSON output, progress bars)."""
from __future__ import annotations

import json
import sys

from games.errors import UserError


def print_json(obj) -> None:
    """Exactly one JSON object on stdout."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def int_at_least(minimum: int):
    """An argparse type: a whole number >= minimum, else a one-line error."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        return value

    return parse


positive_int = int_at_least(1)


def progress_bar(total: int, desc: str, unit: str = "game", disable: bool = False):
    """A tqdm bar on stderr (stdout stays clean for --json)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=disable, dynamic_ncols=True, leave=False)


def game_config_args(parser) -> None:
    """Options shared by commands that make a game."""
    parser.add_argument("--players", type=positive_int, default=None, help="number of players (incan_gold: 3-8)")
    parser.add_argument(
        "--deck",
        action="append",
        default=None,
        metavar="FILE",
        help="gwent_lite deck file; once for every seat in seat order, or once for all (default: random legal decks)",
    )


def make_game(args):
    """games.make from the shared options."""
    import games

    config = {}
    if getattr(args, "players", None) is not None:
        if args.game != "incan_gold":
            raise UserError(f"--players applies to incan_gold only, not {args.game}")
        config["num_players"] = args.players
    if getattr(args, "deck", None):
        if args.game != "gwent_lite":
            raise UserError(f"--deck applies to gwent_lite only, not {args.game}")
        from games.decks import load_deck

        decks = [load_deck(path) for path in args.deck]
        if len(decks) == 1:
            decks = decks * 2
        if len(decks) != 2:
            raise UserError(f"--deck given {len(decks)} times; give it once for all seats or once per seat (2)")
        config["decks"] = [d.cards for d in decks]
        config["rules"] = decks[0].rules
    return games.make(args.game, **config)
