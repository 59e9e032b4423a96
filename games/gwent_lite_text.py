"""Gwent Lite in words: the game as a viewer sees it and what a move did (for `deckopt play` and
`str(state)`). Reads the state's fields; changes nothing. The rules are in games/gwent_lite.py
(games/RULES.md §5)."""

from __future__ import annotations

from games.gwent_lite import GwentLiteState


def _header(state: GwentLiteState) -> str:
    w = state._wins
    head = f"Gwent Lite, round {state._round} (player {state._leader} led), round wins {w[0]}-{w[1]}"
    if state._returns is not None:
        r = state._returns
        head += ": draw" if r[0] == r[1] else f": player {0 if r[0] > 0 else 1} wins"
    return head


def _board(state: GwentLiteState, p: int) -> str:
    on_table = state._played[p][state._round_start[p] :]
    passed = ", passed" if state._passed[p] else ""
    return f"total {state._totals[p]}{passed}, played this round {on_table}"


def render(state: GwentLiteState) -> str:
    """Everything: both hands and both draw piles in draw order."""
    lines = [_header(state)]
    for p in (0, 1):
        lines.append(
            f"player {p}: {_board(state, p)}; hand {state.hand(p)}; draw pile (next first) {state.draw_pile(p)}"
        )
    if state._returns is None:
        lines.append(f"player {state._player} to move")
    return "\n".join(lines)


def render_view(state: GwentLiteState, player: int) -> str:
    """The game as `player` sees it: own hand (sorted, with counts) and own draw pile as a
    multiset; of the opponent only sizes and the public unplayed multiset."""
    o = 1 - player
    w = state._wins
    lines = [
        f"Gwent Lite, round {state._round} of at most {state.game.max_rounds} (player {state._leader} led); "
        f"round wins: you {w[player]}, player {o} {w[o]}"
    ]
    if state._returns is not None:
        r = state._returns
        lines[0] += ": a draw" if r[0] == r[1] else (": you win" if r[player] > 0 else f": player {o} wins")
    for p, name in ((player, f"you (player {player})"), (o, f"player {o}")):
        lines.append(
            f"{name + ':':16} {_board(state, p)}; hand {state._hand_sizes[p]} cards, "
            f"draw pile {len(state._piles[p])} cards"
        )
    lines.append(f"your hand ({state._hand_sizes[player]} cards): [{_with_counts(state.hand(player))}]")
    lines.append(f"your draw pile (order hidden): [{_with_counts(sorted(state._piles[player]))}]")
    lines.append(f"player {o}'s unplayed cards (hand + draw pile): [{_with_counts(state.unplayed(o))}]")
    if state._returns is None and state._player != player:
        lines.append(f"player {state._player} to move")
    return "\n".join(lines)


def describe_move(state: GwentLiteState, before: GwentLiteState, action: int, viewer: int) -> str:
    """The card played or the pass; at a round's end its result and the draws."""
    mover = before.current_player

    def name(p: int) -> str:
        return "you" if p == viewer else f"player {p}"

    def verb(p: int, word: str) -> str:
        return word if p == viewer else word + ("es" if word.endswith("ss") else "s")

    totals = list(before._totals)
    if action == 0:
        line = f"{name(mover)} {verb(mover, 'pass')} (total {totals[mover]})"
    else:
        totals[mover] += action
        line = f"{name(mover)} {verb(mover, 'play')} a {action} (total {totals[mover]})"
        if before._hand_sizes[mover] == 1:
            line += f", out of cards: {verb(mover, 'pass')}"
    lines = [line]
    if state._round == before._round and state._returns is None:
        return line
    t = totals
    if t[0] == t[1]:
        result = "a tie: both score a round win"
    else:
        winner = 0 if t[0] > t[1] else 1
        result = f"{name(winner)} {verb(winner, 'win')} the round"
    o = 1 - viewer
    w = state._wins
    lines.append(
        f"== round {before._round} over, {t[viewer]} to {t[o]}: {result}; "
        f"round wins: you {w[viewer]}, player {o} {w[o]}"
    )
    if state._returns is None:
        drew = [state._hand_sizes[p] - before._hand_sizes[p] + (p == mover and action != 0) for p in (0, 1)]
        lines.append(
            f"round {state._round}: {name(state._leader)} {verb(state._leader, 'lead')}; you drew {drew[viewer]} "
            f"card{'' if drew[viewer] == 1 else 's'}, player {o} drew {drew[o]}"
        )
        for p in (0, 1):
            if state._passed[p]:
                lines.append(f"{name(p)} {'have' if p == viewer else 'has'} no cards: {verb(p, 'pass')}")
    return "\n".join(lines)


def _with_counts(cards: list[int]) -> str:
    """Sorted powers with repeats counted: [1, 1, 4, 7, 7, 7] -> "1 x2, 4, 7 x3"."""
    out = []
    for power in sorted(set(cards)):
        n = cards.count(power)
        out.append(f"{power} x{n}" if n > 1 else str(power))
    return ", ".join(out)
