"""`deckopt check GAME [--games N]`: the conformance suite on a game, one verdict line per check."""

from __future__ import annotations

import argparse

from agents.conformance import check_facts
from deckopt.commands._common import GAME_HELP, game_config_args, game_count, make_game, print_json
from evolution.spaces.check import check_deck_space
from evolution.spaces.registry import spaces_of_game
from games.conformance import FAILED, SKIPPED, run_checks

MARKS = {"passed": "ok  ", "failed": "FAIL", "skipped": "skip"}


def register(sub) -> None:
    p = sub.add_parser(
        "check",
        help="check that a game keeps the promises of the game interface",
        description="Run the conformance suite on a game (ours, an installed plug-in, or package.module:Class) "
        "over random games: invariants at every step, cards conserved, illegal actions refused, same seed "
        "same game, clone, pickle, hidden information, batch views, a vectorised engine stepped beside the game "
        "(its rare rules reached), the game's facts and rule agents (each named "
        "rule agent plays legal games; the default agent and eval's opponents are made), and the deck space's "
        "operators where "
        "decks evolve. One line per check; exit 1 if any check fails.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--games", type=game_count, default=100, help="random games per check (default 100)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of the verdicts")
    game_config_args(p)
    p.set_defaults(func=run)


def verdict(result) -> str:
    line = f"{MARKS[result.status]}  {result.name}"
    return f"{line}: {result.detail}" if result.detail else line


def run(args: argparse.Namespace) -> int:

    game = make_game(args)
    say = (lambda line: None) if args.json else (lambda line: print(line, flush=True))

    def shown(result) -> None:  # with --debug, a crash's whole traceback under its verdict
        say(verdict(result) + (f"\n{result.trace.rstrip()}" if args.debug and result.trace else ""))

    say(f"deckopt check {args.game}: {args.games} random games per check")
    results = run_checks(game, args.games, on_result=shown)
    results.append(check_facts(game, args.games))
    shown(results[-1])
    for space in spaces_of_game(game):
        results.append(check_deck_space(space, args.games, name=None if space.name == game.name else space.name))
        shown(results[-1])
    failed = [r.name for r in results if r.status == FAILED]
    if args.json:
        checks = [{"name": r.name, "status": r.status, "detail": r.detail} for r in results]
        print_json({"game": args.game, "games": args.games, "passed": not failed, "checks": checks})
        return 1 if failed else 0
    if failed:
        print(f"{len(failed)} of {len(results)} checks failed: {', '.join(failed)}")
        return 1
    skipped = [r.name for r in results if r.status == SKIPPED]
    if skipped:
        print(f"{len(results) - len(skipped)} checks passed, {len(skipped)} skipped: {', '.join(skipped)}")
    else:
        print(f"all {len(results)} checks passed")
    return 0
