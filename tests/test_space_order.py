"""A deck space declares whether a deck's order matters (`ordered`): the toolbox, the archive and the
conformance check keep an ordered space's genomes as they are and sort a multiset's
(evolution.decks.base.canonical)."""

from __future__ import annotations

import numpy as np
import pytest

from evolution.config import EvolveConfig
from evolution.decks.base import assert_legal, canonical
from evolution.spaces.check import check_deck_space
from evolution.toolbox import build_toolbox
from games.conformance import FAILED, PASSED


class Genes:
    """A toy space of 6 genes 0..9 whose operators return them in any order."""

    name = "genes"

    def __init__(self, ordered: bool):
        self.ordered = ordered

    def problems(self, cards) -> list[str]:
        return [] if len(cards) == 6 and all(0 <= c <= 9 for c in cards) else ["not 6 genes 0..9"]

    def random_deck(self, rng):
        return rng.integers(10, size=6).tolist()

    def mutate(self, cards, rng):
        return list(reversed(cards))

    def crossover(self, a, b, rng):
        return list(b), list(a)

    def repair(self, cards, rng):
        return list(cards)


@pytest.mark.parametrize("ordered", [False, True])
def test_the_toolbox_keeps_an_ordered_genome_and_sorts_a_multiset(ordered):
    space = Genes(ordered)
    rng = np.random.default_rng(3)
    tb = build_toolbox(EvolveConfig(pool=4, mu=2), space, rng)
    first = tb.individual()
    mutant = tb.mutate(first)
    again = space.random_deck(np.random.default_rng(3))
    if ordered:
        assert list(first) == again and list(mutant) == list(reversed(again))
    else:
        assert list(first) == sorted(again) and list(mutant) == sorted(again)
    assert canonical(space, [3, 1, 2]) == ([3, 1, 2] if ordered else [1, 2, 3])
    assert assert_legal(space, [5, 4, 3, 2, 1, 0]) == ([5, 4, 3, 2, 1, 0] if ordered else [0, 1, 2, 3, 4, 5])


def test_the_check_wants_a_multisets_decks_sorted_and_an_ordered_spaces_as_they_are():
    assert check_deck_space(Genes(ordered=True), num_decks=20).status == PASSED
    result = check_deck_space(Genes(ordered=False), num_decks=20)
    assert result.status == FAILED and "not a sorted list of ints" in result.detail
