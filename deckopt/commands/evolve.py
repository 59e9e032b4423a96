"""`deckopt evolve`: evolve Gwent Lite decks (DEAP), fitness by mirrored matches, in parallel."""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from deckopt.commands._common import positive_int, print_json


def _opponents(text: str) -> list[str]:
    from evolution.config import OPPONENT_KINDS

    kinds = [k.strip() for k in text.replace("+", ",").split(",") if k.strip()]
    bad = [k for k in kinds if k not in OPPONENT_KINDS]
    if not kinds or bad:
        raise argparse.ArgumentTypeError(f"opponents are a comma list of {', '.join(OPPONENT_KINDS)}; got {text!r}")
    return kinds


def register(sub) -> None:
    p = sub.add_parser(
        "evolve",
        help="evolve Gwent Lite decks under the deck rules (DEAP, parallel mirrored matches)",
        description="Evolve legal Gwent Lite decks. Each generation every deck plays its opponents "
        "(the population round robin, the hall of fame, fresh random decks, and/or a panel of "
        "reference decks) in mirrored games with fresh seeds; fitness is the mean score (win 1, draw 0.5) with a 95% CI, a surviving deck's pooled over its last score_memory (4) generations. "
        "Writes runs/NAME/: config.json, generations/gen_NNNN.json, logbook.csv, best_decks.json, "
        "hall_of_fame.json, checkpoints/, fitness.png, best_deck_powers.png, champion.toml and "
        "validation.json (the champion against decks/ and decks/ancestor/). Ctrl-C keeps every "
        "finished generation; continue with --resume. Settings: defaults < --config FILE < flags.",
    )
    p.add_argument("--config", metavar="FILE", help="TOML (or JSON) file of settings (see evolution/config.py)")
    p.add_argument("--generations", type=positive_int, metavar="G", help="number of generations (default 150; on --resume: extend to this many)")
    p.add_argument("--pool", type=positive_int, metavar="N", help="decks per generation (default 30)")
    p.add_argument("--games-per-pair", type=positive_int, metavar="K", help="games per pairing, even: mirrored pairs (default 10)")
    p.add_argument("--opponents", type=_opponents, metavar="KINDS", help="comma list of population, hall-of-fame, random, panel (default population,hall-of-fame,random)")
    p.add_argument("--panel", action="append", metavar="FILE|DIR", help="reference deck file or folder for 'panel' opponents (repeatable; adds 'panel' to the opponents)")
    p.add_argument("--selection", choices=["ancestor", "mu+lambda"], help="selection scheme (default ancestor)")
    p.add_argument("--survivors", type=positive_int, metavar="K", help="ancestor selection: decks kept each generation (default: a third of the pool)")
    p.add_argument("--mu", type=positive_int, metavar="MU", help="mu+lambda selection: parents (default: a third of the pool)")
    p.add_argument("--cx-prob", type=float, metavar="P", help="chance a child comes from a multiset crossover (default 0)")
    p.add_argument("--agent", metavar="SPEC", help="the agent playing every seat (default pretrained: the shipped Gwent Lite agent)")
    p.add_argument("--jobs", type=positive_int, metavar="J", help="worker processes (default 2)")
    p.add_argument("--backend", choices=["loky", "dask"], help="loky: local processes (default); dask: a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (tcp://host:8786); implies --backend dask")
    p.add_argument("--validation-games", type=positive_int, metavar="N", help="champion's games against each reference deck (default 2000)")
    p.add_argument("--no-validate", action="store_true", help="skip the champion's validation at the end")
    p.add_argument("--seed", type=int, metavar="S", help="root seed (default 0)")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/evolve-TIME)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its last finished generation")
    p.add_argument("--quiet", action="store_true", help="no progress bars or per-generation lines")
    p.add_argument("--json", action="store_true", help="print one JSON summary object on stdout")
    p.set_defaults(func=run)


def _flags(args) -> dict:
    """The settings given on the command line (None = not given)."""
    out = {
        "generations": args.generations,
        "pool": args.pool,
        "games_per_pair": args.games_per_pair,
        "opponents": args.opponents,
        "panel": args.panel,
        "selection": args.selection,
        "survivors": args.survivors,
        "mu": args.mu,
        "cx_prob": args.cx_prob,
        "agent": args.agent,
        "jobs": args.jobs,
        "backend": "dask" if args.scheduler and not args.backend else args.backend,
        "scheduler": args.scheduler,
        "validation_games": args.validation_games,
        "validate": False if args.no_validate else None,
        "seed": args.seed,
    }
    return {k: v for k, v in out.items() if v is not None}


def run(args: argparse.Namespace) -> int:
    import sys

    from evolution.config import EvolveConfig, load_config, read_config_file
    from evolution.loop import evolve
    from games.errors import UserError

    flags = _flags(args)
    if args.scheduler and args.backend == "loky":
        raise UserError("--scheduler needs the dask backend (drop --backend loky)")
    if args.resume:
        if args.config or args.out:
            raise UserError("--resume continues a run with its saved config; drop --config/--out")
        out, config = Path(args.resume), None
    else:
        file_settings = read_config_file(args.config) if args.config else {}
        opponents = file_settings.get("opponents", EvolveConfig.__dataclass_fields__["opponents"].default_factory())
        if "panel" in flags and "opponents" not in flags and "panel" not in opponents:
            flags["opponents"] = list(opponents) + ["panel"]
        config = load_config(args.config, **flags)
        out = Path(args.out) if args.out else Path("runs") / f"evolve-{time.strftime('%Y%m%d-%H%M%S')}"
    log = None if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
    summary = evolve(config, out, resume=bool(args.resume), overrides=flags if args.resume else None,
                     progress=not args.quiet, log=log)
    if args.json:
        print_json(summary)
    else:
        champ = summary.get("champion")
        print(f"run folder: {summary['run']} ({summary['generations']} generations)")
        if champ:
            from evolution.genome import counts_text

            print(f"champion: {counts_text(champ['cards'])} (total {sum(champ['cards'])}, {len(champ['cards'])} cards)"
                  f" -> {Path(summary['run']) / 'champion.toml'}")
        if summary.get("validation"):
            from evolution.validation import validation_table

            print(validation_table(summary["validation"]))
        print(f"inspect: deckopt decks {summary['run']}")
    return 0
