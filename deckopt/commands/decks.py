"""`deckopt decks RUN`: the best decks of an evolution run; export the champion; validate it."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from agents.parallel import Mapper, WorkerFailure
from deckopt.commands._common import (
    JOBS_HELP,
    Progress,
    count,
    int_at_least,
    job_count,
    pair_games,
    pair_games_or_none,
    print_json,
    seed_int,
)
from evolution.archive.archetypes import DEFAULT_DISTANCE, DEFAULT_SCREEN, archetypes_report, archetypes_table
from evolution.archive.results import best_elite_cards, elites_table
from evolution.designer.cards import cards_report, cards_table
from evolution.designer.html_report import run_matchups
from evolution.designer.matchups import ranking_table
from evolution.designer.report import check_export_path, decks_report, export_deck
from evolution.designer.tables import decks_table, validation_table
from evolution.runfolder import Run
from evolution.spaces.registry import space_for
from games.errors import UserError
from games.fileio import atomic_write_json, check_writable_dir, resolve_path
from games.folder_lock import folder_lock

_non_negative = int_at_least(0)


def register(sub) -> None:
    p = sub.add_parser(
        "decks",
        help="show the best decks of an evolution run, export or validate its champion",
        description="Print the best deck of every generation of an evolution run (powers as "
        "COUNTxPOWER, total, cards, fitness with 95% CI and, where measured, the score against the fixed "
        "yardstick: the column comparable across generations), or the top K of one generation. "
        "--export writes the champion (or --generation N's best) as a deck file that match, play "
        "and evolve --panel accept. --validate plays it against the reference decks with fresh seeds; for a "
        "run of decks judged alone (compositions) it measures the champion and the best decks again with fresh "
        "seeds and prints their exact values (open hands) beside the agent's estimates (validation_exact.json).",
    )
    p.add_argument("run", metavar="RUN", help="an evolution run folder (runs/NAME)")
    p.add_argument("--generation", type=_non_negative, metavar="N", help="only generation N (its top 10 unless --top)")
    p.add_argument(
        "--top",
        type=count,
        metavar="K",
        help="the K best decks of each generation shown (default 1; 10 with --generation)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument(
        "--archive",
        action="store_true",
        help="the elites of an archive (MAP-Elites) run, best first by pooled fitness, with their niches and the "
        "best elite's re-measurement; with --validate: validate the best elite instead of the champion",
    )
    p.add_argument(
        "--archetypes",
        type=int,
        metavar="K",
        help="an archive run's archetypes: up to K elites far apart in descriptor space, best first by every "
        "elite's screening against the run's yardstick, measured again against it (fresh seeds) and against each "
        "other in a round robin; written to archetypes.json in the run folder",
    )
    p.add_argument(
        "--screen-games",
        type=pair_games_or_none,
        default=DEFAULT_SCREEN,
        metavar="N",
        help=f"--archetypes: every elite's games against each yardstick deck before the archetypes are chosen, even "
        f"(default {DEFAULT_SCREEN}; 0: choose by pooled fitness)",
    )
    p.add_argument(
        "--archetype-distance",
        type=float,
        default=DEFAULT_DISTANCE,
        metavar="D",
        help="--archetypes: the least distance between two archetypes' descriptors, each scaled to 0..1 over its "
        f"range (default {DEFAULT_DISTANCE:g})",
    )
    p.add_argument(
        "--cards",
        nargs="*",
        metavar="RUN",
        help="which cards the strong decks play: each card's share of the run's hall of fame and archive elites (and "
        "of those of the further runs named, of the same game and deck rules) beside its share of 1000 random decks",
    )
    p.add_argument(
        "--export", metavar="FILE", help="write the champion (or generation N's best) as a deck file (.toml or .json)"
    )
    p.add_argument("--force", action="store_true", help="--export: replace an existing deck file")
    p.add_argument(
        "--validate", action="store_true", help="play the champion (or generation N's best) against the reference decks"
    )
    p.add_argument(
        "--panel",
        action="append",
        metavar="FILE|DIR",
        help="reference decks for --validate (default: the run's, decks/ and decks/ancestor/)",
    )
    p.add_argument(
        "--games",
        type=pair_games,
        metavar="N",
        help="--validate: games against each reference deck, even (default: the run's, 2000 in new runs); "
        "--archetypes: games against each yardstick deck and per pair of archetypes, even (default: the run's "
        "playoff_games_per_pair)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        help="--validate: seed (default: the run's seed + 1, fresh against the end-of-run validation); "
        "--archetypes: seed (default: the run's; the games have a seed stage of their own)",
    )
    p.add_argument(
        "--matchups",
        type=pair_games,
        metavar="N",
        help="decks that play each other: the champion and the last generations' best decks against the reference "
        "decks, "
        "N games per pair (even), and write matchups.csv/json/png into the run folder",
    )
    p.add_argument("--agent", metavar="SPEC", help="--validate/--matchups/--archetypes: the agent (default: the run's)")
    p.add_argument(
        "--baseline",
        metavar="RUN|FILE",
        help="--validate: another run's champion (or a deck file) played on the same deals; adds the paired "
        "difference, champion minus baseline",
    )
    p.add_argument(
        "--jobs",
        type=job_count,
        metavar="J",
        help=f"--validate, --matchups, --archetypes: {JOBS_HELP} (default: the run's)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r = Run(args.run, args.generation)
    space = space_for(r.config)
    if args.export:  # before any work: a path that cannot take the deck is refused now
        if Path(args.export).is_file() and not args.force:
            raise UserError(
                f"deck file {args.export!r} already exists; choose another name or pass --force to replace it"
            )
        check_export_path(args.export, args.force)
    if (args.validate or args.archetypes is not None) and args.games is not None and args.games % 2:
        raise UserError("--games must be even (mirrored pairs of games)")
    exact = not space.Settings.head_to_head  # its decks are validated alone, into validation_exact.json
    if args.matchups is not None or (args.validate and exact):
        check_writable_dir(r.folder.path, "run folder")  # written after the games: proven writable first
    if args.matchups is not None and (args.matchups % 2 or exact or not r.config.settings.validation_panel):
        raise UserError("--matchups takes an even number of games and a run whose decks play reference decks")
    if args.agent is not None and not (args.validate or args.matchups or args.archetypes is not None):
        raise UserError("--agent applies to --validate, --matchups and --archetypes (the games it plays)")
    # reading a run (even one still going) takes no lock; writing into it takes the folder's
    writes = args.matchups is not None or args.archetypes is not None or (args.validate and exact)
    with folder_lock(r.folder.path, create=False) if writes else contextlib.nullcontext():
        return _inspect(r, space, args)


def _inspect(r, space, args: argparse.Namespace) -> int:
    """The run's decks, and what the flags ask of them (export, validate, matchups, archetypes, archive, cards)."""
    if args.cards is not None:
        report = cards_report([r, *(Run(path) for path in args.cards)], space, seed=r.config.seed)
        print_json(report) if args.json else print(cards_table(report))
        return 0
    if args.archetypes is not None:
        return _archetypes(r, space, args)
    if args.archive:
        return _archive(r, space, args)
    report = decks_report(r, space, args.generation, args.top)
    out = dict(report)
    notes = []
    if args.export:
        cards, how = export_deck(r, space, args.export, args.generation, force=args.force)
        out["export"] = {"path": args.export, "cards": cards, "how": how}
        notes.append(f"wrote {args.export}: {how}")
    if args.validate:
        try:
            out["validation"] = _validate(r, space, args, r.champion(args.generation))
        except WorkerFailure as exc:
            print(f"deckopt decks: error: {exc}", file=sys.stderr)
            return 1
        notes.append(validation_table(out["validation"], space))
    if args.matchups:
        jobs = args.jobs or r.config.jobs
        with Progress(enabled=not args.json) as bar, Mapper(jobs, task_timeout=r.config.task_timeout) as pmap:
            table = run_matchups(r.folder, args.matchups, pmap, args.agent, bar)
        out["matchups"] = table.to_json()
        notes.append(ranking_table(table) + f"\nwrote matchups.csv, matchups.json, matchups.png in {r.folder.path}")
    if args.json:
        print_json(out)
    else:
        print(decks_table(report, space))
        for n in notes:
            print(n)
    return 0


def _archive_json(r) -> dict:
    """The run's archive.json; UserError if the run kept no archive."""
    path = r.folder.path / "archive.json"
    if not path.is_file():
        raise UserError(f"run {str(r.folder.path)!r} has no archive (evolve it with --archive)")
    return r.folder.read_archive()


def _archetypes(r, space, args) -> int:
    """The run's archetypes (evolution.archive.archetypes) as a table or JSON, and archetypes.json."""
    data = _archive_json(r)
    check_writable_dir(r.folder.path, "run folder")  # written after the games: proven writable first
    config = r.config.replace(agent=args.agent, seed=args.seed, jobs=args.jobs)
    games = args.games or r.config.settings.playoff_games_per_pair
    try:
        with Progress(enabled=not args.json) as bar, Mapper(config.jobs, task_timeout=config.task_timeout) as pmap:
            report = archetypes_report(
                data, space, config, args.archetypes, args.archetype_distance, games, pmap, args.screen_games, bar
            )
    except WorkerFailure as exc:
        print(f"deckopt decks: error: {exc}", file=sys.stderr)
        return 1
    report = {"run": r.name, **report}
    atomic_write_json(r.folder.path / "archetypes.json", report)
    if args.json:
        print_json(report)
    else:
        print(f"{archetypes_table(report)}\nwrote {r.folder.path / 'archetypes.json'}")
    return 0


def _archive(r, space, args) -> int:
    """The elites (archive.json without the past games kept for resuming); with --validate, the best
    elite validated as `--validate` validates the champion (same reference decks, games and seed)."""
    data = _archive_json(r)
    for e in data["entries"]:
        e.pop("past_scores", None)
    out, notes = dict(data), []
    if args.validate:
        if not space.Settings.head_to_head:
            raise UserError("--archive --validate takes a run whose decks play reference decks")
        try:
            out["validation"] = _validate(r, space, args, best_elite_cards(data))
        except WorkerFailure as exc:
            print(f"deckopt decks: error: {exc}", file=sys.stderr)
            return 1
        notes.append(f"{out['validation']['how']}\n{validation_table(out['validation'], space)}")
    if args.json:
        print_json(out)
    else:
        print("\n".join([elites_table(data, space), *notes]))
    return 0


def _validate(r, space, args, deck: tuple) -> dict:
    """`deck` ((cards, how): the champion, generation N's best or the best elite) validated again by the
    run's scorer with fresh seeds (default the run's seed + 1) and the command's options: against the
    reference decks (`--panel`, default the run's validation panel, with a `--baseline` deck on the
    same deals), or, for decks judged alone, beside their exact values with the best deck of every
    generation (written to RUN/validation_exact.json)."""
    c = r.config.replace(agent=args.agent)
    cards, how = deck
    seed = args.seed if args.seed is not None else c.seed + 1
    options = {"seed": seed, "games": args.games}
    if space.Settings.head_to_head:
        options.update(panel=args.panel, baseline=_baseline_cards(args.baseline, space) if args.baseline else None)
    elif args.panel or args.baseline:
        raise UserError(
            f"--panel and --baseline apply to decks that play reference decks (a {space.name} deck is judged alone)"
        )
    else:
        options["best"] = [b["best"]["cards"] for b in r.best]
    scorer = space.scorer(c)
    with Progress() as bar, Mapper(args.jobs or c.jobs, "loky", task_timeout=c.task_timeout) as pmap:
        report = scorer.validate(cards, pmap, progress=bar, **options)
    report["how"] = how
    if not space.Settings.head_to_head:
        atomic_write_json(r.folder.path / "validation_exact.json", report)
    return report


def _baseline_cards(path, space) -> list[int]:
    """A run's champion, or the cards of a deck file."""
    where = resolve_path(path)
    if (where / "config.json").is_file():
        return Run(where).champion()[0]
    return list(space.references([path])[0].cards)
