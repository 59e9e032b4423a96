"""`deckopt` entry point: one console script, one subcommand per module in deckopt.commands.

Exit codes: 0 success, 2 user error (one line on stderr), 1 unexpected failure.
"""

from __future__ import annotations

import _thread
import argparse
import errno
import functools
import os
import signal
import sys
import threading

from agents.parallel import WorkerFailure
from deckopt.commands import (
    advise,
    bench,
    bot,
    check,
    decks,
    eval,
    evaluator,
    evolve,
    exploit,
    match,
    matchups,
    play,
    pruning,
    report,
    study,
    sweep,
    tournament,
    train,
)
from deckopt.commands._common import OneLineParser
from games.errors import UserError, error_line
from games.fileio import DISK_ERRORS

# each module defines register(subparsers); the order is the order of `deckopt --help`
COMMAND_MODULES = [play, match, eval, train, evolve, sweep, decks, tournament, bench, study]
COMMAND_MODULES += [matchups, advise, report]  # deck designer tools
COMMAND_MODULES += [pruning]  # train-pruning: the MCTS pruning networks
COMMAND_MODULES += [exploit]  # approximate exploitability of an agent
COMMAND_MODULES += [evaluator]  # a deck game's evaluator panel and its trust figures
COMMAND_MODULES += [check]  # the conformance suite on a game
COMMAND_MODULES += [bot]  # a LOCM agent as a competition bot


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="deckopt",
        description="Train game-playing agents by self-play and evolve card decks. "
        "`deckopt COMMAND --help` lists the options of each command.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks for every error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for module in COMMAND_MODULES:
        module.register(sub)
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
    parser = build_parser()
    args = parser.parse_args(argv)
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
        print(f"deckopt {args.command}: error: {error_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # its text, if any: how to continue
        print(f"deckopt {args.command}: interrupted{f'; {exc}' if str(exc) else ''}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # e.g. `deckopt decks RUN | head`; silence the second error at interpreter exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if args.debug or exc.errno not in (*DISK_ERRORS, errno.ENAMETOOLONG):
            raise
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno == errno.ENAMETOOLONG:  # a name given (an agent spec, a path) longer than any file's
            print(f"deckopt {args.command}: error: {error_line(f'a name too long for a file{where}')}", file=sys.stderr)
            return 2
        # a full disk, a read-only folder or no permission: what was written before stays, whole
        print(f"deckopt {args.command}: error: {error_line(f'cannot write: {exc.strerror}{where}')}", file=sys.stderr)
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
