"""`deckopt report RUN`: write the run's self-contained report.html."""

from __future__ import annotations

import argparse
import sys

from deckopt.commands._common import JOBS_HELP, Progress, int_at_least, job_count, pair_games_or_none

_non_negative = int_at_least(0)


def register(sub) -> None:
    p = sub.add_parser(
        "report",
        help="write an evolution run's self-contained HTML report (report.html in the run folder)",
        description="One page per run, viewable offline: config, fitness over generations, the best "
        "deck of every generation, the yardstick, the champion and its validation, matchups (if the "
        "run folder has matchups.json, or played now with --matchups N) and the archive.",
    )
    p.add_argument("run", metavar="RUN", help="an evolution run folder (runs/NAME)")
    p.add_argument(
        "--matchups",
        type=pair_games_or_none,
        default=0,
        metavar="N",
        help="play the run's decks against its validation decks first, N games per pair (even; default 0: no)",
    )
    p.add_argument("--agent", metavar="SPEC", help="--matchups: the agent (default: the run's)")
    p.add_argument("--jobs", type=job_count, default=1, metavar="J", help=f"--matchups: {JOBS_HELP} (default 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from evolution.html_report import write_report
    from evolution.parallel import WorkerFailure
    from games.errors import UserError

    if args.matchups % 2:
        raise UserError("--matchups must be even (mirrored pairs of games)")
    try:
        with Progress() as bar:
            path = write_report(args.run, args.matchups, args.agent, args.jobs, progress=bar, log=bar.log)
    except WorkerFailure as exc:
        print(f"deckopt report: error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0
