"""Gwent Lite deck rules and deck files (games/RULES.md §5.1, §5.10).

A deck is a multiset of card powers. `DeckRules` says which decks are legal; `validate` says exactly
what is wrong with one that is not. Deck files are TOML (or JSON with the same keys), read by
`games.config.read_settings` like every settings file; loading one runs no code:

    name = "flat"
    cards = [4, 4, 4, ...]          # the powers, any order
    [rules]                          # the rules the deck was built for
    min_cards = 25
    max_total = 100
    min_power = 1
    [constraints]                    # optional: a designer's own limits, beyond the game's rules
    locked = [9]                     # cards that must stay (a multiset: [9, 9] keeps two 9s)
    forbidden = [7, 8]               # powers no card may have
    [[constraints.count]]            # at most 3 cards of power 11 and above
    low = 11
    at_most = 3
Unknown keys are refused (a misspelt key is a mistake, not a comment).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from games.base import is_whole
from games.config import config_from_dict, need, setting
from games.deckfile import read_deck
from games.errors import UserError
from games.fileio import atomic_write_text
from games.schema import shown

# The largest deck budget: the largest card (about max_total) sets Gwent Lite's number of actions
# and the length of its observation, so a budget of 10**12 would ask for terabytes. 10 000 is 100
# times the standard budget and keeps a game's arrays under a few hundred kilobytes.
MAX_TOTAL = 10_000


@dataclass(frozen=True)
class DeckRules:
    """What makes a deck legal (games/RULES.md §5.1)."""

    min_cards: int = setting(25, "a legal deck holds at least this many cards", metavar="N")
    max_total: int = setting(100, f"a legal deck's powers add up to at most this (at most {MAX_TOTAL})", metavar="P")
    min_power: int = setting(1, "every card's power is at least this", metavar="P")

    def __post_init__(self):
        for name in ("min_cards", "max_total", "min_power"):
            value = getattr(self, name)
            need(is_whole(value), f"deck rules: {name} must be a whole number, got {value!r}")
            object.__setattr__(self, name, int(value))  # numpy integers become plain ints
        need(self.min_cards >= 1, f"deck rules: min_cards must be >= 1, got {self.min_cards}")
        need(self.min_power >= 1, f"deck rules: min_power must be >= 1, got {self.min_power}")
        need(self.max_total <= MAX_TOTAL, f"deck rules: max_total must be at most {MAX_TOTAL}, got {self.max_total}")
        need(
            self.min_cards * self.min_power <= self.max_total,
            f"deck rules: no legal deck: {self.min_cards} cards of at least {self.min_power} "
            f"exceed the budget of {self.max_total}",
        )

    @property
    def max_power(self) -> int:
        """The largest card a legal deck can hold (the rest at min_power)."""
        return self.max_total - (self.min_cards - 1) * self.min_power

    @property
    def max_cards(self) -> int:
        """The largest legal deck (every card at min_power)."""
        return self.max_total // self.min_power

    def problems(self, cards) -> list[str]:
        """Every way `cards` breaks the rules (empty if legal)."""
        out = []
        try:
            cards = [int(c) if float(c) == int(c) else c for c in cards]
        except (TypeError, ValueError):
            return [f"cards must be whole numbers, got {list(cards)!r}"]
        bad = [c for c in cards if not isinstance(c, int)]
        if bad:
            return [f"cards must be whole numbers, got {bad[:5]}"]
        if len(cards) < self.min_cards:
            out.append(f"has {len(cards)} cards, needs at least {self.min_cards}")
        low = sorted({c for c in cards if c < self.min_power})
        if low:
            out.append(f"has cards below the minimum power {self.min_power}: {low}")
        total = sum(cards)
        if total > self.max_total:
            out.append(f"totals {total} power, over the budget of {self.max_total}")
        return out

    def validate(self, cards, what: str = "deck") -> list[int]:
        """The deck as a sorted list of ints, or UserError saying exactly what is wrong."""
        problems = self.problems(cards)
        if problems:
            raise UserError(f"{what} is illegal under {self.describe()}: " + "; ".join(problems))
        return sorted(int(c) for c in cards)

    def describe(self) -> str:
        return f"rules (min {self.min_cards} cards, total <= {self.max_total}, power >= {self.min_power})"

    def random_deck(self, rng: np.random.Generator) -> list[int]:
        """A random legal deck: min_cards cards, budget spread by a uniform random composition.

        Every card starts at min_power; the spare budget (all of it, or less with probability 1/4
        so under-budget decks occur too) is dropped card by card on uniformly chosen cards."""
        n = self.min_cards
        spare = self.max_total - n * self.min_power
        if rng.random() < 0.25:
            spare = int(rng.integers(0, spare + 1))
        cards = np.full(n, self.min_power, dtype=np.int64)
        np.add.at(cards, rng.integers(0, n, size=spare), 1)
        return sorted(cards.tolist())


# ------------------------------------------------------------------------------------------------
# Random legal decks of several shapes: evolution's first pools, and the decks an evaluator trains on


def deck_uniform(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """`min_cards` cards, the budget spread by a uniform random composition (games.decks)."""
    return rules.random_deck(rng)


def deck_normal(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """The predecessor project's sampler: cards drawn one by one from a normal around the mean card power
    (budget / min_cards, 4 by default) with a standard deviation drawn from 0..~mean*16/9 (0..7 by
    default), each capped so the rest can still be filled, the leftover budget added to the last
    card. Always exactly `min_cards` cards and exactly the budget."""
    n, m = rules.min_cards, rules.min_power
    mean = round(rules.max_total / n)
    stdev = int(rng.integers(0, round(rules.max_total / n * 16 / 9) + 1))
    cards = []
    # `room` is the largest card that still leaves min_power for every card not yet drawn
    room = rules.max_total - (n - 1) * m
    for _ in range(n):
        if room <= m:
            card = m
        else:
            card = int(min(room, max(m, round(rng.normal(mean, stdev)))))
        cards.append(card)
        room -= card - m
    cards[-1] += room - m
    return sorted(cards)


def deck_flat(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """Near-flat: every card about budget / cards, a few random unit moves between cards."""
    n = rules.min_cards
    base, extra = divmod(rules.max_total, n)
    cards = [base + (1 if i < extra else 0) for i in range(n)]
    for _ in range(int(rng.integers(0, n))):
        i, j = rng.integers(0, n, size=2)
        if i != j and cards[i] > rules.min_power:
            cards[i] -= 1
            cards[j] += 1
    return sorted(cards)


def deck_spiky(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """High variance: most cards at min_power, the spare budget split among 1..6 big cards."""
    n = rules.min_cards
    cards = [rules.min_power] * n
    spare = rules.max_total - n * rules.min_power
    k = int(rng.integers(1, min(6, n) + 1))
    share = rng.multinomial(spare, rng.dirichlet(np.ones(k)))
    for i, s in enumerate(share):
        cards[i] += int(s)
    return sorted(cards)


def deck_more_cards(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """More than `min_cards` cards (up to +10, as the budget allows), budget spread uniformly."""
    n = int(rng.integers(rules.min_cards, min(rules.max_cards, rules.min_cards + 10) + 1))
    spare = rules.max_total - n * rules.min_power
    cards = np.full(n, rules.min_power, dtype=np.int64)
    np.add.at(cards, rng.integers(0, n, size=spare), 1)
    return sorted(cards.tolist())


def deck_dirichlet(rules: DeckRules, rng: np.random.Generator) -> list[int]:
    """`min_cards` cards, the whole spare budget spread by a Dirichlet-multinomial draw whose
    concentration is itself random, log-uniform in [0.1, 10]. Small concentrations give a few big
    cards among many at `min_power` (the shapes deck evolution converges to: many 1s and a handful
    of 7-12s under the default rules), large ones near-even decks; `uniform` is the limit of an
    infinite concentration."""
    n = rules.min_cards
    spare = rules.max_total - n * rules.min_power
    alpha = 10.0 ** rng.uniform(-1.0, 1.0)
    extra = rng.multinomial(spare, rng.dirichlet(np.full(n, alpha)))
    return sorted((rules.min_power + extra).tolist())


DECK_SHAPES: dict[str, Callable[[DeckRules, np.random.Generator], list[int]]] = {
    "uniform": deck_uniform,
    "normal": deck_normal,
    "flat": deck_flat,
    "spiky": deck_spiky,
    "more_cards": deck_more_cards,
    "dirichlet": deck_dirichlet,
}

#: earlier names of deck shapes, accepted wherever a shape is named (settings, old run folders, models)
SHAPE_ALIASES = {"ancestor": "normal"}


def shape_name(name):
    """The current name of the deck shape `name` (an earlier name becomes today's; anything else is
    returned as it is, for the caller's check)."""
    return SHAPE_ALIASES.get(name, name) if isinstance(name, str) else name


@dataclass(frozen=True)
class CountBound:
    """How many cards may have a power in low..high (inclusive; `high` 0 means no upper end)."""

    low: int = setting(1, "lowest power of the range", metavar="P")
    high: int = setting(0, "highest power of the range (0: no upper end)", metavar="P")
    at_most: int = setting(10**9, "at most this many cards in the range", metavar="N")
    at_least: int = setting(0, "at least this many cards in the range", metavar="N")

    def __post_init__(self):
        for name in ("low", "high", "at_most", "at_least"):
            v = getattr(self, name)
            need(is_whole(v) and v >= 0, f"{name} must be a whole number >= 0, got {shown(v)}")
            object.__setattr__(self, name, int(v))
        need(self.high == 0 or self.high >= self.low, f"high {self.high} is below low {self.low}")
        need(self.at_least <= self.at_most, f"at_least {self.at_least} exceeds at_most {self.at_most}")

    def holds(self, power: int) -> bool:
        return power >= self.low and (self.high == 0 or power <= self.high)

    def describe(self) -> str:
        where = f"power {self.low}..{self.high}" if self.high else f"power {self.low} and above"
        parts = ([f"at least {self.at_least}"] if self.at_least else []) + (
            [f"at most {self.at_most}"] if self.at_most < 10**9 else []
        )
        return f"{' and '.join(parts) or 'any number of'} cards of {where}"


def _count_bound(value) -> CountBound:
    if isinstance(value, CountBound):
        return value
    need(isinstance(value, dict), f"each must be a table (low, high, at_most, at_least), got {shown(value)}")
    return config_from_dict(CountBound, value)


@dataclass(frozen=True)
class DeckConstraints:
    """A designer's limits on top of the game's rules: cards that must stay, powers that may not
    appear, and bounds on how many cards fall in a power range. Evolution and its repair keep every
    deck inside them (evolution.decks.constraints); a deck file that breaks one is refused in one line."""

    locked: tuple[int, ...] = setting(factory=tuple, help="cards every deck keeps (a multiset)", flag=False)
    forbidden: tuple[int, ...] = setting(factory=tuple, help="powers no card may have", flag=False)
    count: tuple[CountBound, ...] = setting(factory=tuple, help="bounds on cards per power range", flag=False)

    def __post_init__(self):
        for name in ("locked", "forbidden"):
            values = getattr(self, name)
            need(
                isinstance(values, (list, tuple)) and all(is_whole(v) and v >= 1 for v in values),
                f"{name} must be a list of whole powers >= 1, got {shown(values)}",
            )
            object.__setattr__(self, name, tuple(sorted(int(v) for v in values)))
        need(isinstance(self.count, (list, tuple)), f"count must be a list of tables, got {shown(self.count)}")
        object.__setattr__(self, "count", tuple(_count_bound(c) for c in self.count))
        clash = sorted(set(self.locked) & set(self.forbidden))
        if clash:
            raise UserError(f"constraints: power {clash[0]} is both locked and forbidden")

    def __bool__(self) -> bool:
        return bool(self.locked or self.forbidden or self.count)

    def problems(self, cards) -> list[str]:
        """Every constraint `cards` breaks (empty if none)."""
        cards = [int(c) for c in cards]
        out = []
        have = {v: cards.count(v) for v in set(self.locked)}
        for v in sorted(set(self.locked)):
            if have[v] < self.locked.count(v):
                out.append(
                    f"breaks a constraint: needs {self.locked.count(v)} locked card(s) of power {v}, has {have[v]}"
                )
        bad = sorted({c for c in cards if c in self.forbidden})
        if bad:
            out.append(f"breaks a constraint: power(s) {bad} are forbidden")
        for b in self.count:
            n = sum(b.holds(c) for c in cards)
            if not b.at_least <= n <= b.at_most:
                out.append(f"breaks a constraint: {b.describe()}, has {n}")
        return out

    def describe(self) -> str:
        parts = ([f"locked {list(self.locked)}"] if self.locked else []) + (
            [f"forbidden {list(self.forbidden)}"] if self.forbidden else []
        )
        return "; ".join(parts + [b.describe() for b in self.count]) or "no constraints"

    def to_dict(self) -> dict:
        return {
            "locked": list(self.locked),
            "forbidden": list(self.forbidden),
            "count": [asdict(b) for b in self.count],
        }


@dataclass
class Deck:
    """A legal deck: its cards (sorted), the rules it was built for, a name, and optional
    constraints it keeps. The fields are also the keys of a deck file."""

    cards: list[int] = setting(help="the card powers, any order")
    rules: DeckRules = setting(factory=DeckRules, help="the rules the deck was built for")
    name: str = setting("", "a name for people")
    constraints: DeckConstraints = setting(factory=DeckConstraints, help="a designer's limits beyond the rules")

    def __post_init__(self):
        need(isinstance(self.rules, DeckRules), f"deck rules must be DeckRules, got {type(self.rules).__name__}")
        what = f"deck {self.name!r}" if self.name else "deck"
        self.cards = self.rules.validate(self.cards, what=what)
        broken = self.constraints.problems(self.cards)
        if broken:
            raise UserError(f"{what} {broken[0]}")

    @property
    def total(self) -> int:
        return sum(self.cards)

    def to_dict(self) -> dict:
        out = {"name": self.name, "cards": list(self.cards), "rules": asdict(self.rules)}
        if self.constraints:
            out["constraints"] = self.constraints.to_dict()
        return out


def load_deck(path: str | os.PathLike) -> Deck:
    """Read and validate a deck file (TOML, or JSON by suffix); UserError in one line if anything is
    off: missing, a folder, not UTF-8, malformed, unknown keys, cards that are not whole numbers,
    rules out of bounds, an illegal deck."""
    return read_deck(path, Deck)


def deck_toml(deck: Deck, comment: str = "") -> str:
    lines = [f"# {line}" for line in comment.splitlines()] if comment else []
    lines += [
        f"name = {json.dumps(deck.name)}",
        f"cards = [{', '.join(str(c) for c in deck.cards)}]",
        "",
        "[rules]",
        f"min_cards = {deck.rules.min_cards}",
        f"max_total = {deck.rules.max_total}",
        f"min_power = {deck.rules.min_power}",
    ]
    c = deck.constraints
    if c:
        lines += ["", "[constraints]", f"locked = {list(c.locked)}", f"forbidden = {list(c.forbidden)}"]
        for b in c.count:
            lines += ["", "[[constraints.count]]"] + [f"{k} = {v}" for k, v in asdict(b).items()]
    return "\n".join(lines) + "\n"


def save_deck(deck: Deck, path: str | os.PathLike, comment: str = "") -> None:
    """Write a deck file atomically (TOML, or JSON if the name ends in .json)."""
    path = Path(path)
    text = json.dumps(deck.to_dict(), indent=1) + "\n" if path.suffix.lower() == ".json" else deck_toml(deck, comment)
    atomic_write_text(path, text)
