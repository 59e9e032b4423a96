"""Many games of one `Game` stepped together: the batch form of the game interface.

Lock-step play (self-play, evaluation, deck fitness) steps hundreds of games at once. `BatchState`
is that batch seen as one object: who is to move in each game, their observations and legal masks
as arrays, and one call that applies an action in each of a set of games. Two kinds exist:
- `StateBatch` wraps plain `State`s, so every game has a batch form;
- a vectorised engine (e.g. games/connect_four_batch.py) keeps the whole batch in numpy arrays and
  steps it with a few array operations instead of one Python call per game. It must play exactly
  as the scalar engine does: same observations, masks, transitions and returns for the same games
  (the conformance check "vectorised engine" of games/conformance.py holds it to that).

A game with a vectorised engine registers it in games/registry.py (`Game.batch_class` returns it);
`batch_of(states)` picks it.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import numpy as np

from games.base import TERMINAL, Game, State


class BatchState(abc.ABC):
    """`size` games of `game`; game `g` is addressed by its index. Every method that takes
    `games` (an int array of indices) answers row for row in that order."""

    game: Game

    @classmethod
    @abc.abstractmethod
    def from_states(cls, states: Sequence[State]) -> BatchState:
        """A batch holding copies of `states` (all of one game), same order."""

    @property
    @abc.abstractmethod
    def size(self) -> int: ...

    @abc.abstractmethod
    def current_players(self) -> np.ndarray:
        """(size,) int64: the player to move in each game, TERMINAL where the game is over."""

    @abc.abstractmethod
    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """(len(games), observation_size) float32, equal to `game.observations` of those states
        (seen by `players`, default the player to move)."""

    @abc.abstractmethod
    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        """(len(games), num_actions) bool, equal to `game.legal_masks` of those states."""

    @abc.abstractmethod
    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Game `games[i]` takes `actions[i]`; IllegalActionError (naming the game) if one is not legal."""

    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """(size, num_players) float64: each game's returns, zeros where it is not over."""

    @abc.abstractmethod
    def state(self, g: int) -> State:
        """Game `g` as a `State` (for agents that decide on states, and for tests)."""

    def is_terminal(self) -> np.ndarray:
        return self.current_players() == TERMINAL

    def take(self, games: np.ndarray) -> BatchState:
        """A new batch holding copies of games `games`, in that order (this batch unchanged)."""
        return self.from_states([self.state(int(g)) for g in games])


class StateBatch(BatchState):
    """The batch form of any game: a list of `State`s, stepped one by one. `state(g)` is the held
    state itself, so playing the batch plays those states in place."""

    def __init__(self, states: Sequence[State]):
        self.states = list(states)
        self.game = self.states[0].game if self.states else None

    @classmethod
    def from_states(cls, states: Sequence[State]) -> StateBatch:
        return cls([s.clone() for s in states])

    @property
    def size(self) -> int:
        return len(self.states)

    def current_players(self) -> np.ndarray:
        return np.fromiter((s.current_player for s in self.states), dtype=np.int64, count=len(self.states))

    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        if len(games) == 0:  # a step where an agent has no game to see
            return np.zeros((0, self.game.observation_size), dtype=np.float32)
        states = [self.states[g] for g in games]
        return self.game.observations(states, None if players is None else [int(p) for p in players])

    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        if len(games) == 0:
            return np.zeros((0, self.game.num_actions), dtype=bool)
        return self.game.legal_masks([self.states[g] for g in games])

    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        states = self.states
        for g, a in zip(games.tolist(), actions.tolist()):
            if not states[g].is_terminal():  # an agent may end a game while choosing (a bot that forfeits)
                states[g].apply_action(a)

    def returns(self) -> np.ndarray:
        n = self.game.num_players if self.game else 0
        return np.array([s.returns() for s in self.states], dtype=np.float64).reshape(len(self.states), n)

    def state(self, g: int) -> State:
        return self.states[g]

    def take(self, games: np.ndarray) -> StateBatch:
        states = self.states
        return StateBatch([states[g].clone() for g in games.tolist()])


def batch_of(states: Sequence[State]) -> BatchState:
    """The fastest batch form of `states` (one game): its vectorised engine if the game has one
    (`Game.batch_class`), else a `StateBatch` of copies. The states themselves are not changed."""
    states = list(states)
    batch_class = getattr(type(states[0].game), "batch_class", None) if states else None
    return (batch_class or StateBatch).from_states(states)


__all__ = ["BatchState", "StateBatch", "batch_of"]
