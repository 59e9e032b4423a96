"""Connect Four heuristic, one ply of tactics on bitboards.

1. Win now if a column completes a four.
2. Else block: play where the opponent would complete a four next move.
3. Else among the other columns, rank by: never play right under a cell that wins for the
   opponent (it would hand them that cell); then avoid playing right under a cell that wins for
   us (the opponent would just block it); then prefer the centre. Random among equals.
"""

from __future__ import annotations

from agents.base import RuleAgent
from games.connect_four import COLS, winning_cells

_CENTRE_PREFERENCE = tuple(3 - abs(c - 3) for c in range(COLS))  # 0 at the edges, 3 in the middle


class HeuristicAgent(RuleAgent):
    spec = "heuristic"

    def choose(self, state) -> int:
        me = state.current_player
        bits = state.bitboards
        occupied = bits[0] | bits[1]
        mine = winning_cells(bits[me], occupied)
        theirs = winning_cells(bits[1 - me], occupied)
        legal = state.legal_actions()
        landing = {c: state.landing_bit(c) for c in legal}
        wins = [c for c in legal if landing[c] & mine]
        if wins:
            return self._pick(wins)
        blocks = [c for c in legal if landing[c] & theirs]
        if blocks:
            return self._pick(blocks)
        # the cell above the landing one becomes playable for the opponent (a sentinel bit when
        # the column fills up, which is never a winning cell)
        scores = {
            c: (
                not (landing[c] << 1) & theirs,
                not (landing[c] << 1) & mine,
                _CENTRE_PREFERENCE[c],
            )
            for c in legal
        }
        best = max(scores.values())
        return self._pick([c for c in legal if scores[c] == best])

    def _pick(self, columns: list[int]) -> int:
        return columns[int(self.rng.integers(len(columns)))] if len(columns) > 1 else columns[0]
