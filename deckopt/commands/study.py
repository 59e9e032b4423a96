"""`deckopt study racing|agents`: the measurements behind the evolution's settings.

- `racing OUT`: ground truth for a pool of decks of a game (the --source run's, else --game: any
  deck space whose decks play each other; each deck against fixed opponents, many deals, once; kept
  in OUT/truth.npz) and the selection accuracy and regret of fixed game counts, racing and an oracle
  allocation (OUT/racing.json, OUT/racing.png).
- `agents OUT --agent SPEC --agent SPEC ...`: decks of a game (--game, any deck space whose decks
  play each other, or LOCM, whose decks are drafts: random drafts and the field drafters') scored
  against the yardstick (or, for a game without reference decks, random
  legal decks) under each agent: rank agreement on a spread and a strong set beside each agent's
  noise ceiling, the worst-deck disagreement, and a pilot x opponents table
  (evolution/studies/agreement.py).
- `kittens OUT`: Exploding Kittens compositions, the agent's estimates against exact values.

The statistics live in evolution/; this module holds the options, checks and printed tables.
"""

from __future__ import annotations

import argparse
import io
import json
import math
from pathlib import Path

import numpy as np

from agents.parallel import Mapper
from deckopt.commands._common import (
    Progress,
    count,
    count_or_none,
    designer_game,
    pair_deals,
    pair_games,
    print_json,
    seed_int,
    worker_args,
)
from evolution.config import EvolveConfig, load_config
from evolution.decks.kittens_settings import KittensSettings
from evolution.decks.settings_registry import DEFAULT_GAME, SETTINGS, settings_class
from evolution.runfolder import Run
from evolution.spaces import kittens_objectives
from evolution.spaces.registry import space_for
from evolution.studies import agreement
from evolution.studies import kittens as kittens_study
from evolution.studies.drafts import drafted_in, field_drafts, space_game
from evolution.studies.racing import ground_truth, plot_study, study
from games.errors import UserError
from games.fileio import atomic_write_bytes, atomic_write_json, check_writable_dir, finite_json, resolve_path
from games.folder_lock import folder_lock
from games.npz import TRUTH_LIMITS, read_npz_arrays
from games.schema import MAX_NAME, Int, Record, Str, json_member, shown


def register(sub) -> None:
    p = sub.add_parser(
        "study",
        help="measurements behind the evolution's settings: racing accuracy, rank agreement across agents",
        description="racing OUT: ground truth (a pool of decks of --game or of the --source run's game, each "
        "against fixed random legal opponent decks for many mirrored deals, saved in OUT/truth.npz and reused) "
        "and the selection accuracy and regret of fixed game counts, racing (each --z x --margin x --se) and an "
        "oracle allocation (OUT/racing.json, OUT/racing.png). "
        "agents OUT: decks of --game scored against its yardstick (random legal decks for a game without one) under "
        "each --agent: Spearman agreement on "
        "random legal decks and on strong decks, each beside the agents' split-half noise ceilings, the "
        "worst-deck disagreement, and for --cross decks the pilot x opponents table (OUT/agents.json).",
    )
    p.add_argument("what", choices=("racing", "agents", "kittens"))
    p.add_argument("out", metavar="OUT", help="folder of the study's files")
    p.add_argument(
        "--source",
        metavar="RUN",
        help="racing: an evolution run whose last pool gives the evolved decks (and the game)",
    )
    p.add_argument("--random-decks", type=count_or_none, default=10, metavar="N", help="racing: random decks added")
    p.add_argument(
        "--opponents",
        type=count,
        default=8,
        metavar="N",
        help="racing: fixed random opponents; agents: random legal opponent decks of a game without a yardstick",
    )
    p.add_argument("--deals", type=pair_deals, default=300, metavar="N", help="racing: ground-truth deals a pairing")
    p.add_argument("--kept", type=count, default=10, metavar="K", help="racing: decks selection keeps")
    p.add_argument("--fixed-games", default="96,160,240,400", metavar="LIST", help="racing: fixed games per deck")
    p.add_argument("--rounds", type=count, default=10, metavar="R", help="racing: rounds")
    p.add_argument("--z", default="0.5,1,1.5,2", metavar="LIST", help="racing: z values tried")
    p.add_argument("--margin", default="0", metavar="LIST", help="racing: indifference margins tried (score)")
    p.add_argument(
        "--se",
        default="plain",
        metavar="LIST",
        help="racing: standard errors tried: plain (all deals), strata (within a pairing; comma list)",
    )
    p.add_argument("--replicates", type=count, default=200, metavar="N", help="racing: replicates")
    p.add_argument("--agent", action="append", metavar="SPEC", help="the agent (racing: one; agents: repeat)")
    p.add_argument(
        "--game",
        metavar="GAME",
        help="racing, agents: the game whose decks are studied (a deck space whose decks play each other: "
        f"{', '.join(s.game for s in SETTINGS.values() if s.head_to_head)} or a plug-in's; agents also "
        "a game whose decks are drafted (locm): its drafts, played as the space that battles two decks plays "
        "them; default "
        f"the --source run's game, else {DEFAULT_GAME})",
    )
    p.add_argument(
        "--decks",
        action="append",
        metavar="FILE|DIR",
        help="agents: the strong decks (default the last folder of the game's reference decks, its "
        "validation panel; its other reference decks join the spread; none for a game without reference decks)",
    )
    p.add_argument(
        "--spread",
        type=count_or_none,
        default=20,
        metavar="N",
        help="agents: random legal decks of the game (at the full budget for decks of card powers; random drafts, "
        "the random drafter's on fresh offers, for a game whose decks are drafted)",
    )
    p.add_argument(
        "--cross",
        action="append",
        metavar="FILE|RUN|NAME",
        help="agents: decks (a run: its champion; a name such as random_03: that deck of the spread set) "
        "whose pilot x opponents table is played",
    )
    p.add_argument(
        "--yardstick",
        metavar="DIR",
        help="agents: the opponent decks (default the game's yardstick; --opponents random legal decks for a "
        "game without one)",
    )
    p.add_argument("--games", type=pair_games, default=40, metavar="N", help="agents: games per deck and opponent")
    p.add_argument(
        "--compositions",
        type=count_or_none,
        default=80,
        metavar="N",
        help="kittens: compositions of the space sampled (0: none, only --runs)",
    )
    p.add_argument(
        "--games-per-composition", type=pair_games, default=2000, metavar="N", help="kittens: self-play games each"
    )
    p.add_argument(
        "--runs", action="append", metavar="RUN", help="kittens: finished kittens evolution runs judged (repeatable)"
    )
    p.add_argument("--seed", type=seed_int, default=0)
    worker_args(p, default_jobs=2)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:

    out = check_writable_dir(args.out, "study folder")
    _check_args(args)  # every argument before the first game
    with folder_lock(out, what="study folder"):
        if args.what == "kittens":
            result = _kittens(args, out)
        else:
            result = _racing(args, out) if args.what == "racing" else _agents(args, out)
    if args.json:
        print_json(result)
    return 0


def _floats(text: str, flag: str = "") -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = None
    if not values or not all(math.isfinite(v) for v in values):
        raise UserError(f"{flag or 'expected'}: a comma list of finite numbers, got {text!r}")
    return values


def _check_args(args) -> None:
    """The study's arguments that can be judged without playing: refused before any work."""

    if args.what == "racing":
        fixed = _floats(args.fixed_games, "--fixed-games")
        if any(x < 1 or x != int(x) for x in fixed):
            raise UserError(f"--fixed-games: whole numbers of games >= 1, got {args.fixed_games!r}")
        if any(z <= 0 for z in _floats(args.z, "--z")):
            raise UserError(f"--z: values > 0, got {args.z!r}")
        if any(not 0 <= m < 1 for m in _floats(args.margin, "--margin")):
            raise UserError(f"--margin: scores from 0 to below 1, got {args.margin!r}")
        kinds = [k.strip() for k in args.se.split(",") if k.strip()]
        if not kinds or set(kinds) - {"plain", "strata"}:
            raise UserError(f"--se takes plain and/or strata, got {args.se!r}")
        _racing_space(args)
    if args.what == "kittens":
        if args.game not in (None, KittensSettings.game):
            raise UserError(
                f"study kittens studies {KittensSettings.game} compositions, not {args.game}; leave out --game"
            )
        if not args.compositions and not args.runs:
            raise UserError("--compositions 0 samples no composition: give --runs RUN, or compositions to sample")
        for path in args.runs or []:
            kittens_study.finished_kittens_run(path)  # before any self-play
    if args.what == "agents":
        _agent_decks(args)


def _racing_space(args):
    """(settings, deck space, source run or None) of a racing study: the --source run's game under
    its deck rules, else --game's (default DEFAULT_GAME) under its default rules; UserError in one line
    for a --game other than the run's or a game whose decks do not play each other."""
    run = Run(args.source) if args.source else None
    game = args.game or (run.config.game if run else DEFAULT_GAME)
    if run is not None and run.config.game != game:
        raise UserError(f"--source {args.source}: a {run.config.game} run, not a {game} one (choose --game)")
    if not settings_class(game).head_to_head:  # racing chooses among decks that play each other
        raise UserError(f"study racing: game {game!r} has no reference decks and its decks do not play each other")
    rules = run.config.settings.rules if run is not None and settings_class(game).has_rules() else None
    config, space = designer_game(game, args.seed, {"rules": rules} if rules is not None else {})
    return config, space, run


def _racing(args, out: Path) -> dict:
    """Ground truth of the decks of the --source run's last pool and --random-decks random legal
    decks against --opponents random legal decks, played by the game's deck space (its evaluator's
    `play` with --agent), and the selection study on it."""
    config, space, run = _racing_space(args)
    truth_file = out / "truth.npz"
    if truth_file.is_file():
        store = _read_truth(truth_file, args, config)
    else:
        rng = np.random.default_rng([args.seed, 77])
        decks = []
        if run is not None:
            for d in run.generation(run.generations[-1])["decks"]:
                if tuple(d["cards"]) not in decks:
                    decks.append(tuple(d["cards"]))
        decks += [tuple(space.random_deck(rng)) for _ in range(args.random_decks)]
        if len(decks) <= args.kept:
            raise UserError(
                f"{len(decks)} decks to study: more than --kept {args.kept} needed (--source, --random-decks)"
            )
        opponents = [tuple(space.random_deck(rng)) for _ in range(args.opponents)]
        agent = space.build_agent(_racing_agent(args, config), args.seed)
        with Mapper(args.jobs, "loky", task_timeout=args.task_timeout) as pmap, Progress() as bar:
            play = space.matches(agent, pmap, config.games_per_task)
            store = ground_truth(decks, opponents, args.deals, play, args.seed, progress=bar)
        buffer = io.BytesIO()
        np.savez(
            buffer,
            store=store,
            decks=_decks_text(decks),
            opponents=_decks_text(opponents),
            settings=np.array(json.dumps(_truth_settings(args, config))),
        )
        atomic_write_bytes(truth_file, buffer.getvalue())  # a failed save leaves no truth.npz behind
    fixed = [int(x) for x in _floats(args.fixed_games, "--fixed-games")]
    n, m, deals = store.shape
    if args.kept >= n or max(fixed) // (2 * m) > deals or min(fixed) < 2 * m:
        raise UserError(f"--kept must be below {n} decks and --fixed-games within {2 * m}..{2 * m * deals}")
    kinds = [s.strip() for s in args.se.split(",") if s.strip()]
    if not kinds or set(kinds) - {"plain", "strata"}:
        raise UserError(f"--se takes plain and/or strata, got {args.se!r}")
    with Progress() as bar:
        res = study(
            store,
            args.kept,
            fixed,
            args.rounds,
            _floats(args.z, "--z"),
            args.replicates,
            args.seed,
            bar,
            margins=_floats(args.margin, "--margin"),
            strata=[k == "strata" for k in kinds],
        )
    atomic_write_json(out / "racing.json", finite_json(res))
    atomic_write_bytes(out / "racing.png", plot_study(res))
    if not args.json:
        print(f"{n} decks x {m} opponents x {deals} deals of ground truth; keep {args.kept}; {args.replicates} reps")
        print(
            f"decks within one standard error of the boundary at {max(fixed)} games: "
            f"{res['near_boundary_at_max_fixed']}"
        )
        print(
            f"method  se     z    margin games/deck share  accuracy        - fixed {max(fixed):<6} "
            f"regret            - fixed {max(fixed)}"
        )
        for r in res["rows"]:
            z = "" if r["z"] is None else f"{r['z']:g}"
            mg = "" if r["margin"] is None else f"{r['margin']:g}"
            se = "" if r["strata"] is None else ("strata" if r["strata"] else "plain")
            print(
                f"{r['method']:<7} {se:<6} {z:<4} {mg:<6} {r['games_per_deck']:>10.1f} "
                f"{r['share_of_max_fixed']:>5.0%}  "
                f"{r['accuracy']:.3f} +- {r['accuracy_se']:.3f} {r['accuracy_vs_max_fixed']:+.3f} +- "
                f"{r['accuracy_vs_max_fixed_se']:.3f}  {r['regret']:.4f} +- {r['regret_se']:.4f} "
                f"{r['regret_vs_max_fixed']:+.4f} +- {r['regret_vs_max_fixed_se']:.4f}"
            )
        print(
            f"(+- one standard error over the replicates; '- fixed': paired difference with {max(fixed)} fixed games)"
        )
        print(f"plot: {out / 'racing.png'}")
    return res


#: the settings a racing study's ground truth keeps (its "settings" array): `_truth_settings`
TRUTH_SETTINGS = Record(
    {},
    optional={
        "seed": Int(),
        "source": Str(null=True),
        "random_decks": Int(0, null=True),
        "opponents": Int(0),
        "deals": Int(0),
        "agent": Str(null=True),
        "game": Str(most=MAX_NAME),
    },
)


def _read_truth(path: Path, args, config: EvolveConfig):
    """The ground truth saved by an earlier study in the same folder; refused in one line if it is
    damaged or was computed with other --opponents or --deals than given (it would override them)."""
    try:
        data = read_npz_arrays(path, TRUTH_LIMITS)
        store = data["store"]
        saved = json_member(data, "settings", TRUTH_SETTINGS) if "settings" in data else None
        if store.ndim != 3 or 0 in store.shape:
            raise ValueError(f"a store of shape {store.shape}")
        if store.dtype.kind not in "fiu":  # game scores: numbers
            raise ValueError(f"a store of {store.dtype} values, not numbers")
        scores = np.isfinite(store)
        if not scores.any():
            raise ValueError("no ground truth to compare with: none of its scores is a number")
        if not scores.all() or store.min() < 0 or store.max() > 1:
            raise ValueError("scores that are not numbers in [0, 1] beside the others")
    except Exception as exc:  # truncated, corrupt, or not a study's file at all
        raise UserError(f"{path} is damaged ({type(exc).__name__}: {exc}); delete it to compute it again") from None
    _, m, deals = store.shape
    # a file saved before it held its settings: its shape tells the opponents and the deals
    saved = saved if isinstance(saved, dict) else {"opponents": m, "deals": deals}
    asked = _truth_settings(args, config)
    differ = [k for k in saved if saved[k] != asked.get(k)]
    if differ:
        given = ", ".join(f"--{k.replace('_', '-')} {shown(saved[k])}" for k in differ[:3])
        raise UserError(f"{path} was computed with {given}: give the same, or another folder to compute it again")
    return store


def _truth_settings(args, config: EvolveConfig) -> dict:
    """The flags a racing study's ground truth depends on (saved with it, checked when it is reused)."""
    return {
        "seed": args.seed,
        "source": args.source,
        "random_decks": args.random_decks,
        "opponents": args.opponents,
        "deals": args.deals,
        "agent": _racing_agent(args, config),
        "game": config.game,
    }


def _racing_agent(args, config: EvolveConfig) -> str:
    """The agent of a racing study: its --agent, else the game's default agent."""
    return (args.agent or [config.agent])[0]


def _decks_text(decks) -> np.ndarray:
    """Decks of different sizes as one JSON text (numbers and text are all a `.npz` reader takes)."""
    return np.array(json.dumps([[int(c) for c in d] for d in decks]))


#: the game of `study racing` without --source and of `study agents` without --game
#: the shapes of the spread's random Gwent Lite decks (full budget; other games ignore shapes)
FULL_BUDGET = ("normal", "flat", "spiky", "more_cards")
#: games per worker task of the agreement games (the agents' own random choices follow the tasks)
AGREEMENT_GAMES_PER_TASK = 200


def _study_config(args) -> EvolveConfig:
    """The settings of a --game run under its default deck rules: its yardstick (--yardstick or the
    game's; none for a game without reference decks) and reference decks (`validation_panel`);
    UserError for a game without a deck space or whose decks do not play each other."""
    game = space_game(args.game or DEFAULT_GAME)
    space = settings_class(game)
    if not space.head_to_head:
        raise UserError(f"study agents: game {game!r} has no reference decks and its decks do not play each other")
    yardstick = {"yardstick": [args.yardstick]} if args.yardstick else {}
    shapes = {"init_shapes": list(FULL_BUDGET)} if "init_shapes" in space.names() else {}  # random decks: full budget
    config = load_config(
        game=game, seed=args.seed, validate=False, games_per_task=AGREEMENT_GAMES_PER_TASK, **yardstick, **shapes
    )
    if space.ships_reference_decks() and not config.settings.yardstick:
        raise UserError(f"study agents: game {game!r} has no default yardstick; name one with --yardstick")
    return config


def _agent_decks(args):
    """(config, space, {set name: [(deck name, cards)]}, cross decks, opponents' cards, what the
    opponents are: {yardstick: its paths} or {random_legal_decks: their cards}, with their count)
    of the study, every deck file read and checked: the spread is --spread random legal decks (random
    drafts for a game whose decks are drafted, evolution.studies.drafts) and the game's reference decks
    but its last folder, the strong set --decks (default that last
    folder; none for a game without reference decks and no --decks or --cross) and the --cross
    decks; the opponents are the yardstick, or --opponents random legal decks where there is none."""
    config = _study_config(args)
    space = space_for(config)
    panel = config.settings.validation_panel
    rng = np.random.default_rng([args.seed, 88])
    if drafted_in(args.game or DEFAULT_GAME):  # its decks are drafts: the random drafter's on fresh offers
        drafts = field_drafts(args.game, (args.spread + 1) // 2, rng, ("random",))["random"] if args.spread else []
        spread = [(f"random_draft_{i + 1:02d}", tuple(d)) for i, d in enumerate(drafts[: args.spread])]
    else:
        spread = [(f"random_{i + 1:02d}", tuple(space.random_deck(rng))) for i in range(args.spread)]
    spread += [(r.name, r.cards) for r in (space.references(panel[:-1]) if len(panel) > 1 else [])]
    named = args.decks or panel[-1:]
    strong = [(r.name, r.cards) for r in space.references(named)] if named else []
    cross = _cross_decks(args.cross or [], space, config.game, dict(spread))
    sets = {"spread": spread, "strong": strong + [c for c in cross if c not in strong and c not in spread]}
    if not sets["strong"]:
        del sets["strong"]
    if config.settings.yardstick:
        refs = [r.cards for r in space.references(config.settings.yardstick)]
        opponents = {"yardstick": list(config.settings.yardstick), "decks": len(refs)}
    else:
        rng = np.random.default_rng([args.seed, 89])
        refs = [tuple(space.random_deck(rng)) for _ in range(args.opponents)]
        opponents = {"random_legal_decks": [list(d) for d in refs], "decks": len(refs)}
    return config, space, sets, cross, refs, opponents


def _agents(args, out: Path) -> dict:
    """Deck scores against the yardstick under each agent: rank agreement on a spread set (random
    legal decks and reference decks) and on a set of strong decks (--decks), each beside the agents'
    noise ceilings; the worst-deck disagreement over both; the --cross decks' pilot x opponents
    table. The games are the --game deck space's matches (its evaluator's `play`)."""
    specs = args.agent or ["pretrained"]
    if len(set(specs)) < 2:
        raise UserError("study agents compares agents: give --agent at least twice, with different agents")
    config, space, sets, cross, refs, opponents = _agent_decks(args)
    names = [n for rows in sets.values() for n, _ in rows]
    decks = [d for rows in sets.values() for _, d in rows]
    agents = {spec: space.build_agent(spec, config.seed) for spec in specs}
    scores = {}
    with Mapper(args.jobs, "loky", task_timeout=args.task_timeout) as pmap, Progress() as bar:

        def play_of(agent):
            return space.matches(agent, pmap, config.games_per_task)

        for spec, agent in agents.items():
            scores[spec] = agreement.yardstick_scores(decks, refs, play_of(agent), args.games, args.seed, bar, spec)
        tables = {
            name: agreement.cross_table(cards, refs, agents, play_of, args.games, args.seed, bar)
            for name, cards in cross
        }
    spans = {}
    start = 0
    for set_name, rows in sets.items():
        spans[set_name] = slice(start, start + len(rows))
        start += len(rows)
    res = {
        "games_per_deck": args.games * len(refs),
        "opponents": opponents,
        "sets": {k: [n for n, _ in rows] for k, rows in sets.items()},
        "scores": {spec: [s.as_dict() for s in sc] for spec, sc in scores.items()},
        "ceilings": {
            spec: {k: agreement.noise_ceiling(sc[span]) for k, span in [*spans.items(), ("all", slice(None))]}
            for spec, sc in scores.items()
        },
        "pairs": {
            f"{a} ~ {b}": {
                **{k: agreement.compare(scores[a][span], scores[b][span], names[span]) for k, span in spans.items()},
                "all": agreement.compare(scores[a], scores[b], names),
            }
            for i, a in enumerate(specs)
            for b in specs[i + 1 :]
        },
        "cross": tables,
    }
    atomic_write_json(out / "agents.json", finite_json(res))
    if not args.json:
        _print_agreement(res)
    return res


def _cross_decks(paths, space, game: str, spread: dict) -> list[tuple[str, tuple[int, ...]]]:
    """Decks for the cross table: deck files, evolution runs of `game` (their champion), or decks of
    the spread set by name (`random_03`)."""

    out = []
    for raw in paths:
        if raw in spread:
            out.append((raw, spread[raw]))
            continue
        path = resolve_path(raw)
        if not path.exists():
            names = f" ({', '.join(list(spread)[:2])}, ...)" if spread else ""
            raise UserError(f"--cross {raw}: not a deck file, a run, or a deck of the spread set{names}")
        if (path / "config.json").is_file():
            run = Run(path)
            if run.config.game != game:
                raise UserError(f"--cross {raw}: a {run.config.game} run, not a {game} one (choose --game)")
            cards, _ = run.champion()
            out.append((f"{path.name}/champion", tuple(cards)))
        else:
            out += [(r.name, r.cards) for r in space.references([raw])]
    return out


def _print_agreement(res: dict) -> None:
    print(f"{res['games_per_deck']} games a deck; sets: " + ", ".join(f"{k} {len(v)}" for k, v in res["sets"].items()))
    if "random_legal_decks" in res["opponents"]:  # the yardstick, the default, goes without saying
        print(f"opponents: {res['opponents']['decks']} random legal decks (the game has no yardstick)")

    def spearman(by_set: dict) -> str:
        return "Spearman " + ", ".join(f"{k} {by_set[k]['spearman']:.3f}" for k in res["sets"])

    print("noise ceilings (one agent against itself over independent halves of the deals):")
    for spec, c in res["ceilings"].items():
        print(f"  {spec}: {spearman(c)}; worst-deck difference from noise {c['all']['worst_deck_difference']:.3f}")
    for pair, r in res["pairs"].items():
        w = r["all"]
        lo, hi = w["worst_deck_ci95"]
        print(
            f"{pair}: {spearman(r)}; "
            f"worst deck {w['worst_deck']} {w['worst_deck_difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        )
    for deck, table in res["cross"].items():
        print(f"{deck}: piloted by (rows) against the references played by (columns)")
        for pilot, row in table.items():
            print(f"  {pilot}: " + "  ".join(f"{row[o]['score']:.3f}" for o in table))


def _kittens(args, out: Path) -> dict:
    """Exploding Kittens against exact values: the agent's self-play estimate of the first player's
    chance over --compositions decks (Spearman), and the champions of --runs (exact |value - 0.5|)."""

    spec = (args.agent or ["pretrained"])[0]
    config = EvolveConfig(game=KittensSettings.game, agent=spec, seed=args.seed, jobs=args.jobs)
    res = {}
    if args.compositions:
        agent = kittens_objectives.build_agent(config, seed=args.seed)
        with Mapper(args.jobs, "loky", task_timeout=args.task_timeout) as pmap, Progress() as bar:
            res["estimates"] = kittens_study.estimates_vs_exact(
                config, agent, pmap, args.compositions, args.games_per_composition, bar
            )
    if args.runs:
        res["runs"] = kittens_study.runs_vs_exact(args.runs)
    atomic_write_json(out / "kittens.json", finite_json(res))
    if not args.json:
        e = res.get("estimates")
        if e:
            print(
                f"{e['compositions']} of {e['space_decks']} compositions, {e['games_per_composition']} self-play games "
                f"each, agent {e['agent']!r}: Spearman {e['spearman']:.3f} (target >= 0.95; sampling noise alone "
                f"would leave {e['spearman_with_sampling_noise_only']:.3f}); mean |error| {e['mean_abs_error']:.4f}, "
                f"max {e['max_abs_error']:.4f}, mean error {e['mean_error']:+.4f}, {e['errors_beyond_2se']} beyond 2 SE"
            )
        for r in res.get("runs", []):
            deck = ", ".join(f"{n} {k}" for k, n in r["champion"].items())
            print(
                f"{r['run']}: {r['selection']}/{r['fitness']} seed {r['seed']}, {r['evolution_games']} games: champion "
                f"{deck}, exact {r['exact_first_player']:.4f} (|-0.5| {r['exact_distance_from_half']:.4f}, "
                f"rank {r['rank_in_space']} of {r['space_decks']})"
            )
    return res
