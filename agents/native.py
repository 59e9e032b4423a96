"""A host for LOCM bots written for the competition's referee (`native:CMD` agents): the bot runs as
its own process and plays in deckopt's engine.

    agent = agents.make("native:python3 bot.py", game)          # or native:CMD,slack=2,stderr=bot.log

Every game starts the command afresh (split like a shell line, run without a shell, in its own process
group, its thread pools held to one thread, a Python bot's output unbuffered). On each of its turns the
bot gets the referee's input (games/locm_referee.referee_input) on stdin and answers one line on stdout,
read as the referee reads it (games/locm_referee.battle_commands, draft_choice): a battle turn's
commands are played in order, each one the referee would cancel (not legal then) skipped, and the
turn ends when they run out.

The competition's time limits are measured per reply, from the input's last byte to the reply's
newline: 1000 ms on the first draft turn and on the bot's first battle turn, 200 ms on every other
turn. A reply later than its limit loses the game, as in the referee; `slack=F` multiplies every limit
by F (a loaded machine). A bot that exits, closes its output, answers what the referee cannot read or
answers too late loses that game at once (`LocmState.forfeit`) and its process group is killed; the
host records one line for it (`HostStats.failures`). Its stderr goes to `stderr=FILE` (appended) or
nowhere.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import select
import shlex
import shutil
import signal
import subprocess
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from games import Game, UserError
from games.locm import PASS, PICK, Locm
from games.locm_referee import InvalidCommand, action_of, battle_commands, draft_choice, referee_input

#: the competition's limits per reply, in seconds: the first draft turn and each bot's first battle
#: turn, and every other turn
FIRST_TURN_LIMIT = 1.0
TURN_LIMIT = 0.2
MAX_SLACK = 1000.0
#: the bot's environment: the thread pools of the usual runtimes held to one thread (each bot is one
#: core's worth), and Python bots' output unbuffered (each `print` reaches the host, as in a terminal)
BOT_ENVIRONMENT = {
    **{name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")},
    "PYTHONUNBUFFERED": "1",
}
PR_SET_PDEATHSIG = 1

_live: weakref.WeakSet[BotProcess] = weakref.WeakSet()


@dataclass
class NativeSpec:
    command: list[str]
    slack: float = 1.0
    stderr: Path | None = None

    @property
    def text(self) -> str:
        return shlex.join(self.command)


def parse_native_spec(spec: str) -> NativeSpec:
    """`native:CMD[,slack=F][,stderr=FILE]` as its parts; UserError in one line."""
    body = spec.removeprefix("native:")
    command, *options = body.split(",")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UserError(f"agent {spec!r}: the command cannot be read ({exc})") from None
    if not words:
        raise UserError(f"agent {spec!r}: give the bot's command after native:, e.g. native:'python3 bot.py'")
    out = NativeSpec(words)
    for option in options:
        key, _, value = option.partition("=")
        key = key.strip()
        if key == "slack":
            try:
                out.slack = float(value)
            except ValueError:
                out.slack = float("nan")
            if not 1.0 <= out.slack <= MAX_SLACK:
                raise UserError(f"agent {spec!r}: slack must be a number from 1 to {MAX_SLACK:g}, got {value!r}")
        elif key == "stderr" and value.strip():
            out.stderr = Path(value.strip())
        else:
            raise UserError(f"agent {spec!r}: unknown option {option.strip()!r}; options: slack=F, stderr=FILE")
    if shutil.which(words[0]) is None:
        raise UserError(f"agent {spec!r}: no program {words[0]!r} (not a file, not on PATH)")
    return out


def _die_with_parent() -> None:
    """In the bot's process before it starts: its own process group, and killed if the host dies."""
    os.setsid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class BotProcess:
    """One bot process, asked one turn at a time."""

    def __init__(self, spec: NativeSpec):
        stderr = subprocess.DEVNULL
        if spec.stderr is not None:
            try:
                stderr = open(spec.stderr, "ab")  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise UserError(f"native bot {spec.text!r}: cannot write its stderr to {spec.stderr} ({exc})") from None
        self._stderr = stderr
        self.process = subprocess.Popen(
            spec.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, **BOT_ENVIRONMENT},
            preexec_fn=_die_with_parent,
            bufsize=0,
        )
        self._buffer = b""
        _live.add(self)

    def ask(self, text: str, limit: float) -> tuple[str | None, float, str | None]:
        """Write `text`, wait at most `limit` seconds for a line: (reply, seconds, None), or (None,
        seconds, why there is none)."""
        try:
            self.process.stdin.write(text.encode())
        except (BrokenPipeError, OSError):
            return None, 0.0, self._exit_reason()
        start = time.perf_counter()
        deadline = start + limit
        out = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.perf_counter()
            if left <= 0 or not select.select([out], [], [], left)[0]:
                return None, time.perf_counter() - start, f"gave no reply within {limit * 1000:.0f} ms"
            chunk = os.read(out, 65536)
            if not chunk:
                return None, time.perf_counter() - start, self._exit_reason()
            self._buffer += chunk
        seconds = time.perf_counter() - start
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r"), seconds, None

    def _exit_reason(self) -> str:
        try:
            code = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"

    def close(self) -> None:
        """Kill the bot's process group and reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        self.process.stdout.close()
        self.process.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()
        _live.discard(self)


@atexit.register
def _kill_live_bots() -> None:
    for bot in list(_live):
        bot.close()


@dataclass
class HostStats:
    """A hosted bot's replies and failures over the games it played (adds up across workers)."""

    slack: float = 1.0
    games: int = 0
    first_replies: list[float] = field(default_factory=list)  # seconds of replies limited to 1000 ms
    replies: list[float] = field(default_factory=list)  # seconds of the replies limited to 200 ms
    late: int = 0  # replies past the competition's limit (accepted only with slack)
    skipped: int = 0  # commands the referee would cancel
    failures: list[str] = field(default_factory=list)  # one line per game lost by a failure

    def __add__(self, other: HostStats) -> HostStats:
        return HostStats(
            self.slack,
            self.games + other.games,
            self.first_replies + other.first_replies,
            self.replies + other.replies,
            self.late + other.late,
            self.skipped + other.skipped,
            self.failures + other.failures,
        )

    def as_dict(self) -> dict:
        """The stats in a JSON form: counts, the replies' mean, median, 99th percentile and largest
        seconds by limit, the failures."""

        def times(xs: list[float]) -> dict:
            mean, p50, p99 = (float(np.mean(xs)), *np.percentile(xs, [50, 99]).tolist()) if xs else (None,) * 3
            return {"replies": len(xs), "mean_s": mean, "p50_s": p50, "p99_s": p99, "max_s": max(xs, default=None)}

        return {
            "slack": self.slack,
            "games": self.games,
            "first_turns": times(self.first_replies),
            "other_turns": times(self.replies),
            "late": self.late,
            "skipped": self.skipped,
            "failures": self.failures,
        }

    def summary(self, name: str) -> str:
        """One line: replies, their mean, 99th percentile and largest times against each limit, late
        replies, skipped commands, games lost by a failure, and the limits' slack."""

        def times(xs: list[float], limit: float) -> str:
            if not xs:
                return f"none of {limit * 1000:.0f} ms"
            return (
                f"mean {1000 * np.mean(xs):.1f} ms, 99th percentile {1000 * np.percentile(xs, 99):.1f} ms, "
                f"max {1000 * max(xs):.1f} ms of {limit * 1000:.0f} ms"
            )

        return (
            f"{name}: {self.games} games, {len(self.first_replies) + len(self.replies)} replies; first turns "
            f"{times(self.first_replies, FIRST_TURN_LIMIT)}; other turns {times(self.replies, TURN_LIMIT)}; "
            f"{self.late} past the limit; {self.skipped} commands skipped as illegal; {len(self.failures)} "
            f"games lost by a failure; limits x{self.slack:g}"
        )


class _Game:
    """The host's side of one game: the bot's process and where it is in its turn."""

    def __init__(self, state, bot: BotProcess):
        self.state = state  # held, so that its id names this game until the game is closed
        self.bot = bot
        self.commands: list[str] | None = None  # the battle turn's commands left; None between turns
        self.battle_turns = 0


class NativeAgent(Agent):
    """A competition bot (see the module's text) playing LOCM: one process per game."""

    #: one process per game: the arena plays this many games at once with it
    games_at_once = 1

    def __init__(self, spec: NativeSpec):
        self.native = spec
        self.stats = HostStats(slack=spec.slack)
        self._games: dict[int, _Game] = {}

    def act(self, states: Sequence) -> np.ndarray:
        for key in [k for k, g in self._games.items() if g.state.is_terminal()]:
            self._games.pop(key).bot.close()
        return np.array([self._act(s) for s in states], dtype=np.int64)

    def _game(self, state) -> _Game:
        """The host's side of the game `state` is, its bot started on the game's first question."""
        game = self._games.get(id(state))
        if game is None:
            game = self._games[id(state)] = _Game(state, BotProcess(self.native))
            self.stats.games += 1
        return game

    def _act(self, state) -> int:
        game = self._game(state)
        if state.phase == "draft":
            first = not state.picks(state.current_player)
            reply = self._ask(game, first, "draft turn")
            if reply is None:
                return PASS
            try:
                return PICK + draft_choice(reply, state.offers())
            except InvalidCommand as exc:
                return self._lose(game, f"draft turn {len(state.picks(1)) + 1}: {exc}")
        if game.commands is None:
            game.battle_turns += 1
            reply = self._ask(game, game.battle_turns == 1, "battle turn")
            if reply is None:
                return PASS
            try:
                game.commands = battle_commands(reply)
            except InvalidCommand as exc:
                return self._lose(game, f"battle turn {game.battle_turns}: {exc}")
        legal = state.legal_actions()
        while game.commands:
            action = action_of(state, game.commands.pop(0))
            if action is not None and action in legal:
                return action
            self.stats.skipped += 1
        game.commands = None
        return PASS

    def follow_draft(self, states: Sequence, actions: np.ndarray) -> None:
        """Draft turns another agent picks for (agents.draft_battle): the bot is offered the card picked
        for it, three times, so that it battles the deck drafted for it. Its reply is timed as any draft
        turn's and otherwise ignored, as gym-locm's NativeBattleAgent ignores it (offered one card three
        times, Coac sometimes answers `PICK -1`)."""
        for state, action in zip(states, actions.tolist(), strict=True):
            card = state.offers()[action - PICK]
            self._ask(self._game(state), not state.picks(state.current_player), "draft turn", (card, card, card))

    def _ask(self, game: _Game, first: bool, what: str, offers: tuple[int, ...] | None = None) -> str | None:
        limit = FIRST_TURN_LIMIT if first else TURN_LIMIT
        reply, seconds, failure = game.bot.ask(referee_input(game.state, offers), limit * self.native.slack)
        turn = len(game.state.picks(1)) + 1 if what == "draft turn" else game.battle_turns
        if failure is not None:
            self._lose(game, f"{what} {turn}: the bot {failure}")
            return None
        (self.stats.first_replies if first else self.stats.replies).append(seconds)
        self.stats.late += seconds > limit
        return reply

    def _lose(self, game: _Game, why: str) -> int:
        state = game.state
        self.stats.failures.append(f"{self.spec}: lost a game as player {state.current_player}: {why}")
        state.forfeit(state.current_player)
        del self._games[id(state)]
        game.bot.close()
        return PASS

    def close(self) -> None:
        """Kill the processes of the games still open."""
        for game in self._games.values():
            game.bot.close()
        self._games.clear()


def make_native(spec: str, game: Game) -> NativeAgent:
    """The agent of a `native:CMD[,slack=F][,stderr=FILE]` spec for LOCM; UserError in one line."""
    if not isinstance(game, Locm):
        raise UserError(
            f"agent {spec!r}: native bots speak the LOCM referee's protocol; they play locm, not {game.name}"
        )
    if game.config.decks is not None or game.config.deck_pool is not None:
        raise UserError(f"agent {spec!r}: native bots draft their own decks; give locm no decks or deck_pool")
    return NativeAgent(parse_native_spec(spec))


def hosted_bot(agent: Agent) -> NativeAgent | None:
    """The hosted bot that `agent` is, or that battles for it behind a drafter (its `battler`)."""
    for a in (agent, getattr(agent, "battler", None)):
        if isinstance(a, NativeAgent):
            return a
    return None


def host_stats(agents: Sequence) -> list[tuple[int, HostStats]]:
    """The hosted bots among `agents`: (index, stats) pairs."""
    return [(i, bot.stats) for i, a in enumerate(agents) if (bot := hosted_bot(a)) is not None]


def close_agents(agents: Sequence) -> None:
    """Kill the processes of the hosted bots among `agents`."""
    for a in agents:
        if (bot := hosted_bot(a)) is not None:
            bot.close()
