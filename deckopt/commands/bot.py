"""`deckopt bot locm SPEC`: a deckopt agent as a LOCM competition bot on stdin and stdout."""

from __future__ import annotations

import argparse
import sys

from agents import SPEC_HELP, make_panel
from agents.locm_bot import RefereeBot
from deckopt.commands._common import seed_int
from games import make


def register(sub) -> None:
    p = sub.add_parser(
        "bot",
        help="play a LOCM agent as a competition bot (the referee's protocol on stdin and stdout)",
        description="Play one game of Legends of Code and Magic 1.2 as a bot of the Strategy Card Game AI "
        "Competition: read each turn's input of the referee on stdin, answer it on stdout (PICK n in the draft, "
        "the battle's commands joined by ';'), until stdin ends. The agent drafts with its drafting and battles "
        "with its battle policy; what it cannot see (the opponent's hand and deck, both decks' order) is drawn "
        "from --seed. Host it as native:'deckopt bot locm SPEC' or in the competition's referee.",
    )
    p.add_argument("game", choices=["locm"], help="the game: locm")
    p.add_argument("spec", metavar="SPEC", help=f"the agent: {SPEC_HELP}")
    p.add_argument(
        "--seed", type=seed_int, default=0, help="seed of the agent's draws and of a panel's member (default 0)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = make(args.game)
    bot = RefereeBot(make_panel(args.spec, game, seed=args.seed), seed=args.seed)

    def write(reply: str) -> None:
        sys.stdout.write(reply)
        sys.stdout.flush()

    bot.play(sys.stdin, write)
    return 0
