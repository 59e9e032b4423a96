"""Gwent Lite deck rules and deck files.

A deck is a multiset of card powers. `DeckRules` says which decks are legal; `validate` says exactly
what is wrong with one that is not. Deck files are TOML (or JSON with the same keys):

    name = "flat"
    cards = [4, 4, 4, ...]          # the powers, any order
    [rules]                          # the rules the deck was built for
    min_cards = 25
    max_total = 100
    min_power = 1
"""
from __future__ import annotations

import json
import os
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from games.errors import UserError
from games.fileio import atomic_write_text


@dataclass(frozen=True)
class DeckRules:
    min_cards: int = 25
    max_total: int = 100
    min_power: int = 1

    def __post_init__(self):
        for name in ("min_cards", "max_total", "min_power"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise UserError(f"deck rules: {name} must be a whole number, got {value!r}")
        if self.min_cards < 1:
            raise UserError(f"deck rules: min_cards must be >= 1, got {self.min_cards}")
        if self.min_power < 1:
            raise UserError(f"deck rules: min_power must be >= 1, got {self.min_power}")
        if self.min_cards * self.min_power > self.max_total:
            raise UserError(
                f"deck rules: no legal deck: {self.min_cards} cards of at least {self.min_power} "
                f"exceed the budget of {self.max_total}"
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

    def is_legal(self, cards) -> bool:
        return not self.problems(cards)

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


@dataclass
class Deck:
    cards: list[int]
    rules: DeckRules = field(default_factory=DeckRules)
    name: str = ""

    def __post_init__(self):
        self.cards = self.rules.validate(self.cards, what=f"deck {self.name!r}" if self.name else "deck")

    @property
    def total(self) -> int:
        return sum(self.cards)

    def to_dict(self) -> dict:
        return {"name": self.name, "cards": list(self.cards), "rules": asdict(self.rules)}


def load_deck(path: str | os.PathLike) -> Deck:
    """Read and validate a deck file (TOML or JSON); UserError with one clear line if anything is off."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"deck file {str(path)!r} not found")
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"deck file {str(path)!r} is malformed: {exc}") from None
    if not isinstance(data, dict) or "cards" not in data:
        raise UserError(f"deck file {str(path)!r} has no 'cards' list")
    cards = data["cards"]
    if not isinstance(cards, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in cards):
        raise UserError(f"deck file {str(path)!r}: 'cards' must be a list of whole numbers")
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise UserError(f"deck file {str(path)!r}: [rules] must be a table")
    unknown = set(rules_data) - {"min_cards", "max_total", "min_power"}
    if unknown:
        raise UserError(f"deck file {str(path)!r}: unknown rule(s) {sorted(unknown)}")
    try:
        rules = DeckRules(**rules_data)
        return Deck(cards=cards, rules=rules, name=str(data.get("name", path.stem)))
    except UserError as exc:
        raise UserError(f"deck file {str(path)!r}: {exc}") from None


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
    return "\n".join(lines) + "\n"


def save_deck(deck: Deck, path: str | os.PathLike, comment: str = "") -> None:
    """Write a deck file atomically (TOML, or JSON if the name ends in .json)."""
    path = Path(path)
    text = json.dumps(deck.to_dict(), indent=1) + "\n" if path.suffix == ".json" else deck_toml(deck, comment)
    atomic_write_text(path, text)
