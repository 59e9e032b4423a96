"""The single-card changes of a deck that the swap advisor (evolution.designer.advisor) measures, one
neighbourhood per kind of deck: `PowerNeighbourhood` for Gwent Lite decks, `CardNeighbourhood` for
the decks of every other deck space, drawn from its card pool (`card_pool`: swap a copy for another
card of the pool, add a copy, remove a copy, each legal under the space's rules). A neighbourhood
also says which deck each card's contribution is measured with (`without`).

The neighbourhood of a Gwent Lite deck (`neighbours`), every change keeping the deck legal under its rules,
with k = 1 .. `step` power units (step 1: the finest changes; the default: any size, measured to find
real improvements where unit moves alone did not, see docs/results/designer-tools.md):
- move:   k power units from one card to another (a p becomes p-k, a q becomes q+k; p-k >= min_power);
          the card count and the total stay;
- raise:  one card p becomes p+k (only while the total stays within the budget);
- lower:  one card p becomes p-k (p-k >= min_power);
- add:    one more card of power v, any v the spare budget allows;
- remove: one card p (only above min_cards).
Changes that give the same deck are listed once (moving k units from p to p-k changes nothing and
is not listed).

A Gwent Lite card's contribution is measured with the deck without one card of that power (removed
when the deck holds more than min_cards, else replaced by a min_power card, the freed budget left
unspent).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from evolution.decks.genome import counts_text
from evolution.designer.tables import deck_text
from games.decks import DeckConstraints, DeckRules
from games.errors import UserError


@dataclass(frozen=True)
class Change:
    """One single-card change: `kind` as in the module docstring, the card powers it takes away
    (`out`) and puts in (`into`), and the deck it gives."""

    kind: str
    out: tuple[int, ...]
    into: tuple[int, ...]
    cards: tuple[int, ...]
    text: str = ""  # the change in words where the cards are not powers (CardNeighbourhood)

    def describe(self) -> str:
        if self.text:
            return self.text
        o, i = ", ".join(map(str, self.out)), ", ".join(map(str, self.into))
        if self.kind == "move":
            k = self.out[0] - self.into[0]
            return f"move {k} power: {self.out[0]}->{self.into[0]}, {self.out[1]}->{self.into[1]}"
        if self.kind in ("raise", "lower"):
            return f"{self.kind} a {o} to {i}"
        if self.kind == "add":
            return f"add a {i}"
        return f"remove a {o}"


def _changed(cards: Counter, out: tuple[int, ...], into: tuple[int, ...]) -> tuple[int, ...]:
    c = cards.copy()
    c.subtract(out)
    c.update(into)
    return tuple(sorted(c.elements()))


def neighbours(cards, rules: DeckRules, step: int | None = 1) -> list[Change]:
    """Every legal single-card change of a legal deck by up to `step` power units (None: any), in a
    fixed order (moves, raises, lowers, adds, removes; powers ascending, then k ascending), each
    resulting deck once."""
    cards = rules.validate(cards)
    step = rules.max_total if step is None else step
    count = Counter(cards)
    powers = sorted(count)
    total, n, m = sum(cards), len(cards), rules.min_power
    out: list[Change] = []
    seen = {tuple(cards)}

    def offer(kind, taken, given):
        deck = _changed(count, taken, given)
        if deck not in seen and not rules.problems(deck):
            seen.add(deck)
            out.append(Change(kind, taken, given, deck))

    for p in powers:
        for q in powers:
            if q == p and count[p] < 2:
                continue  # no second card of power p
            for k in range(1, min(step, p - m) + 1):
                if q != p - k:  # else the two cards trade places: no change
                    offer("move", (p, q), (p - k, q + k))
    for p in powers:
        for k in range(1, min(step, rules.max_total - total) + 1):
            offer("raise", (p,), (p + k,))
    for p in powers:
        for k in range(1, min(step, p - m) + 1):
            offer("lower", (p,), (p - k,))
    for v in range(m, rules.max_total - total + 1):
        offer("add", (), (v,))
    if n > rules.min_cards:
        for p in powers:
            offer("remove", (p,), ())
    return out


def without_card(cards, power: int, rules: DeckRules) -> tuple[int, ...] | None:
    """The deck without one card of `power` (removed, or replaced by a min_power card at
    min_cards); None when that changes nothing (a min_power card at min_cards)."""
    count = Counter(int(c) for c in cards)
    if len(cards) > rules.min_cards:
        return _changed(count, (power,), ())
    if power == rules.min_power:
        return None
    return _changed(count, (power,), (rules.min_power,))


class PowerNeighbourhood:
    """Gwent Lite decks: the changes of `neighbours` under `rules` that keep the deck's
    `constraints`, and each power's contribution measured without one card of it (`without_card`)."""

    key = "power"

    def __init__(self, rules: DeckRules, constraints: DeckConstraints | None = None):
        self.rules, self.constraints = rules, constraints

    def check(self, cards) -> tuple[int, ...]:
        return tuple(self.rules.validate(cards))

    def changes(self, cards, step: int | None) -> list[Change]:
        out = neighbours(cards, self.rules, step)
        if self.constraints:
            out = [c for c in out if not self.constraints.problems(c.cards)]
        return out

    def without(self, cards) -> list[tuple[int, int, tuple[int, ...] | None]]:
        """(power, copies, the deck without one card of it or None) per distinct power."""
        return [(p, list(cards).count(p), without_card(cards, p, self.rules)) for p in sorted(set(cards))]

    def short_text(self, cards) -> str:
        return counts_text(cards)

    def text(self, cards) -> str:
        return f"{counts_text(cards)} (total {sum(cards)}, {len(cards)} cards)"


class CardNeighbourhood:
    """Decks of a card pool under a deck space's rules (Gwent Abilities, High Card): swap one copy of
    a held card for a card of the pool, add a copy of a card, or remove a copy; only the results
    legal under the space's rules (`space.problems`), each once. A card's contribution is measured
    without one copy of it, where that deck is legal. A deck is the sorted list of its cards' values;
    `space.card_pool()` names every value a deck may hold, in order (UserError in one line for a
    space without one)."""

    key = "card"

    def __init__(self, space):
        if not callable(getattr(space, "card_pool", None)):
            raise UserError(f"{space.name} decks have no single-card changes: its deck space names no card_pool")
        self.space = space
        self.pool = dict(space.card_pool())

    def check(self, cards) -> tuple[int, ...]:
        problems = self.space.problems(cards)
        if problems:
            raise UserError(f"the deck is illegal: {problems[0]}")
        return tuple(sorted(int(k) for k in cards))

    def _legal(self, count: Counter, out: tuple[int, ...], into: tuple[int, ...]) -> tuple[int, ...] | None:
        deck = _changed(count, out, into)
        return None if self.space.problems(deck) else deck

    def changes(self, cards, step: int | None = None) -> list[Change]:
        """Swaps (held cards in pool order, then the cards coming in), adds, removes; `step` unused."""
        count = Counter(int(k) for k in cards)
        seen = {tuple(sorted(count.elements()))}
        out: list[Change] = []
        held, pool = sorted(count), list(self.pool)
        steps = [("swap", (k,), (j,)) for k in held for j in pool if j != k]
        steps += [("add", (), (j,)) for j in pool] + [("remove", (k,), ()) for k in held]
        for kind, taken, given in steps:
            deck = self._legal(count, taken, given)
            if deck is not None and deck not in seen:
                seen.add(deck)
                words = [self.pool[k] for k in taken + given]
                text = {"swap": "swap a {} for a {}", "add": "add a {}", "remove": "remove a {}"}[kind].format(*words)
                out.append(Change(kind, taken, given, deck, text))
        return out

    def without(self, cards) -> list[tuple[str, int, tuple[int, ...] | None]]:
        """(card name, copies, the deck without one copy or None where that is illegal) per held card."""
        count = Counter(int(k) for k in cards)
        return [(self.pool[k], count[k], self._legal(count, (k,), ())) for k in sorted(count)]

    def short_text(self, cards) -> str:
        return self.space.words(cards)

    def text(self, cards) -> str:
        return deck_text(self.space, cards)
