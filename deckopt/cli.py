"""`deckopt` entry point: one console script, one subcommand per module in deckopt.commands.

Exit codes: 0 success, 2 user error (one line on stderr), 1 unexpected failure.
"""

from __future__ import annotations

import _thread
import argparse
import functools
import importlib
import os
import signal
import sys
import threading

from agents.parallel import WorkerFailure
from deckopt.commands._common import OneLineParser
from games.errors import UserError
from games.fileio import DISK_ERRORS

#: every command and the module that defines it (its register(subparsers)), in the order of `deckopt
#: --help`. A command imports its own module only, so it pays for no other command's imports (the
#: archive's pyribs and its scientific stack alone take seconds); `deckopt --help`, and a word that
#: names no command, import them all.
COMMANDS = {
    "play": "deckopt.commands.play",
    "match": "deckopt.commands.match",
    "eval": "deckopt.commands.eval",
    "train": "deckopt.commands.train",
    "evolve": "deckopt.commands.evolve",
    "sweep": "deckopt.commands.sweep",
    "decks": "deckopt.commands.decks",
    "tournament": "deckopt.commands.tournament",
    "bench": "deckopt.commands.bench",
    "study": "deckopt.commands.study",
    "matchups": "deckopt.commands.matchups",  # deck designer tools
    "advise": "deckopt.commands.advise",
    "report": "deckopt.commands.report",
    "train-pruning": "deckopt.commands.pruning",  # the MCTS pruning networks
    "exploit": "deckopt.commands.exploit",  # approximate exploitability of an agent
    "evaluator": "deckopt.commands.evaluator",  # a deck game's evaluator panel and its trust figures
    "check": "deckopt.commands.check",  # the conformance suite on a game
    "bot": "deckopt.commands.bot",  # a LOCM agent as a competition bot
}


def command_word(argv: list[str]) -> str | None:
    """The command `argv` names: its first word that is no option (None if there is none)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of `deckopt`: with `argv` naming a command, that command's alone; else every command's."""
    parser = OneLineParser(
        prog="deckopt",
        description="Train game-playing agents by self-play and evolve card decks. "
        "`deckopt COMMAND --help` lists the options of each command.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks for every error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    word = None if argv is None else command_word(argv)
    for module in [COMMANDS[word]] if word in COMMANDS else COMMANDS.values():
        importlib.import_module(module).register(sub)
    return parser


def _terminate_as_interrupt(signum, frame):
    raise KeyboardInterrupt


def _interrupt_again_if_swallowed(unraisable, previous) -> None:
    """A Ctrl-C or SIGTERM that lands while Python runs a finaliser or a weak-reference callback
    raises KeyboardInterrupt there, where Python prints "Exception ignored in ..." and carries on as
    if nothing had happened. Deliver it to the main thread again a moment later, from a timer thread,
    so that it lands once the main thread is back in ordinary code (were it swallowed again, this
    runs again), and the command stops as it would have; any other unraisable exception is reported
    as usual."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        again = threading.Timer(0.05, _thread.interrupt_main)
        again.daemon = True
        again.start()
    else:
        previous(unraisable)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(words).parse_args(words)
    # SIGTERM stops any command the way Ctrl-C does (exit 130; train and evolve save first)
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    else:
        previous = None
    previous_unraisable = sys.unraisablehook
    sys.unraisablehook = functools.partial(_interrupt_again_if_swallowed, previous=previous_unraisable)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        if args.debug:
            raise
        print(f"deckopt {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # its text, if any: how to continue
        print(f"deckopt {args.command}: interrupted{f'; {exc}' if str(exc) else ''}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # e.g. `deckopt decks RUN | head`; silence the second error at interpreter exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in DISK_ERRORS or args.debug:
            raise
        # a full disk, a read-only folder or no permission: what was written before stays, whole
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"deckopt {args.command}: error: cannot write: {exc.strerror}{where}", file=sys.stderr)
        return 2
    except WorkerFailure as exc:  # a worker died or hung; the map killed the others
        if args.debug:
            raise
        print(f"deckopt {args.command}: error: {exc}", file=sys.stderr)
        return 1
    finally:
        sys.unraisablehook = previous_unraisable
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
