"""`deckopt report RUN`: write the run's self-contained report.html."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.parallel import Mapper, WorkerFailure
from deckopt.commands._common import JOBS_HELP, Progress, int_at_least, job_count, pair_games_or_none
from evolution.designer.html_report import MATCHUPS_NAME, write_report
from evolution.runfolder import RunFolder
from evolution.spaces.registry import space_for
from games.errors import UserError
from games.folder_lock import folder_lock
from games.schema import read_data

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

    if args.matchups % 2:
        raise UserError("--matchups must be even (mirrored pairs of games)")
    if args.agent is not None and not args.matchups:
        raise UserError("--agent is the agent of --matchups N; give --matchups too")
    if args.matchups:
        _check_matchups_to_play(args)
    folder = RunFolder(args.run)
    folder.check_existing()
    space = space_for(folder.read_config())
    try:
        config = folder.read_config()
        with folder_lock(args.run, what="run folder", create=False), Progress() as bar:
            with Mapper(args.jobs, task_timeout=config.task_timeout) as pmap:
                path = write_report(args.run, space, args.matchups, args.agent, pmap, progress=bar, log=bar.log)
    except WorkerFailure as exc:
        print(f"deckopt report: error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


def _check_matchups_to_play(args) -> None:
    """The run folder's matchups.json is shown as it is: refused in one line when --matchups or
    --agent ask for other ones than it holds (they would be silently ignored)."""
    folder = RunFolder(args.run)
    folder.check_existing()
    config = folder.read_config()
    if not config.settings.validation_panel:
        other = f"deckopt matchups --game {config.game} {args.run} OPPONENT..."
        plays = callable(getattr(space_for(config), "matches", None))  # its decks play each other
        raise UserError(
            f"--matchups plays the run's decks against its validation decks, and this {config.game} run has none"
            + (f"; `{other}` plays them against any you name" if plays else "")
        )
    path = Path(args.run) / MATCHUPS_NAME
    if not path.is_file():
        return
    held = read_data(path, "matchups file", inside=args.run)
    held = (held.get("agent"), held.get("games_per_pair")) if isinstance(held, dict) else None
    asked = (args.agent or config.agent, args.matchups)
    if held != asked:
        had = f"agent {held[0]!r}, {held[1]} games per pair" if held else "unreadable matchups"
        raise UserError(
            f"{path} holds {had}, not agent {asked[0]!r}, {asked[1]} games per pair; delete it to play those"
        )
