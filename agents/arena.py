"""Self-play in lock-step: many games at once, one agent call per agent per step.

At each step the unfinished games are grouped by the agent to move; each agent is asked once for
its whole group (the agents of a class with its own `Agent.act_together` in one call, sharing their
search); the actions are applied; repeat. This amortises network calls, which dominate when games
are played one at a time, and it is the basis of training, evaluation, tournaments and deck fitness.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from agents.panel import AgentPanel, seat_members
from agents.stats import Record
from games import TERMINAL, Game, State
from games.batch import BatchState, StateBatch


def has_own_act_batch(agent: Agent) -> bool:
    """True if `agent` decides on a batch's observations and masks (its class overrides
    `Agent.act_batch`), False if it needs each game as a `State`. An agent made of others (its
    `parts`, e.g. agents.draft_battle) does so only if each of them does."""
    parts = getattr(agent, "parts", ())
    if parts:
        return all(has_own_act_batch(part) for part in parts)
    return type(agent).act_batch is not Agent.act_batch


def lockstep_batch(states: Sequence[State], agents: Sequence[Agent] = ()) -> BatchState:
    """The batch form to play `states` in: the game's vectorised engine (`Game.batch_class`, on
    copies of the states) if it has one and every agent of `agents` has its own `act_batch`; else
    a `StateBatch` of the states themselves, played in place as `play_states` does. (A state-based
    agent on a vectorised engine gets every game rebuilt as a State at every step: no gain.)"""
    batch_class = type(states[0].game).batch_class if states else None
    if batch_class is not None and all(has_own_act_batch(a) for a in agents):
        return batch_class.from_states(states)
    return StateBatch(states)


def acting_groups(agents: Sequence[Agent]) -> list[list[int]]:
    """The indices of `agents` as `play_batch` asks them at each step: the agents of a class with its
    own `Agent.act_together` in one group (at the place of its first), every other agent alone."""
    groups: list[list[int]] = []
    joint: dict[type, list[int]] = {}
    for a, agent in enumerate(agents):
        kind = type(agent)
        if kind.act_together.__func__ is Agent.act_together.__func__:
            groups.append([a])
        elif kind in joint:
            joint[kind].append(a)
        else:
            joint[kind] = [a]
            groups.append(joint[kind])
    return groups


def play_states(
    states: Sequence[State],
    seat_agents: Sequence[Sequence[int]],
    agents: Sequence[Agent],
    on_step: Callable[[int], None] | None = None,
) -> int:
    """Play every state to the end, in place. `seat_agents[g][p]` is the index in `agents` of the
    agent playing seat `p` of game `g`. Returns the number of actions applied."""
    return play_batch(StateBatch(states), seat_agents, agents, on_step)


def play_batch(
    batch: BatchState,
    seat_agents: Sequence[Sequence[int]],
    agents: Sequence[Agent],
    on_step: Callable[[int], None] | None = None,
) -> int:
    """`play_states` for any batch form (games/batch.py), e.g. a vectorised engine: every game of
    `batch` played to the end, each agent asked once per step for all the games it moves in
    (`Agent.act_batch`; `Agent.act_together` for the groups of `acting_groups`). Returns the number
    of actions applied."""
    seats = np.asarray(seat_agents, dtype=np.int64).reshape(batch.size, -1)
    players = batch.current_players()
    active = np.flatnonzero(players != TERMINAL)
    steps = 0
    groups = acting_groups(agents)
    while active.size:
        who = seats[active, players[active]]
        actions = np.empty(active.size, dtype=np.int64)
        for group in groups:
            moving = [(a, mine) for a in group if (mine := who == a).any()]
            if moving:
                chosen = type(agents[group[0]]).act_together(
                    [agents[a] for a, _ in moving], batch, [active[mine] for _, mine in moving]
                )
                for (_, mine), out in zip(moving, chosen, strict=True):
                    actions[mine] = out
        batch.apply_actions(active, actions)
        steps += active.size
        if on_step is not None:
            on_step(active.size)
        players = batch.current_players()
        active = np.flatnonzero(players != TERMINAL)
    return steps


@dataclass
class AgentResult:
    """One agent's results over a match: its record overall and per seat, and its mean return."""

    spec: str
    record: Record = field(default_factory=Record)
    by_seat: dict[int, Record] = field(default_factory=dict)
    total_return: float = 0.0

    @property
    def wins(self) -> int:
        return self.record.wins

    @property
    def draws(self) -> int:
        return self.record.draws

    @property
    def losses(self) -> int:
        return self.record.losses

    @property
    def games(self) -> int:
        return self.record.games

    @property
    def win_rate(self) -> float:
        return self.record.win_rate

    @property
    def score(self) -> float:
        """Win 1, draw 0.5, loss 0."""
        return self.record.score

    @property
    def mean_return(self) -> float:
        return self.total_return / self.games if self.games else 0.0

    def add(self, seat: int, outcome: int, ret: float) -> None:
        self.record.add(outcome)
        self.by_seat.setdefault(seat, Record()).add(outcome)
        self.total_return += ret

    def as_dict(self) -> dict:
        return {
            "spec": self.spec,
            **record_dict(self.record),
            "mean_return": self.mean_return,
            "by_seat": {str(seat): record_dict(r, per_seat=True) for seat, r in sorted(self.by_seat.items())},
        }


def record_dict(r: Record, per_seat: bool = False) -> dict:
    """A record in match and eval reports: its one JSON form (`Record.to_dict`: score, ci95,
    games, wins, draws, losses) with the win rate and its interval (win_rate, win_rate_ci95), and
    `per_seat` the draw and loss rates too."""
    out = {**r.to_dict(), "win_rate": r.win_rate, "win_rate_ci95": list(r.ci95)}
    if per_seat:
        n = max(1, r.games)
        out.update(draw_rate=r.draws / n, loss_rate=r.losses / n)
    return out


@dataclass
class MatchResult:
    game: str
    games: int
    seed: int
    agents: list[AgentResult]
    steps: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {
            "game": self.game,
            "games": self.games,
            "seed": self.seed,
            "agents": [a.as_dict() for a in self.agents],
        }


def seating(num_players: int, num_agents: int, game_index: int, rotate: bool = True) -> list[int]:
    """Seat -> agent index for game `game_index`. Agents rotate through the seats cyclically, so over
    every block of `num_players` games each agent sits in every seat once. With fewer agents than
    seats, agent i also fills seats i + k * num_agents (e.g. one learner against two copies of a bot:
    pass the bot twice instead when you want it counted per copy)."""
    r = game_index % num_players if rotate else 0
    return [((p + r) % num_players) % num_agents for p in range(num_players)]


def play_match(
    game: Game,
    agents: Sequence[Agent | AgentPanel],
    num_games: int,
    seed: int = 0,
    rotate: bool = True,
    batch_size: int = 512,
    progress: Callable[[int, int, str], None] | None = None,
    what: str = "",
    first_game: int = 0,
) -> MatchResult:
    """Play `num_games` between `agents` (one per seat, in seat order for game 0). With `rotate`,
    seats rotate every game and each block of `num_players` games shares one chance seed, so luck
    (shuffles, who starts) is mirrored across the seats. Games stream in batches of `batch_size`:
    memory does not grow with `num_games`. `progress(done, total, what)` after each batch. A panel
    (agents.panel) plays each block of games sharing a chance seed (a deal) with one of its members,
    member (deal + seed) mod n. `first_game`: play games first_game .. first_game + num_games - 1 of the
    match (a share of it: a worker's; start it at a multiple of the players, at a deal's first game)."""
    n = game.num_players
    if len(agents) > n:
        raise ValueError(f"{game.name} seats {n} players, got {len(agents)} agents")
    batch_size = min([batch_size] + [a.games_at_once for a in agents if getattr(a, "games_at_once", None)])
    t0 = time.perf_counter()
    results = [AgentResult(spec=getattr(a, "spec", "?")) for a in agents]
    steps = 0
    end = first_game + num_games
    for start in range(first_game, end, batch_size):
        idx = range(start, min(end, start + batch_size))
        # games g and its mirror share a chance seed (a deal): deal = g // n when rotating
        deals = [g // n if rotate else g for g in idx]
        states = [game.new_initial_state(np.random.default_rng([seed, d])) for d in deals]
        batch_seats = [seating(n, len(agents), g, rotate) for g in idx]
        players, player_seats = seat_members(agents, batch_seats, deals, seed)
        batch = lockstep_batch(states, players)
        steps += play_batch(batch, player_seats, players)
        for r, seats in zip(batch.returns(), batch_seats):
            o = game.outcomes(r)
            for p, a in enumerate(seats):
                results[a].add(p, int(o[p]), float(r[p]))
        if progress is not None:
            progress(idx.stop - first_game, num_games, what or game.name)
    return MatchResult(game.name, num_games, seed, results, steps, time.perf_counter() - t0)
