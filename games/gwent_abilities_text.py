"""Gwent Abilities in words: the game as a viewer sees it and what a move did (for `deckopt play` and
`str(state)`). Reads the state's fields; changes nothing. The rules are in games/gwent_abilities.py
(games/RULES.md §8)."""

from __future__ import annotations

from collections import Counter

from games.gwent_abilities import DECOY_CHOICE, MEDIC_CHOICE, GwentAbilitiesState
from games.gwent_abilities_cards import CARD_INDEX, CARDS, PLAIN, ROWS


def card_label(name: str) -> str:
    """`champion (melee 8)`, `blue_stripes (melee 3, bond)`, `geralt (melee 15, hero)`, `scorch (special)`."""
    c = CARDS[CARD_INDEX[name]]
    if c.special:
        return f"{name} (special{', ' + ROWS[c.row] if c.row >= 0 else ''})"
    tags = [f"{ROWS[c.row]} {c.power}"] + ([c.ability] if c.ability != PLAIN else []) + (["hero"] if c.hero else [])
    return f"{name} ({', '.join(tags)})"


def with_counts(names) -> str:
    """Names in pool order with repeats counted: "archer x2, champion"."""
    counts = Counter(names)
    out = [f"{n} x{counts[n]}" if counts[n] > 1 else n for n in sorted(counts, key=CARD_INDEX.__getitem__)]
    return ", ".join(out) or "-"


def _side(state: GwentAbilitiesState, p: int) -> list[str]:
    rows = state._rows[p]
    lines = []
    for r, row in enumerate(ROWS):
        units = [CARDS[k].name for k in range(len(CARDS)) for _ in range(state._boards[p][k]) if CARDS[k].row == r]
        shown = ", ".join(f"{n} {state.strength(p, n)}" for n in units) or "-"
        weather = " [weather]" if state.weather[r] else ""
        lines.append(f"  {row:6} {rows[r]:3}{weather}: {shown}")
    return lines


def _header(state: GwentAbilitiesState, player: int | None) -> str:
    w = state._wins
    head = f"Gwent Abilities, round {state._round} (player {state._leader} led), round wins {w[0]}-{w[1]}"
    if state._returns is not None:
        r = state._returns
        if player is None:
            head += ": draw" if r[0] == r[1] else f": player {0 if r[0] > 0 else 1} wins"
        else:
            head += ": a draw" if r[0] == r[1] else (": you win" if r[player] > 0 else f": player {1 - player} wins")
    return head


def _board(state: GwentAbilitiesState, p: int, name: str) -> list[str]:
    passed = ", passed" if state._passed[p] else ""
    return [
        f"{name}: total {sum(state._rows[p])}{passed}; hand {state._hand_sizes[p]} cards, "
        f"draw pile {len(state._piles[p])}; discard pile: {with_counts(state.discard_piles[p])}"
    ] + _side(state, p)


def _to_move(state: GwentAbilitiesState) -> list[str]:
    if state._returns is not None:
        return []
    owes = {MEDIC_CHOICE: ": a medic's revival", DECOY_CHOICE: ": a decoy's target"}.get(state._pending, "")
    return [f"player {state._player} to move{owes}"]


def render(state: GwentAbilitiesState) -> str:
    """Everything: both hands and both draw piles in draw order."""
    lines = [_header(state, None)]
    for p in (0, 1):
        lines += _board(state, p, f"player {p}")
        lines.append(f"  hand: {with_counts(state.hand(p))}; draw pile (next first): {state.draw_pile(p)}")
    return "\n".join(lines + _to_move(state))


def render_view(state: GwentAbilitiesState, player: int) -> str:
    """The game as `player` sees it: own hand and draw pile (as a multiset), the board, the discard
    piles; of the opponent's hand only its size, known cards and the unplayed multiset."""
    o = 1 - player
    lines = [_header(state, player)]
    lines += _board(state, o, f"player {o}")
    lines += _board(state, player, f"you (player {player})")
    counts = Counter(state.hand(player))
    shown = [card_label(n) + (f" x{counts[n]}" if counts[n] > 1 else "") for n in counts]
    lines.append(f"your hand ({state._hand_sizes[player]} cards): {', '.join(shown) or '-'}")
    lines.append(f"your draw pile (order hidden): {with_counts(state.draw_pile(player))}")
    lines.append(f"player {o}'s unplayed cards (hand + draw pile): {with_counts(state.unplayed(o))}")
    if state.known_in_hand[o]:
        lines.append(f"player {o} is known to hold: {with_counts(state.known_in_hand[o])}")
    return "\n".join(lines + _to_move(state))


def describe_move(state: GwentAbilitiesState, before: GwentAbilitiesState, action: int, viewer: int) -> str:
    """The card played (and what its ability did) or the pass; at a round's end its result."""
    mover = before.current_player

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    def verb(p: int, word: str) -> str:
        return word if p == viewer else word + ("es" if word.endswith("ss") else "s")

    move = before.action_name(action)
    if action == 0:
        line = f"{name(mover)} {verb(mover, 'pass')}"
    else:
        word, _, card = move.partition(" ")
        if word == "take":
            card = card.removeprefix("back ")
            line = f"{name(mover)} {verb(mover, 'take')} back {card}"
        else:
            line = f"{name(mover)} {verb(mover, word)} {card_label(card)}"
        drew = state._hand_sizes[mover] - before._hand_sizes[mover] + (word == "play") - (word == "take")
        if state._round == before._round and drew > 0:
            line += f", {verb(mover, 'draw')} {drew}"
    if state._round == before._round and state._returns is None:
        totals = state.round_totals
        return f"{line} (totals: you {totals[viewer]}, player {1 - viewer} {totals[1 - viewer]})"
    t = state._last_totals
    if t[0] == t[1]:
        result = "a tie: both score a round win"
    else:
        winner = 0 if t[0] > t[1] else 1
        result = f"{name(winner)} {verb(winner, 'win')} the round"
    o = 1 - viewer
    w = state._wins
    wins = f"round wins: you {w[viewer]}, player {o} {w[o]}"
    lines = [line, f"== round {before._round} over, {t[viewer]} to {t[o]}: {result}; {wins}"]
    if state._returns is None:
        lines.append(f"round {state._round}: {name(state._leader)} {verb(state._leader, 'lead')}")
    return "\n".join(lines)
