"""Legends of Code and Magic in words: the game as a viewer sees it and what a move did (for
`deckopt play` and `str(state)`). Reads the state; changes nothing. The rules are in games/locm.py
(games/RULES.md §9)."""

from __future__ import annotations

from games.locm import ATTACK, CARDS, CREATURE, PASS, PICK, SUMMON, USE, LocmState, action_name, keyword_letters

TYPE_WORDS = ("creature", "green item", "red item", "blue item")


def card_words(number: int) -> str:
    c = CARDS[number]
    kind = "" if c.type == CREATURE else f" {TYPE_WORDS[c.type]}"
    return f"{c.name} ({c.cost}: {c.attack}/{c.defense} {keyword_letters(c.keywords)}{kind})"


def _player_line(state: LocmState, p: int, name: str) -> str:
    f = state.player_facts(p)
    return (
        f"{name}: health {f['health']}, mana {f['mana']}/{f['max_mana']}, next rune {f['rune']}, "
        f"deck {state.deck_sizes[p]}, hand {state.hand_sizes[p]}, extra draws {f['bonus_draw']}"
    )


def _lanes(state: LocmState, p: int) -> list[str]:
    out = []
    for lane, creatures in zip(("left", "right"), state.lanes(p)):
        shown = [
            f"{CARDS[c['card']].name} {c['attack']}/{c['defense']} {c['keywords']}"
            + (" (ready)" if c["can_attack"] else "")
            for c in creatures
        ]
        out.append(f"  {lane} lane: " + (", ".join(shown) if shown else "empty"))
    return out


def _header(state: LocmState) -> str:
    if state.phase == "draft":
        return f"LOCM 1.2, draft turn {len(state.picks(1)) + 1} of 30"
    head = f"LOCM 1.2, battle turn {state._turn}"
    if state.is_terminal():
        head += f": player {state._winner} wins"
    return head


def _body(state: LocmState, players: tuple[int, ...], names: dict[int, str]) -> list[str]:
    lines = []
    if state.phase == "draft":
        lines.append("offered: " + "; ".join(f"{k}: {card_words(c)}" for k, c in enumerate(state.offers())))
        for p in players:
            lines.append(f"{names[p]} picked: " + ", ".join(CARDS[c].name for c in state.picks(p)))
        return lines
    for p in (0, 1):
        lines.append(_player_line(state, p, names.get(p, f"player {p}")))
        lines += _lanes(state, p)
    for p in players:
        lines.append(f"{names[p]} hand: " + "; ".join(f"{h}: {card_words(c)}" for h, c in enumerate(state.hand(p))))
    return lines


def render(state: LocmState) -> str:
    """Everything, both hands and both decks included."""
    names = {0: "player 0", 1: "player 1"}
    lines = [_header(state)] + _body(state, (0, 1), names)
    if state.phase == "battle":
        for p in (0, 1):
            lines.append(f"player {p} deck (next first): " + ", ".join(CARDS[c].name for c in state.deck(p)))
    if not state.is_terminal():
        lines.append(f"player {state.current_player} to move")
    return "\n".join(lines)


def render_view(state: LocmState, player: int) -> str:
    """The game as `player` sees it: their own picks and hand, both boards, public counts."""
    names = {player: f"you (player {player})", 1 - player: f"player {1 - player}"}
    lines = [_header(state)] + _body(state, (player,), names)
    if not state.is_terminal() and state.current_player != player:
        lines.append(f"player {state.current_player} to move")
    return "\n".join(lines)


def describe_move(state: LocmState, before: LocmState, action: int, viewer: int) -> str:
    """The move in words; another player's draft pick stays secret."""
    mover = before.current_player
    who = "you" if mover == viewer else f"player {mover}"
    if action >= PICK:
        if mover != viewer:
            return f"{who} picks a card"
        return f"{who} pick {CARDS[before.offers()[action - PICK]].name}"
    if action == PASS:
        return f"{who} pass" + ("" if mover == viewer else "es")
    if action < ATTACK:
        h = (action - SUMMON) // 2 if action < USE else (action - USE) // 13
        card = before.hand(mover)[h]
        return f"{who}: {action_name(action)} ({CARDS[card].name})"
    return f"{who}: {action_name(action)}"
