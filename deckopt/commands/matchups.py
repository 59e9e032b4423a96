"""`deckopt matchups DECK_OR_DIR... [--field DECK_OR_DIR...]`: pairwise scores of decks with CIs."""

from __future__ import annotations

import argparse
import contextlib
import sys
from contextlib import contextmanager

from agents.parallel import Mapper, WorkerFailure
from deckopt.commands._common import (
    MATCHUP_MEMBERS,
    MAX_PAIR_TEXT,
    Progress,
    designer_game,
    pair_games,
    print_json,
    seed_int,
    worker_args,
)
from evolution.decks.settings_registry import DEFAULT_GAME, settings_class
from evolution.designer.matchups import (
    load_decks,
    load_space_decks,
    play_matchups,
    ranking_table,
    run_settings,
    runs_game,
    write_matchups,
)
from evolution.designer.tables import deck_text
from evolution.spaces.registry import SPACES
from games.errors import UserError
from games.fileio import check_writable_dir
from games.folder_lock import folder_lock


def register(sub) -> None:
    p = sub.add_parser(
        "matchups",
        help="pairwise score matrix of decks with CIs; the best deck against your field",
        description="A round robin of the given decks (mirrored games: a cell and its transpose add "
        "up to 1), or, with --field, every deck against every field deck and the decks ranked by "
        "their pooled score against the field (a personal meta). A deck is a deck file, a folder of "
        "deck files or an evolution run folder (its champion and the best decks of its last 3 generations; "
        "its deck rules apply to every deck); a drafter: a drafter file, a folder of them, a field drafter's "
        "name or a drafter run folder (the games draft from the same offers, then battle). Prints the ranking; "
        "--out writes matchups.csv, matchups.json "
        "and a heatmap matchups.png.",
    )
    p.add_argument("decks", nargs="+", metavar="DECK_OR_DIR", help="deck files, folders of deck files, run folders")
    p.add_argument("--field", nargs="+", metavar="DECK_OR_DIR", help="the opponents (default: a round robin)")
    game_args(p)
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


@contextmanager
def deck_files_of(game: str):
    """A UserError while reading deck files names the game they were read for (a deck file of
    another game fails on its cards)."""
    try:
        yield
    except UserError as exc:
        raise UserError(f"{exc} (read as {game} decks; --game names the game of the decks)") from None


def game_args(p, needs: tuple[str, ...] = MATCHUP_MEMBERS) -> None:
    """--game and --agent, shared by the designer commands (matchups, advise: the games whose deck spaces
    answer `needs`)."""
    games = [g for g, space in SPACES.items() if all(callable(getattr(space, m, None)) for m in needs)]
    others = [g for g in games if g != DEFAULT_GAME]
    p.add_argument(
        "--game",
        metavar="GAME",
        help=f"the game of the decks: {DEFAULT_GAME} or another game whose decks play each other "
        f"({', '.join(others)} or an installed plug-in's); default: the game of the run folders given, else "
        f"{DEFAULT_GAME}",
    )
    agent_help = "the agent playing every seat (default: the game's default agent, which its facts declare)"
    for g in games:
        role = settings_class(g).agent_role
        if role != "agent":  # the decks are not the whole player: the agent plays the rest
            agent_help += f"; {g}: the {role}s of both seats, a comma list in turn (default: the run folders', else "
            agent_help += f"{settings_class(g).default_agent})"
    p.add_argument("--agent", metavar="SPEC", help=agent_help)


def run(args: argparse.Namespace) -> int:

    args.game = args.game or runs_game([*args.decks, *(args.field or [])]) or DEFAULT_GAME
    if args.games % 2:
        raise UserError("--games must be even (mirrored pairs of games)")
    field = None
    if settings_class(args.game).power_multisets:  # the rules come with the deck files
        with deck_files_of(args.game):
            decks, rules = load_decks(args.decks)
            if args.field is not None:
                field, field_rules = load_decks(args.field, what="field deck")
        if field is not None and field_rules != rules:
            raise UserError(f"the field's {field_rules.describe()} differ from the decks' {rules.describe()}")
        config, space = designer_game(args.game, args.seed, {"rules": rules})
    else:  # under the rules of the run folders given, else the default rules
        config, space = designer_game(
            args.game, args.seed, run_settings([*args.decks, *(args.field or [])], args.game, args.agent is not None)
        )
        with deck_files_of(args.game):
            decks = load_space_decks(args.decks, space)
            if args.field is not None:
                field = load_space_decks(args.field, space, what="field deck")
    if field is None and len(decks) < 2:
        raise UserError("give at least two decks for a round robin, or --field to play one deck against")
    if args.out:
        check_writable_dir(args.out, "output folder (--out)")  # before the games
    spec = args.agent or config.agent
    agent = space.build_agent(spec, args.seed)
    lock = folder_lock(args.out, what="output folder (--out)") if args.out else contextlib.nullcontext()
    with lock:
        try:
            with Mapper(args.jobs, task_timeout=args.task_timeout) as pmap, Progress() as bar:
                play = space.matches(agent, pmap, config.games_per_task)
                role = config.settings.agent_role
                table = play_matchups(decks, play, args.games, args.seed, field, spec, bar, role)
        except WorkerFailure as exc:
            print(f"deckopt matchups: error: {exc}", file=sys.stderr)
            return 1
        paths = write_matchups(table, args.out) if args.out else []
    if args.json:
        print_json({**table.to_json(), "files": [str(p) for p in paths]})
    else:
        # a multiset's words show its cards; a genome's (`ordered`) only its top places: its row's numbers too
        words = (lambda cards: deck_text(space, cards, size=False)) if space.ordered else space.words
        print(ranking_table(table, words, "cards"))
        for p in paths:
            print(f"wrote {p}")
    return 0
