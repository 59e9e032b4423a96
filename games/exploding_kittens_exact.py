"""Perfect play of open-hands Exploding Kittens by memoised dynamic programming over card counts (the
"dynamic-programming bots" seed's DP_20, extended to every card of the engine).

With both hands open, all that the players do not know is the deck's order, and that is always uniform
given the deck's contents: the Kitten goes back at a uniformly random place, Shuffle shuffles, draws come
from the top. So a position is (mover's hand, other hand, deck contents, turns owed, cards played this
turn, Favor pending), all counts, and its value (the mover's chance to win under optimal play by both)
follows from the rules alone:
    draw     the Kitten with chance 1/L (L = deck size): spend a Defuse (the turn ends) or lose; a card
             of type t with chance deck[t]/L: into the hand, the turn ends
    skip     the turn ends;  attack: the opponent owes exactly 2 turns
    favor    the opponent picks the card to give (their decision: a minimum for the mover)
    shuffle  only the card is spent;  cat pair: a card uniformly from the opponent's hand
"The turn ends": with 2 turns owed the mover plays on with 1, else the opponent moves.

`game_value(config)` is the first player's winning chance of a config (fixed composition; with cards
dealt, averaged over the deal). A position key is a tuple; `position(state)` builds it from a state.
"""

from __future__ import annotations

import sys
from functools import cache

from games.errors import UserError
from games.exploding_kittens import (
    ACTION_CARD,
    ATTACK,
    CATS,
    DEFUSE,
    DRAW,
    FAVOR,
    GIVE,
    NUM_TYPES,
    PLAY_ACTIONS,
    SHUFFLE,
    SKIP,
    ExplodingKittensConfig,
)

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def _add(hand: tuple, t: int, n: int) -> tuple:
    return hand[:t] + (hand[t] + n,) + hand[t + 1 :]


def position(state) -> tuple:
    """The DP key of a live state: (mover hand, other hand, deck, owed, plays, favor, max_plays)."""
    p = state.current_player
    cap = state.game.config.max_plays_per_turn
    other = 1 - p
    plays = state.plays_this_turn if cap else 0
    return (state.hand(p), state.hand(other), state.deck_counts(), state.turns_owed, plays, state.favor_pending, cap)


def _end_turn(me, other, deck, owed, cap) -> float:
    """The mover's value once one of their turns ends."""
    if owed == 2:
        return value(me, other, deck, 1, 0, False, cap)
    return 1.0 - value(other, me, deck, 1, 0, False, cap)


# the order of the terms of a draw's sum: the Kitten, then these card types. With `count / size * value`
# summed in this order the values of the rule book come out to the last digit (as the seed's solver adds).
_DRAW_ORDER = (SKIP, ATTACK, DEFUSE, FAVOR, SHUFFLE, *CATS)


def _draw(me, other, deck, owed, cap) -> float:
    size = sum(deck) + 1
    total = 0.0
    if me[DEFUSE]:
        total += 1 / size * _end_turn(_add(me, DEFUSE, -1), other, deck, owed, cap)
    for t in _DRAW_ORDER:
        if deck[t]:
            total += deck[t] / size * _end_turn(_add(me, t, 1), other, _add(deck, t, -1), owed, cap)
    return total


def _play(t, me, other, deck, owed, plays, cap) -> float:
    me = _add(me, t, -2 if t in CATS else -1)
    if t == SKIP:
        return _end_turn(me, other, deck, owed, cap)
    if t == ATTACK:
        return 1.0 - value(other, me, deck, 2, 0, False, cap)
    plays = plays + 1 if cap else 0
    held = sum(other)
    if t == SHUFFLE or not held:
        return value(me, other, deck, owed, plays, False, cap)
    if t == FAVOR:
        return 1.0 - value(other, me, deck, owed, plays, True, cap)
    total = 0.0
    for c in range(NUM_TYPES):
        if other[c]:
            total += other[c] * value(_add(me, c, 1), _add(other, c, -1), deck, owed, plays, False, cap)
    return total / held


def action_values(me, other, deck, owed, plays, favor, cap) -> dict[int, float]:
    """The mover's winning chance after each legal action (engine action numbers), under optimal play."""
    if favor:  # the mover gives a card to the turn's player (`other`)
        return {
            GIVE + t: 1.0 - value(_add(other, t, 1), _add(me, t, -1), deck, owed, plays, False, cap)
            for t in range(NUM_TYPES)
            if me[t]
        }
    out = {DRAW: _draw(me, other, deck, owed, cap)}
    if cap == 0 or plays < cap:
        for t, a in PLAY_ACTIONS.items():
            if me[t] >= (2 if t in CATS else 1):
                out[a] = _play(t, me, other, deck, owed, plays, cap)
    return out


@cache
def value(me, other, deck, owed, plays, favor, cap) -> float:
    """The mover's winning chance under optimal play by both (a memoised search kernel)."""
    return max(action_values(me, other, deck, owed, plays, favor, cap).values())


def best_action(key: tuple) -> int:
    """The optimal action at a position key (the lowest action number among equal values)."""
    values = action_values(*key)
    return max(values, key=lambda a: (values[a], -a))


def game_value(config: ExplodingKittensConfig | dict | None = None) -> float:
    """The first player's winning chance under optimal play by both, hands open (any config with a fixed
    composition; with cards dealt, the average over every deal)."""
    if config is None or isinstance(config, dict):
        config = ExplodingKittensConfig(**(config or {}))
    if config.composition != "fixed":
        raise UserError("game_value needs a fixed composition")
    hand = _add((0,) * NUM_TYPES, DEFUSE, config.hand_defuses)
    deck = config.counts()
    return _dealt(hand, hand, deck, config.deal, config.max_plays_per_turn)


def _dealt(h0, h1, deck, left, cap) -> float:
    """Average of the value over the deal of `left` more cards to each player (player 0 first)."""
    if left == 0:
        return value(h0, h1, deck, 1, 0, False, cap)
    n = sum(deck)
    total = 0.0
    for t in range(NUM_TYPES):
        for u in range(NUM_TYPES):
            w = deck[t] * (deck[u] - (t == u))
            if w > 0:
                d = _add(_add(deck, t, -1), u, -1)
                total += w * _dealt(_add(h0, t, 1), _add(h1, u, 1), d, left - 1, cap)
    return total / (n * (n - 1))


__all__ = ["value", "action_values", "best_action", "game_value", "position", "ACTION_CARD"]
