"""Tic Tac Toe (games/RULES.md §2): 3x3, player 0 moves first, actions 0..8 are the cells in
row-major order; the observation is two 3x3 planes, the viewer's pieces first (§2.3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.base import TERMINAL, Game, GameFacts, State

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# the lines through each cell, so a move checks only its own lines
_LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))
# `_outcome` of a state: the winner (0 or 1), or one of these
_IN_PLAY = -1
_DRAW = 2


@dataclass(frozen=True)
class TicTacToeConfig:
    """Tic Tac Toe has nothing to configure."""


class TicTacToe(Game):
    name = "tic_tac_toe"
    num_players = 2
    num_actions = 9
    observation_size = 18
    config_class = TicTacToeConfig
    facts = GameFacts(
        exact_exploitability=True, eval_opponents=("random", "heuristic", "minimax"), default_agent="pretrained"
    )

    def __init__(self, config: TicTacToeConfig | None = None):
        self.config = config or TicTacToeConfig()

    def new_initial_state(self, rng: np.random.Generator | None = None) -> TicTacToeState:
        """The empty board; `rng` is not used (there is no chance)."""
        return TicTacToeState(self)

    def action_name(self, action: int) -> str:
        return f"row {action // 3 + 1}, col {action % 3 + 1}"


class TicTacToeState(State):
    __slots__ = ("game", "board", "_player", "_outcome", "_moves")

    def __init__(self, game: TicTacToe):
        self.game = game
        self.board = [-1] * 9  # -1 empty, else the player who owns the cell
        self._player = 0
        self._outcome = _IN_PLAY
        self._moves = 0

    @property
    def current_player(self) -> int:
        return TERMINAL if self._outcome != _IN_PLAY else self._player

    def legal_mask(self) -> np.ndarray:
        if self._outcome != _IN_PLAY:
            return np.zeros(9, dtype=bool)
        return np.array([c == -1 for c in self.board], dtype=bool)

    def legal_actions(self) -> list[int]:
        if self._outcome != _IN_PLAY:
            return []
        return [i for i, c in enumerate(self.board) if c == -1]

    def is_legal(self, action: int) -> bool:
        return self._outcome == _IN_PLAY and 0 <= action < 9 and self.board[action] == -1

    def apply_action(self, action: int) -> None:
        action = self.checked_action(action)
        p = self._player
        b = self.board
        b[action] = p
        self._moves += 1
        for x, y, z in _LINES_THROUGH[action]:
            if b[x] == p and b[y] == p and b[z] == p:
                self._outcome = p
                return
        if self._moves == 9:
            self._outcome = _DRAW
            return
        self._player = 1 - p

    def is_terminal(self) -> bool:
        return self._outcome != _IN_PLAY

    def returns(self) -> np.ndarray:
        if self._outcome in (_IN_PLAY, _DRAW):
            return np.zeros(2)
        r = np.full(2, -1.0)
        r[self._outcome] = 1.0
        return r

    def observation(self, player: int) -> np.ndarray:
        b = np.asarray(self.board)
        return np.concatenate([b == player, b == 1 - player]).astype(np.float32)

    def clone(self) -> TicTacToeState:
        s = TicTacToeState.__new__(TicTacToeState)
        s.game = self.game
        s.board = self.board[:]
        s._player = self._player
        s._outcome = self._outcome
        s._moves = self._moves
        return s

    # public facts
    @property
    def winner(self) -> int | None:
        """The winning player, or None (game on or drawn)."""
        return self._outcome if self._outcome in (0, 1) else None

    def __str__(self) -> str:
        marks = {-1: ".", 0: "X", 1: "O"}
        # the cell numbers (the actions) beside the board, as a key for people typing moves
        rows = [
            " ".join(marks[c] for c in self.board[r * 3 : r * 3 + 3])
            + "    "
            + " ".join(str(r * 3 + c) for c in range(3))
            for r in range(3)
        ]
        if self._outcome == _DRAW:
            status = "draw"
        elif self._outcome != _IN_PLAY:
            status = f"player {self._outcome} ({marks[self._outcome]}) wins"
        else:
            status = f"player {self._player} ({marks[self._player]}) to move"
        return "\n".join(rows) + "\n" + status
