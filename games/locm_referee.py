"""The LOCM 1.2 competition referee's text protocol: the input it writes to the player to move
(`referee_input`, the very text of every input of the recorded matches but for the space the log
drops at its end) and how it reads their reply (`battle_commands`, `draft_choice`); and matches
recorded by the referee, replayed in games/locm.py (`replay_match`): the draft's offers and picks and
each deck's draw order are read from the players' inputs and outputs, every turn's output is played
(actions the referee cancels are not legal here either and are skipped), and at the start of every
turn the referee's input to the player to move is compared with our state.

A match is a line of the referee's JSON log as gym-locm's consistency dataset holds them
(`consistency-dataset-v1.2.txt`): `errors` holds each player's inputs (one per turn: 30 draft
turns, then one per battle turn), `outputs` each player's commands, `scores` the result.

Compared at each turn by `replay_match`: both players' health, mana, deck size and next rune, the
opponent's hand size, and every card the player sees (hand and both boards: instance, card, where,
lane, attack, defense, keywords); the whole text is `referee_input`'s (tests/test_locm_referee.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from games.errors import UserError
from games.locm import (
    ATTACK,
    CARDS,
    DECK_SIZE,
    DRAFT_TURNS,
    FIRST_RUNE,
    PASS,
    PICK,
    START_HEALTH,
    SUMMON,
    USE,
    Card,
    Locm,
    LocmState,
    keyword_letters,
)


def read_match(line: str) -> dict:
    """One match of the referee's log (the JSON object, without what follows it on the line)."""
    return json.loads(line[: line.rfind("}") + 1])


def _turn_inputs(match: dict, p: int) -> list[str]:
    return [x for x in match["errors"][str(p)] if x]


def _outputs(match: dict, p: int) -> list[str]:
    return [x.strip() for x in match["outputs"][str(p)] if x]


@dataclass
class CardLine:
    """One card line of a referee input."""

    card: int
    instance: int
    location: int  # 0 the player's hand, 1 their board, -1 the opponent's board
    attack: int
    defense: int
    keywords: str
    effects: tuple[int, int, int]  # own health change, opponent's health change, card draw
    lane: int


@dataclass
class RefereeInput:
    """A referee input read whole: each player's (health, mana, deck size, next rune, draws), the
    opponent's hand size and last turn's actions (card, verb, instance, target), and the cards."""

    me: tuple[int, ...]
    them: tuple[int, ...]
    hand_size: int
    actions: list[tuple[int, str, int, int]]
    cards: list[CardLine]

    @property
    def is_draft(self) -> bool:
        """A draft turn's input: the player has no mana (every battle turn gives at least one)."""
        return self.me[1] == 0


def read_lines(lines) -> str | None:
    """One whole referee input from an iterator of text lines (each with its newline), or None at the
    end of the input: two player lines, the opponent's line and their actions, the card count and the
    cards."""

    def line() -> str:
        text = next(lines, None)
        if text is None:
            raise EOFError
        return text

    try:
        out = [line(), line()]
        out.append(line())
        actions = int(out[2].split()[1])
        out += [line() for _ in range(actions)]
        out.append(line())
        out += [line() for _ in range(int(out[-1].split()[0]))]
    except EOFError:
        return None
    except (IndexError, ValueError):
        raise UserError(f"not a LOCM referee input: {''.join(out)[:200]!r}") from None
    return "".join(out)


def parse_referee_input(text: str) -> RefereeInput:
    """`text` read whole; UserError in one line if it is not a referee input."""
    try:
        lines = text.strip("\n").split("\n")
        me = tuple(int(x) for x in lines[0].split()[:5])
        them = tuple(int(x) for x in lines[1].split()[:5])
        hand_size, count = (int(x) for x in lines[2].split()[:2])
        actions = []
        for line in lines[3 : 3 + count]:
            card, verb, origin, target = line.split()[:4]
            actions.append((int(card), verb, int(origin), int(target)))
        at = 3 + count
        cards = []
        for line in lines[at + 1 : at + 1 + int(lines[at])]:
            f = line.split()
            cards.append(
                CardLine(
                    int(f[0]),
                    int(f[1]),
                    int(f[2]),
                    int(f[5]),
                    int(f[6]),
                    f[7],
                    (int(f[8]), int(f[9]), int(f[10])),
                    int(f[11]),
                )
            )
        if len(me) < 4 or len(them) < 4 or not all(1 <= c.card < len(CARDS) for c in cards):
            raise ValueError
    except (IndexError, ValueError):
        raise UserError(f"not a LOCM referee input: {text[:200]!r}") from None
    return RefereeInput(me, them, hand_size, actions, cards)


def parse_input(text: str) -> tuple:
    """A player's input as (own facts, opponent's facts, opponent's hand size, cards), where facts
    are (health, mana, deck size, next rune) and cards a sorted list of (instance, card, location,
    lane, attack, defense, keywords)."""
    seen = parse_referee_input(text)
    cards = sorted((c.instance, c.card, c.location, c.lane, c.attack, c.defense, c.keywords) for c in seen.cards)
    return seen.me[:4], seen.them[:4], seen.hand_size, cards


def seen_by(state: LocmState, p: int) -> tuple:
    """Our state as player `p`'s input at the start of their turn, in parse_input's form."""
    o = 1 - p

    def facts(q):
        f = state.player_facts(q)
        return (f["health"], f["max_mana"], state.deck_sizes[q], f["rune"])

    cards = []
    for instance, number in zip(state._hands[p], state.hand(p)):
        c = CARDS[number]
        cards.append((instance, number, 0, -1, c.attack, c.defense, keyword_letters(c.keywords)))
    for q, location in ((p, 1), (o, -1)):
        for lane, creatures in enumerate(state.lanes(q)):
            for c in creatures:
                cards.append((c["instance"], c["card"], location, lane, c["attack"], c["defense"], c["keywords"]))
    return facts(p), facts(o), state.hand_sizes[o], sorted(cards)


def _card_line(
    c: Card, instance: int, location: int, attack: int, defense: int, keywords: str, lane: int, engaged: bool = False
) -> str:
    effects = (0, 0, 0) if engaged else (c.own_health, c.enemy_health, c.draw)
    fields = (c.number, instance, location, c.type, c.cost, attack, defense, keywords, *effects, lane)
    return " ".join(str(x) for x in fields) + " "


def referee_input(state: LocmState, offers: tuple[int, ...] | None = None) -> str:
    """The referee's input to the player to move, as it writes it (lines end in newlines, card lines
    in a space and a newline). In the draft: both players as (30 health, 0 mana, the draft turn as
    deck size (the opponent's one more for player 1), rune 25, 0 draws), no hand and no actions, then
    the three offered cards with instance -1. In the battle: both players (health, mana with the
    bonus, deck size, next rune, draws: the cards the player drew this turn, the opponent's next
    turn's), the opponent's hand size and their last turn's actions (card number and command), then
    the player's hand, their creatures and the opponent's, each board in the order it was summoned (a
    creature that has attacked, been attacked or been the target of an item without its card's health
    changes and card draw, as the referee's copy of it loses them). `offers` replaces the draft turn's
    offered cards (a bot made to pick a card chosen for it: the card three times)."""
    p = state.current_player
    o = 1 - p
    if state.phase == "draft":
        turn = len(state.picks(1))
        lines = [f"{START_HEALTH} 0 {turn} {FIRST_RUNE} 0", f"{START_HEALTH} 0 {turn + p} {FIRST_RUNE} 0", "0 0", "3"]
        lines += [
            _card_line(CARDS[n], -1, 0, CARDS[n].attack, CARDS[n].defense, keyword_letters(CARDS[n].keywords), -1)
            for n in (state.offers() if offers is None else offers)
        ]
        return "\n".join(lines) + "\n"
    lines = []
    for q, draws in ((p, state.cards_drawn(p)), (o, 1 + state.player_facts(o)["bonus_draw"])):
        f = state.player_facts(q)
        lines.append(f"{f['health']} {f['max_mana']} {state.deck_sizes[q]} {f['rune']} {draws}")
    actions = state.turn_actions(o)
    lines.append(f"{state.hand_sizes[o]} {len(actions)}")
    lines += [f"{card} {verb} {origin} {target}" for card, verb, origin, target in actions]
    cards = [
        _card_line(CARDS[n], i, 0, CARDS[n].attack, CARDS[n].defense, keyword_letters(CARDS[n].keywords), -1)
        for i, n in zip(state._hands[p], state.hand(p))
    ]
    for q, location in ((p, 1), (o, -1)):
        board = [(lane, c) for lane, creatures in enumerate(state.lanes(q)) for c in creatures]
        board.sort(key=lambda x: state.summon_order(x[1]["instance"]))
        cards += [
            _card_line(
                CARDS[c["card"]],
                c["instance"],
                location,
                c["attack"],
                c["defense"],
                c["keywords"],
                lane,
                state.engaged(c["instance"]),
            )
            for lane, c in board
        ]
    lines.append(str(len(cards)))
    return "\n".join(lines + cards) + "\n"


class InvalidCommand(ValueError):
    """A reply the referee cannot read (its InvalidActionHard): the player loses the game."""


_INT = re.compile(r"[+-]?[0-9]+")


def _ints(words: list[str], n: int, what: str) -> list[int]:
    if len(words) < n or not all(_INT.fullmatch(w) for w in words[:n]):
        raise InvalidCommand(f"invalid {what} arguments: expected {n} integers")
    return [int(w) for w in words[:n]]


def battle_commands(reply: str) -> list[str]:
    """A battle turn's reply read as the referee reads it: commands split at ';', blanks and PASS
    skipped, each SUMMON, ATTACK or USE with two integers (text after them is the player's comment),
    as 'VERB a b'. InvalidCommand for any other word or missing or malformed numbers."""
    out = []
    for part in reply.split(";"):
        part = part.strip()
        if not part:
            continue
        verb, _, rest = part.partition(" ")
        if verb == "PASS":
            continue
        if verb not in ("SUMMON", "ATTACK", "USE"):
            raise InvalidCommand(f"invalid action name {verb[:20]!r}: should be SUMMON, ATTACK, USE or PASS")
        a, b = _ints(rest.split(" ", 2), 2, verb)
        out.append(f"{verb} {a} {b}")
    return out


def draft_choice(reply: str, offered: tuple[int, ...]) -> int:
    """A draft turn's reply read as the referee reads it: the place 0..2 of the chosen offer (PICK n;
    CHOOSE card number; PASS takes the first). InvalidCommand otherwise."""
    words = reply.strip("\n").split(" ", 2)
    if words[0] == "PASS":
        return 0
    if words[0] in ("PICK", "CHOOSE"):
        (value,) = _ints(words[1:], 1, words[0])
        if words[0] == "PICK" and 0 <= value <= 2:
            return value
        if words[0] == "CHOOSE" and value in offered:
            return offered.index(value)
        raise InvalidCommand(f"invalid {words[0]} argument {value}: not one of the offered cards")
    raise InvalidCommand('invalid draft action: expected "PICK [0,1,2]" or "PASS"')


def picks_of(match: dict) -> list[list[int]]:
    """Each player's 30 picks as places 0..2 of the offers (`PASS` takes the first)."""
    picks = []
    for p in (0, 1):
        chosen = []
        for command in _outputs(match, p)[:DRAFT_TURNS]:
            words = command.split()
            chosen.append(int(words[1]) if words[0] == "PICK" else 0)
        picks.append(chosen)
    return picks


def _offer_order(text: str) -> list[int]:
    """The three offered cards in the order the input lists them."""
    lines = text.strip("\n").split("\n")
    at = 3 + int(lines[2].split()[1])
    return [int(line.split()[0]) for line in lines[at + 1 : at + 4]]


def shuffles_of(match: dict, picked: list[list[int]]) -> list[list[int]]:
    """Each deck's draw order as places in pick order: instance 2k + 1 + p is seat p's k-th card,
    read wherever an input shows it; cards never seen fill the remaining places in pick order."""
    card_of = {}
    for p in (0, 1):
        for text in _turn_inputs(match, p)[DRAFT_TURNS:]:
            for instance, number, *_ in parse_input(text)[3]:
                card_of[instance] = number
    out = []
    for p in (0, 1):
        unused = list(range(DECK_SIZE))
        order = [None] * DECK_SIZE
        for k in range(DECK_SIZE):
            number = card_of.get(2 * k + 1 + p)
            if number is not None:
                j = next(j for j in unused if picked[p][j] == number)
                unused.remove(j)
                order[k] = j
        order = [k if k is not None else unused.pop(0) for k in order]
        out.append(order)
    return out


def action_of(state: LocmState, command: str) -> int | None:
    """A referee command as our action number, or None if it names nothing that exists here."""
    words = command.split()
    if not words or words[0] not in ("SUMMON", "ATTACK", "USE") or len(words) < 3:
        return None
    p = state.current_player
    o = 1 - p
    try:
        origin, target = int(words[1]), int(words[2])
    except ValueError:
        return None
    hand = state._hands[p]
    lanes = [[c["instance"] for c in lane] for lane in state.lanes(p)]
    enemy = [[c["instance"] for c in lane] for lane in state.lanes(o)]
    if words[0] == "SUMMON":
        return SUMMON + 2 * hand.index(origin) + target if origin in hand and target in (0, 1) else None
    if words[0] == "USE":
        if origin not in hand:
            return None
        base = USE + 13 * hand.index(origin)
        if target == -1:
            return base
        for lane in (0, 1):
            if target in lanes[lane]:
                return base + 1 + 3 * lane + lanes[lane].index(target)
            if target in enemy[lane]:
                return base + 7 + 3 * lane + enemy[lane].index(target)
        return None
    for lane in (0, 1):
        if origin in lanes[lane]:
            c = 3 * lane + lanes[lane].index(origin)
            if target == -1:
                return ATTACK + 4 * c
            return ATTACK + 4 * c + 1 + enemy[lane].index(target) if target in enemy[lane] else None
    return None


def command_of(state: LocmState, action: int) -> str:
    """Battle action `action` (legal in `state`) as the referee's command, `action_of`'s inverse:
    SUMMON instance lane, USE instance target (a creature's instance or -1), ATTACK instance target."""
    p = state.current_player
    hand = state._hands[p]
    if SUMMON <= action < USE:
        h, lane = divmod(action - SUMMON, 2)
        return f"SUMMON {hand[h]} {lane}"
    if USE <= action < ATTACK:
        h, t = divmod(action - USE, 13)
        if t == 0:
            return f"USE {hand[h]} -1"
        side, (lane, i) = divmod(t - 1, 6)[0], divmod((t - 1) % 6, 3)
        return f"USE {hand[h]} {state.lanes(p if side == 0 else 1 - p)[lane][i]['instance']}"
    if ATTACK <= action < PICK:
        c, t = divmod(action - ATTACK, 4)
        lane, i = divmod(c, 3)
        attacker = state.lanes(p)[lane][i]["instance"]
        return f"ATTACK {attacker} {-1 if t == 0 else state.lanes(1 - p)[lane][t - 1]['instance']}"
    raise ValueError(f"action {action} is not a battle command")


@dataclass
class RefereeReplay:
    turns: int  # battle turns whose inputs agreed
    difference: str | None  # the first disagreement, or None


def replay_match(
    match: dict, game: Locm | None = None, on_turn: Callable[[LocmState, int, str], None] | None = None
) -> RefereeReplay:
    """Play `match` in our engine and compare every battle turn's input; the result must agree too.
    `on_turn(state, player, text)` is called at the start of every battle turn whose input agrees,
    with the player to move and the referee's input to them, before their output is played."""
    game = Locm() if game is None else game
    inputs = [_turn_inputs(match, p) for p in (0, 1)]
    offers = [_offer_order(text) for text in inputs[0][:DRAFT_TURNS]]
    places = picks_of(match)
    picked = [[offers[t][places[p][t]] for t in range(DRAFT_TURNS)] for p in (0, 1)]
    state = game.state_from_chance(offers, shuffles_of(match, picked))
    for t in range(DRAFT_TURNS):
        state.apply_action(PICK + places[0][t])
        state.apply_action(PICK + places[1][t])
    outputs = [_outputs(match, p)[DRAFT_TURNS:] for p in (0, 1)]
    turn = [0, 0]
    turns = 0
    while not state.is_terminal():
        p = state.current_player
        if turn[p] >= len(inputs[p]) - DRAFT_TURNS:
            return RefereeReplay(turns, f"the match's log ends before our game does (player {p} to move)")
        theirs = parse_input(inputs[p][DRAFT_TURNS + turn[p]])
        ours = seen_by(state, p)
        if ours != theirs:
            names = ("player's facts", "opponent's facts", "opponent's hand size", "cards")
            field = next(n for n, a, b in zip(names, ours, theirs) if a != b)
            return RefereeReplay(
                turns, f"player {p}'s turn {turn[p] + 1}: {field} differ: ours {ours}, theirs {theirs}"
            )
        turns += 1
        if on_turn is not None:
            on_turn(state, p, inputs[p][DRAFT_TURNS + turn[p]])
        output = outputs[p][turn[p]] if turn[p] < len(outputs[p]) else ""
        for command in output.split(";"):
            action = action_of(state, command)
            if action is not None and action in state.legal_actions():
                state.apply_action(action)
                if state.is_terminal():
                    break
        if not state.is_terminal():
            state.apply_action(PASS)
        turn[p] += 1
    winner = 0 if match["scores"]["0"] > match["scores"]["1"] else 1
    if state._winner != winner:
        return RefereeReplay(turns, f"the winner differs: ours {state._winner}, theirs {winner}")
    return RefereeReplay(turns, None)
