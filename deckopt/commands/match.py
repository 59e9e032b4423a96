"""`deckopt match GAME SPEC SPEC [SPEC ...] --games N`: agents against each other, seats rotated."""

from __future__ import annotations

import argparse
import sys

from agents.parallel import Mapper, WorkerFailure
from agents.spec_match import play_spec_match
from deckopt.commands._common import (
    GAME_HELP,
    PANEL_HELP,
    Progress,
    game_config_args,
    game_count,
    make_game,
    print_json,
    seed_int,
    worker_args,
)
from games import UserError


def register(sub) -> None:
    p = sub.add_parser(
        "match",
        help="play agents against each other (seats rotated, chance mirrored)",
        description="Play N games between agents, rotating seats; every block of seat rotations shares one "
        "chance seed so luck is mirrored (a deal). Agent specs: random, heuristic, the game's named rule agents "
        f"(minimax, aggressive, a plug-in's), mcts:SIMS, pretrained, a model path / run folder, or for locm "
        f"native:CMD (a competition bot run as its own process: its timing and lost games print under the table); "
        f"{PANEL_HELP}.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "specs", nargs="+", metavar="SPEC", help="one agent per seat (fewer than the seats: they repeat in turn)"
    )
    p.add_argument("--games", type=game_count, required=True, help="number of games")
    p.add_argument("--seed", type=seed_int, default=0, help="root seed of every game and agent (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    worker_args(p, what="with a native bot: its games shared among ")
    game_config_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    game = make_game(args)
    if args.players is None and game.facts.players is not None and len(args.specs) > game.num_players:
        args.players = len(args.specs)  # a game whose number of players is a setting seats every spec
        game = make_game(args)
    if len(args.specs) > game.num_players:
        raise UserError(f"{args.game} seats {game.num_players} players, got {len(args.specs)} specs")
    try:
        with Mapper(args.jobs, task_timeout=args.task_timeout) as pmap, Progress() as progress:
            result, hosted = play_spec_match(
                game, args.specs, args.games, args.seed, pmap, progress=progress, what=f"match {args.game}"
            )
    except WorkerFailure as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print_json(result.as_dict() | {"hosted": {str(i): stats.as_dict() for i, stats in hosted}})
    else:
        print_table(result, game.num_players)
        for i, stats in hosted:
            print(stats.summary(result.agents[i].spec))
            for line in stats.failures:
                print(line)
    return 0


def print_table(result, num_players: int, out=None) -> None:
    """Results per agent: wins, draws, losses, win rate with 95 % CI, and the win rate per seat, on
    `out` (default: the standard output of the moment)."""
    out = out or sys.stdout
    d = result.as_dict()
    width = max(12, *(len(a["spec"]) for a in d["agents"])) + 2
    print(f"{d['game']}: {d['games']} games, seed {d['seed']}, {result.seconds:.1f} s", file=out)
    seat_cols = "".join(f"  seat {p} win" for p in range(num_players))
    print(
        f"{'agent':<{width}}{'wins':>6}{'draws':>7}{'losses':>8}{'win rate':>10}  {'95% CI':<15}{seat_cols}", file=out
    )
    for a in d["agents"]:
        lo, hi = a["win_rate_ci95"]
        seats = "".join(
            f"{a['by_seat'][str(p)]['win_rate']:>12.3f}" if str(p) in a["by_seat"] else f"{'-':>12}"
            for p in range(num_players)
        )
        print(
            f"{a['spec']:<{width}}{a['wins']:>6}{a['draws']:>7}{a['losses']:>8}{a['win_rate']:>10.3f}  "
            f"[{lo:.3f}, {hi:.3f}] {seats}",
            file=out,
        )
