"""Self-play in lock-step: many games at once, one agent call per agent per step.

At each step the unfinished games are grouped by the agent to move; each agent is asked once for
its whole group; the actions are applied; repeat. This amortises network calls, which dominate
when games are played one at a time, and it is the basis of training, evaluation, tournaments and
deck fitness.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from agents.base import Agent
from agents.stats import wilson_ci
from games import Game, State


def play_states(
    states: Sequence[State],
    seat_agents: Sequence[Sequence[int]],
    agents: Sequence[Agent],
    on_step: Callable[[int], None] | None = None,
) -> int:
    """Play every state to the end, in place. `seat_agents[g][p]` is the index in `agents` of the
    agent playing seat `p` of game `g`. Returns the number of actions applied."""
    active = [g for g, s in enumerate(states) if not s.is_terminal()]
    steps = 0
    n_agents = len(agents)
    while active:
        groups: list[list[int]] = [[] for _ in range(n_agents)]
        for g in active:
            groups[seat_agents[g][states[g].current_player]].append(g)
        for a, gs in enumerate(groups):
            if not gs:
                continue
            batch = [states[g] for g in gs]
            actions = agents[a].act(batch)
            for s, action in zip(batch, actions):
                s.apply_action(int(action))
        steps += len(active)
        if on_step is not None:
            on_step(len(active))
        active = [g for g in active if not states[g].is_terminal()]
    return steps


def outcomes(returns: np.ndarray) -> np.ndarray:
    """Per player: 1 win (sole top return), 0 draw (shared top), -1 loss (below the top)."""
    top = returns.max()
    at_top = returns == top
    if at_top.sum() == 1:
        return np.where(at_top, 1, -1)
    return np.where(at_top, 0, -1)


@dataclass
class AgentResult:
    spec: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    total_return: float = 0.0
    # per seat: [wins, draws, losses]
    by_seat: dict[int, list[int]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Win 1, draw 0.5, loss 0."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def mean_return(self) -> float:
        return self.total_return / self.games if self.games else 0.0

    def as_dict(self) -> dict:
        lo, hi = wilson_ci(self.wins, self.games)
        slo, shi = wilson_ci(self.wins + 0.5 * self.draws, self.games)
        return {
            "spec": self.spec,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "ci95": [lo, hi],
            "score": self.score,
            "score_ci95": [slo, shi],
            "mean_return": self.mean_return,
            "by_seat": {
                str(seat): {"wins": w, "draws": d, "losses": l, "win_rate": w / max(1, w + d + l)}
                for seat, (w, d, l) in sorted(self.by_seat.items())
            },
        }


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


def seatings(num_players: int, num_agents: int, num_games: int) -> list[list[int]]:
    """Seat -> agent index for each game. Agents rotate through the seats cyclically, so over every
    block of `num_players` games each agent sits in every seat once. With fewer agents than seats,
    agent i also fills seats i + k * num_agents (e.g. one learner against two copies of a bot: pass
    the bot twice instead when you want it counted per copy)."""
    out = []
    for g in range(num_games):
        r = g % num_players
        out.append([((p + r) % num_players) % num_agents for p in range(num_players)])
    return out


def play_match(
    game: Game,
    agents: Sequence[Agent],
    num_games: int,
    seed: int = 0,
    rotate: bool = True,
    batch_size: int = 512,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """Play `num_games` between `agents` (one per seat, in seat order for game 0). With `rotate`,
    seats rotate every game and each block of `num_players` games shares one chance seed, so luck
    (shuffles, who starts) is mirrored across the seats. `progress(n)` is called with the number of
    games finished by each batch."""
    import time

    n = game.num_players
    if len(agents) > n:
        raise ValueError(f"{game.name} seats {n} players, got {len(agents)} agents")
    t0 = time.perf_counter()
    seat_agents = seatings(n, len(agents), num_games) if rotate else [[p % len(agents) for p in range(n)]] * num_games
    results = [AgentResult(spec=getattr(a, "spec", "?")) for a in agents]
    steps = 0
    for start in range(0, num_games, batch_size):
        idx = range(start, min(num_games, start + batch_size))
        # games g and its mirror share a chance seed: block = g // n when rotating
        states = [game.new_initial_state(np.random.default_rng([seed, g // n if rotate else g])) for g in idx]
        batch_seats = [seat_agents[g] for g in idx]
        steps += play_states(states, batch_seats, agents)
        for s, seats in zip(states, batch_seats):
            r = s.returns()
            o = outcomes(r)
            for p, a in enumerate(seats):
                res = results[a]
                bs = res.by_seat.setdefault(p, [0, 0, 0])
                res.total_return += float(r[p])
                if o[p] > 0:
                    res.wins += 1
                    bs[0] += 1
                elif o[p] == 0:
                    res.draws += 1
                    bs[1] += 1
                else:
                    res.losses += 1
                    bs[2] += 1
        if progress is not None:
            progress(len(idx))
    return MatchResult(game.name, num_games, seed, results, steps, time.perf_counter() - t0)
