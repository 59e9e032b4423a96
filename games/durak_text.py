"""Durak in words: the position as a viewer sees it and what a move did (for `deckopt play` and
`str(state)`). Reads the state's fields; changes nothing. The rules are in games/durak.py (games/RULES.md §6).
Cards are written rank + suit letter (c clubs, d diamonds, h hearts, s spades): "10h", "Qs"."""

from __future__ import annotations

from games.durak import PASS, SUIT_NAMES, DurakState, card_name, card_strength, cards_of


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _cards(bits: int, trump: int) -> str:
    """A set of cards, weakest first (trumps last)."""
    return " ".join(card_name(c) for c in sorted(cards_of(bits), key=lambda c: card_strength(c, trump))) or "-"


def render(state: DurakState, viewer: int | None) -> str:
    """The position as `viewer` sees it (None: everything, every hand included)."""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    trump = state._trump
    n = state._n
    lines = []
    if state._trump_card >= 0:
        where = "under the deck" if state._deck else "drawn"
        trump_text = f"trump {SUIT_NAMES[trump]} (face-up card {card_name(state._trump_card)}, {where})"
    else:
        trump_text = f"trump {SUIT_NAMES[trump]} (fixed)"
    over = state._player < 0
    if over:
        if state._durak is None:
            verdict = "a draw"
            if state._num_in > 1:
                verdict += f" (the bout limit, {state.game.max_bouts}, was reached)"
        else:
            verdict = f"{name(state._durak)} {'are' if state._durak == viewer else 'is'} the durak"
        lines.append(f"game over after {state._bout} bout{_s(state._bout)}: {verdict}")
    else:
        lines.append(
            f"bout {state._bout}: {name(state._attacker)} attack{'' if state._attacker == viewer else 's'} "
            f"{name(state._defender)}"
        )
    lines.append(
        f"{trump_text}; deck {len(state._deck)} card{_s(len(state._deck))}; "
        f"discard pile {state._discard.bit_count()} card{_s(state._discard.bit_count())}"
    )
    if not over:
        pairs = []
        for i, a in enumerate(state._attacks):
            d = state._defences[i] if i < len(state._defences) else None
            pairs.append(f"{card_name(a)}/{card_name(d) if d is not None else '?'}")
        lines.append("table: " + ("  ".join(pairs) if pairs else "-"))
    width = max(len(name(p)) for p in range(n))
    for p in range(n):
        size = state._hands[p].bit_count()
        row = f"  {name(p):{width}}  {size:2d} card{_s(size)}"
        if not state._in[p]:
            row += "  out (safe)"
        elif not over:
            row += "  attacker" if p == state._attacker else "  defender" if p == state._defender else "  thrower"
            if p == state._player:
                row += ", to move"
        if viewer is None or p == viewer:
            row += ": " + _cards(state._hands[p], trump)
        elif state._known[p]:
            row += ", known: " + _cards(state._known[p], trump)
        if over and state._returns is not None:
            row += f"  return {state._returns[p]:+.3g}"
        lines.append(row)
    return "\n".join(lines)


def describe_move(state: DurakState, before: DurakState, action: int, viewer: int) -> str:
    """What `viewer` saw happen when `action` took `before` to `state`: the move, and, when it ended the
    bout, how (taken or defended, also when the engine passed or took for a player without a choice),
    who drew how many cards, who left, and the next bout or the end."""

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    def verb(p: int, word: str) -> str:
        return word if p == viewer else word + ("es" if word.endswith("s") else "s")

    mover = before._player
    d = before._defender
    if action == PASS:
        line = f"{name(mover)} {verb(mover, 'take' if mover == d else 'pass')}"
    elif mover == d:
        line = f"{name(mover)} {verb(mover, 'beat')} {card_name(before._attacks[-1])} with {card_name(action)}"
    elif not before._attacks:
        line = f"{name(mover)} {verb(mover, 'attack')} {name(d)} with {card_name(action)}"
    else:
        line = f"{name(mover)} {verb(mover, 'add')} {card_name(action)}"
    lines = [line]
    if state._last_end is before._last_end:
        return "\n".join(lines)
    bout, a, d, taken, table, drawn, left = state._last_end
    count = table.bit_count()
    if taken:
        why = f" ({'you cannot' if d == viewer else 'cannot'} beat it)"
        if action == PASS:
            lines, why = [], ""  # "X takes N cards" says it all
        lines.append(f"{name(d)} {verb(d, 'take')} {count} card{_s(count)}{why}: {_cards(table, state._trump)}")
    else:
        lines.append(f"the defence holds: {count} card{_s(count)} discarded")
    draws = [f"{name(p)} {k}" for p, k in enumerate(drawn) if k]
    if draws:
        lines.append("drawn: " + ", ".join(draws) + f"; deck {len(state._deck)} left")
    for p in left:
        lines.append(f"{name(p)} {'are' if p == viewer else 'is'} out with no cards left")
    if state._player >= 0:
        lines.append(
            f"== bout {state._bout}: {name(state._attacker)} attack{'' if state._attacker == viewer else 's'} "
            f"{name(state._defender)}"
        )
    return "\n".join(lines)
