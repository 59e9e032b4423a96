"""A LOCM state in plain numbers and lists (its record), and the replay of a recorded game through
games/locm.py, action by action, against the states recorded with it. Another engine that writes
games in this form (scripts/locm_gym_driver.py writes gym-locm's) is checked against ours by
`replay`: the same chance, the same actions, and after each action the same state and the same
legal actions.

A state's record: `[phase, player to move (-1 at the end), turn, winner (None before the end),
player 0, player 1, legal actions (sorted)]`. A player's record in the draft is `[picks]`; in the
battle `[health, mana left, mana, bonus mana, next rune, pending card draws, hand, deck, lanes]`,
where the hand and the deck (next card first) are `[instance, card]` pairs and each lane a list of
creatures `[instance, card, attack, defense, keywords as letters, may attack now]`.

A game's record: `{"offers": 30 offers, "shuffles": each seat's deck order as places in pick
order, "steps": [[action, state record after it], ...]}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.locm import FIELDS, LANE_SPAN, Locm, LocmState, keyword_letters


def player_record(state: LocmState, p: int) -> list:
    if state.phase == "draft":
        return [state.picks(p)]
    hand = [[i, state._card_of[i]] for i in state._hands[p]]
    deck = [[i, state._card_of[i]] for i in reversed(state._decks[p])]
    lanes = []
    board = state._board
    for slot in (2 * p, 2 * p + 1):
        creatures = []
        for i in range(state._lane_sizes[slot]):
            at = slot * LANE_SPAN + i * FIELDS
            instance, card, attack, defense, keywords = board[at : at + 5]
            creatures.append([instance, card, attack, defense, keyword_letters(keywords), bool(state._able(at))])
        lanes.append(creatures)
    f = state.player_facts(p)
    return [
        f["health"],
        f["mana"],
        state._base_mana[p],
        state._bonus_mana[p],
        f["rune"],
        f["bonus_draw"],
        hand,
        deck,
        lanes,
    ]


def state_record(state: LocmState) -> list:
    turn = len(state.picks(1)) + 1 if state.phase == "draft" else state._turn
    return [
        state.phase,
        state.current_player,
        turn,
        state._winner,
        player_record(state, 0),
        player_record(state, 1),
        state.legal_actions(),
    ]


FIELD_NAMES = ("phase", "player to move", "turn", "winner", "player 0", "player 1", "legal actions")
PLAYER_FIELDS = ("health", "mana left", "mana", "bonus mana", "next rune", "pending draws", "hand", "deck", "lanes")


def first_difference(ours: list, theirs: list) -> str | None:
    """The first field in which two state records differ, in words, or None."""
    for name, a, b in zip(FIELD_NAMES, ours, theirs):
        if a == b:
            continue
        if name.startswith("player ") and name != "player to move" and len(a) == len(b) == len(PLAYER_FIELDS):
            for field, x, y in zip(PLAYER_FIELDS, a, b):
                if x != y:
                    return f"{name} {field}: ours {x}, theirs {y}"
        return f"{name}: ours {a}, theirs {b}"
    return None


@dataclass
class Replay:
    steps: int  # actions replayed with every state equal
    total: int  # actions in the record
    difference: str | None  # the first disagreement, or None

    @property
    def agrees(self) -> bool:
        return self.difference is None and self.steps == self.total


def replay(record: dict, game: Locm | None = None) -> Replay:
    """Play `record`'s actions from its chance in our engine and compare every state with its."""
    game = Locm() if game is None else game
    state = game.state_from_chance(record["offers"], record["shuffles"])
    steps = record["steps"]
    for n, (action, theirs) in enumerate(steps):
        if action not in state.legal_actions():
            return Replay(n, len(steps), f"action {n}: {action} is not legal in our engine")
        state.apply_action(action)
        difference = first_difference(state_record(state), theirs)
        if difference is not None:
            return Replay(n, len(steps), f"after action {n} ({game.action_name(action)}): {difference}")
    if not state.is_terminal():
        return Replay(len(steps), len(steps), "the record stops before the end of the game")
    return Replay(len(steps), len(steps), None)
