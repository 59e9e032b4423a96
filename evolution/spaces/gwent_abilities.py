"""The Gwent Abilities deck space: decks of the card pool (games.gwent_abilities_cards.CARDS) legal
under `AbilityDeckRules` (size, copy limit, gold copy limit, provision budget), scored by mirrored
matches (evolution.scoring.fitness's pairings and scores, played on Gwent Abilities), validated
against the reference decks of decks/gwent_abilities.

A deck is the sorted list of its cards' indices into CARDS (a copy per entry). The agent plays every
seat; a run's default agent is the game's evaluator, `gwent_abilities_evaluator` (agents.PANELS:
three networks trained alike from independent seeds, each deal played by one). The opponents are
the population, the hall of fame and fresh random legal decks. The best decks of every generation
are measured against a fixed yardstick (decks/gwent_abilities/yardstick: decks of an independent
run and random legal decks, never part of the fitness nor of the validation), which chooses the
champion as in Gwent Lite (evolution.scoring.yardstick); without a yardstick a playoff of the last
generation's best decks and the hall of fame does. The scoring is every head-to-head space's
(evolution.spaces.head_to_head).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

import games
from evolution.decks.base import assert_legal
from evolution.decks.gwent_abilities_settings import GwentAbilitiesSettings
from evolution.spaces.head_to_head import HeadToHeadSpace
from games.gwent_abilities_cards import (
    BOND,
    CARD_INDEX,
    CARDS,
    DECOY,
    HORN,
    MEDIC,
    MELEE,
    MORALE,
    MUSTER,
    RANGED,
    SPY,
    AbilityDeck,
    AbilityDeckRules,
    load_ability_deck,
    save_ability_deck,
)

GAME = "gwent_abilities"
#: the abilities of the `style` descriptors: cards that bring cards, and units worth more beside others
ADVANTAGE = frozenset({SPY, MEDIC, DECOY})
SYNERGY = frozenset({BOND, MORALE, HORN, MUSTER})


def style_shares(cards) -> tuple[float, float]:
    """The deck's share of card-advantage cards (spy, medic, decoy: cards that bring or bring back
    cards) and its share of board-synergy cards (tight bond, morale, horn, muster: units worth more
    beside others): control decks that out-card the opponent, engine decks that multiply a row, and
    plain decks of strong units and heroes near the origin."""
    cards = list(cards)
    advantage = sum(CARDS[k].ability in ADVANTAGE for k in cards)
    synergy = sum(CARDS[k].ability in SYNERGY for k in cards)
    return float(advantage / len(cards)), float(synergy / len(cards))


def row_shares(cards) -> tuple[float, float]:
    """The share of the deck's units on the melee row and the share on the ranged row (the siege
    share is the rest): decks built around one row (melee, ranged or siege engines, which the row's
    weather card answers) against decks spread over the rows. A deck without units sits at a third
    each."""
    rows = [CARDS[k].row for k in cards if CARDS[k].unit]
    if not rows:
        return 1 / 3, 1 / 3
    return float(rows.count(MELEE) / len(rows)), float(rows.count(RANGED) / len(rows))


#: the archive's descriptor pairs by name (`archive_descriptors`), the default first: their names and
#: a deck's values, each a share 0..1
DESCRIPTOR_SETS = {
    "style": (("advantage_share", "synergy_share"), style_shares),
    "rows": (("melee_share", "ranged_share"), row_shares),
}


def names(cards) -> list[str]:
    """A deck's card names, in pool order."""
    return [CARDS[k].name for k in sorted(cards)]


def counts_words(cards) -> str:
    """`3x blue_stripes, 1x geralt, ...` in pool order."""
    return ", ".join(f"{n}x {CARDS[k].name}" for k, n in sorted(Counter(cards).items()))


# ------------------------------------------------------------------------------------------------
# The space


class GwentAbilitiesSpace(HeadToHeadSpace):
    """Gwent Abilities decks under AbilityDeckRules; every operator returns a legal deck."""

    Settings = GwentAbilitiesSettings

    def __init__(self, config):
        super().__init__(config)
        self.rules: AbilityDeckRules = config.settings.rules
        #: the archive's descriptor pair: a name of DESCRIPTOR_SETS
        self.descriptor_set = config.archive_descriptors
        self.max_cards = self.rules.max_cards

    # --- legality ---------------------------------------------------------------------------------
    def problems(self, cards) -> list[str]:
        cards = list(cards)
        if not all(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(CARDS) for k in cards):
            return [f"cards must be card indices 0..{len(CARDS) - 1}, got {cards!r}"]
        return self.rules.problems(names(cards))

    # --- operators --------------------------------------------------------------------------------
    def random_deck(self, rng: np.random.Generator) -> list[int]:
        """AbilityDeckRules.random_deck."""
        return assert_legal(self, [CARD_INDEX[n] for n in self.rules.random_deck(rng)])

    def _free(self, have: list[int]) -> list[int]:
        return [k for k in range(len(CARDS)) if have[k] < self.rules.limit(k)]

    def _repair_counts(self, have: list[int], rng: np.random.Generator) -> list[int]:
        """Counts brought under the rules with random single-card steps: copies clipped to their
        limits, extra cards removed, then while over the budget a copy removed (above min_cards) or
        swapped for a cheaper free card, then cards added that leave room to reach min_cards."""
        r = self.rules
        cost = [c.provision for c in CARDS]
        have = [min(n, r.limit(k)) for k, n in enumerate(have)]

        def pick(options):
            return options[int(rng.integers(len(options)))]

        while sum(have) > r.max_cards:
            have[pick([k for k, n in enumerate(have) if n])] -= 1
        while sum(n * cost[k] for k, n in enumerate(have)) > r.provision_budget:
            held = [k for k, n in enumerate(have) if n]
            if sum(have) > r.min_cards:
                have[pick(held)] -= 1
                continue
            # at min_cards and over the budget: some held card costs more than a free one (the
            # min_cards cheapest copies fit the budget); each swap lowers the cost
            cheapest = min(cost[k] for k in self._free(have))
            k = pick([k for k in held if cost[k] > cheapest])
            have[k] -= 1
            have[pick([j for j in self._free(have) if cost[j] < cost[k]])] += 1
        while sum(have) < r.min_cards:
            left = r.provision_budget - sum(n * cost[k] for k, n in enumerate(have))
            rest = r.min_cards - sum(have) - 1

            fitting = [k for k in self._free(have) if self._leaves_room(have, k, rest, left)]
            if fitting:
                have[pick(fitting)] += 1
                continue
            # nothing fits: swap the dearest held card for the cheapest free one (lowers the cost)
            k = max((k for k, n in enumerate(have) if n), key=cost.__getitem__)
            have[k] -= 1
            have[min(self._free(have), key=cost.__getitem__)] += 1
        return have

    def _leaves_room(self, have: list[int], k: int, rest: int, left: int) -> bool:
        """Whether a copy of card `k` and then the `rest` cheapest free copies fit in `left` provisions."""
        have = list(have)
        have[k] += 1
        return CARDS[k].provision + self.rules.cheapest_fill(rest, have) <= left

    def _counts(self, cards) -> list[int]:
        have = [0] * len(CARDS)
        for k in cards:
            have[int(k)] += 1
        return have

    def _cards(self, have) -> list[int]:
        return [k for k, n in enumerate(have) for _ in range(n)]

    def repair(self, cards, rng: np.random.Generator) -> list[int]:
        return assert_legal(self, self._cards(self._repair_counts(self._counts(cards), rng)))

    def mutate(self, cards, rng: np.random.Generator) -> list[int]:
        """A changed legal copy: one to three steps (swap a card for another, add a copy, remove a
        copy, with equal chances), then the repair; tried again (up to 20 times) while the result
        is the parent."""
        parent = self._counts(cards)
        have = parent
        for _ in range(20):
            have = list(parent)
            for _ in range(1 + int(rng.binomial(2, 0.25))):
                kind = int(rng.integers(3))
                if kind in (0, 2) and sum(have):  # swap or remove: a copy goes
                    held = [k for k, n in enumerate(have) if n]
                    have[held[int(rng.integers(len(held)))]] -= 1
                if kind in (0, 1):  # swap or add: a card with a free copy comes
                    free = self._free(have)
                    have[free[int(rng.integers(len(free)))]] += 1
            have = self._repair_counts(have, rng)
            if have != parent:
                break
        return assert_legal(self, self._cards(have))

    def crossover(self, a, b, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """Uniform crossover of the card counts (each card's count swapped with chance 1/2), then repair."""
        ca, cb = self._counts(a), self._counts(b)
        for k in np.flatnonzero(rng.random(len(CARDS)) < 0.5):
            ca[k], cb[k] = cb[k], ca[k]
        return self.repair(self._cards(ca), rng), self.repair(self._cards(cb), rng)

    # --- words and files ----------------------------------------------------------------------------
    def deck(self, cards) -> dict[str, int]:
        """Every card name of the pool with its copies in the deck (zeros included)."""
        have = self._counts(cards)
        return {c.name: have[k] for k, c in enumerate(CARDS)}

    def card_pool(self) -> dict[int, str]:
        """Every card a deck may hold (its index into CARDS) and its name: the advisor's single-card
        changes (evolution.designer.neighbourhoods.CardNeighbourhood)."""
        return {k: c.name for k, c in enumerate(CARDS)}

    def provisions(self, cards) -> int:
        return sum(CARDS[k].provision for k in cards)

    def words(self, cards) -> str:
        return counts_words(cards)

    def row(self, cards) -> dict:
        """The deck's cards by name and its provision cost (`total`)."""
        return {"deck": {n: k for n, k in self.deck(cards).items() if k}, "total": self.provisions(cards)}

    def game_deck(self, cards) -> list[str]:
        """The deck as the game's settings name one (`decks`, `deck_pool`): its card names."""
        return names(cards)

    def save(self, cards, path, name: str, comment: str) -> None:
        save_ability_deck(AbilityDeck(names(cards), self.rules, name=name), path, comment=comment)

    # --- the game -----------------------------------------------------------------------------------
    def game(self, a=None, b=None):
        decks = None if a is None else [names(a), names(b)]
        return games.make(GAME, decks=decks, rules=self.rules)

    def read_deck(self, path) -> tuple[str | None, list[int]]:
        deck = load_ability_deck(path)
        return deck.name or None, [CARD_INDEX[n] for n in deck.cards]

    # --- MAP-Elites -------------------------------------------------------------------------------
    def descriptor_space(self) -> tuple[tuple[str, str], list[tuple[float, float]]]:
        """The chosen pair of DESCRIPTOR_SETS: `style` (the default), the shares of card-advantage and
        of board-synergy cards (style_shares); `rows`, the shares of the units on the melee and on
        the ranged row (row_shares); each 0 .. 1."""
        pair, _ = DESCRIPTOR_SETS[self.descriptor_set]
        return pair, [(0.0, 1.0), (0.0, 1.0)]

    def descriptors(self, cards) -> tuple[float, float]:
        _, values = DESCRIPTOR_SETS[self.descriptor_set]
        return values(cards)
