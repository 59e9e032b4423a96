"""`deckopt sweep`: one evolution run per value of a deck rule, each champion measured on held-out
decks under that rule (evolution/studies/sweep.py), and the table of how the best deck, its
archetype and its dominance move with the rule.

The run settings are `deckopt evolve`'s (its flags, --config FILE, --set); this module adds the
sweep's own options, shows the progress and prints the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path

from deckopt.commands._common import Progress, _setting, count, pair_games, print_json, resumable
from deckopt.commands.evolve import add_settings_flags, settings_from_flags
from evolution.config import load_config
from evolution.decks.settings_registry import SETTINGS
from evolution.studies.sweep import markdown_table, run_sweep
from games.errors import UserError


def register(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="a deck rule swept over values: the best deck, its archetype and whether it dominates, per value",
        description="For each value of --rule (a deck rule of the run's game, in its table's rules: "
        + "; ".join(
            f"{s.game} [{s.table}.rules]: {', '.join(f.name for f in dataclasses.fields(s.rules_class()))}"
            for s in SETTINGS.values()
            if s.has_rules()
        )
        + "; or a plug-in's) one evolution run with the other settings as `deckopt evolve` takes them, in "
        "OUT/RULE=VALUE/ (no reference validation or yardstick: their decks are built for the default rules). "
        "Each champion then plays, under its rule, --heldout-games mirrored games against each of --heldout-decks "
        "random legal decks and of as many other decks of its run's last generation (the rivals), fresh seeds. "
        "A champion is dominant when its 95% CI against the rivals lies above --dominance. Writes OUT/sweep.json, "
        "sweep.md, sweep.csv and sweep.png. Run again with the same OUT to resume: finished runs are kept, an "
        "unfinished one is resumed; only with the same settings (apart from new values and how the runs execute: "
        "--jobs, --backend, ...).",
    )
    p.add_argument("--rule", required=True, metavar="NAME", help="the deck rule to sweep, e.g. copy_limit")
    p.add_argument("--values", required=True, metavar="V,V,...", help="its values, comma-separated, e.g. 1,2,3")
    p.add_argument("--out", metavar="DIR", help="the sweep's folder (default runs/sweep-RULE)")
    p.add_argument(
        "--heldout-decks", type=count, default=20, metavar="N", help="held-out decks of each field (default 20)"
    )
    p.add_argument(
        "--heldout-games",
        type=pair_games,
        default=20,
        metavar="N",
        help="the champion's games against each held-out deck, even (default 20)",
    )
    p.add_argument(
        "--dominance",
        type=float,
        default=0.6,
        metavar="SCORE",
        help="a champion whose CI against its rivals lies above this score is dominant (default 0.6)",
    )
    add_settings_flags(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars or per-generation lines")
    p.add_argument("--json", action="store_true", help="print the sweep's report as one JSON object on stdout")
    p.set_defaults(func=run)


def parse_values(text: str) -> list:
    """`1,2,3` -> [1, 2, 3] (each a TOML value; a bare word is text)."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        raise UserError(f"--values expects comma-separated values such as 1,2,3, got {text!r}")
    return [_setting(f"v={part}")[1] for part in parts]


def run(args: argparse.Namespace) -> int:
    if args.heldout_games % 2:
        raise UserError("--heldout-games must be even (mirrored pairs of games)")
    if not (math.isfinite(args.dominance) and 0 < args.dominance < 1):
        raise UserError(f"--dominance must be a score between 0 and 1, got {args.dominance}")
    values = parse_values(args.values)
    config = load_config(args.config, **settings_from_flags(args))
    out = Path(args.out) if args.out else Path("runs") / f"sweep-{args.rule}"
    again = (
        f"continue with: deckopt sweep --rule {args.rule} --values {args.values} --out {out} and the same settings "
        "(finished runs are kept, an unfinished one resumes)"
    )
    with Progress(enabled=not args.quiet) as bar, resumable(again):
        report = run_sweep(
            config,
            args.rule,
            values,
            out,
            fields=args.heldout_decks,
            games=args.heldout_games,
            dominance=args.dominance,
            progress=None if args.quiet else bar,
            log=None if args.quiet else bar.log,
        )
    if args.json:
        print_json(report)
        return 0
    print(markdown_table(report), end="")
    print(f"files: {out / 'sweep.md'}, {out / 'sweep.csv'}, {out / 'sweep.png'}, {out / 'sweep.json'}")
    return 0
