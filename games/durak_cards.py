"""Durak's cards (games/RULES.md §6.1): ints 0..35, suit-major (card = 9 * suit + rank), and the 36-bit
sets the engine keeps every group of cards in (games/durak.py). Kept apart from the engine so the state
machine reads on its own; games.durak re-exports every name here."""

from __future__ import annotations

from typing import NamedTuple

RANKS = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("c", "d", "h", "s")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
NUM_CARDS = 36
HAND_SIZE = 6  # §6.2: dealt and refilled to
MAX_ATTACKS = 6  # §6.4: attack cards per bout
PASS = TAKE = 36  # one action: pass for an attacker or thrower, take for the defender
NUM_ACTIONS = 37
FIXED_TRUMP_SUIT = SUITS.index("h")  # `fixed_trump`: hearts, no face-up card
MAX_BOUTS_LIMIT = 100_000

ALL_CARDS = (1 << NUM_CARDS) - 1
PASS_BIT = 1 << PASS
SUIT_MASK = tuple(((1 << 9) - 1) << (9 * s) for s in range(4))
RANK_MASK = tuple(sum(1 << (9 * s + r) for s in range(4)) for r in range(9))
# BEATEN_BY[trump][card]: the cards that beat `card` (a higher card of its suit; any trump unless it is one)
BEATEN_BY = tuple(
    tuple((SUIT_MASK[c // 9] & ~((2 << c) - 1)) | (0 if c // 9 == t else SUIT_MASK[t]) for c in range(NUM_CARDS))
    for t in range(4)
)


class Card(NamedTuple):
    """A card as people read it: rank ("6".."10", "J", "Q", "K", "A") and suit ("c", "d", "h", "s")."""

    rank: str
    suit: str

    def __str__(self) -> str:
        return self.rank + self.suit

    @property
    def id(self) -> int:
        """The engine's int (and the action that plays this card)."""
        return 9 * SUITS.index(self.suit) + RANKS.index(self.rank)


CARDS = tuple(Card(RANKS[c % 9], SUITS[c // 9]) for c in range(NUM_CARDS))


def card_name(card: int) -> str:
    return str(CARDS[card])


def card_id(name: str) -> int:
    """The int of a card written as rank + suit letter, e.g. "10h", "Qs", "6c" (case-insensitive)."""
    text = name.strip()
    rank, suit = text[:-1].upper(), text[-1:].lower()
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {name!r} (rank 6..10, J, Q, K, A, then a suit letter c, d, h or s)")
    return 9 * SUITS.index(suit) + RANKS.index(rank)


def cards_of(bits: int) -> list[int]:
    """The cards of a 36-bit set, lowest id first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def bits_of(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def beats(attack: int, defence: int, trump: int) -> bool:
    """Whether `defence` beats `attack` when `trump` (a suit index) is trump (§6.3)."""
    return bool(BEATEN_BY[trump][attack] >> defence & 1)


def card_strength(card: int, trump: int) -> int:
    """An order for bots: every non-trump by rank (0..8), then the trumps (9..17)."""
    return card % 9 + (9 if card // 9 == trump else 0)
