"""Small helpers shared by the subcommands (argument types, JSON output, progress bars)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import tomllib

import games
from agents.panel import named_panels_help
from evolution.config import load_config
from evolution.decks.settings import MAX_GAMES_PER_PAIR
from evolution.decks.settings_registry import space_names
from evolution.spaces.registry import space_class, space_for
from games import GAME_NAMES
from games.base import GameFacts
from games.config import DEFAULT_TASK_TIMEOUT, MAX_JOBS, MAX_TASK_TIMEOUT
from games.errors import UserError, error_line
from games.fileio import DISK_ERRORS, finite_json, resolve_path
from games.registry import GAMES
from games.schema import read_data

GAME_HELP = ", ".join(GAME_NAMES) + ", or a Game class as package.module:Class"  # the positional game argument's help
#: what every command that plays agents says about panels (agents.make_panel)
PANEL_HELP = f"a panel (a comma list of specs, or {named_panels_help()}) plays each deal with one of its members"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit 2), not usage and message."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {error_line(message)}\n")


#: what `deckopt matchups` asks of a deck space: its deck files, the agent of every seat, its games
MATCHUP_MEMBERS = ("references", "reference_problems", "build_agent", "matches")


def designer_games(needs: tuple[str, ...] = MATCHUP_MEMBERS) -> list[str]:
    """The games whose deck spaces answer `needs` (ours, and the installed plug-ins')."""
    return [g for g in space_names() if all(callable(getattr(space_class(g), m, None)) for m in needs)]


def designer_game(game: str, seed: int, settings: dict | None = None, needs: tuple[str, ...] = MATCHUP_MEMBERS):
    """(evolution settings, deck space) that the designer commands play `game`'s decks under: the
    `settings` given by name (the deck rules, a drafter space's battlers; the rest the defaults);
    UserError in one line for a game without a deck space or whose space does not answer `needs`
    (MATCHUP_MEMBERS: its decks do not play each other; advise: `card_pool` too)."""
    config = load_config(game=game, seed=seed, validate=False, **(settings or {}))
    space = space_for(config)
    missing = [m for m in needs if not callable(getattr(space, m, None))]
    if missing:
        with_decks = ", ".join(designer_games(needs))
        if set(missing) & set(MATCHUP_MEMBERS):
            raise UserError(
                f"game {game!r} has no reference decks: its decks do not play each other; the designer commands "
                f"read decks of {with_decks}"
            )
        raise UserError(
            f"game {game!r} has no card pool ({', '.join(missing)}): single-card changes apply to decks of {with_decks}"
        )
    return config, space


@contextlib.contextmanager
def resumable(continue_line: str):
    """Ctrl-C, SIGTERM or a full disk inside end the command in one line that says how to continue
    (`continue_line`): what was saved stays whole."""
    try:
        yield
    except KeyboardInterrupt:
        raise KeyboardInterrupt(continue_line) from None
    except OSError as exc:
        if exc.errno not in DISK_ERRORS:
            raise
        raise UserError(f"cannot write: {exc.strerror}; {continue_line}") from None


def print_json(obj) -> None:
    """Exactly one JSON object on stdout (strict JSON: a number that is not finite as null)."""
    sys.stdout.write(json.dumps(finite_json(obj)) + "\n")
    sys.stdout.flush()


def int_at_least(minimum: int, maximum: int | None = None):
    """An argparse type: a whole number >= minimum (and <= maximum), else a one-line error."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"expected a number <= {maximum:_}, got {value}".replace("_", " "))
        return value

    return parse


#: a seed of numpy's generators: 0 .. 2**32 - 1
MAX_SEED = 2**32 - 1
seed_int = int_at_least(0, MAX_SEED)
#: games in one command: a billion games would run for days; refuse at once instead
MAX_GAMES = 100_000_000
game_count = int_at_least(1, MAX_GAMES)
positive_int = int_at_least(1)
#: games of one pairing of decks (evolution.decks.settings.MAX_GAMES_PER_PAIR: a pairing is one batch in memory)
pair_games = int_at_least(1, MAX_GAMES_PER_PAIR)
pair_games_or_none = int_at_least(0, MAX_GAMES_PER_PAIR)
MAX_PAIR_TEXT = f"{MAX_GAMES_PER_PAIR:,}".replace(",", " ")
#: positions, bandits, epochs and the like of one command: beyond this a typo, not a plan
MAX_COUNT = 1_000_000
count = int_at_least(1, MAX_COUNT)
count_or_none = int_at_least(0, MAX_COUNT)
pair_deals = int_at_least(1, MAX_GAMES_PER_PAIR // 2)
#: worker processes of a command's parallel map (games.config.MAX_JOBS)
job_count = int_at_least(1, MAX_JOBS)
JOBS_HELP = f"worker processes, 1-{MAX_JOBS}"


def seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0 and at most a day, else a one-line error."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TASK_TIMEOUT):
        raise argparse.ArgumentTypeError(f"expected seconds > 0 and <= {MAX_TASK_TIMEOUT:g}, got {text!r}")
    return value


def worker_args(parser, default_jobs: int = 1, what: str = "") -> None:
    """--jobs and --task-timeout: the one worker policy of every command with a parallel map."""
    parser.add_argument(
        "--jobs", type=job_count, default=default_jobs, metavar="J", help=f"{what}{JOBS_HELP} (default {default_jobs})"
    )
    parser.add_argument(
        "--task-timeout",
        type=seconds,
        default=DEFAULT_TASK_TIMEOUT,
        metavar="SECONDS",
        help=f"{what}seconds one work unit (a few hundred games) may take before the command stops with an "
        f"error: a stopped or hung worker (default {DEFAULT_TASK_TIMEOUT:g})",
    )


class Progress:
    """The one progress display of the command line. Library code reports `progress(done, total,
    what)` (absolute counts; a new `what` starts a new stage) and `log(line)`; this turns them
    into a tqdm bar on stderr when stderr is a terminal, and into one line per finished stage when
    it is a file or a pipe (no carriage-return frames in logs). Use as a context manager."""

    def __init__(self, enabled: bool = True, unit: str = "game"):
        self.enabled = enabled
        self.unit = unit
        self.tty = sys.stderr.isatty()
        self._bar = None
        self._what: str | None = None
        import time

        self._t0 = time.perf_counter()  # a stage's clock starts when the previous one ends
        self._reported = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __call__(self, done: int, total: int, what: str = "") -> None:
        if not self.enabled:
            return
        import time

        if what != self._what:
            self._finish_stage()
            if self._what is not None:
                self._t0 = time.perf_counter()
            self._what, self._reported = what, False
            if self.tty:
                from tqdm import tqdm

                self._bar = tqdm(
                    total=total, desc=what, unit=self.unit, file=sys.stderr, leave=False, dynamic_ncols=True
                )
        if self._bar is not None:
            self._bar.total = total
            self._bar.update(done - self._bar.n)
        elif done >= total and not self._reported:
            self._reported = True
            seconds = time.perf_counter() - self._t0
            print(f"{what}: {done}/{total} {self.unit}s, {seconds:.1f} s", file=sys.stderr, flush=True)

    def log(self, line: str) -> None:
        """A line on stderr that does not tear the bar."""
        if self._bar is not None:
            self._bar.clear()
        print(line, file=sys.stderr, flush=True)
        if self._bar is not None:
            self._bar.refresh()

    def _finish_stage(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        self._finish_stage()
        self._what = None


def game_config_args(parser) -> None:
    """Options shared by commands that make a game."""
    parser.add_argument(
        "--players",
        type=positive_int,
        default=None,
        help="number of players, in a game where it is a setting ("
        + ", ".join(f"{name}: {lo}-{hi}" for name, (lo, hi) in _player_ranges().items())
        + ")",
    )
    parser.add_argument(
        "--deck",
        action="append",
        default=None,
        metavar="FILE",
        help="a deck file of a game with decks ("
        + ", ".join(_deck_games())
        + ", a plug-in's); once for every seat in seat order, or once for all (default: the game's own decks)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="a game setting (repeatable; a TOML value, or @FILE: KEY's value in the TOML file FILE), e.g. --set "
        "open_hands=true --set max_bouts=200 --set deck_pool=@pool.toml",
    )


def _class_facts(cls: type) -> GameFacts:
    """A game class's facts (a game whose facts depend on its config: those of its default config)."""
    return cls.facts if isinstance(cls.facts, GameFacts) else cls().facts


def _deck_games() -> list[str]:
    """Our games that take deck files (their facts' deck_files)."""
    return [name for name, entry in GAMES.items() if _class_facts(entry.engine).deck_files is not None]


def _player_ranges() -> dict[str, tuple[int, int]]:
    """Our games whose number of players is a setting, with its range (their facts)."""
    out = {}
    for name, entry in GAMES.items():
        players = _class_facts(entry.engine).players
        if players is not None:
            out[name] = players
    return out


def _setting(item: str) -> tuple[str, object]:
    """`key=value` with a TOML value (true, 3, 0.5, "text", [1, 2]); a bare word is text. `key=@FILE`:
    the value of `key` in the TOML file FILE (JSON by the suffix .json), for a value too long for a
    command line (a deck_pool as scripts/locm_deck_pool.py prints it: `deck_pool = [...]`)."""
    key, sep, text = item.partition("=")
    key, text = key.strip(), text.strip()
    if not sep or not key.isidentifier():
        raise UserError(f"--set expects KEY=VALUE, got {item!r}")
    if text.startswith("@"):
        data = read_data(resolve_path(text[1:]), f"settings file of --set {key}", toml=True)
        if not isinstance(data, dict) or key not in data:
            raise UserError(f"--set {key}={text}: the file sets no {key} (a line `{key} = VALUE`)")
        return key, data[key]
    try:
        return key, tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return key, text


def make_game(args):
    """games.make from the shared options."""

    config = {}
    game_cls = games.game_class(args.game)
    deck_files = _class_facts(game_cls).deck_files
    if getattr(args, "players", None) is not None:
        if "num_players" not in {f.name for f in dataclasses.fields(games.game_class(args.game).config_class)}:
            raise UserError(f"--players does not apply to {args.game} (a fixed number of players)")
        config["num_players"] = args.players
    for item in getattr(args, "set", None) or []:
        key, value = _setting(item)
        if key == "num_players":
            fixed = "num_players" not in {f.name for f in dataclasses.fields(games.game_class(args.game).config_class)}
            raise UserError(
                f"--set num_players: {args.game} has a fixed number of players"
                if fixed
                else "--set num_players: give the number of players as --players N"
            )
        if key in ("decks", "rules") and deck_files is not None:
            raise UserError(f"--set {key}: {args.game}'s decks come from deck files: give them as --deck FILE")
        if key in config:
            raise UserError(f"--set {key}: given twice")
        config[key] = value
    if getattr(args, "deck", None):
        if deck_files is None:
            raise UserError(
                f"--deck: {args.game} takes no deck files (games with deck files: {', '.join(_deck_games())}, "
                "and a plug-in whose facts name deck_files)"
            )
        seats = config.get("num_players", getattr(game_cls, "num_players", 2))
        paths = args.deck * seats if len(args.deck) == 1 else args.deck
        if len(paths) != seats:
            raise UserError(
                f"--deck given {len(args.deck)} times; give it once for all seats or once per seat ({seats})"
            )
        config |= deck_files(paths)
    return games.make(args.game, **config)
