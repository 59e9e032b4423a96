"""The deck space's part of the conformance check (`deckopt check`): random decks, mutation,
crossover and repair always return legal decks (`space.problems(deck) == []`), as lists of ints in the
space's canonical form (sorted, unless the space is `ordered`).

    result = check_deck_space(space, num_decks=200)   # a games.conformance.CheckResult
"""

from __future__ import annotations

import numpy as np

from evolution.decks.base import canonical
from games.conformance import FAILED, PASSED, CheckResult, ConformanceFailure, need

NAME = "deck space operators"


def _legal(space, deck, what: str) -> list[int]:
    deck = list(deck)
    form = "list of ints" if space.ordered else "sorted list of ints"
    need(all(type(c) is int for c in deck) and deck == canonical(space, deck), f"{what} is not a {form}: {deck}")
    problems = space.problems(deck)
    need(not problems, f"{what} is illegal: {deck}: {'; '.join(problems)}")
    return deck


def _operators_keep_decks_legal(space, num_decks: int) -> str:
    rng = np.random.default_rng(11)
    decks = [_legal(space, space.random_deck(rng), "a random deck") for _ in range(num_decks)]
    for i, deck in enumerate(decks):
        _legal(space, space.mutate(deck, rng), "a mutated deck")
        a, b = space.crossover(deck, decks[(i + 1) % len(decks)], rng)
        _legal(space, a, "a crossover child")
        _legal(space, b, "a crossover child")
        _legal(space, space.repair(deck, rng), "a repaired deck")
    return f"{num_decks} random decks, each mutated, crossed and repaired"


def check_deck_space(space, num_decks: int, name: str | None = None) -> CheckResult:
    """The deck space's operators on `num_decks` random decks (a space made for its run's settings);
    `name`: the space's name where it is not the game's (the check is then named after it)."""
    title = NAME if name is None else f"{NAME} ({name})"
    try:
        detail = _operators_keep_decks_legal(space, num_decks)
    except ConformanceFailure as exc:
        return CheckResult(title, FAILED, str(exc))
    except Exception as exc:  # noqa: BLE001 - an operator that crashes fails the check
        return CheckResult(title, FAILED, f"raised {type(exc).__name__}: {exc}")
    return CheckResult(title, PASSED, detail)
