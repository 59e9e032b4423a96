"""Deck spaces: what a deck is in each game the evolution knows, behind one small interface.

    space = space_for(config)                     # from EvolveConfig.game
    cards = space.random_deck(rng, shapes)        # a random legal deck (a sorted list of ints)
    child = space.mutate(cards, rng, config)      # small change, then repair: always legal
    a, b = space.crossover(x, y, rng)
    space.problems(cards)                         # [] for a legal deck
    space.text(cards)                             # for logs and tables
    space.game_settings(cards)                    # keyword arguments of games.make

A deck is always a sorted list of ints, so DEAP individuals, hall of fame, checkpoints and run files
are the same for every game:
- Gwent Lite (`GwentSpace`): the multiset of card powers under `games.decks.DeckRules`; every
  operator is the one of evolution.genome (so Gwent Lite runs are exactly what they were).
- Exploding Kittens (`KittensSpace`): the multiset of card *types* in the deck besides the Kitten
  (indices into games.exploding_kittens.CARD_NAMES), i.e. card counts, each within
  `KittensBounds.counts[name]`, the deck's size within `min_cards..max_cards`. The default bounds
  (Skip 0..8, Attack 0..8, Defuse 0..4 in the deck, 4..16 cards; with one Defuse in each hand from
  the game settings) hold 365 compositions, within the counts the composition-trained agent met.

Objectives per game (`OBJECTIVES`, the first is the default): Gwent Lite `win` (the pairwise match
score); Exploding Kittens `fairness` and `skill` (evolution.objectives).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.config import need, setting
from games.errors import UserError

GAMES = ("gwent_lite", "exploding_kittens")
OBJECTIVES = {"gwent_lite": ("win",), "exploding_kittens": ("fairness", "skill")}
#: game settings a kittens run starts from: exact values (the validation) exist for open hands only,
#: and the default agent was trained on open hands
KITTENS_GAME_DEFAULTS = {"open_hands": True, "hand_defuses": 1}


def _default_counts() -> dict[str, list[int]]:
    return {"skip": [0, 8], "attack": [0, 8], "defuse": [0, 4]}


@dataclass
class KittensBounds:
    """The Exploding Kittens deck space: each listed card type's count in the deck (besides the
    Kitten; Defuses in hands come from the game settings) within [lo, hi], the others 0, and the
    deck's size within min_cards..max_cards."""

    min_cards: int = setting(4, "a deck holds at least this many cards besides the Kitten", metavar="N")
    max_cards: int = setting(16, "a deck holds at most this many cards besides the Kitten", metavar="N")
    counts: dict[str, list[int]] = setting(
        factory=_default_counts, help="card name -> [least, most] copies in the deck", flag=False
    )

    def __post_init__(self):
        from games.exploding_kittens import CARD_NAMES, MAX_COUNT

        for name in ("min_cards", "max_cards"):
            v = getattr(self, name)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"bounds: {name} must be >= 0, got {v!r}")
        need(isinstance(self.counts, dict) and self.counts, "bounds: counts must be a table of card -> [least, most]")
        for name, lohi in self.counts.items():
            need(name in CARD_NAMES, f"bounds: unknown card {name!r}; cards: {', '.join(CARD_NAMES)}")
            ok = isinstance(lohi, (list, tuple)) and len(lohi) == 2 and all(isinstance(x, int) for x in lohi)
            need(ok, f"bounds: {name} must be [least, most], got {lohi!r}")
            need(0 <= lohi[0] <= lohi[1] <= MAX_COUNT, f"bounds: {name} needs 0 <= least <= most <= {MAX_COUNT}")
        self.counts = {n: [int(v) for v in self.counts[n]] for n in CARD_NAMES if n in self.counts}
        lo = sum(v[0] for v in self.counts.values())
        hi = sum(v[1] for v in self.counts.values())
        need(
            max(lo, self.min_cards) <= min(hi, self.max_cards),
            f"bounds admit no deck: counts allow {lo}..{hi} cards, the deck size must be "
            f"{self.min_cards}..{self.max_cards}",
        )


class GwentSpace:
    """Gwent Lite's power multisets under DeckRules: evolution.genome's operators, each followed by
    evolution.constraints.enforce when the run has constraints (a child that cannot be brought inside
    them gives way to a copy of its parent, or to a fresh random deck inside them)."""

    name = "gwent_lite"

    def __init__(self, rules, constraints=None):
        from games.decks import DeckConstraints

        self.rules = rules
        self.constraints = constraints or DeckConstraints()

    def _inside(self, cards, rng: np.random.Generator, fallback) -> list[int]:
        if not self.constraints:
            return cards
        from evolution.constraints import enforce

        fixed = enforce(cards, self.rules, self.constraints, rng)
        return fixed if fixed is not None else list(fallback())

    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        from evolution import genome

        deck = genome.random_deck(self.rules, rng, tuple(shapes or genome.DEFAULT_SHAPES))
        if not self.constraints:
            return deck
        from evolution.constraints import random_constrained

        return self._inside(deck, rng, lambda: random_constrained(self.rules, self.constraints, rng))

    def mutate(self, cards, rng: np.random.Generator, config) -> list[int]:
        from evolution import genome

        out = genome.mutate(
            cards,
            self.rules,
            rng,
            card_rate=config.mut_card_rate,
            step_sigma=config.mut_step_sigma,
            add_prob=config.mut_add_prob,
            remove_prob=config.mut_remove_prob,
        )
        return genome.assert_legal(self._inside(out, rng, lambda: cards), self.rules)

    def crossover(self, a, b, rng: np.random.Generator):
        from evolution import genome

        x, y = genome.crossover(a, b, self.rules, rng)
        return self._inside(x, rng, lambda: a), self._inside(y, rng, lambda: b)

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        from evolution import genome

        return self._inside(genome.repair(cards, self.rules, rng), rng, lambda: self.random_deck(rng))

    def problems(self, cards) -> list[str]:
        return self.rules.problems(cards)

    def text(self, cards) -> str:
        from evolution.genome import counts_text

        return f"{counts_text(cards)} (total {sum(cards)}, {len(cards)} cards)"

    def short_text(self, cards) -> str:
        from evolution.genome import counts_text

        return counts_text(cards)

    def entry_extra(self, cards) -> dict:
        return {}

    def save(self, cards, path, name: str, comment: str) -> None:
        from games.decks import Deck, save_deck

        save_deck(Deck(list(cards), self.rules, name=name, constraints=self.constraints), path, comment=comment)


class KittensSpace:
    """Exploding Kittens card counts within `KittensBounds`; a deck is the sorted list of its card
    types (0 = Defuse, 1 = Skip, 2 = Attack, ... as games.exploding_kittens.CARD_NAMES)."""

    name = "exploding_kittens"

    def __init__(self, bounds: KittensBounds, game_config: dict | None = None):
        from games.exploding_kittens import CARD_NAMES, DEFUSE, MAX_COUNT

        self.bounds = bounds
        self.game_config = dict(game_config or {})
        self.types = [CARD_NAMES.index(n) for n in bounds.counts]  # the card types a deck may vary
        self.lo = np.array([bounds.counts[CARD_NAMES[t]][0] for t in self.types], dtype=np.int64)
        self.hi = np.array([bounds.counts[CARD_NAMES[t]][1] for t in self.types], dtype=np.int64)
        if DEFUSE in self.types:  # the Defuses in hands count towards a type's limit
            hands = 2 * int(self.game_config.get("hand_defuses", 1))
            i = self.types.index(DEFUSE)
            if self.hi[i] + hands > MAX_COUNT:
                raise UserError(
                    f"bounds: at most {MAX_COUNT - hands} Defuses in the deck with {hands // 2} in each hand"
                )

    # --- counts <-> cards ------------------------------------------------------------------------
    def counts(self, cards) -> np.ndarray:
        """Counts of the space's card types (in `self.types` order)."""
        c = np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=10)
        return c[self.types].astype(np.int64)

    def cards(self, counts) -> list[int]:
        return [t for t, n in zip(self.types, counts) for _ in range(int(n))]

    def deck(self, cards) -> dict[str, int]:
        """The composition as a games.make `deck` table (every listed card name, zeros included)."""
        from games.exploding_kittens import CARD_NAMES

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

    def random_deck(self, rng: np.random.Generator, shapes=None) -> list[int]:
        """A size drawn uniformly from the legal sizes, the cards above the lower bounds spread one at a
        time over the types chosen uniformly among those still below their upper bound (`shapes`
        are Gwent Lite's, ignored here)."""
        b = self.bounds
        lo_n, hi_n = max(b.min_cards, int(self.lo.sum())), min(b.max_cards, int(self.hi.sum()))
        n = int(rng.integers(lo_n, hi_n + 1))
        c = self.lo.copy()
        for _ in range(n - int(c.sum())):
            can = np.flatnonzero(c < self.hi)
            c[can[int(rng.integers(0, can.size))]] += 1
        return self.assert_legal(self.cards(c))

    def mutate(self, cards, rng: np.random.Generator, config=None) -> list[int]:
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
        return self.assert_legal(self.cards(c))

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the counts: each type's count swapped with chance 1/2, then repair."""
        ca, cb = self.counts(a), self.counts(b)
        swap = rng.random(len(self.types)) < 0.5
        ca[swap], cb[swap] = cb[swap].copy(), ca[swap].copy()
        return self.cards(self._repair_counts(ca, rng)), self.cards(self._repair_counts(cb, rng))

    # --- legality and words ----------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        """What makes `cards` illegal here ([] for a legal deck)."""
        from games.exploding_kittens import CARD_NAMES

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

    def assert_legal(self, cards) -> list[int]:
        """The guard before a deck reaches a game: a bug, not a user error, if it fires."""
        problems = self.problems(cards)
        if problems:
            raise AssertionError(f"illegal deck {list(cards)}: {'; '.join(problems)}")
        return sorted(int(t) for t in cards)

    def short_text(self, cards) -> str:
        return ", ".join(f"{n} {k}" for k, n in self.deck(cards).items())

    def text(self, cards) -> str:
        return f"{self.short_text(cards)} ({len(list(cards))} cards)"

    def entry_extra(self, cards) -> dict:
        # "total" of a Gwent Lite deck is its power budget; here the number of cards
        return {"deck": self.deck(cards), "total": len(list(cards))}

    def game_settings(self, cards) -> dict:
        return {**self.game_config, "deck": self.deck(cards)}

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file: the composition and the game settings it was judged under (TOML or JSON).
        Play it with `--set deck={...}` and the same settings."""
        import json
        from pathlib import Path

        from games.fileio import atomic_write_text

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
        import itertools

        out = []
        for c in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(self.lo, self.hi))):
            if self.bounds.min_cards <= sum(c) <= self.bounds.max_cards:
                out.append(self.cards(c))
        return out


def space_for(config):
    """The deck space of an EvolveConfig."""
    if config.game == "exploding_kittens":
        return KittensSpace(config.bounds, config.game_config)
    return GwentSpace(config.rules, getattr(config, "constraints", None))


def space_of_game(game):
    """The deck space of a made game for the conformance check, or None when decks do not evolve in
    it: our games' default spaces (GAMES), else the game's own `deck_space()` if it has one."""
    from evolution.config import EvolveConfig

    if game.name in GAMES:
        return space_for(EvolveConfig(game=game.name))
    make_space = getattr(game, "deck_space", None)
    return make_space() if callable(make_space) else None
