"""Who sits where in self-play, and the mirrored decisions a learner may also learn from.

- `mix_opponents`: the baselines of an opponent mix ({agent spec: fraction of the games}), made
  afresh from the learner's generator (nothing extra to checkpoint);
- `seat_agents`: in each fraction of the games one baseline takes every seat but one (the learner's
  seat drawn at random); the learner plays every seat of the other games;
- `MIRRORS`: per game, the symmetry that maps a decision to an equally good one (Connect Four's
  left-right mirror), applied to observations, actions and per-action arrays (masks, policies).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

import agents
from agents.base import Agent
from games import Game


def mix_opponents(game: Game, mix: dict[str, float], rng: np.random.Generator) -> list[tuple[Agent, float]]:
    """(agent, fraction) of each spec of `mix`, in the order of the specs."""
    return [
        (agents.make(spec, game, seed=np.random.default_rng(rng.integers(2**63))), fraction)
        for spec, fraction in sorted(mix.items())
    ]


def seat_agents(
    num_games: int, num_players: int, opponents: Sequence[tuple[object, float]], rng: np.random.Generator
) -> list[list[int]]:
    """Per game, the index of the agent in each seat: 0 the learner, 1 + k the k-th opponent."""
    seats = [[0] * num_players for _ in range(num_games)]
    first = 0
    for k, (_, fraction) in enumerate(opponents):
        count = int(round(fraction * num_games))
        for g in range(first, min(num_games, first + count)):
            seats[g] = [1 + k] * num_players
            seats[g][int(rng.integers(num_players))] = 0
        first += count
    return seats


@dataclass(frozen=True)
class Mirror:
    observations: Callable[[np.ndarray], np.ndarray]  # rows of observations
    actions: Callable[[np.ndarray], np.ndarray]  # action numbers
    per_action: Callable[[np.ndarray], np.ndarray]  # rows of one value per action (masks, policies)


def _connect_four_observations(obs: np.ndarray) -> np.ndarray:
    """The observation is two 6 x 7 planes (games/RULES.md): column c becomes 6 - c."""
    return obs.reshape(-1, 2, 6, 7)[:, :, :, ::-1].reshape(len(obs), -1)


MIRRORS = {
    "connect_four": Mirror(_connect_four_observations, lambda actions: 6 - actions, lambda rows: rows[:, ::-1]),
}
