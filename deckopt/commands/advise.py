"""`deckopt advise DECK [--vs FIELD...]`: the single-card changes that most improve a deck."""

from __future__ import annotations

import argparse
import sys

from agents.parallel import Mapper, WorkerFailure
from deckopt.commands._common import (
    MATCHUP_MEMBERS,
    MAX_PAIR_TEXT,
    Progress,
    count,
    designer_game,
    int_at_least,
    pair_games,
    pair_games_or_none,
    positive_int,
    print_json,
    seed_int,
    worker_args,
)
from deckopt.commands.matchups import deck_files_of, game_args
from evolution.decks.settings_registry import DEFAULT_GAME, SETTINGS, settings_class
from evolution.designer.advisor import AdviceConfig, advice_table, advise, remeasure
from evolution.designer.matchups import load_decks, load_space_decks, run_settings, runs_game
from evolution.designer.neighbourhoods import CardNeighbourhood, PowerNeighbourhood
from games.decks import load_deck
from games.errors import UserError
from games.fileio import resolve_path

_non_negative = int_at_least(0)
#: what advise asks of a deck space: matchups' members, and the cards a single-card change may bring in
ADVISE_MEMBERS = (*MATCHUP_MEMBERS, "card_pool")


def _power_games() -> list[str]:
    """Our games whose decks are multisets of card powers (the advisor moves power between cards)."""
    return [s.game for s in SETTINGS.values() if s.power_multisets]


def register(sub) -> None:
    p = sub.add_parser(
        "advise",
        help="the single-card changes that most improve a deck against a field, and what each card adds",
        description="Every legal single-card change of DECK (move 1..--step power units between two cards, "
        "raise or lower one card by 1..--step within the budget, add a card with spare budget, remove a card "
        "above the minimum count; another --game: swap a card for another of its card pool, add or remove a "
        "copy, each legal under the deck rules) plays the field on the same deals as DECK; racing gives the games to "
        "the changes still in doubt of being the best. Prints the top changes with the score "
        "difference and its 95% CI, and each card power's contribution (DECK's score minus its score "
        "without one such card). --check N re-measures the top change on fresh seeds.",
    )
    p.add_argument("deck", metavar="DECK", help="the deck file")
    p.add_argument(
        "--vs",
        nargs="+",
        metavar="FIELD",
        help="the field: deck files, folders of deck files, run folders (default: the game's yardstick for decks "
        "of card powers, else its reference decks; required for a game without them)",
    )
    game_args(p, ADVISE_MEMBERS)
    p.add_argument(
        "--games",
        type=pair_games,
        default=160,
        metavar="N",
        help="most mirrored games a change plays against each field deck (default 160; a multiple of 2 x "
        f"--rounds; at most {MAX_PAIR_TEXT})",
    )
    p.add_argument(
        "--step",
        type=positive_int,
        default=None,
        metavar="K",
        help="largest change of one card's power: moves of 1..K units between two cards, raises and lowers by "
        f"1..K (default: any size; decks of card powers only: {', '.join(_power_games())})",
    )
    p.add_argument("--rounds", type=count, default=8, metavar="R", help="racing rounds (default 8)")
    p.add_argument(
        "--contribution-games",
        type=pair_games_or_none,
        default=40,
        metavar="N",
        help="mirrored games per field deck for each card's contribution (default 40; 0 skips them)",
    )
    p.add_argument("--top", type=count, default=10, metavar="K", help="changes shown (default 10)")
    p.add_argument(
        "--check",
        type=pair_games_or_none,
        default=0,
        metavar="N",
        help="re-measure the top change with N fresh mirrored games per field deck (seed + 1)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="root seed of every deal (default 0)")
    worker_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    args.game = args.game or runs_game([args.deck, *(args.vs or [])]) or DEFAULT_GAME
    deals = args.games // 2
    if args.games % 2 or deals % args.rounds:
        raise UserError(f"--games must be a multiple of 2 x --rounds ({2 * args.rounds}), got {args.games}")
    if args.check % 2 or args.contribution_games % 2:
        raise UserError("--check and --contribution-games must be even (mirrored pairs of games)")
    if settings_class(args.game).power_multisets:
        args.vs = args.vs or list(settings_class(args.game).default_yardstick)
        with deck_files_of(args.game):
            deck = load_deck(args.deck)
            field, rules = load_decks(args.vs, what="field deck")
        if rules != deck.rules:
            raise UserError(f"the field's {rules.describe()} differ from the deck's {deck.rules.describe()}")
        config, space = designer_game(args.game, args.seed, {"rules": rules}, ADVISE_MEMBERS)
        cards, neighbourhood = deck.cards, PowerNeighbourhood(rules, deck.constraints)
    else:
        if args.step is not None:
            raise UserError(f"--step sizes power changes of decks of card powers; {args.game} changes one card")
        # under the rules of the runs given (a run's champion.toml, a run folder in --vs), else the default rules
        where = [args.deck, *(args.vs or [])]
        config, space = designer_game(
            args.game, args.seed, run_settings(where, args.game, args.agent is not None), ADVISE_MEMBERS
        )
        if resolve_path(args.deck).is_dir():
            raise UserError(f"deck {args.deck!r} is a folder; name one deck file (a run's champion.toml)")
        with deck_files_of(args.game):
            [deck] = load_space_decks([args.deck], space)
        if not args.vs and not config.settings.validation_panel:
            raise UserError(f"{args.game} has no reference decks: name the field with --vs (deck files, run folders)")
        args.vs = args.vs or list(config.settings.validation_panel)
        with deck_files_of(args.game):
            field = load_space_decks(args.vs, space, what="field deck")
        cards, neighbourhood = deck.cards, CardNeighbourhood(space)
    advice_config = AdviceConfig(
        games=args.games, rounds=args.rounds, step=args.step, contribution_games=args.contribution_games, top=args.top
    )
    spec = args.agent or config.agent
    agent = space.build_agent(spec, args.seed)
    field_cards = [d.cards for d in field]
    try:
        with Mapper(args.jobs, task_timeout=args.task_timeout) as pmap, Progress() as bar:
            play = space.matches(agent, pmap, config.games_per_task)
            advice = advise(cards, field_cards, neighbourhood, play, args.seed, advice_config, progress=bar)
            advice["agent"] = spec
            advice["game"] = args.game
            if args.check and advice["candidates"]:
                top = advice["candidates"][0]
                advice["check"] = {
                    "change": top["change"],
                    "cards": top["cards"],
                    **remeasure(cards, top["cards"], field_cards, play, args.seed + 1, args.check, progress=bar),
                }
    except WorkerFailure as exc:
        print(f"deckopt advise: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print_json(advice)
        return 0
    print(f"agent {advice['agent']}, field {' '.join(args.vs)}, seed {args.seed}")
    print(advice_table(advice, args.top))
    if "check" in advice:
        c = advice["check"]
        lo, hi = c["delta_ci95"]
        print(
            f"re-measured on fresh seeds (seed {c['seed']}, {c['games_per_field_deck']} games per field deck): "
            f"{c['change']}: delta {c['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}], "
            + ("the improvement clears its CI" if c["improvement_clears_ci"] else "NOT clearly better")
        )
    return 0
