"""`deckopt matchups DECK_OR_DIR... [--field DECK_OR_DIR...]`: pairwise scores of decks with CIs."""

from __future__ import annotations

import argparse
import sys

from agents.parallel import Mapper, WorkerFailure
from deckopt.commands._common import MAX_PAIR_TEXT, Progress, pair_games, print_json, seed_int, worker_args
from evolution.designer.matchups import load_decks, play_matchups, ranking_table, write_matchups
from evolution.scoring import fitness as fit
from games.errors import UserError
from games.fileio import check_writable_dir


def register(sub) -> None:
    p = sub.add_parser(
        "matchups",
        help="pairwise score matrix of Gwent Lite decks with CIs; the best deck against your field",
        description="A round robin of the given decks (mirrored games: a cell and its transpose add "
        "up to 1), or, with --field, every deck against every field deck and the decks ranked by "
        "their pooled score against the field (a personal meta). A deck is a deck file, a folder of "
        "deck files or an evolution run folder (its champion and the best decks of its last 3 "
        "generations). Prints the ranking; --out writes matchups.csv, matchups.json and a heatmap "
        "matchups.png.",
    )
    p.add_argument("decks", nargs="+", metavar="DECK_OR_DIR", help="deck files, folders of deck files, run folders")
    p.add_argument("--field", nargs="+", metavar="DECK_OR_DIR", help="the opponents (default: a round robin)")
    p.add_argument(
        "--agent", default="pretrained", metavar="SPEC", help="the agent playing every seat (default pretrained)"
    )
    p.add_argument(
        "--games",
        type=pair_games,
        default=200,
        metavar="N",
        help=f"mirrored games per pair, even, at most {MAX_PAIR_TEXT} (default 200)",
    )
    p.add_argument("--out", metavar="DIR", help="write matchups.csv, matchups.json and matchups.png here")
    p.add_argument("--seed", type=seed_int, default=0, help="root seed of every deal (default 0)")
    worker_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    if args.games % 2:
        raise UserError("--games must be even (mirrored pairs of games)")
    decks, rules = load_decks(args.decks)
    field = None
    if args.field is not None:
        field, field_rules = load_decks(args.field, what="field deck")
        if field_rules != rules:
            raise UserError(f"the field's {field_rules.describe()} differ from the decks' {rules.describe()}")
    elif len(decks) < 2:
        raise UserError("give at least two decks for a round robin, or --field to play one deck against")
    if args.out:
        check_writable_dir(args.out, "output folder (--out)")  # before the games
    agent = fit.build_agent(args.agent, rules, seed=args.seed)
    try:
        with Mapper(args.jobs, task_timeout=args.task_timeout) as pmap, Progress() as bar:
            table = play_matchups(decks, rules, agent, pmap, args.games, args.seed, field, args.agent, progress=bar)
    except WorkerFailure as exc:
        print(f"deckopt matchups: error: {exc}", file=sys.stderr)
        return 1
    paths = write_matchups(table, args.out) if args.out else []
    if args.json:
        print_json({**table.to_json(), "files": [str(p) for p in paths]})
    else:
        print(ranking_table(table))
        for p in paths:
            print(f"wrote {p}")
    return 0
