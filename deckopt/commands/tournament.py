"""`deckopt tournament GAME SPEC SPEC ... --games N`: round robin, Elo ratings, win matrix, heatmap."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.tournament import play_tournament, seat_assignments
from deckopt.commands._common import (
    GAME_HELP,
    PANEL_HELP,
    Progress,
    game_config_args,
    game_count,
    make_game,
    print_json,
    seed_int,
)
from games import UserError
from games.fileio import check_writable_dir
from games.folder_lock import folder_lock


def register(sub) -> None:
    p = sub.add_parser(
        "tournament",
        help="round robin between agents: Elo ratings with CIs, win-rate matrix, heatmap",
        description="Every pair of agents plays N games over every seat assignment (chance mirrored); "
        "Bradley-Terry (Elo) ratings with 95 % CIs are fitted and written with the win-rate matrix "
        "(CSV + JSON) and a heatmap PNG. In games with more than two seats (incan_gold) the other "
        "seats are taken by --filler. Specs: random, heuristic, the game's named rule agents (minimax, aggressive, a "
        "plug-in's), mcts:SIMS[,c=..], pretrained, "
        f"or a model file (.npz, .keras) / training run folder; {PANEL_HELP}.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the agents (at least two)")
    p.add_argument("--games", type=game_count, required=True, help="games per pair of agents")
    p.add_argument("--seed", type=seed_int, default=0, help="root seed of every game and agent (default 0)")
    p.add_argument("--out", default=None, help="output folder (default runs/tournament-GAME-TIME)")
    p.add_argument("--filler", default="heuristic", help="agent in the seats a pair leaves free (default heuristic)")
    p.add_argument("--anchor", default=None, metavar="SPEC", help="pin this agent's Elo at 0 (default: mean 0)")
    p.add_argument("--force", action="store_true", help="--out: replace the results of an earlier tournament there")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    game_config_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    if len(args.specs) < 2:
        raise UserError("give at least two agent specs")
    game = make_game(args)
    out = Path(args.out) if args.out else Path("runs") / f"tournament-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    blocks = len(seat_assignments(game.num_players))
    if args.games % blocks:
        print(
            f"deckopt tournament: note: --games {args.games} is not a multiple of the {blocks} seat "
            "assignments; seats are slightly unbalanced",
            file=sys.stderr,
        )
    if args.anchor is not None and args.anchor not in args.specs:
        raise UserError(f"--anchor {args.anchor!r} is not one of the agents ({', '.join(args.specs)})")
    check_writable_dir(out, "output folder (--out)")  # before the games: finished work must have a home
    with folder_lock(out, what="output folder (--out)"), Progress() as progress:
        if (out / "tournament.json").is_file() and not args.force:  # under the lock: one tournament a folder
            raise UserError(
                f"{out} already holds a tournament's results; choose another --out (or --force to replace them)"
            )
        result = play_tournament(
            game, args.specs, args.games, seed=args.seed, filler=args.filler, anchor=args.anchor, progress=progress
        )
        try:
            paths = result.write(out)
        except OSError as exc:  # the folder was fine a moment ago: keep the results on stdout at least
            print(result.table() if not args.json else "", end="" if args.json else "\n")
            if args.json:
                print_json(result.as_dict())
            raise UserError(f"could not write the results to {out}: {exc.strerror} (printed above instead)") from None
    if args.json:
        d = result.as_dict()
        d["out"] = str(out)
        d["files"] = {name: str(path) for name, path in paths.items()}
        print_json(d)
    else:
        print(result.table())
        print(f"wrote {out}/ (win_matrix.csv, win_matrix.json, ratings.csv, tournament.json, heatmap.png)")
    return 0
