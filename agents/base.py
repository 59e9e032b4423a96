"""The one agent interface: choose an action for each state of a batch.

`act(states)` gets states whose current player the agent controls and returns one legal action per
state as an int array. Learned agents build every observation of the batch and run their network
once; illegal actions are excluded by masking, never learned as a penalty.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

from games import State
from games.batch import BatchState


class Agent(abc.ABC):
    #: the spec string the agent was made from (for reports)
    spec: str = "?"
    #: True when the agent always plays the same move in the same position (whatever its generator),
    #: so an exact best response can be searched against it (agents/evaluate.exploitability)
    deterministic: bool = False
    #: the most games the agent plays at once (agents/arena.play_match's batches), None for any number:
    #: a host of native bots runs a process per game
    games_at_once: int | None = None

    @abc.abstractmethod
    def act(self, states: Sequence[State]) -> np.ndarray:
        """One legal action per state (int64 array of len(states))."""

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        """One legal action for each game `games` of `batch` (agents/arena.play_batch). By default
        through `act` on the games as states; agents that need only observations and legal masks
        override it, so a vectorised engine never builds a state for them."""
        return self.act([batch.state(g) for g in games.tolist()])

    @classmethod
    def act_together(cls, agents: Sequence[Agent], batch: BatchState, games: Sequence[np.ndarray]) -> list[np.ndarray]:
        """`agents[i].act_batch(batch, games[i])` for each i: the agents of a class that overrides this
        are asked together once per step of agents/arena.play_batch, so they can share the work their
        games have in common (a search over the same engine)."""
        return [agent.act_batch(batch, g) for agent, g in zip(agents, games, strict=True)]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    spec = "random"

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, states: Sequence[State]) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        # one batch of uniforms, scaled by each state's number of legal actions
        u = self.rng.random(len(states))
        for i, s in enumerate(states):
            legal = s.legal_actions()
            out[i] = legal[int(u[i] * len(legal))]
        return out

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        # the same draws as `act`: the k-th legal action (ascending) with k = int(u * count)
        masks = batch.legal_masks(games)
        u = self.rng.random(len(games))
        k = (u * masks.sum(axis=1)).astype(np.int64)
        return (masks.cumsum(axis=1) > k[:, None]).argmax(axis=1)


class RuleAgent(Agent):
    """An agent that decides each state on its own by a hand-written rule: subclasses define
    `choose(state) -> action`; ties are broken with `self.rng`."""

    def __init__(self, game, rng: np.random.Generator):
        self.game = game
        self.rng = rng

    @abc.abstractmethod
    def choose(self, state: State) -> int: ...

    def act(self, states: Sequence[State]) -> np.ndarray:
        return np.array([self.choose(s) for s in states], dtype=np.int64)


def masked_argmax(values: np.ndarray, legal_masks: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Row-wise argmax of `values` over legal entries only (ties broken at random if rng given)."""
    v = np.where(legal_masks, values, -np.inf)
    if rng is None:
        return v.argmax(axis=1)
    best = v == v.max(axis=1, keepdims=True)
    noise = rng.random(v.shape) * best
    return noise.argmax(axis=1)
