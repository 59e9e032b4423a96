"""Durak bots (games/RULES.md §6): the seed's two fixed policies and a heuristic a player would recognise.

`aggressive` and `defensive` are exactly the shared rule book's baselines ("Durak", last paragraph):
- aggressive: attacks (opens or adds) with its highest non-trump card, else its lowest trump; defends
  with the lowest card that beats; never passes or takes while it can play;
- defensive: attacks and defends with its lowest playable card; never passes or takes while it can play.
"Lowest" and "highest" follow card strength: every non-trump by rank, then the trumps by rank. Equal
cards (same rank, different non-trump suits) are drawn at random.

`heuristic` plays like a careful club player:
- it keeps its trumps: it opens with one only when it holds nothing else, and adds one only at the end;
- it opens with its lowest non-trump, preferring a rank it holds twice or more (it can add the rest);
- it adds every non-trump of a rank on the table, lowest first, and trumps only once the deck is empty;
- as defender it beats with the cheapest card, preferring one whose rank is already on the table (it
  gives the attackers nothing new to add), and takes instead when beating would spend a trump early in
  the game: a trump from `high_trump` up (the jack) while the deck holds more than `high_trump_deck`
  (4) cards, or any trump against a low non-trump (6 to 9) that opens the bout while the deck holds
  more than `low_card_deck` (12); never once the deck is empty.
Its thresholds were tuned on 2000 two-player games against `defensive` (adding high non-trumps and
taking rather than spending a jack or better gained most).
It reads only what the player may know: its own hand and the public facts.
"""

from __future__ import annotations

import numpy as np

from agents.base import RuleAgent
from games.durak import PASS

_RANK_J = 5  # rank index of the jack (6 7 8 9 10 J Q K A)


def strength(card: int, trump: int) -> int:
    """Every non-trump by rank (0..8), then the trumps (9..17)."""
    return card % 9 + (9 if card // 9 == trump else 0)


class _Bot(RuleAgent):
    def _pick(self, cards: list[int], key) -> int:
        """The card with the smallest key; equal keys drawn at random."""
        best = min(key(c) for c in cards)
        tied = [c for c in cards if key(c) == best]
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]


class AggressiveAgent(_Bot):
    """Highest non-trump (else lowest trump) to attack, lowest beating card to defend; plays whenever it can."""

    spec = "aggressive"

    def choose(self, state) -> int:
        cards = [a for a in state.legal_actions() if a != PASS]
        if not cards:
            return PASS
        trump = state.trump_index
        if state.current_player == state.defender:
            return self._pick(cards, lambda c: strength(c, trump))
        plain = [c for c in cards if c // 9 != trump]
        if plain:
            return self._pick(plain, lambda c: -(c % 9))
        return self._pick(cards, lambda c: c % 9)


class DefensiveAgent(_Bot):
    """The lowest playable card, attacking and defending; plays whenever it can."""

    spec = "defensive"

    def choose(self, state) -> int:
        cards = [a for a in state.legal_actions() if a != PASS]
        if not cards:
            return PASS
        trump = state.trump_index
        return self._pick(cards, lambda c: strength(c, trump))


class HeuristicAgent(_Bot):
    """Keeps trumps, dumps low cards and pairs, takes rather than spend a trump early (module docstring)."""

    spec = "heuristic"

    def __init__(
        self,
        game,
        rng: np.random.Generator,
        high_trump: int = _RANK_J,
        high_trump_deck: int = 4,
        low_card_deck: int = 12,
    ):
        super().__init__(game, rng)
        self.high_trump = high_trump  # trumps of this rank index and up are high (J, Q, K, A by default)
        self.high_trump_deck = high_trump_deck  # a high trump is spent only with a deck this small
        self.low_card_deck = low_card_deck  # with a deck larger than this, no trump on a low card

    def choose(self, state) -> int:
        legal = state.legal_actions()
        cards = [a for a in legal if a != PASS]
        if not cards:
            return PASS
        me = state.current_player
        trump = state.trump_index
        deck = state.deck_size
        if me == state.defender:
            return self._defend(state, cards, trump, deck)
        if not state.attack_cards:
            return self._open(state, cards, trump)
        return self._add(cards, trump, deck)

    def _open(self, state, cards: list[int], trump: int) -> int:
        hand = state.hand(state.current_player)
        count = [0] * 9
        for c in hand:
            if c // 9 != trump:
                count[c % 9] += 1
        plain = [c for c in cards if c // 9 != trump]
        if plain:
            # the lowest rank, a pair counting as two ranks lower; low ranks first among equals
            return self._pick(plain, lambda c: (c % 9 - 2 * (count[c % 9] - 1), c % 9))
        return self._pick(cards, lambda c: c % 9)

    def _add(self, cards: list[int], trump: int, deck: int) -> int:
        if deck == 0:
            return self._pick(cards, lambda c: strength(c, trump))  # the end: shed everything
        plain = [c for c in cards if c // 9 != trump]
        return self._pick(plain, lambda c: c % 9) if plain else PASS

    def _defend(self, state, cards: list[int], trump: int, deck: int) -> int:
        on_table = 0
        for c in state.attack_cards + state.defence_cards:
            on_table |= 1 << (c % 9)

        def cost(c: int) -> tuple:
            return (strength(c, trump), 0 if on_table >> (c % 9) & 1 else 1)

        best = min(cards, key=cost)
        if best // 9 == trump and deck > 0:
            attack = state.attack_cards[-1]
            if best % 9 >= self.high_trump and deck > self.high_trump_deck:
                return PASS  # take: a high trump is worth more than a few cards in hand
            if attack // 9 != trump and attack % 9 < 4 and len(state.attack_cards) == 1 and deck > self.low_card_deck:
                return PASS  # take a low card early rather than spend a trump on it
        return self._pick([c for c in cards if cost(c) == cost(best)], lambda c: 0)


#: the named bots of this game, reached through `agents.make(name, game)`
NAMED_AGENTS = {"aggressive": AggressiveAgent, "defensive": DefensiveAgent}
