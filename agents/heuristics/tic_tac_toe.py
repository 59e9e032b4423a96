"""Tic Tac Toe heuristic: win if you can, block if you must, else centre > corners > edges.

Random among equally good moves. It does not see forks coming, so it is beatable (minimax is not).
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import RuleAgent
from games.tic_tac_toe import LINES

# centre 2, corners 1, edges 0
_CELL_PREFERENCE = (1, 0, 1, 0, 2, 0, 1, 0, 1)


def completing_cells(board: Sequence[int], player: int) -> list[int]:
    """Empty cells that would give `player` three in a line."""
    cells = set()
    for line in LINES:
        marks = [board[c] for c in line]
        if marks.count(player) == 2 and marks.count(-1) == 1:
            cells.add(line[marks.index(-1)])
    return sorted(cells)


class HeuristicAgent(RuleAgent):
    spec = "heuristic"

    def choose(self, state) -> int:
        board = state.board
        me = state.current_player
        candidates = completing_cells(board, me) or completing_cells(board, 1 - me)
        if not candidates:
            empty = [c for c in range(9) if board[c] == -1]
            best = max(_CELL_PREFERENCE[c] for c in empty)
            candidates = [c for c in empty if _CELL_PREFERENCE[c] == best]
        return candidates[int(self.rng.integers(len(candidates)))]
