"""A card-economy heuristic for Gwent Lite: win two rounds while spending as little as possible.

Each round is classed by what it decides:
- decisive for both, or a must-win for me (losing it loses the game): future cards are worth
  nothing, so play on until the opponent has passed and I am ahead (or play for the tie when a
  draw is the best left);
- a round that wins me the game (I already hold rounds_to_win - 1 wins, the opponent does not):
  the opponent must go all in, so I do not contest it beyond a cheap card; but once the opponent
  has passed, winning it ends the game, so I pay whatever it costs;
- an open round (neither side is one win from the end): take it when it is cheap, pass when
  ahead (the opponent must spend to catch up), and concede when catching up would cost a large
  share of my hand compared with what the opponent has left.
Cards are chosen by cost: the cheapest set of cards that reaches the target (a subset-sum over
the hand), or the smallest single card that gets me ahead; big cards are kept for later rounds.
"""

from __future__ import annotations

import numpy as np

from agents.base import RuleAgent
from games import Game

PASS = 0


def _reachable(cards: list[int]) -> int:
    """Bitset of every subset sum of `cards` (bit s set if some subset sums to s)."""
    reach = 1
    for c in cards:
        reach |= reach << c
    return reach


def cheapest_reaching(cards: list[int], need: int) -> int | None:
    """The smallest subset sum of `cards` that is >= need (need >= 1), or None."""
    reach = _reachable(cards) >> need
    if not reach:
        return None
    return need + ((reach & -reach).bit_length() - 1)


def card_towards(cards: list[int], target: int) -> int:
    """A card of `cards` that belongs to some subset summing exactly to `target` (the largest such
    card, so the rest of the subset is made of small ones). `target` must be reachable."""
    for c in sorted(set(cards), reverse=True):
        if c <= target:
            rest = cards[:]
            rest.remove(c)
            if (_reachable(rest) >> (target - c)) & 1:
                return c
    raise ValueError(f"{target} is not a subset sum of {cards}")


class HeuristicAgent(RuleAgent):
    """Plays Gwent Lite by the card-economy rules above (deterministic; `rng` is unused)."""

    spec = "heuristic"

    def __init__(
        self, game: Game, rng: np.random.Generator | None = None, open_share: float = 0.35, close_share: float = 0.15
    ):
        super().__init__(game, rng)
        self.rounds_to_win = game.config.rounds_to_win
        # the largest share of my hand's power I will spend to take an open round / to contest a
        # round that would win me the game while the opponent is still playing
        self.open_share = open_share
        self.close_share = close_share

    def choose(self, s) -> int:
        me = s.current_player
        op = 1 - me
        hand = s.hand(me)
        mine, theirs = s.round_totals[me], s.round_totals[op]
        my_wins, op_wins = s.round_wins[me], s.round_wins[op]
        last = self.rounds_to_win - 1
        op_passed = s.passed[op]
        if op_passed and mine > theirs:
            return PASS  # the round is mine
        need = theirs - mine + 1  # points to get ahead

        if op_wins >= last:
            # losing this round loses the game (or, if I am also one win away, a tie draws it)
            if op_passed:
                target = cheapest_reaching(hand, need)
                if target is not None:
                    return card_towards(hand, target)
                if my_wins >= last and need > 1 and (_reachable(hand) >> (need - 1)) & 1:
                    return card_towards(hand, need - 1)  # a tie: both reach the last win, a draw
                return PASS  # out of reach: keep nothing back, nothing to gain
            return self._smallest_ahead(hand, need) or max(hand)

        if my_wins >= last:
            # winning this round wins the game; losing it only leads to a decider
            if op_passed:
                target = cheapest_reaching(hand, need)
                return PASS if target is None else card_towards(hand, target)
            if mine > theirs:
                return PASS  # make the opponent spend
            card = self._smallest_ahead(hand, need)
            if card and card <= self.close_share * sum(hand):
                return card
            return PASS  # keep the cards for the decider

        # an open round: spend at most a share of the power I brought into it
        budget = self.open_share * (sum(hand) + mine)
        if op_passed:
            target = cheapest_reaching(hand, need)
            if target is not None and mine + target - theirs <= budget:
                return card_towards(hand, target)  # win it for little more than they spent
            tie = need - 1
            if tie > 0 and mine + tie - theirs <= budget and (_reachable(hand) >> tie) & 1:
                return card_towards(hand, tie)  # a shared round win is better than a loss
            return PASS
        if mine > theirs:
            return PASS  # ahead: the opponent must spend to catch up
        card = self._smallest_ahead(hand, need)
        if card and mine + card <= budget:
            return card
        return PASS  # catching up costs too much: concede and keep the cards

    @staticmethod
    def _smallest_ahead(hand: list[int], need: int) -> int:
        """The smallest card worth at least `need`, or 0 if none is."""
        for c in hand:  # sorted ascending
            if c >= need:
                return c
        return 0
