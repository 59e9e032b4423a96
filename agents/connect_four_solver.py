"""A weak Connect Four solver (win / draw / loss with perfect play), to check agents against.

Negamax with alpha-beta on the bitboards of games.connect_four (Pascal Pons' layout: 7 bits a
column, the top one a sentinel), a transposition table of bounds, centre-first move order, an
immediate win taken at once and a move under the opponent's immediate win never tried. Pure Python:
positions with a dozen stones or more solve in seconds; `max_nodes` gives up on harder ones.
"""

from __future__ import annotations

W, H = 7, 6
H1 = H + 1
BOTTOM = sum(1 << (H1 * c) for c in range(W))
BOARD = BOTTOM * ((1 << H) - 1)
ORDER = (3, 2, 4, 1, 5, 0, 6)
COLUMN = [((1 << H) - 1) << (H1 * c) for c in range(W)]
TOP = [1 << (H - 1 + H1 * c) for c in range(W)]
LOW = [1 << (H1 * c) for c in range(W)]


class TooHard(Exception):
    """The position needs more than `max_nodes` nodes."""


def _winning(pos: int, mask: int) -> int:
    """Empty cells that would complete a four for `pos`."""
    r = (pos << 1) & (pos << 2) & (pos << 3)
    for s in (H1, H, H + 2):
        p = (pos << s) & (pos << 2 * s)
        r |= p & (pos << 3 * s)
        r |= p & (pos >> s)
        p = (pos >> s) & (pos >> 2 * s)
        r |= p & (pos << s)
        r |= p & (pos >> 3 * s)
    return r & (BOARD ^ mask)


class Solver:
    def __init__(self, max_nodes: int = 2_000_000):
        self.table: dict[int, tuple[int, int]] = {}  # key -> (lower, upper) bound of the value
        self.max_nodes = max_nodes
        self.nodes = 0

    def value(self, state) -> int:
        """+1 / 0 / -1: the result of perfect play for the player to move (a finished game: from
        that player's view too, i.e. -1 if the last move won)."""
        if state.is_terminal():
            r = state.returns()
            return 0 if r[0] == 0 else -1
        p = state.current_player
        pos, mask = state._bits[p], state._bits[0] | state._bits[1]
        self.nodes = 0
        return self._negamax(pos, mask, state._moves, -1, 1)

    def _negamax(self, pos: int, mask: int, moves: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooHard
        possible = (mask + BOTTOM) & BOARD
        if _winning(pos, mask) & possible:
            return 1
        if moves >= W * H - 1:
            return 0
        opp_win = _winning(pos ^ mask, mask)
        forced = possible & opp_win
        if forced:
            if forced & (forced - 1):
                return -1  # two threats: one cannot block both
            possible = forced
        possible &= ~(opp_win >> 1)  # never play under the opponent's winning cell
        if not possible:
            return -1
        key = pos + mask
        lo, hi = self.table.get(key, (-1, 1))
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
        a0, best = alpha, -1
        for c in ORDER:
            move = possible & COLUMN[c]
            if not move:
                continue
            v = -self._negamax(pos ^ mask, mask | move, moves + 1, -beta, -alpha)
            if v > best:
                best = v
            if v > alpha:
                alpha = v
            if alpha >= beta:
                break
        if best <= a0:
            self.table[key] = (lo, best)
        elif best >= beta:
            self.table[key] = (best, hi)
        else:
            self.table[key] = (best, best)
        return best
