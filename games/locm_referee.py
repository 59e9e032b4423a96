"""Matches recorded by the LOCM 1.2 competition referee, replayed in games/locm.py: the draft's offers
and picks and each deck's draw order are read from the players' inputs and outputs, every turn's
output is played (actions the referee cancels are not legal here either and are skipped), and at the
start of every turn the referee's input to the player to move is compared with our state.

A match is a line of the referee's JSON log as gym-locm's consistency dataset holds them
(`consistency-dataset-v1.2.txt`): `errors` holds each player's inputs (one per turn: 30 draft
turns, then one per battle turn), `outputs` each player's commands, `scores` the result.

Compared at each turn: both players' health, mana, deck size and next rune, the opponent's hand
size, and every card the player sees (hand and both boards: instance, card, where, lane, attack,
defense, keywords). Not compared: the players' card-draw counts and the health changes and card
draws printed for cards on the board (the referee shows them as played; our board does not keep them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from games.locm import (
    ATTACK,
    CARDS,
    DECK_SIZE,
    DRAFT_TURNS,
    PASS,
    PICK,
    SUMMON,
    USE,
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


def parse_input(text: str) -> tuple:
    """A player's input as (own facts, opponent's facts, opponent's hand size, cards), where facts
    are (health, mana, deck size, next rune) and cards a sorted list of (instance, card, location,
    lane, attack, defense, keywords)."""
    lines = text.strip("\n").split("\n")
    me = tuple(int(x) for x in lines[0].split()[:4])
    them = tuple(int(x) for x in lines[1].split()[:4])
    hand_size, actions = (int(x) for x in lines[2].split())
    at = 3 + actions
    count = int(lines[at])
    cards = []
    for line in lines[at + 1 : at + 1 + count]:
        f = line.split()
        number, instance, location = int(f[0]), int(f[1]), int(f[2])
        attack, defense, keywords, lane = int(f[5]), int(f[6]), f[7], int(f[11])
        cards.append((instance, number, location, lane, attack, defense, keywords))
    return me, them, hand_size, sorted(cards)


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


@dataclass
class RefereeReplay:
    turns: int  # battle turns whose inputs agreed
    difference: str | None  # the first disagreement, or None


def replay_match(match: dict, game: Locm | None = None) -> RefereeReplay:
    """Play `match` in our engine and compare every battle turn's input; the result must agree too."""
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
