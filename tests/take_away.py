"""Take Away, a plug-in game with a vectorised engine, written for the tests: a pile of stones, the
players take 1, 2 or 3 in turn, and whoever takes the last stone wins. `deckopt check
take_away:TakeAway` (this folder on the path) holds `TakeAwayBatch` to `TakeAway` as it holds ours.

Actions: `k` takes k + 1 stones. Observation of player p: the stones left / the pile, p to move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games import TERMINAL, Game, State
from games.base import GameFacts, RareRule, is_whole
from games.batch import BatchState
from games.config import need, setting
from games.errors import IllegalActionError


@dataclass(frozen=True)
class TakeAwayConfig:
    stones: int = setting(10, "the stones in the pile at the start", metavar="N")

    def __post_init__(self):
        need(is_whole(self.stones) and self.stones >= 1, "take_away: stones must be a whole number >= 1")


class TakeAway(Game):
    name = "take_away"
    num_players = 2
    num_actions = 3
    observation_size = 2
    config_class = TakeAwayConfig
    facts = GameFacts(eval_opponents=("random",))
    rare_rules = (
        RareRule(
            "the last stones taken three at once", lambda before, action, after: after.stones == 0 and action == 2
        ),
        # taking 3, 3, 3 leaves one stone of the ten
        RareRule("a move from a pile of one", lambda before, action, after: before.stones == 1, script=(2, 2, 2, 0)),
    )

    def __init__(self, config: TakeAwayConfig | None = None):
        self.config = TakeAwayConfig() if config is None else config

    def new_initial_state(self, rng) -> TakeAwayState:
        return TakeAwayState(self, self.config.stones, 0)


class TakeAwayState(State):
    __slots__ = ("game", "_stones", "_player")

    def __init__(self, game: TakeAway, stones: int, player: int):
        self.game, self._stones, self._player = game, stones, player

    @property
    def stones(self) -> int:
        return self._stones

    @property
    def current_player(self) -> int:
        return TERMINAL if self._stones == 0 else self._player

    def legal_mask(self) -> np.ndarray:
        return np.arange(3) < self._stones

    def apply_action(self, action) -> None:
        a = self.checked_action(action)
        self._stones -= a + 1
        if self._stones:
            self._player = 1 - self._player

    def is_terminal(self) -> bool:
        return self._stones == 0

    def returns(self) -> np.ndarray:
        if self._stones:
            return np.zeros(2)
        return np.array([1.0, -1.0]) if self._player == 0 else np.array([-1.0, 1.0])

    def observation(self, player: int) -> np.ndarray:
        mover = float(self._stones > 0 and self._player == player)
        return np.array([self._stones / self.game.config.stones, mover], dtype=np.float32)

    def clone(self) -> TakeAwayState:
        return TakeAwayState(self.game, self._stones, self._player)

    def __str__(self) -> str:
        return f"{self._stones} stones, player {self.current_player} to move"


class TakeAwayBatch(BatchState):
    """Many games of Take Away as two arrays: the stones left and the player who moved last or moves."""

    def __init__(self, game: TakeAway, stones: np.ndarray, players: np.ndarray):
        self.game, self.stones, self.players = game, stones, players

    @classmethod
    def from_states(cls, states) -> TakeAwayBatch:
        stones = np.array([s.stones for s in states], dtype=np.int64)
        return cls(states[0].game, stones, np.array([s._player for s in states], dtype=np.int64))

    @property
    def size(self) -> int:
        return len(self.stones)

    def current_players(self) -> np.ndarray:
        return np.where(self.stones > 0, self.players, TERMINAL)

    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        players = self.current_players()[games] if players is None else players
        mover = (self.stones[games] > 0) & (self.players[games] == players)
        return np.stack([self.stones[games] / self.game.config.stones, mover], axis=1).astype(np.float32)

    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        return np.arange(3)[None, :] < self.stones[games, None]

    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        if not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(f"take_away: actions {actions.tolist()} are not integers")
        legal = (actions >= 0) & (actions < self.stones[games])
        if not legal.all():
            g = int(games[np.argmin(legal)])
            raise IllegalActionError(f"take_away: game {g}: action {actions[np.argmin(legal)]} is not legal")
        self.stones[games] -= actions + 1
        self.players[games] = np.where(self.stones[games] > 0, 1 - self.players[games], self.players[games])

    def returns(self) -> np.ndarray:
        won = np.where(self.players == 0, 1.0, -1.0)
        return np.where(self.stones[:, None] > 0, 0.0, np.stack([won, -won], axis=1))

    def state(self, g: int) -> TakeAwayState:
        return TakeAwayState(self.game, int(self.stones[g]), int(self.players[g]))


TakeAway.batch_class = TakeAwayBatch
