"""The Exploding Kittens deck space: card counts within `KittensBounds`, scored on an objective of
the agent's own games on each deck (evolution.spaces.kittens_objectives), validated against exact values.

A deck is the multiset of card *types* in the deck besides the Kitten (indices into
games.exploding_kittens.CARD_NAMES), i.e. card counts, each within `KittensBounds.counts[name]`, the
deck's size within `min_cards..max_cards`. The default bounds (Skip 0..8, Attack 0..8, Defuse 0..4
in the deck, 4..16 cards; with one Defuse in each hand from the game settings) hold 365
compositions, within the counts the composition-trained agent met. Objectives: `fairness` (the
default) and `skill`.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from evolution.decks.base import assert_legal
from evolution.decks.kittens_settings import KittensBounds, KittensSettings
from evolution.spaces.kittens_validation import KittensScorer
from games.exploding_kittens import CARD_NAMES
from games.fileio import atomic_write_text


class KittensSpace:
    """Exploding Kittens card counts within `KittensBounds`; a deck is the sorted list of its card
    types (0 = Defuse, 1 = Skip, 2 = Attack, ... as games.exploding_kittens.CARD_NAMES)."""

    Settings = KittensSettings
    name = KittensSettings.game
    ordered = False

    def __init__(self, config):
        self.config = config
        self.bounds: KittensBounds = config.settings.bounds
        self.game_config = dict(config.settings.game_config)
        self.types = [CARD_NAMES.index(n) for n in self.bounds.counts]  # the card types a deck may vary
        self.lo = np.array([self.bounds.counts[CARD_NAMES[t]][0] for t in self.types], dtype=np.int64)
        self.hi = np.array([self.bounds.counts[CARD_NAMES[t]][1] for t in self.types], dtype=np.int64)
        self.max_cards = self.bounds.max_cards

    # --- counts <-> cards ------------------------------------------------------------------------
    def counts(self, cards) -> np.ndarray:
        """Counts of the space's card types (in `self.types` order)."""
        c = np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=10)
        return c[self.types].astype(np.int64)

    def cards(self, counts) -> list[int]:
        return [t for t, n in zip(self.types, counts) for _ in range(int(n))]

    def deck(self, cards) -> dict[str, int]:
        """The composition as a games.make `deck` table (every listed card name, zeros included)."""
        return {CARD_NAMES[t]: int(n) for t, n in zip(self.types, self.counts(cards))}

    # --- operators --------------------------------------------------------------------------------
    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return self.cards(self._repair_counts(self.counts(cards), rng))

    def _repair_counts(self, counts, rng: np.random.Generator) -> np.ndarray:
        """Each count clipped into its bounds, then the size brought inside min..max one card at a
        time, the type chosen uniformly among those that can give (or take) one: no type is pushed
        up or down on average. A legal deck comes back unchanged."""
        c = np.clip(np.asarray(counts, dtype=np.int64), self.lo, self.hi)
        b = self.bounds
        while c.sum() > b.max_cards:
            can = np.flatnonzero(c > self.lo)
            c[can[int(rng.integers(0, can.size))]] -= 1
        while c.sum() < b.min_cards:
            can = np.flatnonzero(c < self.hi)
            c[can[int(rng.integers(0, can.size))]] += 1
        return c

    def random_deck(self, rng: np.random.Generator) -> list[int]:
        """A size drawn uniformly from the legal sizes, the cards above the lower bounds spread one at a
        time over the types chosen uniformly among those still below their upper bound."""
        b = self.bounds
        lo_n, hi_n = max(b.min_cards, int(self.lo.sum())), min(b.max_cards, int(self.hi.sum()))
        n = int(rng.integers(lo_n, hi_n + 1))
        c = self.lo.copy()
        for _ in range(n - int(c.sum())):
            can = np.flatnonzero(c < self.hi)
            c[can[int(rng.integers(0, can.size))]] += 1
        return assert_legal(self, self.cards(c))

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        """A changed legal copy: one to three single-card steps (each: move a card to another type,
        add a card, or remove one, with equal chances), then the repair. Tries again (up to 20 times)
        when the steps and the repair give the parent back."""
        parent = self.counts(cards)
        for _ in range(20):
            c = parent.copy()
            for _ in range(1 + int(rng.binomial(2, 0.25))):
                kind = int(rng.integers(0, 3))
                k = len(self.types)
                if kind in (0, 2) and c.sum() > 0:  # take a card away (move or remove)
                    have = np.flatnonzero(c > 0)
                    c[have[int(rng.integers(0, have.size))]] -= 1
                if kind in (0, 1):  # add a card (move or add)
                    c[int(rng.integers(0, k))] += 1
            c = self._repair_counts(c, rng)
            if not np.array_equal(c, parent):
                break
        return assert_legal(self, self.cards(c))

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the counts: each type's count swapped with chance 1/2, then repair."""
        ca, cb = self.counts(a), self.counts(b)
        swap = rng.random(len(self.types)) < 0.5
        ca[swap], cb[swap] = cb[swap].copy(), ca[swap].copy()
        return self.cards(self._repair_counts(ca, rng)), self.cards(self._repair_counts(cb, rng))

    # --- legality and words ----------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        """What makes `cards` illegal here ([] for a legal deck)."""
        cards = list(cards)
        types = range(len(CARD_NAMES))
        if not all(isinstance(t, int) and not isinstance(t, bool) and t in types for t in cards):
            return [f"cards must be card types 0..{len(CARD_NAMES) - 1}, got {cards!r}"]
        out = []
        outside = sorted(set(cards) - set(self.types))
        if outside:
            out.append(f"{', '.join(CARD_NAMES[t] for t in outside)} not in the deck space")
        c = self.counts(cards)
        for t, n, lo, hi in zip(self.types, c, self.lo, self.hi):
            if not lo <= n <= hi:
                out.append(f"{n} {CARD_NAMES[t]} outside {lo}..{hi}")
        b = self.bounds
        if not b.min_cards <= len(cards) <= b.max_cards:
            out.append(f"{len(cards)} cards outside {b.min_cards}..{b.max_cards}")
        return out

    def words(self, cards) -> str:
        return ", ".join(f"{n} {k}" for k, n in self.deck(cards).items())

    def row(self, cards) -> dict:
        """The composition (every card type of the space, zeros included) and the deck's size (`total`)."""
        return {"deck": self.deck(cards), "total": len(list(cards))}

    def game_settings(self, cards) -> dict:
        return {**self.game_config, "deck": self.deck(cards)}

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file: the composition and the game settings it was judged under (TOML or JSON).
        Play it with `--set deck={...}` and the same settings."""
        data = {"game": self.name, "name": name, **self.game_settings(cards)}
        if Path(path).suffix.lower() == ".json":
            atomic_write_text(path, json.dumps(data, indent=1) + "\n")
            return
        lines = [f"# {comment}"] if comment else []
        inline = "{" + ", ".join(f"{k} = {v}" for k, v in data["deck"].items()) + "}"
        lines.append(f"# play it: deckopt play exploding_kittens --set 'deck={inline}'")
        for k, v in data.items():
            if k != "deck":
                lines.append(f"{k} = {json.dumps(v)}")
        lines.append("[deck]")
        lines += [f"{k} = {v}" for k, v in data["deck"].items()]
        atomic_write_text(path, "\n".join(lines) + "\n")

    def all_decks(self) -> list[list[int]]:
        """Every legal deck (small spaces only: the validation enumerates the default's 365)."""
        out = []
        for c in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(self.lo, self.hi))):
            if self.bounds.min_cards <= sum(c) <= self.bounds.max_cards:
                out.append(self.cards(c))
        return out

    # --- how a pool is scored ------------------------------------------------------------------------
    def scorer(self, config) -> KittensScorer:
        """Each deck's own games of the run's objective (no opponents, no deck files)."""
        return KittensScorer(self, config)

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The Skip count and the Attack count, each within its bounds."""
        counts = self.bounds.counts
        skip, attack = counts.get("skip", [0, 0]), counts.get("attack", [0, 0])
        # half a count of margin, so each whole count sits inside a cell, not on an edge
        return ("skips", "attacks"), [(skip[0] - 0.5, skip[1] + 0.5), (attack[0] - 0.5, attack[1] + 0.5)]

    def descriptors(self, cards) -> tuple[float, float]:
        cards = list(cards)
        return float(cards.count(CARD_NAMES.index("skip"))), float(cards.count(CARD_NAMES.index("attack")))
