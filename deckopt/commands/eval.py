"""`deckopt eval GAME SPEC [--vs SPEC ...] --games N [--seed S] [--json]`: one agent against baselines."""

from __future__ import annotations

import argparse
import time

from agents.evaluate import default_opponents, evaluate_spec, format_report
from deckopt.commands._common import (
    GAME_HELP,
    PANEL_HELP,
    Progress,
    game_config_args,
    game_count,
    int_at_least,
    make_game,
    print_json,
    seed_int,
)


def register(sub) -> None:
    p = sub.add_parser(
        "eval",
        help="evaluate one agent against baselines (seats rotated, 95%% CIs)",
        description="Play the agent SPEC against each --vs opponent, N games each with seats rotated (in games "
        "of 3+ players the opponent fills every other seat): wins, draws and losses overall and per seat with "
        "95 % Wilson intervals. A game whose facts say exact_exploitability (Tic Tac Toe) adds the exact "
        "exploitability of a deterministic agent (a best response searched over every opponent move). Specs: "
        "random, heuristic, the game's named rule agents (minimax, aggressive, a plug-in's), mcts:SIMS, "
        f"pretrained, or a model path / run folder; {PANEL_HELP}.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("spec", metavar="SPEC", help="the agent to evaluate")
    p.add_argument(
        "--vs",
        action="append",
        metavar="SPEC",
        default=None,
        help="an opponent (repeatable; default: the game's eval_opponents fact: random and heuristic, plus "
        "minimax for tic_tac_toe)",
    )
    p.add_argument("--games", type=game_count, required=True, help="games against each opponent")
    p.add_argument("--seed", type=seed_int, default=0, help="root seed of every game and agent (default 0)")
    p.add_argument(
        "--perfect",
        type=int_at_least(1, 100_000),
        default=0,
        metavar="N",
        help="also check against perfect play, as the game's perfect_play fact says: solved_positions (connect_four), "
        "N positions solved exactly (does the move keep the outcome?); exact_opponent (Exploding Kittens with --set "
        "open_hands=true), N games against exact and the value the agent's decisions give up (its shortfall from "
        "the game value); at most 100 000",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    game_config_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    game = make_game(args)
    vs = args.vs or default_opponents(game)
    t0 = time.perf_counter()
    with Progress() as progress:
        report = evaluate_spec(game, args.spec, vs, args.games, seed=args.seed, progress=progress, perfect=args.perfect)
    if args.json:
        print_json(report)
    else:
        print(format_report(report, time.perf_counter() - t0))
    return 0
