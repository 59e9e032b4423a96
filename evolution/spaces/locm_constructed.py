"""The LOCM constructed deck space: any 30 of Legends of Code and Magic 1.2's 160 cards under a copy
limit (evolution.decks.locm_constructed_settings: at most 2 copies of a card by default, the rule of
LOCM 1.5's constructed phase), decks that play each other with a battler.

A deck is the sorted list of its 30 card numbers (1..160, a number per copy). Two decks play LOCM's
battle with no draft (games/RULES.md §9.2, the `decks` setting), dealt as one batch of the vectorised
engine (games/locm_batch.py, `LocmBatch.from_decks`): a game's two deck orders come from its seed,
seat by seat, so a deal's mirrored game (decks swapped) gives each deck the order its opponent drew
in, as every head-to-head space's pairings want (evolution.scoring.fitness). The run's agent plays
every seat; its default is the trusted panel of learned battlers `locm_league3_scorer_panel` (`--agent
max-attack` for the competition's battler, a comma list of battlers for a panel, or any LOCM agent spec).

The yardstick (decks/locm/yardstick) and the validation panel (decks/locm/field, one folder per
drafter) are decks the competition's nine drafters drafted on fresh offers (scripts/locm_deck_pool.py
--files): a strong constructed deck is one that beats what the field's drafters build. They are judged
as LOCM decks (30 of the 160), not by the copy limit, which a draft does not have.

Descriptors (`curve`): the deck's mean mana cost and its share of creatures. The designer's question
"which cards does every strong deck play?" is `deckopt decks RUN --cards` (evolution.designer.cards).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

import games
from evolution.decks.base import assert_legal
from evolution.decks.locm_constructed_settings import LocmConstructedRules, LocmConstructedSettings
from evolution.spaces.head_to_head import HeadToHeadSpace
from games.deckfile import read_deck_file
from games.fileio import atomic_write_text
from games.locm import CARDS, CREATURE, DECK_SIZE, NUM_CARDS
from games.locm_batch import LocmBatch

NUMBERS = range(1, NUM_CARDS + 1)
COST = np.array([0] + [CARDS[n].cost for n in NUMBERS])
TYPE_LETTERS = {0: "C", 1: "G", 2: "R", 3: "B"}  # creature, green, red and blue item


def card_name(number: int) -> str:
    """`7 Slimer`: a card's number and name (names are not unique among the 160)."""
    return f"{number} {CARDS[number].name}"


def locm_problems(cards) -> list[str]:
    """What makes `cards` other than a LOCM deck (30 card numbers 1..160); [] for one."""
    cards = list(cards)
    if not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 1 <= c <= NUM_CARDS for c in cards):
        return [f"cards must be card numbers 1..{NUM_CARDS}, got {cards!r}"]
    if len(cards) != DECK_SIZE:
        return [f"{len(cards)} cards, not {DECK_SIZE}"]
    return []


def mana_curve(cards) -> list[int]:
    """How many cards cost 0, 1, ..., 6 and 7 or more."""
    out = [0] * 8
    for c in cards:
        out[min(int(COST[c]), 7)] += 1
    return out


def curve_shares(cards) -> tuple[float, float]:
    """The deck's mean mana cost and its share of creatures."""
    cards = list(cards)
    return float(COST[cards].mean()), float(sum(CARDS[c].type == CREATURE for c in cards) / len(cards))


class ConstructedDeal:
    """The battles of a task: game g between decks[g] = (seat 0's, seat 1's), each seat's deck order
    drawn from seeds[g] (evolution.scoring.fitness.Task's `deal`; picklable: no state)."""

    def __call__(self, seeds: list[int], decks: list[tuple]) -> LocmBatch:
        orders = {s: np.random.default_rng(s).random((2, DECK_SIZE)).argsort(axis=1) for s in set(seeds)}
        return LocmBatch.from_decks(games.make("locm"), np.array(decks), np.stack([orders[s] for s in seeds]))


class LocmConstructedSpace(HeadToHeadSpace):
    """LOCM constructed decks under LocmConstructedRules; every operator returns a legal deck."""

    Settings = LocmConstructedSettings
    max_cards = DECK_SIZE

    def __init__(self, config):
        super().__init__(config)
        self.rules: LocmConstructedRules = config.settings.rules
        self.deal = ConstructedDeal()

    # --- what a deck is ---------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        out = locm_problems(cards)
        if out:
            return out
        card, most = Counter(int(c) for c in cards).most_common(1)[0]
        if most > self.rules.copy_limit:
            return [f"{most} copies of card {card}, more than the rules' {self.rules.copy_limit}"]
        return []

    def reference_problems(self, cards) -> list[str]:
        """A reference deck (yardstick, validation panel) is any LOCM deck: drafted decks keep no copy limit."""
        return locm_problems(cards)

    def words(self, cards) -> str:
        """`2x7 1x12 ...`: copies x card number, by card number."""
        return " ".join(f"{k}x{c}" for c, k in sorted(Counter(int(c) for c in cards).items()))

    def row(self, cards) -> dict:
        """The deck's cards by name with copies, its mana curve (cards costing 0..6 and 7+), its mean
        mana cost and its items (the cards that are not creatures)."""
        cards = [int(c) for c in cards]
        mean_cost, creature_share = curve_shares(cards)
        return {
            "deck": {card_name(c): k for c, k in sorted(Counter(cards).items())},
            "curve": mana_curve(cards),
            "mean_cost": round(mean_cost, 2),
            "items": len(cards) - round(creature_share * len(cards)),
        }

    def save(self, cards, path, name: str, comment: str) -> None:
        """A deck file (games.deckfile's: `deckopt match locm --deck FILE` plays it): the comment, the
        deck's name, its cards, and its rules as a comment."""
        listed = ", ".join(str(int(c)) for c in sorted(cards))
        atomic_write_text(
            path,
            f'# {comment}\n# copy_limit {self.rules.copy_limit}\nname = "{name}"\ncards = [{listed}]\n',
        )

    # --- operators --------------------------------------------------------------------------------
    def _free(self, have: Counter) -> list[int]:
        return [c for c in NUMBERS if have[c] < self.rules.copy_limit]

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        """Numbers outside 1..160 dropped, copies over the limit removed, then extra cards removed or
        missing ones added at random among the cards with a free copy, to 30."""
        have = Counter(int(c) for c in cards if 1 <= int(c) <= NUM_CARDS)
        for c in list(have):
            have[c] = min(have[c], self.rules.copy_limit)
        deck = sorted(have.elements())
        while len(deck) > DECK_SIZE:
            deck.pop(int(rng.integers(len(deck))))
        have = Counter(deck)
        while len(deck) < DECK_SIZE:
            free = self._free(have)
            c = free[int(rng.integers(len(free)))]
            have[c] += 1
            deck.append(c)
        return assert_legal(self, deck)

    def random_deck(self, rng: np.random.Generator) -> list[int]:
        """30 of the 160 x copy_limit copies, drawn without replacement (every copy alike)."""
        copies = np.repeat(np.arange(1, NUM_CARDS + 1), self.rules.copy_limit)
        return assert_legal(self, rng.choice(copies, size=DECK_SIZE, replace=False).tolist())

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        """One to three copies swapped for other cards with a free copy (1 + Binomial(2, 1/4) swaps)."""
        deck = [int(c) for c in cards]
        for _ in range(1 + int(rng.binomial(2, 0.25))):
            out = deck.pop(int(rng.integers(len(deck))))
            have = Counter(deck)
            free = [c for c in self._free(have) if c != out]
            deck.append(free[int(rng.integers(len(free)))])
        return assert_legal(self, deck)

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the card counts (each card's count swapped with chance 1/2), then repair."""
        ca, cb = Counter(int(c) for c in a), Counter(int(c) for c in b)
        for c in np.flatnonzero(rng.random(NUM_CARDS) < 0.5) + 1:
            ca[c], cb[c] = cb[c], ca[c]
        return self.repair(list(ca.elements()), rng), self.repair(list(cb.elements()), rng)

    # --- the game -----------------------------------------------------------------------------------
    def game(self, a=None, b=None):
        """LOCM's battle between decks `a` and `b` (both None: the game with a draft, which LOCM agents
        are built for)."""
        return games.make("locm", decks=None if a is None else [list(a), list(b)])

    def read_deck(self, path) -> tuple[str | None, list[int]]:
        deck = read_deck_file(path)
        return deck.name or None, [int(c) for c in deck.cards]

    def card_pool(self) -> dict[int, str]:
        """The 160 cards by number, with their names."""
        return {c: card_name(c) for c in NUMBERS}

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """`curve`: the mean mana cost, from the cheapest legal deck's to the dearest's (the 30
        cheapest or dearest copies under the copy limit), and the share of creatures, 0..1."""
        by_cost = sorted(np.repeat(COST[1:], self.rules.copy_limit))
        return ("mean_cost", "creature_share"), [
            (float(np.mean(by_cost[:DECK_SIZE])), float(np.mean(by_cost[-DECK_SIZE:]))),
            (0.0, 1.0),
        ]

    def descriptors(self, cards) -> tuple[float, float]:
        return curve_shares(cards)
