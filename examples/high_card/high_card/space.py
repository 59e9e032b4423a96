"""High Card's deck space: what makes its decks evolve with `deckopt evolve --game high_card`.

Registered by this package's pyproject.toml in the entry point group `deckopt.spaces`
(`high_card = "high_card.space:HighCardSpace"`), next to the game in `deckopt.games`. Written
against deckopt's public modules only: the deck-space protocol `evolution.decks.base.DeckSpace`,
through the base of spaces whose decks play each other, `evolution.spaces.head_to_head.HeadToHeadSpace`.

A deck is a sorted list of 8 values 1..9 worth at most 40, and within the run's deck rules
(`HighCardRules`: `--set rules.copy_limit=2`, `deckopt sweep --rule copy_limit`). Two decks play
each other, so the space gives the game of two decks (`game`), how its deck files read (`read_deck`,
as `save` writes them) and its card values (`card_pool`); its runs are scored like every
head-to-head space's: mirrored games against the population and the hall of fame, the run's agent
in every seat, on the run's worker processes. It ships no reference decks: no yardstick, no
validation panel (a run may name deck files of its own with `--yardstick` and `--validation-panel`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

import games
from evolution.decks.settings import HeadToHeadSettings
from evolution.spaces.head_to_head import HeadToHeadSpace
from games.config import need, setting
from games.deckfile import read_deck_file
from games.errors import UserError
from games.fileio import atomic_write_text
from high_card import BUDGET, DECK_SIZE, VALUES, deck_problems


@dataclass(frozen=True)
class HighCardRules:
    """The deck rules of a run, within the game's own (8 cards 1..9, worth at most 40)."""

    copy_limit: int = setting(DECK_SIZE, "copies of one value a deck may hold (1..8)", metavar="N")
    budget: int = setting(BUDGET, f"the most a deck may be worth ({DECK_SIZE}..{BUDGET})", metavar="N")

    def __post_init__(self):
        need(isinstance(self.copy_limit, int) and 1 <= self.copy_limit <= DECK_SIZE, "copy_limit must be 1..8")
        need(isinstance(self.budget, int) and DECK_SIZE <= self.budget <= BUDGET, f"budget must be 8..{BUDGET}")


@dataclass
class HighCardSettings(HeadToHeadSettings):
    """The settings of High Card's decks: the head-to-head settings, its deck rules (`[high_card.rules]`)
    and its one descriptor pair."""

    game = "high_card"
    table = "high_card"
    #: one descriptor pair: the counts of 1s and 9s (a 1 beats a 9)
    descriptor_sets = ("extremes",)

    rules: HighCardRules = setting(factory=HighCardRules, help="the deck rules (a [high_card.rules] table)", flag=False)


class HighCardSpace(HeadToHeadSpace):
    """High Card's decks under the run's HighCardRules; every operator ends with the repair."""

    Settings = HighCardSettings
    max_cards = DECK_SIZE

    def __init__(self, config):
        super().__init__(config)
        self.rules: HighCardRules = config.settings.rules

    # --- what a deck is -------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        cards = list(cards)
        out = deck_problems(cards)
        if out:
            return out
        if sum(cards) > self.rules.budget:
            out.append(f"worth {sum(cards)}, more than the rules' {self.rules.budget}")
        most = max(Counter(cards).values())
        if most > self.rules.copy_limit:
            out.append(f"{most} copies of one value, more than the rules' {self.rules.copy_limit}")
        return out

    def words(self, cards) -> str:
        return " ".join(map(str, cards))

    def row(self, cards) -> dict:
        """What the deck is worth (the sum of its values, at most the rules' budget)."""
        return {"worth": sum(cards)}

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file (TOML, games.deckfile's: `deckopt match high_card --deck FILE` plays it): the
        comment, the deck's name and its cards."""
        cards = ", ".join(str(int(c)) for c in cards)
        atomic_write_text(path, f'# {comment}\nname = "{name}"\ncards = [{cards}]\n')

    # --- operators ------------------------------------------------------------------------------
    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        """Values clipped into 1..9 and the size brought to 8; then, until the deck is legal, a copy
        over the copy limit moved to a value with room (a lower one where there is one) and random
        cards above 1 lowered by one while the deck is over the budget."""
        deck = [min(max(int(c), 1), 9) for c in cards][:DECK_SIZE]
        while len(deck) < DECK_SIZE:
            deck.append(int(rng.integers(1, 10)))
        while self.problems(deck):
            counts = Counter(deck)
            over = [i for i, c in enumerate(deck) if counts[c] > self.rules.copy_limit]
            if over:
                i = over[int(rng.integers(len(over)))]
                room = [v for v in VALUES if counts[v] < self.rules.copy_limit]
                lower = [v for v in room if v < deck[i]]
                choice = lower or room
                deck[i] = int(choice[int(rng.integers(len(choice)))])
            elif sum(deck) > self.rules.budget:
                above = [i for i, c in enumerate(deck) if c > 1]
                deck[above[int(rng.integers(len(above)))]] -= 1
        return sorted(deck)

    def random_deck(self, rng: np.random.Generator) -> list[int]:
        return self.repair(rng.integers(1, 10, size=DECK_SIZE).tolist(), rng)

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        """One or two cards replaced by random values, then the repair."""
        deck = list(cards)
        for i in rng.choice(DECK_SIZE, size=int(rng.integers(1, 3)), replace=False):
            deck[int(i)] = int(rng.integers(1, 10))
        return self.repair(deck, rng)

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the sorted decks, position by position, then the repair."""
        swap = rng.random(DECK_SIZE) < 0.5
        x = [bi if s else ai for ai, bi, s in zip(a, b, swap)]
        y = [ai if s else bi for ai, bi, s in zip(a, b, swap)]
        return self.repair(x, rng), self.repair(y, rng)

    # --- the game -------------------------------------------------------------------------------
    def game(self, a=None, b=None) -> games.Game:
        """The game of deck `a` (player 0) against deck `b` (player 1); without decks, the default decks."""
        return games.make(self.name) if a is None else games.make(self.name, decks=[list(a), list(b)])

    def read_deck(self, path) -> tuple[str | None, list[int]]:
        """A deck file as `save` writes it (games.deckfile); UserError in one line for a file that is
        not one or a deck that is not a High Card deck."""
        deck = read_deck_file(path)
        problems = deck_problems(deck.cards)
        if problems:
            raise UserError(f"deck file {str(path)!r}: {problems[0]}")
        return deck.name, [int(c) for c in deck.cards]

    def card_pool(self) -> dict[int, str]:
        """The values a card may take: `deckopt advise` swaps, adds and removes one."""
        return {v: str(v) for v in VALUES}

    # --- MAP-Elites -----------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The count of 1s and the count of 9s (a 1 beats a 9), each 0..8."""
        return ("ones", "nines"), [(-0.5, DECK_SIZE + 0.5), (-0.5, DECK_SIZE + 0.5)]

    def descriptors(self, cards) -> tuple[float, float]:
        cards = list(cards)
        return float(cards.count(1)), float(cards.count(9))
