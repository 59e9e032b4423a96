"""Connect Four's vectorised engine: many games as numpy arrays, stepped by array operations.

`ConnectFourBatch` plays exactly as `ConnectFourState` (games/connect_four.py) does, game for game:
same observations (bit for bit), legal masks, transitions, returns and illegal-action errors
(the conformance check "vectorised engine", games/conformance.py, plays both side by side).
Lock-step self-play and matches step hundreds of games at once; here one step is a few dozen numpy
calls for the whole batch instead of a Python call per game.

The batch of `n` games is
- `bits` (n, 2) uint64: each player's bitboard in the scalar engine's layout (bit `7c + r`, row r
  from the bottom, a sentinel bit on top of each column), so four in a row is the same
  shift-and-and per direction, on a whole array;
- `heights` (n, 7), `player`, `outcome`, `moves` (n,): as the scalar state's `_heights` (the bit
  the next piece in each column lands on), `_player`, `_outcome`, `_moves`;
- `free` (n, 7) bool: the legal mask (the scalar state's `_free`: no column once it is over);
- `views` (n, 2, 84) float32: the observation of each game seen by each player, kept up to date
  move by move (one piece sets one cell in each view), so building observations is one gather.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from games.base import TERMINAL
from games.batch import BatchState
from games.connect_four import (
    _CELL_BITS,
    _DRAW,
    _H,
    _IN_PLAY,
    _START_HEIGHTS,
    _TOP,
    COLS,
    ROWS,
    ConnectFour,
    ConnectFourState,
    _new_state,
)
from games.errors import IllegalActionError

_CELLS = ROWS * COLS
_VIEW = 2 * _CELLS  # one observation: the viewer's plane, then the other player's
_START = np.array(_START_HEIGHTS, dtype=np.int64)  # as ConnectFourState._heights: the next free bit
_TOPS = np.array(_TOP, dtype=np.int64)  # a column is full when its height reaches its sentinel bit
# by bit index (0..48, the values of `_heights`): its uint64 bit; whether it is a cell (not a sentinel,
# i.e. the column is not full); the cell's index in the observation's first plane
_BIT = np.left_shift(np.uint64(1), np.arange(_H * COLS, dtype=np.uint64))
_FREE_BIT = np.zeros(_H * COLS, dtype=bool)
_FREE_BIT[_CELL_BITS] = True
_VIEW_CELL = np.zeros(_H * COLS, dtype=np.int64)
_VIEW_CELL[_CELL_BITS] = np.arange(_CELLS)
# the shifts of the scalar win check (vertical, horizontal, the two diagonals), one per row
_SHIFTS = np.array([[1], [_H], [_H - 1], [_H + 1]], dtype=np.uint64)
_SHIFTS2 = 2 * _SHIFTS
# numpy scalars: arithmetic with them skips converting a Python int at every call
_U_COLS = np.uint64(COLS)
_I_COLS, _I_ONE, _I_TWO, _I_VIEW, _I_CELLS = (np.int64(k) for k in (COLS, 1, 2, _VIEW, _CELLS))
# returns by outcome + 1 (in play, player 0 won, player 1 won, draw)
_RETURNS = np.array([[0.0, 0.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])
_COLUMN_FLAGS = 1 << np.arange(COLS, dtype=np.int64)  # bit c of the scalar state's `_free`


class ConnectFourBatch(BatchState):
    """`size` Connect Four games in numpy arrays (see the module docstring)."""

    def __init__(self, game: ConnectFour, size: int):
        """`size` empty boards, player 0 to move (as `new_initial_state`)."""
        self.game = game
        self.bits = np.zeros((size, 2), dtype=np.uint64)
        self.heights = np.tile(_START, (size, 1))
        self.free = np.ones((size, COLS), dtype=bool)
        self.player = np.zeros(size, dtype=np.int64)
        self.outcome = np.full(size, _IN_PLAY, dtype=np.int64)
        self.moves = np.zeros(size, dtype=np.int64)
        self.views = np.zeros((size, 2, _VIEW), dtype=np.float32)

    @classmethod
    def from_states(cls, states: Sequence[ConnectFourState]) -> ConnectFourBatch:
        states = list(states)
        if not states:
            raise ValueError("a batch needs at least one state")
        n = len(states)
        batch = cls(states[0].game, n)
        # flat iterators: numpy reads a list of small lists far more slowly
        batch.bits = np.fromiter(chain.from_iterable([s._bits for s in states]), np.uint64, 2 * n).reshape(n, 2)
        heights = np.fromiter(chain.from_iterable([s._heights for s in states]), np.int64, COLS * n)
        batch.heights = heights.reshape(n, COLS)
        batch.player = np.array([s._player for s in states], dtype=np.int64)
        batch.outcome = np.array([s._outcome for s in states], dtype=np.int64)
        batch.moves = np.array([s._moves for s in states], dtype=np.int64)
        batch.free = (batch.heights < _TOPS) & (batch.outcome == _IN_PLAY)[:, None]
        # the cells of both bitboards, unpacked as ConnectFour.observations does (the same bits)
        bits = np.unpackbits(batch.bits.astype("<u8").view(np.uint8), axis=1, bitorder="little")
        cells = bits.reshape(n, 2, 64)[:, :, _CELL_BITS]
        for viewer in (0, 1):
            batch.views[:, viewer, :_CELLS] = cells[:, viewer]
            batch.views[:, viewer, _CELLS:] = cells[:, 1 - viewer]
        return batch

    @property
    def size(self) -> int:
        return len(self.player)

    def current_players(self) -> np.ndarray:
        return np.where(self.outcome == _IN_PLAY, self.player, TERMINAL)

    # np.take: a gather of whole rows, several times faster than fancy indexing at these sizes
    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        if players is None:
            players = self.player.take(games)
        return self.views.reshape(-1, _VIEW).take(games * _I_TWO + players, axis=0)

    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        return self.free.take(games, axis=0)

    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Game `games[i]` drops a piece in column `actions[i]` (`games` distinct). All actions are
        checked before any is applied: on IllegalActionError the batch is unchanged."""
        # One step of the whole batch. Every line is a numpy call on len(games) entries, and at
        # a few hundred games a call's overhead is most of its cost: hence flat indices into the
        # arrays, numpy scalar constants and count_nonzero rather than any/all.
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu" or actions.shape != games.shape:
            self._refuse(games, actions)
        actions = actions.astype(np.int64, copy=False)
        if np.count_nonzero(actions.view(np.uint64) >= _U_COLS):  # negative ones wrap around
            self._refuse(games, actions)
        at = games * _I_COLS + actions  # into heights and free, flattened
        free = self.free.reshape(-1)
        if np.count_nonzero(free.take(at)) != len(games):  # a full column, or the game is over
            self._refuse(games, actions)
        heights = self.heights.reshape(-1)
        h = heights.take(at)  # the bit the piece lands on: the scalar state's _heights[action]
        above = h + _I_ONE
        heights[at] = above
        free[at] = _FREE_BIT.take(above)
        p = self.player.take(games)
        owner = games * _I_TWO + p  # into bits flattened, and into views as (2 * size, 84) rows
        bits = self.bits.reshape(-1)
        b = bits.take(owner) | _BIT.take(h)
        bits[owner] = b
        views = self.views.reshape(-1)
        cell = _VIEW_CELL.take(h)
        views[owner * _I_VIEW + cell] = 1.0  # the new piece in the mover's own plane...
        views[(owner ^ _I_ONE) * _I_VIEW + (cell + _I_CELLS)] = 1.0  # ...and in the other's second plane
        moves = self.moves.take(games) + _I_ONE
        self.moves[games] = moves
        # four in a row, as the scalar engine: x = b & (b >> s); x & (x >> 2s), for the four
        # shifts (the rows of _SHIFTS) at once
        x = b & (b >> _SHIFTS)
        won = np.bitwise_or.reduce(x & (x >> _SHIFTS2), axis=0) != 0
        ended = won | (moves == _I_CELLS)
        self.player[games] = p ^ _I_ONE
        if np.count_nonzero(ended):  # the scalar state keeps the last mover as `_player` once it ends
            done = games[ended]
            self.player[done] = p[ended]
            self.outcome[done] = np.where(won[ended], p[ended], _DRAW)
            self.free[done] = False

    def _refuse(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Raise the scalar engine's IllegalActionError for the first illegal action, naming the game."""
        for i, g in enumerate(games.tolist()):
            action = actions[i] if actions.ndim == 1 and i < len(actions) else actions
            try:
                self.state(g).apply_action(action.item() if isinstance(action, np.generic) else action)
            except IllegalActionError as exc:
                raise IllegalActionError(f"{exc} (game {g} of the batch)") from None
        raise ValueError(f"{actions.size} actions for {len(games)} games")

    def returns(self) -> np.ndarray:
        return _RETURNS[self.outcome + 1]

    def state(self, g: int) -> ConnectFourState:
        s = _new_state(ConnectFourState)
        s.game = self.game
        s._bits = self.bits[g].tolist()
        s._heights = self.heights[g].tolist()
        s._free = int(_COLUMN_FLAGS[self.free[g]].sum())
        s._player = int(self.player[g])
        s._outcome = int(self.outcome[g])
        s._moves = int(self.moves[g])
        return s

    def is_terminal(self) -> np.ndarray:
        return self.outcome != _IN_PLAY


__all__ = ["ConnectFourBatch"]
