"""Keeping Gwent Lite decks inside a designer's constraints (games.decks.DeckConstraints).

`enforce` is the repair step that runs after the rules' own repair (evolution.decks.genome.repair): it
moves the fewest cards it can so that the locked cards are present, no card has a forbidden power and
every power range holds an allowed number of cards, then brings the total back to the deck's own
(or under the budget), one unit at a time on cards chosen uniformly, as genome.repair does, skipping
any unit step that would break a constraint. The locked copies are never touched. Every choice comes
from the caller's Generator. A deck already inside the rules and the constraints comes back unchanged.

`random_constrained` gives a random legal deck inside the constraints (a random legal deck,
enforced), or raises UserError when none is found: the constraints admit no deck under the rules.
"""

from __future__ import annotations

import numpy as np

from games.decks import DeckConstraints, DeckRules
from games.errors import UserError

_ROUNDS = 8  # enforce passes before giving up (one pass fixes every case seen in the tests)


def _allowed(power: int, rules: DeckRules, constraints: DeckConstraints) -> bool:
    return power >= rules.min_power and power not in constraints.forbidden


def _nearest_allowed(power: int, rules, constraints, rng, avoid=None, inside=None) -> int:
    """The allowed power nearest `power` (ties broken at random), outside the range `avoid` or inside
    the range `inside` (CountBounds) when given."""
    for step in range(0, rules.max_total + 1):
        options = [p for p in {power - step, power + step} if _allowed(p, rules, constraints)]
        options = [p for p in options if (avoid is None or not avoid.holds(p)) and (inside is None or inside.holds(p))]
        if options:
            return int(sorted(options)[int(rng.integers(0, len(options)))])
    return power


def _free_indices(cards: list[int], constraints: DeckConstraints) -> list[int]:
    """Indices of the cards that are not locked copies (the first k copies of a locked power stay)."""
    keep = {v: constraints.locked.count(v) for v in set(constraints.locked)}
    free = []
    for i, c in enumerate(cards):
        if keep.get(c, 0) > 0:
            keep[c] -= 1
        else:
            free.append(i)
    return free


def _fix_membership(cards: list[int], rules, constraints, rng) -> list[int]:
    """Locked cards present, forbidden powers gone, range counts within bounds (totals may drift)."""
    cards = list(cards)
    for v in sorted(set(constraints.locked)):
        missing = constraints.locked.count(v) - cards.count(v)
        for _ in range(max(0, missing)):
            free = [i for i in _free_indices(cards, constraints) if cards[i] != v]
            if free and len(cards) >= rules.min_cards:
                cards[free[int(rng.integers(0, len(free)))]] = v
            else:
                cards.append(v)
    for i in _free_indices(cards, constraints):
        if cards[i] in constraints.forbidden:
            cards[i] = _nearest_allowed(cards[i], rules, constraints, rng)
    for bound in constraints.count:
        inside = [i for i in _free_indices(cards, constraints) if bound.holds(cards[i])]
        locked_inside = sum(bound.holds(c) for c in cards) - len(inside)
        extra = locked_inside + len(inside) - bound.at_most
        for i in rng.permutation(inside)[: max(0, extra)]:
            cards[int(i)] = _nearest_allowed(cards[int(i)], rules, constraints, rng, avoid=bound)
        short = bound.at_least - sum(bound.holds(c) for c in cards)
        outside = [i for i in _free_indices(cards, constraints) if not bound.holds(cards[i])]
        for i in rng.permutation(outside)[: max(0, short)]:
            cards[int(i)] = _nearest_allowed(cards[int(i)], rules, constraints, rng, inside=bound)
    return cards


def _unit_ok(power: int, delta: int, rules, constraints, counts_in) -> bool:
    """Whether moving one card from `power` to `power + delta` keeps it allowed and every range count
    within bounds (`counts_in[b]`: cards now in range b)."""
    new = power + delta
    if not _allowed(new, rules, constraints):
        return False
    for k, b in enumerate(constraints.count):
        before, after = b.holds(power), b.holds(new)
        if before and not after and counts_in[k] - 1 < b.at_least:
            return False
        if after and not before and counts_in[k] + 1 > b.at_most:
            return False
    return True


def _fix_total(cards: list[int], target: int, rules, constraints, rng) -> list[int]:
    """Move the total toward `target` one unit at a time on free cards chosen uniformly among those
    whose step keeps every constraint (forbidden powers are jumped over whole)."""
    cards = list(cards)
    free = _free_indices(cards, constraints)
    counts_in = [sum(b.holds(c) for c in cards) for b in constraints.count]
    total = sum(cards)
    for _ in range(4 * rules.max_total):
        if total == target:
            break
        sign = -1 if total > target else 1
        moves = []
        for i in free:
            step = sign
            while cards[i] + step in constraints.forbidden:  # jump a forbidden power
                step += sign
            if abs(step) <= abs(target - total) and _unit_ok(cards[i], step, rules, constraints, counts_in):
                moves.append((i, step))
        if not moves:
            break
        i, step = moves[int(rng.integers(0, len(moves)))]
        for k, b in enumerate(constraints.count):
            counts_in[k] += int(b.holds(cards[i] + step)) - int(b.holds(cards[i]))
        cards[i] += step
        total += step
    return cards


def enforce(cards, rules: DeckRules, constraints: DeckConstraints, rng: np.random.Generator) -> list[int] | None:
    """A deck inside the rules and the constraints close to `cards` (sorted), with the total of
    `cards` where the constraints allow it (never over the budget); None if no pass found one."""
    cards = [int(c) for c in cards]
    if not constraints:
        return sorted(cards)
    target = min(sum(cards), rules.max_total)
    for _ in range(_ROUNDS):
        if not rules.problems(cards) and not constraints.problems(cards):
            return sorted(cards)
        cards = _fix_membership(cards, rules, constraints, rng)
        cards = _fix_total(cards, min(target, rules.max_total), rules, constraints, rng)
        if sum(cards) > rules.max_total:
            cards = _fix_total(cards, rules.max_total, rules, constraints, rng)
    if not rules.problems(cards) and not constraints.problems(cards):
        return sorted(cards)
    return None


def random_constrained(
    rules: DeckRules, constraints: DeckConstraints, rng: np.random.Generator, make=None, tries: int = 50
) -> list[int]:
    """A random deck inside the rules and the constraints: `make(rules, rng)` (default: a random legal
    deck) enforced; UserError if `tries` attempts all fail (the constraints admit no deck, or almost none)."""
    make = make or (lambda r, g: r.random_deck(g))
    for _ in range(tries):
        deck = enforce(make(rules, rng), rules, constraints, rng)
        if deck is not None:
            return deck
    raise UserError(
        f"no deck found inside the constraints ({constraints.describe()}) under {rules.describe()}; loosen them"
    )


def check_feasible(rules: DeckRules, constraints: DeckConstraints, seed: int = 0) -> None:
    """UserError in one line if the constraints cannot hold under the rules (tried from a fixed seed)."""
    if not constraints:
        return
    locked = list(constraints.locked)
    if sum(locked) > rules.max_total:
        raise UserError(f"the locked cards {locked} total {sum(locked)}, over the budget of {rules.max_total}")
    low = [c for c in locked if c < rules.min_power]
    if low:
        raise UserError(f"locked card(s) {low} are below the minimum power {rules.min_power}")
    random_constrained(rules, constraints, np.random.default_rng(seed))
