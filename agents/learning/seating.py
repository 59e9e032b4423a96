"""Who sits where in self-play, and the mirrored decisions a learner may also learn from.

- `mix_opponents`: the baselines of an opponent mix ({agent spec: fraction of the games}), made
  afresh from the learner's generator (nothing extra to checkpoint);
- `seat_agents`: in each fraction of the games one baseline takes every seat but one (the learner's
  seat drawn at random); the learner plays every seat of the other games.
(The symmetry a learner may add mirrored decisions by is the game's fact `GameFacts.mirror`.)
"""

from __future__ import annotations

from collections.abc import Sequence

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
