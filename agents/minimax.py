"""Perfect Tic Tac Toe by memoised negamax over the board (5,478 reachable positions).

value, moves = solve(state)       # value for the player to move: +1 win, 0 draw, -1 loss
MinimaxAgent(game, rng)           # plays a random one of the optimal moves
best_response_value(policy, p)    # how a fixed policy fares against its best response
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

import games
from agents.base import Agent
from games import State, UserError
from games.tic_tac_toe import LINES, TicTacToe

Board = tuple[int, ...]  # 9 cells: -1 empty, else the owner


def _winner(board: Board) -> int:
    for x, y, z in LINES:
        if board[x] != -1 and board[x] == board[y] == board[z]:
            return board[x]
    return -1


def _mover(board: Board) -> int:
    """Player 0 moves first, so the mover is whoever has fewer pieces (0 on a tie)."""
    return 0 if board.count(0) == board.count(1) else 1


@cache
def _solve(board: Board) -> tuple[int, tuple[int, ...]]:
    """(value for the player to move, the moves achieving it) of a non-terminal board."""
    me = _mover(board)
    best = -2
    best_moves: list[int] = []
    for cell in range(9):
        if board[cell] != -1:
            continue
        child = board[:cell] + (me,) + board[cell + 1 :]
        if _winner(child) == me:
            value = 1
        elif -1 not in child:
            value = 0
        else:
            value = -_solve(child)[0]
        if value > best:
            best, best_moves = value, [cell]
        elif value == best:
            best_moves.append(cell)
    return best, tuple(best_moves)


def _check(state: State) -> Board:
    if not isinstance(state.game, TicTacToe):
        raise UserError(f"minimax solves tic_tac_toe only, not {state.game.name}")
    return tuple(state.board)


def solve(state: State) -> tuple[int, tuple[int, ...]]:
    """The exact value of a live Tic Tac Toe position for the player to move (+1/0/-1) and the set
    of optimal moves (sorted cells)."""
    board = _check(state)
    if state.is_terminal():
        raise ValueError("solve: the game is over; use state.returns()")
    return _solve(board)


def position_value(state: State, player: int) -> int:
    """The exact value of the position for `player` (+1 win, 0 draw, -1 loss with best play)."""
    if state.is_terminal():
        return int(state.returns()[player])
    value = solve(state)[0]
    return value if state.current_player == player else -value


def best_response_value(policy_fn: Callable[[State], int], player: int, game=None) -> int:
    """How a deterministic policy `policy_fn(state) -> action` playing `player` fares against its
    best response, which searches every opponent move: +1 if the policy wins even then, 0 if it
    at least draws, -1 if it can be beaten. Memoised by board, so the policy must be a function of
    the position only."""
    game = game or games.make("tic_tac_toe")
    memo: dict[Board, int] = {}

    def value(state: State) -> int:
        if state.is_terminal():
            return int(state.returns()[player])
        key = tuple(state.board)
        if key in memo:
            return memo[key]
        if state.current_player == player:
            action = int(policy_fn(state))
            child = state.clone()
            child.apply_action(action)  # an illegal policy move raises here
            v = value(child)
        else:
            v = 1
            for action in state.legal_actions():
                child = state.clone()
                child.apply_action(action)
                v = min(v, value(child))
                if v == -1:
                    break
        memo[key] = v
        return v

    return value(game.new_initial_state(np.random.default_rng(0)))


class MinimaxAgent(Agent):
    """Perfect play; a random choice among the optimal moves, so it is not predictable."""

    spec = "minimax"

    def __init__(self, game, rng: np.random.Generator):
        if not isinstance(game, TicTacToe):
            raise UserError(f"agent 'minimax' is only for tic_tac_toe, not {game.name}")
        self.game = game
        self.rng = rng

    def act(self, states) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        for i, s in enumerate(states):
            moves = _solve(tuple(s.board))[1]
            out[i] = moves[int(self.rng.integers(len(moves)))] if len(moves) > 1 else moves[0]
        return out
