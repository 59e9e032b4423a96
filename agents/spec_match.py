"""A match between agents named by specs, its games shared among worker processes (agents.parallel):
each worker makes the agents from their specs, so agents that cannot travel between processes (a
host of native bots with its processes) play in parallel too.

    result, hosted = play_spec_match(game, ["native:./bot", "greedy"], 100, seed=0, mapper=pmap)

The games are cut into tasks by the agents and the games alone, never by the workers, so a match gives
the same results with any number of workers: a match of agents that play any number of games at once
is one task (one process plays it vectorised, as `play_match` does), one with an agent that plays few
at once (a native bot: a process per game) is cut into tasks of `FEW_AT_ONCE_DEALS` deals, each
task's agents made afresh from the match's seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import agents
from agents.arena import AgentResult, MatchResult, play_match
from agents.native import HostStats, close_agents, host_stats
from games import Game

#: deals a task plays when an agent plays few games at once (a native bot: a process per game)
FEW_AT_ONCE_DEALS = 8


def task_games(game: Game, specs: Sequence[str], seed: int, num_games: int) -> int:
    """The games of one task: FEW_AT_ONCE_DEALS deals when an agent limits the games it plays at
    once, else the whole match."""
    players = make_players(game, specs, seed)
    limited = any(getattr(a, "games_at_once", None) for a in players)
    close_agents(players)
    return game.num_players * FEW_AT_ONCE_DEALS if limited else max(1, num_games)


def make_players(game: Game, specs: Sequence[str], seed: int) -> list:
    """The match's agents, seat order, each made from `seed` (as `deckopt match` makes them)."""
    return [agents.make_panel(spec, game, seed=[seed, 1000 + i]) for i, spec in enumerate(specs)]


def play_share(game: Game, specs: Sequence[str], seed: int, first: int, count: int) -> tuple[MatchResult, list]:
    """Games first .. first + count - 1 of the match, with agents made here; the result and the
    hosted bots' (seat index, HostStats)."""
    players = make_players(game, specs, seed)
    try:
        result = play_match(game, players, count, seed=seed, first_game=first)
    finally:
        close_agents(players)
    return result, host_stats(players)


def play_spec_match(
    game: Game,
    specs: Sequence[str],
    num_games: int,
    seed: int,
    mapper,
    progress: Callable[[int, int, str], None] | None = None,
    what: str = "",
) -> tuple[MatchResult, list[tuple[int, HostStats]]]:
    """`play_match` of the agents of `specs` over `mapper`'s workers: the merged result (seconds: the
    whole match's) and the hosted bots' stats summed over the tasks."""
    start = time.perf_counter()
    size = task_games(game, specs, seed, num_games)
    tasks = [(game, list(specs), seed, first, min(size, num_games - first)) for first in range(0, num_games, size)]
    done = 0
    what = what or game.name

    def on_result(i, _):
        nonlocal done
        done += tasks[i][4]
        if progress is not None:
            progress(done, num_games, what)

    if progress is not None:
        progress(0, num_games, what)
    shares = mapper(play_share, tasks, on_result=on_result)
    merged = [AgentResult(spec=a.spec) for a in shares[0][0].agents]
    stats: dict[int, HostStats] = {}
    steps = 0
    for result, hosted in shares:
        steps += result.steps
        for total, part in zip(merged, result.agents, strict=True):
            total.record = total.record + part.record
            for seat, record in part.by_seat.items():
                total.by_seat[seat] = total.by_seat[seat] + record if seat in total.by_seat else record
            total.total_return += part.total_return
        for i, s in hosted:
            stats[i] = stats[i] + s if i in stats else s
    match = MatchResult(game.name, num_games, seed, merged, steps, time.perf_counter() - start)
    return match, sorted(stats.items())
