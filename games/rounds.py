"""What the best-of-rounds card games (Gwent Lite, games/RULES.md §5; Gwent Abilities, §8) share:
the public facts of the rounds, and the re-deal of hidden cards between a hand and a draw pile.

A state that mixes in `RoundFacts` keeps these fields: `_round`, `_leader`, `_first_leader`,
`_wins`, `_passed`, `_hand_sizes`, `_player`, `_returns` and `_piles` (each seat's draw pile as a
list)."""

from __future__ import annotations

from games.base import TERMINAL


class RoundFacts:
    """The public facts of a game of rounds between two seats."""

    __slots__ = ()

    def _score_round(self, t0: int, t1: int, rounds_to_win: int) -> int:
        """Score a round that ended `t0` to `t1` (equal totals: both players win it). TERMINAL if
        that ends the game (the returns are then set), else the next round's leader: the round's
        winner, after a tie the player who did not lead round 1."""
        wins = self._wins
        if t0 >= t1:
            wins[0] += 1
        if t1 >= t0:
            wins[1] += 1
        done0, done1 = wins[0] >= rounds_to_win, wins[1] >= rounds_to_win
        if done0 or done1:
            self._player = TERMINAL
            self._returns = (0.0, 0.0) if done0 and done1 else ((1.0, -1.0) if done0 else (-1.0, 1.0))
            return TERMINAL
        return 0 if t0 > t1 else 1 if t1 > t0 else 1 - self._first_leader

    def _copy_round_fields(self, clone) -> None:
        """Copy the fields of the rounds (all but the piles) into `clone`, a state being cloned."""
        clone._hand_sizes = self._hand_sizes[:]
        clone._wins = self._wins[:]
        clone._passed = self._passed[:]
        clone._round = self._round
        clone._leader = self._leader
        clone._first_leader = self._first_leader
        clone._player = self._player
        clone._returns = self._returns

    @property
    def round(self) -> int:
        """The round being played (from 1); the last round played once the game is over."""
        return self._round

    @property
    def leader(self) -> int:
        """The player who led the current round."""
        return self._leader

    @property
    def first_leader(self) -> int:
        return self._first_leader

    @property
    def round_wins(self) -> tuple[int, int]:
        return tuple(self._wins)

    @property
    def passed(self) -> tuple[bool, bool]:
        return tuple(self._passed)

    @property
    def hand_sizes(self) -> tuple[int, int]:
        return tuple(self._hand_sizes)

    @property
    def draw_pile_sizes(self) -> tuple[int, int]:
        return (len(self._piles[0]), len(self._piles[1]))


def deal(cards: list[int], into_hand: int, hand: list[int], kinds: int) -> tuple[list[int], list[int], list[int]]:
    """`cards` (shuffled, each below `kinds`) dealt: the first `into_hand` added to the counts `hand`
    (changed in place), the rest to a draw pile in that order. Returns (hand, the pile's counts per
    card, the pile)."""
    pile_counts = [0] * kinds
    for c in cards[:into_hand]:
        hand[c] += 1
    for c in cards[into_hand:]:
        pile_counts[c] += 1
    return hand, pile_counts, cards[into_hand:]
