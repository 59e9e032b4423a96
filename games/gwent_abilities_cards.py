"""Gwent Abilities: the card pool, the deck rules and deck files (games/RULES.md §8.1, §8.11).

A card has a name, a row (melee, ranged, siege; none for the special cards), a power, a provision
cost, at most one ability, and may be a hero (a "gold" card: immune to every effect, at most
`gold_copy_limit` copies). The pool is `CARDS`, in the order of the engine's actions. A deck is a
list of card names; `AbilityDeckRules` says which decks are legal and `problems` says exactly what
is wrong with one that is not. Deck files are TOML (or JSON with the same keys), read by
`games.config.read_settings`:

    name = "bond"
    cards = ["blue_stripes", "blue_stripes", ...]     # card names, any order
    [rules]                                            # the rules the deck was built for
    min_cards = 25
    max_cards = 40
    copy_limit = 3
    gold_copy_limit = 1
    provision_budget = 150
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from games.base import is_whole
from games.config import need, setting
from games.deckfile import read_deck
from games.errors import UserError
from games.fileio import atomic_write_text

ROWS = ("melee", "ranged", "siege")
MELEE, RANGED, SIEGE = 0, 1, 2
NO_ROW = -1

# abilities (RULES.md §8.2)
PLAIN = "plain"
SPY = "spy"  # played to the opponent's side; its player draws two cards
MEDIC = "medic"  # its player puts a unit from their discard pile into play
BOND = "bond"  # each copy on its row multiplies the power of every copy by the number of copies
MORALE = "morale"  # +1 to every other unit of its row
HORN = "horn"  # doubles every other unit of its row
MUSTER = "muster"  # every other copy in its player's hand and draw pile is played with it
SCORCH = "scorch"  # special: destroys the strongest unit(s) on the board
DECOY = "decoy"  # special: takes a unit of its player's side back into their hand
WEATHER = "weather"  # special: every unit of its row, on both sides, counts 1
CLEAR = "clear"  # special: ends all weather
ABILITIES = (PLAIN, SPY, MEDIC, BOND, MORALE, HORN, MUSTER, SCORCH, DECOY, WEATHER, CLEAR)
SPECIAL_ABILITIES = (SCORCH, DECOY, WEATHER, CLEAR)


@dataclass(frozen=True)
class Card:
    name: str
    row: int  # MELEE, RANGED, SIEGE; a weather card's row is the row it hits; NO_ROW for other specials
    power: int
    provision: int
    ability: str = PLAIN
    hero: bool = False

    @property
    def special(self) -> bool:
        """A special card: no power, never on a row as a unit."""
        return self.ability in SPECIAL_ABILITIES

    @property
    def unit(self) -> bool:
        return not self.special


def _card(name, row, power, provision, ability=PLAIN, hero=False) -> Card:
    return Card(name, {"M": MELEE, "R": RANGED, "S": SIEGE, "-": NO_ROW}[row], power, provision, ability, hero)


# The card pool (RULES.md §8.1 prints it as a table). Plain units cost about power + 1; a card whose
# ability pays off only with others (bond, morale, horn, muster) is cheap or weak alone; cards that
# bring cards (spy, medic) cost what the cards they bring are worth.
CARDS: tuple[Card, ...] = (
    _card("militia", "M", 2, 2),
    _card("footman", "M", 4, 4),
    _card("knight", "M", 6, 7),
    _card("champion", "M", 8, 9),
    _card("archer", "R", 3, 3),
    _card("crossbowman", "R", 5, 6),
    _card("marksman", "R", 7, 8),
    _card("ballista", "S", 4, 4),
    _card("catapult", "S", 6, 7),
    _card("trebuchet", "S", 8, 9),
    _card("blue_stripes", "M", 3, 5, BOND),
    _card("crinfrid_reaver", "R", 4, 6, BOND),
    _card("siege_crew", "S", 5, 7, BOND),
    _card("arachas", "M", 3, 5, MUSTER),
    _card("nekker", "R", 2, 4, MUSTER),
    _card("standard_bearer", "M", 2, 5, MORALE),
    _card("drill_sergeant", "R", 2, 5, MORALE),
    _card("siege_foreman", "S", 3, 6, MORALE),
    _card("war_drummer", "M", 2, 7, HORN),
    _card("battle_bard", "R", 2, 7, HORN),
    _card("siege_master", "S", 3, 8, HORN),
    _card("informant", "M", 2, 6, SPY),
    _card("double_agent", "R", 5, 4, SPY),
    _card("saboteur", "S", 3, 5, SPY),
    _card("healer", "R", 2, 6, MEDIC),
    _card("field_medic", "S", 3, 7, MEDIC),
    _card("geralt", "M", 15, 15, hero=True),
    _card("triss", "R", 10, 10, hero=True),
    _card("eredin", "S", 12, 12, hero=True),
    _card("yennefer", "R", 7, 12, MEDIC, hero=True),
    _card("avallach", "S", 0, 9, SPY, hero=True),
    _card("scorch", "-", 0, 8, SCORCH),
    _card("decoy", "-", 0, 4, DECOY),
    _card("frost", "M", 0, 3, WEATHER),
    _card("fog", "R", 0, 3, WEATHER),
    _card("rain", "S", 0, 3, WEATHER),
    _card("clear_weather", "-", 0, 2, CLEAR),
)
CARD_INDEX = {c.name: k for k, c in enumerate(CARDS)}
assert len(CARD_INDEX) == len(CARDS), "card names must be distinct"


@dataclass(frozen=True)
class AbilityDeckRules:
    """What makes a Gwent Abilities deck legal (games/RULES.md §8.1)."""

    min_cards: int = setting(25, "a legal deck holds at least this many cards", metavar="N")
    max_cards: int = setting(40, "a legal deck holds at most this many cards", metavar="N")
    copy_limit: int = setting(3, "at most this many copies of a card that is not gold", metavar="N")
    gold_copy_limit: int = setting(1, "at most this many copies of a gold card (a hero)", metavar="N")
    provision_budget: int = setting(150, "the provision costs of a legal deck add up to at most this", metavar="P")

    def __post_init__(self):
        for name in ("min_cards", "max_cards", "copy_limit", "gold_copy_limit", "provision_budget"):
            value = getattr(self, name)
            need(is_whole(value) and value >= 1, f"deck rules: {name} must be a whole number >= 1, got {value!r}")
            object.__setattr__(self, name, int(value))  # numpy integers become plain ints
        need(self.max_cards <= 200, f"deck rules: max_cards must be at most 200, got {self.max_cards}")
        need(self.copy_limit <= 10, f"deck rules: copy_limit must be at most 10, got {self.copy_limit}")
        need(
            self.gold_copy_limit <= self.copy_limit,
            f"deck rules: gold_copy_limit ({self.gold_copy_limit}) exceeds copy_limit ({self.copy_limit})",
        )
        need(
            self.min_cards <= self.max_cards,
            f"deck rules: min_cards ({self.min_cards}) exceeds max_cards ({self.max_cards})",
        )
        copies = sum(self.limit(k) for k in range(len(CARDS)))
        need(self.min_cards <= copies, f"deck rules: no legal deck: the pool allows only {copies} cards")
        cheapest = self.cheapest_fill(self.min_cards, [0] * len(CARDS))
        need(
            cheapest <= self.provision_budget,
            f"deck rules: no legal deck: the {self.min_cards} cheapest cards cost {cheapest}, "
            f"over the budget of {self.provision_budget}",
        )

    def limit(self, card: int) -> int:
        """The most copies of card `card` (an index into CARDS) a deck may hold."""
        return self.gold_copy_limit if CARDS[card].hero else self.copy_limit

    def cheapest_fill(self, n: int, have: list[int]) -> int:
        """The provision cost of the `n` cheapest copies still allowed beside the counts `have`."""
        free = sorted(c.provision for k, c in enumerate(CARDS) for _ in range(self.limit(k) - have[k]))
        return sum(free[:n]) if n <= len(free) else 10**9

    def problems(self, cards) -> list[str]:
        """Every way `cards` (card names) breaks the rules (empty if legal)."""
        if isinstance(cards, (str, bytes)) or not isinstance(cards, (list, tuple)):
            return [f"cards must be a list of card names, got {cards!r}"]
        unknown = sorted({str(c) for c in cards if not isinstance(c, str) or c not in CARD_INDEX})
        if unknown:
            return [f"has unknown card(s) {unknown[:5]} (cards are named as in games/RULES.md §8.1)"]
        out = []
        if len(cards) < self.min_cards:
            out.append(f"has {len(cards)} cards, needs at least {self.min_cards}")
        if len(cards) > self.max_cards:
            out.append(f"has {len(cards)} cards, at most {self.max_cards} allowed")
        counts = Counter(cards)
        over = [f"{n} x{k}" for n, k in sorted(counts.items()) if k > self.limit(CARD_INDEX[n])]
        if over:
            out.append(
                f"has too many copies of {', '.join(over)} "
                f"(at most {self.copy_limit}, gold cards {self.gold_copy_limit})"
            )
        cost = sum(CARDS[CARD_INDEX[c]].provision for c in cards)
        if cost > self.provision_budget:
            out.append(f"costs {cost} provisions, over the budget of {self.provision_budget}")
        return out

    def validate(self, cards, what: str = "deck") -> list[str]:
        """The deck as a list of card names in pool order, or UserError saying exactly what is wrong."""
        problems = self.problems(cards)
        if problems:
            raise UserError(f"{what} is illegal under {self.describe()}: " + "; ".join(problems))
        return sorted(cards, key=CARD_INDEX.__getitem__)

    def describe(self) -> str:
        return (
            f"rules ({self.min_cards} to {self.max_cards} cards, at most {self.copy_limit} copies, "
            f"gold {self.gold_copy_limit}, provisions <= {self.provision_budget})"
        )

    def random_deck(self, rng: np.random.Generator) -> list[str]:
        """A random legal deck: its size `min_cards` (or, one time in four, uniform up to `max_cards`
        and lowered to what the pool and budget can reach), cards added one at a time, each uniform
        among the cards that still leave room (copies and budget) to reach that size with the
        cheapest cards left."""
        target = self.min_cards
        if rng.random() < 0.25:
            target = int(rng.integers(self.min_cards, self.max_cards + 1))
        have = [0] * len(CARDS)
        left = self.provision_budget
        # the costs of the copies still free, cheapest first
        free = sorted(c.provision for k, c in enumerate(CARDS) for _ in range(self.limit(k)))
        target = min(target, len(free))
        while sum(free[:target]) > left:  # a size the budget cannot reach (min_cards always can)
            target -= 1
        for n in range(target):
            rest = target - n - 1
            # taking card k leaves room iff k's cost plus the `rest` cheapest of the other free copies
            # fit: the rest + 1 cheapest when k is among them (they always fit), else k's cost plus
            # the rest cheapest; so iff k costs at most `most`
            most = max(free[rest], left - sum(free[:rest]))
            # uniform among the cards that fit: a few uniform tries over the pool, then the list
            for _ in range(4):
                k = int(rng.integers(len(CARDS)))
                if have[k] < self.limit(k) and CARDS[k].provision <= most:
                    break
            else:
                fitting = [k for k, c in enumerate(CARDS) if have[k] < self.limit(k) and c.provision <= most]
                k = fitting[int(rng.integers(len(fitting)))]
            have[k] += 1
            left -= CARDS[k].provision
            free.remove(CARDS[k].provision)
        return [CARDS[k].name for k in range(len(CARDS)) for _ in range(have[k])]


def provision_cost(cards) -> int:
    """The provision cost of a list of card names."""
    return sum(CARDS[CARD_INDEX[c]].provision for c in cards)


@dataclass
class AbilityDeck:
    """A legal Gwent Abilities deck: its cards (names, in pool order), the rules it was built for
    and a name. The fields are also the keys of a deck file."""

    cards: list[str] = setting(help="the card names, any order")
    rules: AbilityDeckRules = setting(factory=AbilityDeckRules, help="the rules the deck was built for")
    name: str = setting("", "a name for people")

    def __post_init__(self):
        need(
            isinstance(self.rules, AbilityDeckRules),
            f"deck rules must be AbilityDeckRules, got {type(self.rules).__name__}",
        )
        self.cards = self.rules.validate(self.cards, what=f"deck {self.name!r}" if self.name else "deck")

    def to_dict(self) -> dict:
        return {"name": self.name, "cards": list(self.cards), "rules": asdict(self.rules)}


def load_ability_deck(path: str | os.PathLike) -> AbilityDeck:
    """Read and validate a deck file (TOML, or JSON by suffix); UserError in one line if anything is
    off: missing, unreadable, malformed, unknown keys, unknown cards, rules out of bounds, an
    illegal deck."""
    return read_deck(path, AbilityDeck)


def ability_deck_toml(deck: AbilityDeck, comment: str = "") -> str:
    lines = [f"# {line}" for line in comment.splitlines()] if comment else []
    counts = Counter(deck.cards)
    lines += [f"name = {json.dumps(deck.name)}", "cards = ["]
    for card in sorted(counts, key=CARD_INDEX.__getitem__):
        lines.append("    " + ", ".join([json.dumps(card)] * counts[card]) + ",")
    lines += ["]", "", "[rules]"] + [f"{k} = {v}" for k, v in asdict(deck.rules).items()]
    return "\n".join(lines) + "\n"


def save_ability_deck(deck: AbilityDeck, path: str | os.PathLike, comment: str = "") -> None:
    """Write a deck file atomically (TOML, or JSON if the name ends in .json)."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        text = json.dumps(deck.to_dict(), indent=1) + "\n"
    else:
        text = ability_deck_toml(deck, comment)
    atomic_write_text(path, text)
