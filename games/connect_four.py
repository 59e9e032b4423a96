"""Connect Four (games/RULES.md §3): 6 rows x 7 columns, player 0 moves first, actions 0..6 drop a
piece in a column; the observation is two 6x7 planes, the viewer's pieces first (§3.3).

The position is two bitboards (Python ints) in the classic layout: column `c` owns bits
`7c .. 7c+6`, bit `7c + r` is row `r` counted from the bottom, and bit `7c + 6` stays empty as a
sentinel so that shifting a line past the top of a column never wraps into the next column. Four in
a row is then two shift-and-ands per direction (shifts 1 vertical, 7 horizontal, 6 and 8 the
diagonals). Everything on the hot path (legal_actions, apply_action, is_terminal) is a few integer
operations and table look-ups, because random playouts and search run millions of them.

`board` and the observation planes put row 0 at the TOP, as `str(state)` prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.base import TERMINAL, Game, GameFacts, Mirror, RareRule, State

ROWS = 6
COLS = 7
_H = ROWS + 1  # bits per column, the top one a sentinel
_ALL_FREE = (1 << COLS) - 1  # bit c set: column c is not full
BOARD_CELLS = sum(((1 << ROWS) - 1) << (_H * c) for c in range(COLS))  # every cell bit, no sentinels
_START_HEIGHTS = tuple(_H * c for c in range(COLS))
_TOP = tuple(_H * c + ROWS for c in range(COLS))  # the sentinel's bit index: reaching it = full
# One immutable answer per set of open columns, so legal_mask/legal_actions only copy.
_ACTIONS = tuple(tuple(c for c in range(COLS) if free >> c & 1) for free in range(1 << COLS))
_MASKS = tuple(np.array([free >> c & 1 for c in range(COLS)], dtype=bool) for free in range(1 << COLS))
# `_outcome` of a state: the winner (0 or 1), or one of these
_IN_PLAY = -1
_DRAW = 2
# bit index (in the 56 bits of a bitboard) of each cell, row-major with row 0 at the top
_CELL_BITS = np.array([_H * c + (ROWS - 1 - r) for r in range(ROWS) for c in range(COLS)])


def winning_cells(own: int, occupied: int) -> int:
    """Bitboard of the empty cells (reachable or not) that would complete a four for `own`."""
    r = (own << 1) & (own << 2) & (own << 3)  # vertical: only from below
    for s in (_H, _H - 1, _H + 1):  # horizontal, and the two diagonals
        pair = (own << s) & (own << 2 * s)
        r |= pair & (own << 3 * s)
        r |= pair & (own >> s)
        pair = (own >> s) & (own >> 2 * s)
        r |= pair & (own << s)
        r |= pair & (own >> 3 * s)
    return r & (BOARD_CELLS ^ occupied)


def _cells(b: int) -> np.ndarray:
    """A bitboard as 42 0/1 uint8 cells, row-major, row 0 at the top."""
    return np.unpackbits(np.frombuffer(b.to_bytes(7, "little"), dtype=np.uint8), bitorder="little")[_CELL_BITS]


_MASK_TABLE = np.stack(_MASKS)  # row `free`: the legal mask


_new_state = object.__new__  # states are built field by field, skipping __init__


#: a game that fills the board without four in a row: a draw
DRAWN_GAME = tuple(int(c) for c in "350436003406430244555061341131625116262252")


def _four_along(shift: int):
    """Whether a step won by four in a line of bit `shift` (1 a column, 7 a row, 6 and 8 the diagonals)."""

    def fired(before, action, after) -> bool:
        b = after._bits[before._player]
        return after._outcome == before._player and bool((x := b & (b >> shift)) & (x >> 2 * shift))

    return fired


RARE_RULES = (
    RareRule("four in a column", _four_along(1)),
    RareRule("four in a row", _four_along(_H)),
    RareRule("four on a rising diagonal", _four_along(_H + 1)),
    RareRule("four on a falling diagonal", _four_along(_H - 1)),
    RareRule(
        "a full board drawn",
        lambda before, action, after: after._outcome == _DRAW,
        script=DRAWN_GAME,
    ),
)


def _mirrored_observations(obs: np.ndarray) -> np.ndarray:
    """The observation is two 6 x 7 planes (games/RULES.md): column c becomes 6 - c."""
    return obs.reshape(-1, 2, ROWS, COLS)[:, :, :, ::-1].reshape(len(obs), -1)


#: the left-right mirror: a position and its mirror image are worth the same
MIRROR = Mirror(_mirrored_observations, lambda actions: COLS - 1 - actions, lambda rows: rows[:, ::-1])


def _lines_of_four() -> np.ndarray:
    """[69, 42] float32: row i marks the four cells (row * 7 + column) of the i-th line of four."""
    lines = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in cells):
                    row = np.zeros(ROWS * COLS, np.float32)
                    row[[rr * COLS + cc for rr, cc in cells]] = 1.0
                    lines.append(row)
    return np.array(lines)


_LINES = _lines_of_four()


def threats(obs: np.ndarray) -> np.ndarray:
    """The input features `threats`: [k, 84] observations (own stones, other stones) -> [k, 84]
    threat cells (own, other), the empty cells that would complete four in a row for that player (a
    line of four cells holding three of the player's stones and no other stone). Which rows those
    cells are on decides most endgames (odd and even threats), and a value head misjudges exactly
    such positions. A function of the observation alone: a mirrored observation gives mirrored
    features."""
    own, other = obs[:, : ROWS * COLS], obs[:, ROWS * COLS :]
    empty = 1.0 - own - other
    own_count, other_count = own @ _LINES.T, other @ _LINES.T
    own_lines = ((own_count == 3) & (other_count == 0)).astype(np.float32)
    other_lines = ((other_count == 3) & (own_count == 0)).astype(np.float32)
    return np.concatenate([(own_lines @ _LINES > 0) * empty, (other_lines @ _LINES > 0) * empty], axis=1).astype(
        np.float32
    )


@dataclass(frozen=True)
class ConnectFourConfig:
    """Connect Four has nothing to configure."""


class ConnectFour(Game):
    name = "connect_four"
    num_players = 2
    num_actions = COLS
    observation_size = 2 * ROWS * COLS
    observation_planes = (2, ROWS, COLS)
    config_class = ConnectFourConfig
    facts = GameFacts(
        perfect_play="solved_positions",
        default_agent="pretrained",
        mirror=MIRROR,
        input_features={"threats": (threats, 2 * ROWS * COLS)},
    )
    rare_rules = RARE_RULES

    def __init__(self, config: ConnectFourConfig | None = None):
        self.config = config or ConnectFourConfig()

    def new_initial_state(self, rng: np.random.Generator | None = None) -> ConnectFourState:
        """The empty board; `rng` is not used (there is no chance)."""
        s = _new_state(ConnectFourState)
        s.game = self
        s._bits = [0, 0]
        s._heights = list(_START_HEIGHTS)
        s._free = _ALL_FREE
        s._player = 0
        s._outcome = _IN_PLAY
        s._moves = 0
        return s

    def action_name(self, action: int) -> str:
        return f"column {action}"  # the number printed under that column

    def observations(self, states, players=None) -> np.ndarray:
        # all bitboards at once: (own..., other...) as little-endian uint64 -> bits -> cells
        if players is None:
            players = [s.current_player for s in states]
        boards = [s._bits[p] for s, p in zip(states, players)] + [s._bits[1 - p] for s, p in zip(states, players)]
        bits = np.unpackbits(np.array(boards, dtype="<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        cells = bits[:, _CELL_BITS]
        n = len(states)
        return np.concatenate([cells[:n], cells[n:]], axis=1).astype(np.float32)

    def legal_masks(self, states) -> np.ndarray:
        return _MASK_TABLE[[s._free for s in states]]


class ConnectFourState(State):
    __slots__ = ("game", "_bits", "_heights", "_free", "_player", "_outcome", "_moves")

    @property
    def current_player(self) -> int:
        return self._player if self._outcome == _IN_PLAY else TERMINAL

    def legal_mask(self) -> np.ndarray:
        return _MASKS[self._free].copy()

    def legal_actions(self) -> list[int]:
        return list(_ACTIONS[self._free])

    def is_legal(self, action: int) -> bool:
        return 0 <= action < COLS and self._free >> action & 1 == 1  # _free is 0 once the game is over

    def apply_action(self, action: int) -> None:
        action = self.checked_action(action)
        free = self._free
        heights = self._heights
        h = heights[action]
        heights[action] = h + 1
        if h + 1 == _TOP[action]:
            free ^= 1 << action
        p = self._player
        bits = self._bits
        b = bits[p] | (1 << h)
        bits[p] = b
        moves = self._moves + 1
        self._moves = moves
        # four in a row (needs 4 own pieces, i.e. 7 moves in all); shifts: | - \ /
        if moves >= 7 and (
            (x := b & (b >> 1)) & (x >> 2)
            or (x := b & (b >> 7)) & (x >> 14)
            or (x := b & (b >> 6)) & (x >> 12)
            or (x := b & (b >> 8)) & (x >> 16)
        ):
            self._outcome = p
            self._free = 0
        elif free:
            self._free = free
            self._player = 1 - p
        else:
            self._outcome = _DRAW
            self._free = 0

    def is_terminal(self) -> bool:
        return self._outcome != _IN_PLAY

    def returns(self) -> np.ndarray:
        w = self._outcome
        if w == 0:
            return np.array([1.0, -1.0])
        if w == 1:
            return np.array([-1.0, 1.0])
        return np.zeros(2)

    def observation(self, player: int) -> np.ndarray:
        own = self._bits[player]
        other = self._bits[1 - player]
        return np.concatenate([_cells(own), _cells(other)]).astype(np.float32)

    def clone(self) -> ConnectFourState:
        s = _new_state(ConnectFourState)
        s.game = self.game
        s._bits = self._bits[:]
        s._heights = self._heights[:]
        s._free = self._free
        s._player = self._player
        s._outcome = self._outcome
        s._moves = self._moves
        return s

    # public facts ---------------------------------------------------------------------------
    @property
    def winner(self) -> int | None:
        """The winning player, or None (game on or drawn)."""
        return self._outcome if self._outcome in (0, 1) else None

    @property
    def is_draw(self) -> bool:
        return self._outcome == _DRAW

    @property
    def num_moves(self) -> int:
        return self._moves

    @property
    def board(self) -> np.ndarray:
        """A 6x7 int8 copy: -1 empty, else the owner; row 0 is the TOP row, as printed."""
        b = np.full(ROWS * COLS, -1, dtype=np.int8)
        b[_cells(self._bits[0]).astype(bool)] = 0
        b[_cells(self._bits[1]).astype(bool)] = 1
        return b.reshape(ROWS, COLS)

    @property
    def bitboards(self) -> tuple[int, int]:
        """Each player's pieces as a bitboard: bit `7*col + row`, row 0 at the BOTTOM (see the
        module docstring); for tools and heuristics that want bit tricks."""
        return self._bits[0], self._bits[1]

    def landing_bit(self, column: int) -> int:
        """The bit where a piece dropped in `column` would land (a sentinel bit if it is full)."""
        return 1 << self._heights[column]

    @property
    def heights(self) -> tuple[int, ...]:
        """Pieces in each column."""
        return tuple(h - _H * c for c, h in enumerate(self._heights))

    def __str__(self) -> str:
        marks = {-1: ".", 0: "X", 1: "O"}
        rows = [" ".join(marks[int(c)] for c in row) for row in self.board]
        rows.append(" ".join(str(c) for c in range(COLS)))
        if self._outcome == _DRAW:
            status = "draw"
        elif self._outcome != _IN_PLAY:
            status = f"player {self._outcome} ({marks[self._outcome]}) wins"
        else:
            status = f"player {self._player} ({marks[self._player]}) to move"
        return "\n".join(rows) + "\n" + status
