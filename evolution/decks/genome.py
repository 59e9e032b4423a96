"""Deck genomes: a deck is a sorted list of card powers (a multiset) under a `DeckRules`.

Everything here is plain Python + numpy on lists of ints, with an explicit numpy Generator, so the
same functions serve the DEAP toolbox (parent process) and anything else. Every operator returns a
legal deck: `repair` runs last, and `assert_legal` guards what reaches a match.

Why the repair is unbiased: budget corrections are spread one unit at a time over cards chosen
uniformly among those above `min_power`, the same way whether units are removed (over budget) or
given back (a budget-neutral mutation that came out under its total), so on average they move no
card up or down. The only other change, lifting a card below `min_power` to `min_power`, is the
legality floor itself. The ancestor instead walked the deck in order and, when over budget, raised
1-power cards; tests/test_evolution.py checks both.
"""

from __future__ import annotations

import numpy as np

from games.decks import DECK_SHAPES, DeckRules

# ------------------------------------------------------------------------------------------------
# Random legal decks of several shapes (games.decks.DECK_SHAPES)

SHAPES = DECK_SHAPES
#: the shapes of a random deck unless a caller names others (`dirichlet` is for evaluator training)
DEFAULT_SHAPES = ("uniform", "normal", "flat", "spiky", "more_cards")


def random_deck(rules: DeckRules, rng: np.random.Generator, shapes=DEFAULT_SHAPES) -> list[int]:
    """A random legal deck of a shape chosen uniformly from `shapes`."""
    shape = shapes[int(rng.integers(0, len(shapes)))]
    return assert_legal(SHAPES[shape](rules, rng), rules)


# ------------------------------------------------------------------------------------------------
# Repair, mutation, crossover


def repair(
    cards, rules: DeckRules, rng: np.random.Generator, target_total: int | None = None, keep_order: bool = False
) -> list[int]:
    """A legal deck close to `cards`, sorted (or in the input order with `keep_order`; added cards
    go at the end).

    1. cards below `min_power` are lifted to it (the legality floor);
    2. missing cards (fewer than `min_cards`) are added at `min_power`; if even the floor of
       every card exceeds the budget, cards chosen at random are dropped;
    3. the total is brought to `min(target_total, max_total)` (or, without a target, under the
       budget if it is over): one unit at a time, taken from or given to a card chosen uniformly
       among the cards above `min_power` (among all cards if none is). Taking and giving use the
       same choice, so budget corrections push no card up or down on average; a card at the floor
       is left alone both ways.
    A legal deck without a target comes back unchanged."""
    m = rules.min_power
    arr = np.array([max(int(c), m) for c in cards] + [m] * max(0, rules.min_cards - len(cards)), dtype=np.int64)
    if arr.size > rules.max_cards:
        # so many cards that even all at the floor break the budget: drop cards chosen at random
        keep = np.sort(rng.choice(arr.size, size=rules.max_cards, replace=False))
        arr = arr[keep]
    total = int(arr.sum())
    target = min(total if target_total is None else int(target_total), rules.max_total)
    target = max(target, arr.size * m)
    diff = total - target
    if diff > 0:
        # remove one unit at a time from a card chosen uniformly among those above the floor; a
        # card leaves the eligible list when it reaches the floor
        eligible = [int(i) for i in np.flatnonzero(arr > m)]
        values = arr.tolist()
        for u in rng.random(diff):
            k = int(u * len(eligible))
            i = eligible[k]
            values[i] -= 1
            if values[i] == m:
                eligible[k] = eligible[-1]
                eligible.pop()
        arr = np.array(values, dtype=np.int64)
        diff = 0
    if diff < 0:
        # give back: a card given a unit stays above the floor, so the eligible set does not change
        # while giving and one batch equals one-unit steps (all at the floor: spread over all cards)
        above = np.flatnonzero(arr > m)
        if above.size == 0:
            above = np.arange(arr.size)
        np.add.at(arr, rng.choice(above, size=-diff, replace=True), 1)
    out = arr.tolist()
    return out if keep_order else sorted(out)


def _nonzero_step(rng: np.random.Generator, sigma: float) -> int:
    """A small nonzero integer, symmetric around 0: |N(0, sigma)| rounded up (as the ancestor)."""
    x = rng.normal(0.0, sigma)
    return int(np.ceil(abs(x))) * (1 if x >= 0 else -1) or (1 if rng.random() < 0.5 else -1)


def mutate(
    cards,
    rules: DeckRules,
    rng: np.random.Generator,
    card_rate: float = 0.1,
    step_sigma: float = 1.0,
    add_prob: float = 0.1,
    remove_prob: float = 0.1,
) -> list[int]:
    """A mutated copy of a legal deck: about `card_rate` of the cards (at least one) change by small
    nonzero steps of either sign; with `add_prob` a copy of a random card is added, with
    `remove_prob` a random card is removed. The mutation is budget-neutral: `repair` brings the
    total back to the parent's, so mutation alone neither inflates nor drains the deck."""
    parent_total = sum(cards)
    out = [int(c) for c in cards]
    n = len(out)
    k = int(np.clip(rng.binomial(n, card_rate), 1, n))
    for i in rng.choice(n, size=k, replace=False):
        out[i] += _nonzero_step(rng, step_sigma)
    if rng.random() < add_prob and (len(out) + 1) * rules.min_power <= parent_total:
        out.append(out[int(rng.integers(0, len(out)))])
    if rng.random() < remove_prob and len(out) > rules.min_cards:
        out.pop(int(rng.integers(0, len(out))))
    return repair(out, rules, rng, target_total=parent_total)


def crossover(a, b, rules: DeckRules, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Multiset uniform crossover: the sorted decks exchange the cards of each rank with
    probability 1/2 (ranks past the shorter deck stay with their deck), then each child is repaired
    back to its parent's total."""
    a, b = sorted(int(c) for c in a), sorted(int(c) for c in b)
    ta, tb = sum(a), sum(b)
    ca, cb = list(a), list(b)
    for i in range(min(len(a), len(b))):
        if rng.random() < 0.5:
            ca[i], cb[i] = cb[i], ca[i]
    return repair(ca, rules, rng, target_total=ta), repair(cb, rules, rng, target_total=tb)


def assert_legal(cards, rules: DeckRules) -> list[int]:
    """The guard before a deck reaches a match: a bug, not a user error, if it fires."""
    problems = rules.problems(cards)
    if problems:
        raise AssertionError(f"illegal deck {sorted(cards)}: {'; '.join(problems)}")
    return sorted(int(c) for c in cards)


def counts_text(cards) -> str:
    """Powers as counts, highest first: '1x9 4x6 2x5 ...' reads as one 9, four 6s, two 5s."""
    values, counts = np.unique(np.asarray(cards, dtype=np.int64), return_counts=True)
    return " ".join(f"{c}x{v}" for v, c in sorted(zip(values.tolist(), counts.tolist()), reverse=True))
