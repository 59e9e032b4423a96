"""Words for Exploding Kittens (games/exploding_kittens.py): the position as a player sees it, and moves."""

from __future__ import annotations

from games.base import TERMINAL
from games.exploding_kittens import CARD_NAMES, CATS, GIVE, NUM_TYPES


def cards_text(counts) -> str:
    """Counts per card type as words, e.g. "2 skip, 1 attack"; "nothing" when empty."""
    parts = [f"{n} {CARD_NAMES[t]}" for t, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def render(state, viewer: int | None) -> str:
    """The position as `viewer` sees it (None: everything, deck order included)."""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    cfg = state.game.config
    kitten = "" if state.is_terminal() else " (1 Exploding Kitten among them)"
    lines = [f"deck: {state.deck_size} cards{kitten}"]
    if viewer is None:
        lines.append(f"deck contents, top first: {', '.join(_card(c) for c in reversed(state._deck))}")
    elif cfg.open_hands:
        lines.append(f"deck holds: {cards_text(state.deck_counts())} and the Kitten")
    else:
        o = 1 - viewer
        total = state._total()
        unseen = [total[t] - state._hands[viewer][t] - state._discard[t] - state._known[o][t] for t in range(NUM_TYPES)]
        lines.append(f"unseen (deck and the opponent's unknown cards): {cards_text(unseen)}")
    lines.append(f"discard pile: {cards_text(state._discard)}")
    for p in range(2):
        size = sum(state._hands[p])
        if viewer is None or p == viewer or cfg.open_hands:
            lines.append(f"{name(p)}: {_cards(size)}: {cards_text(state._hands[p])}")
        else:
            known = state._known[p]
            extra = f" (known: {cards_text(known)})" if any(known) else ""
            lines.append(f"{name(p)}: {_cards(size)}{extra}")
    if state.is_terminal():
        lines.append(f"game over: {name(1 - state._winner)} exploded, {name(state._winner)} won")
        return "\n".join(lines)
    owed = state._owed
    turn = f"{name(state._turn)} to play" + (f", {owed} turns owed" if owed > 1 else "")
    if cfg.max_plays_per_turn:
        turn += f", {state._plays} of {cfg.max_plays_per_turn} plays used"
    lines.append(turn)
    if state._favor:
        lines.append(f"{name(state._player)} must give {name(state._turn)} a card (Favor)")
    return "\n".join(lines)


def a_card(t: int) -> str:
    """ "a skip", "an attack"."""
    name = CARD_NAMES[t]
    return ("an " if name[0] in "aeiou" else "a ") + name


def _card(c: int) -> str:
    return CARD_NAMES[c] if c < NUM_TYPES else "KITTEN"


def describe_move(state, before, action: int, viewer: int) -> str:
    """What `viewer` saw: the move and what came of it (drawn card if theirs, Kitten, steal, Favor)."""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    mover = before._player
    new = state._log[len(before._log) :]
    lines = []
    for q, event, card in new:
        if event == "draw":
            seen = q == viewer or state.game.config.open_hands
            lines.append(f"{name(q)} drew {a_card(card) if seen else 'a card'}")
        elif event == "defuse":
            lines.append(f"{name(q)} drew the Exploding Kitten, defused it and put it back at a random place")
        elif event == "explode":
            lines.append(f"{name(q)} drew the Exploding Kitten and exploded")
        elif event == "play":
            lines.append(f"{name(q)} played {'a pair of ' if card in CATS else ''}{CARD_NAMES[card]}")
        elif event == "give":
            lines.append(f"{name(q)} gave {name(1 - q)} {a_card(card)} (Favor)")
        elif event == "steal":
            lines.append(f"{name(q)} took {a_card(card)} from {name(1 - q)}'s hand")
    if not lines and action >= GIVE:
        lines.append(f"{name(mover)} gave a card")
    if not state.is_terminal() and state._player != TERMINAL and state._turn != before._turn:
        lines.append(f"now {name(state._turn)} to play" + (" (2 turns)" if state._owed == 2 else ""))
    return "\n".join(lines)
