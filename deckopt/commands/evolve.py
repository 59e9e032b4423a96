"""`deckopt evolve`: evolve the decks of a deck space (DEAP) in parallel, scored by the space (mirrored
matches for decks that play each other, an objective of the agent's own games for decks judged alone).

The settings flags are generated from `evolution.config.EvolveConfig` (one line per field there);
this module adds the command's own options, owns the signals (the first Ctrl-C or SIGTERM asks the
loop to stop after the generation it plays, `should_stop`; a second aborts it), turns a stop and a
dead or hung worker into one line with the resume hint, and prints the summary.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from agents import split_agent_specs, trust_figures
from agents.parallel import WorkerFailure
from agents.stopping import StopOnSignal
from deckopt.commands._common import Progress, _setting, print_json, seed_int
from deckopt.commands._config_flags import add_config_flags, config_overrides
from evolution.config import EvolveConfig, load_config
from evolution.decks.settings import HeadToHeadSettings, SpaceSettings
from evolution.decks.settings_registry import DEFAULT_GAME, SETTINGS, settings_class, space_names
from evolution.designer.tables import deck_text, validation_table
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from evolution.spaces.registry import space_for
from games.config import read_settings
from games.errors import UserError
from games.fileio import DISK_ERRORS


def register(sub) -> None:
    p = sub.add_parser(
        "evolve",
        help=f"evolve the decks of a deck space ({DEFAULT_GAME} by default; --game for the others and plug-ins)",
        description=f"Evolve legal decks of a deck space ({DEFAULT_GAME} by default; --game: "
        f"{', '.join(space_names())}). Each generation every deck is scored by its game's space: decks that "
        "play each other meet their opponents (the population round robin, the hall of fame, fresh random "
        "decks, and/or a panel of reference decks) in mirrored games with fresh seeds, fitness the mean score "
        "(win 1, draw 0.5) with a 95% CI; decks judged alone are scored on an "
        "objective of the agent's own games (--objective). A surviving deck's fitness is pooled over its last "
        "score_memory (4) generations. Writes runs/NAME/: config.json, generations/gen_NNNN.json, logbook.csv, "
        "best_decks.json, hall_of_fame.json, checkpoints/, fitness.png, champion.toml and validation.json. "
        "Every generation's best decks also play a fixed yardstick panel (the game's own where it ships one, "
        "or --yardstick; never part of the fitness): logged, plotted, and the champion is the best on it. "
        "--selection random is the random-search baseline at the same game budget; --fitness racing stops "
        "decks whose rank is clear. --agent plays every seat (default: the game's own default agent, which "
        "its facts declare; a plug-in's too); --agent A,B,C splits every pairing's games across several "
        "evaluator agents. validation.json: the champion against the game's reference decks (or "
        "--validation-panel), its score under each copy of a panel and whether it holds under every copy, "
        "beside a named panel's trust figures (agents/pretrained/panels.toml). Ctrl-C keeps every finished "
        "generation; continue with --resume. A game's own settings are its table of the settings file "
        "(docs/evolution.md). Settings: defaults < --config FILE < flags.",
    )
    add_settings_flags(p)
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/evolve-TIME)")
    p.add_argument(
        "--resume",
        metavar="DIR",
        help="continue the run in DIR from its last finished generation, on the cluster of this command line "
        "(--backend, --scheduler; never the one saved in DIR)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars or per-generation lines")
    p.add_argument("--json", action="store_true", help="print one JSON summary object on stdout")
    p.set_defaults(func=run)


def _games_with(name: str) -> str:
    """The deck games whose settings have `name`, as a help text's start ("" for every game)."""
    if name in HeadToHeadSettings.names() - SpaceSettings.names():
        return "decks that play each other: "
    having = [s.game for s in SETTINGS.values() if name in s.names()]
    return "" if len(having) == len(SETTINGS) else f"{', '.join(having)}: "


def add_settings_flags(p) -> None:
    """A run's settings: --config FILE, a flag per setting of the run (EvolveConfig) and of our deck
    games (their settings classes, each flag once, its help naming the games that have it), --seed,
    --set, --constraints (read back by `settings_from_flags`). A plug-in's own settings are set in
    its table of the settings file or by `--set NAME=VALUE`."""
    p.add_argument("--config", metavar="FILE", help="TOML (or JSON) file of settings (see evolution/config.py)")
    add_config_flags(p, EvolveConfig, skip=("seed",))
    done = {f.name for f in dataclasses.fields(EvolveConfig)}
    for space in SETTINGS.values():
        add_config_flags(p, space, skip=tuple(done), prefix={name: _games_with(name) for name in space.names()})
        done |= space.names()
    p.add_argument("--seed", type=seed_int, metavar="S", help="root seed, 0 .. 2**32-1 (default 0)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="a setting of the run or of its game by its name, a plug-in's own settings too (repeatable; a "
        "TOML value, or @FILE: KEY's value in the TOML file FILE); "
        f"else, for {_games_with('game_config')[:-2]}, a game setting of every game, e.g. --set "
        "open_hands=false; rules.NAME=VALUE: a deck rule of the run's game (its table's rules: "
        f"{', '.join(f'[{s.table}.rules]' for s in SETTINGS.values() if s.has_rules())} or a plug-in's), "
        "e.g. --set rules.copy_limit=1",
    )
    p.add_argument(
        "--constraints",
        metavar="FILE",
        help=f"{_games_with('constraints')}a TOML (or JSON) file whose [constraints] table (locked, forbidden, "
        "[[constraints.count]]) every evolved deck keeps; a deck file with constraints works too",
    )


def split_set(items) -> tuple[dict, dict]:
    """`--set` items as (settings by name, deck rules): `rules.NAME=VALUE` is a deck rule of the run's game."""
    named, rules = {}, {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if key.strip().startswith("rules."):
            name, value = _setting(key.strip().removeprefix("rules.") + sep + value)
            rules[name] = value
        else:
            name, value = _setting(item)
            named[name] = value
    return named, rules


def settings_from_flags(args) -> dict:
    """The settings given as flags (deck rules under `deck_rules`)."""

    flags = {}
    for cls in (EvolveConfig, *SETTINGS.values()):
        flags.update(config_overrides(args, cls))
    if args.seed is not None:
        flags["seed"] = args.seed
    named, deck_rules = split_set(args.set)
    if named:
        flags["named_settings"] = named
    if deck_rules:
        flags["deck_rules"] = deck_rules
    if args.constraints:
        table = read_settings(args.constraints, what="constraints file")
        if "constraints" not in table:
            raise UserError(f"constraints file {args.constraints!r} has no [constraints] table")
        flags["constraints"] = table["constraints"]
    if flags.get("scheduler"):
        if flags.get("backend") == "loky":
            raise UserError("--scheduler needs the dask backend (drop --backend loky)")
        flags["backend"] = "dask"
    return flags


def run(args: argparse.Namespace) -> int:

    flags = settings_from_flags(args)
    if args.resume:
        if args.config or args.out:
            raise UserError("--resume continues a run with its saved config; drop --config/--out")
        if "deck_rules" in flags:
            raise UserError("--resume keeps the run's deck rules; drop --set rules.*")
        if "named_settings" in flags:
            raise UserError("--resume keeps the run's settings; drop --set")
        out, config = Path(args.resume), None
    else:
        config = load_config(args.config, **flags)
        out = Path(args.out) if args.out else Path("runs") / f"evolve-{time.strftime('%Y%m%d-%H%M%S')}"
    quiet = args.quiet
    with Progress(enabled=not quiet) as bar, StopOnSignal(None if quiet else bar.log, "this generation") as stop:
        try:
            summary = evolve(
                config,
                out,
                resume=bool(args.resume),
                overrides=flags if args.resume else None,
                progress=None if quiet else bar,
                log=None if quiet else bar.log,
                should_stop=stop,
            )
        except KeyboardInterrupt:  # a second Ctrl-C (or SIGTERM): abort now; the finished generations stay
            bar.close()
            print(f"deckopt evolve: {stop.why}; {_saved(out)}", file=sys.stderr, flush=True)
            return 130
        except WorkerFailure as exc:
            bar.close()
            print(f"deckopt evolve: error: {exc}; {_saved(out)}", file=sys.stderr, flush=True)
            return 1
        except OSError as exc:  # the disk filled up during the run: what was saved stays whole
            if exc.errno not in DISK_ERRORS:
                raise
            bar.close()
            print(f"deckopt evolve: error: cannot write: {exc.strerror}; {_saved(out)}", file=sys.stderr, flush=True)
            return 2
    if summary.get("stopped_by") == "interrupt":
        print(f"deckopt evolve: {stop.why}; {_saved(out)}", file=sys.stderr, flush=True)
        return 130
    _print_summary(summary, args.json)
    note = untrusted_agent_note(RunFolder(out).read_config())
    if note and not args.json:
        print(f"deckopt evolve: {note}", file=sys.stderr, flush=True)
    return 0


def untrusted_agent_note(config: EvolveConfig) -> str:
    """One line for a run whose games are played by an agent with no recorded trust figures: which
    agent plays, and (for decks that play each other) how to build a trusted evaluator; "" otherwise."""
    if trust_figures(config.agent, split_agent_specs(config.agent)) is not None:
        return ""
    line = f"{config.game}'s decks are played by {config.agent!r}, an agent with no trust figures recorded"
    if settings_class(config.game).head_to_head:
        folder = f"runs/{config.game}_evaluator"
        line += (
            f"; build a trusted evaluator with `deckopt evaluator {config.game} --out {folder}` and play it with "
            f"--agent {folder}/panel.toml"
        )
    return line


def _saved(out: Path) -> str:
    """What a stopped run kept, and how to continue it."""
    folder = RunFolder(out)
    if not folder.config.is_file():
        return "the run had not started; nothing was written"
    done = folder.saved_generation()
    kept = f"generations 0..{done} are saved" if isinstance(done, int) else "no generation finished"
    return f"{kept}: continue with `deckopt evolve --resume {out}`"


def _print_summary(summary: dict, as_json: bool) -> None:
    if as_json:
        print_json(summary)
        return
    print(f"run folder: {summary['run']} ({summary['generations']} generations)")
    space = space_for(RunFolder(summary["run"]).read_config())
    if summary.get("champion"):
        print(f"champion: {deck_text(space, summary['champion']['cards'])} -> {Path(summary['run']) / 'champion.toml'}")
    if summary.get("validation"):
        print(validation_table(summary["validation"], space))
    print(f"inspect: deckopt decks {summary['run']}")
