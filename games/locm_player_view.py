"""A LOCM 1.2 game as one player sees it through the competition referee's inputs
(games/locm_referee.py's format), rebuilt as a `LocmState` the player's agent can act on.

    view = PlayerView()
    state = view.read(text, rng)        # each turn's input, in order, from the first draft turn
    view.note_pick(place)               # after a draft turn: the place 0..2 of the card taken

`read` keeps what earlier inputs showed: the draft's offers (both players are offered the same three
cards), the player's own picks (told by `note_pick`: the input never shows them), the card of every
instance the player has seen, the cards the opponent has summoned or used (their actions of each
turn). From these the battle's state is rebuilt whole: health, mana (the bonus mana is the maximum
less one a turn), deck sizes, runes, card draws, the opponent's last turn's actions, the player's hand,
both boards in summoning order with every creature's attack, defense and keywords, which opponent
creatures summoned or attacked last turn, which creatures have been engaged (the referee shows them
without their card's health changes and card draw), and the mana the opponent has left.

What the player does not see is determinised from `rng`: the opponent's picks (one card of each
draft turn's offers, every card they played among them), which of their unplayed cards are in their
hand and which in their deck, and the order of both decks (the player's own deck holds its picks
less every card it has seen). In the draft the offers of the turns to come are unknown: the state
holds the current offer in their place, and the opponent's picks of the turns so far are
determinised alike. The opponent's card draws at the start of their latest turn are those their
previous input announced.

`referee_input` of the rebuilt state is the input it was read from (tests/test_locm_bot.py).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from games.errors import UserError
from games.locm import (
    ATK,
    ATTACKED,
    BATTLE,
    CARD,
    CARDS,
    DECK_SIZE,
    DEF,
    DRAFT_TURNS,
    FIELDS,
    INSTANCE,
    KW,
    LANE_LIMIT,
    LANE_SPAN,
    MAX_MANA,
    OFFERED,
    READY,
    Locm,
    LocmState,
    keyword_bits,
)
from games.locm_referee import RefereeInput, parse_referee_input


def own_instances(p: int) -> list[int]:
    """Player `p`'s instance numbers in draw order."""
    return [2 * k + 1 + p for k in range(DECK_SIZE)]


def owner(instance: int) -> int:
    """The player whose card the instance is (player 0's are odd, player 1's even)."""
    return (instance - 1) % 2


class PlayerView:
    """One player's game as their inputs show it (see the module's text)."""

    def __init__(self, game: Locm | None = None):
        self.game = Locm() if game is None else game
        self.player: int | None = None  # the seat, known from the first draft turn
        self.offers: list[tuple[int, ...]] = []
        self.picks: list[int] = []
        self.card_of: dict[int, int] = {}  # every instance seen, both players'
        self.played: list[list[int]] = [[], []]  # the cards each player summoned or used
        self.battle_turns = 0
        self._hand: list[int] = []  # the player's hand at their latest turn
        self._opponent_draws = 0  # the opponent's draws their latest input announced

    def read(self, text: str, rng: np.random.Generator) -> LocmState:
        """The state of the input `text`, the player to move (UserError for an input out of order)."""
        seen = parse_referee_input(text)
        if seen.is_draft:
            return self._draft_state(seen, rng)
        if len(self.offers) != DRAFT_TURNS or len(self.picks) != DRAFT_TURNS:
            raise UserError("a battle input before the 30 turns of the draft were read and picked")
        return self._battle_state(seen, rng)

    def note_pick(self, place: int) -> None:
        """The player took the offer at `place` (0..2) on the draft turn last read."""
        self.picks.append(self.offers[len(self.picks)][place])

    def _draft_state(self, seen: RefereeInput, rng: np.random.Generator) -> LocmState:
        turn = seen.me[2]
        if turn != len(self.offers) or turn != len(self.picks) or len(seen.cards) != OFFERED:
            raise UserError(f"draft input of turn {turn + 1} out of order (after {len(self.offers)} draft turns)")
        self.player = seen.them[2] - turn
        offer = tuple(c.card for c in seen.cards)
        self.offers.append(offer)
        offers = self.offers + [offer] * (DRAFT_TURNS - len(self.offers))
        state = self.game.state_from_chance(offers, (tuple(range(DECK_SIZE)),) * 2)
        p, o = self.player, 1 - self.player
        state._picks[p] = list(self.picks)
        state._picks[o] = [self.offers[t][int(rng.integers(OFFERED))] for t in range(turn + p)]
        state._player = p
        return state

    def _battle_state(self, seen: RefereeInput, rng: np.random.Generator) -> LocmState:
        p, o = self.player, 1 - self.player
        self.battle_turns += 1
        hand = [c.instance for c in seen.cards if c.location == 0]
        for c in seen.cards:
            self.card_of[c.instance] = c.card
        self.played[p] += [self.card_of[i] for i in self._hand if i not in hand]
        self._hand = hand
        last_turn = {}  # the opponent's creatures' deeds of their last turn
        for card, verb, instance, _ in seen.actions:
            self.card_of[instance] = card
            if verb in ("SUMMON", "USE"):
                self.played[o].append(card)
            last_turn.setdefault(instance, set()).add(verb)

        s = LocmState.__new__(LocmState)
        s.game = self.game
        s._offers = tuple(self.offers)
        s._shuffles = (tuple(range(DECK_SIZE)),) * 2
        s._phase = BATTLE
        s._player = p
        s._turn = self.battle_turns
        s._winner = None
        s._picks = [[], []]
        s._picks[p] = list(self.picks)
        s._picks[o] = list(self.picks)  # a stand-in: resample_hidden draws the opponent's
        s._played = [list(self.played[0]), list(self.played[1])]
        # each player's turns so far: the base mana, the rest of the maximum is the bonus
        turns = [0, 0]
        turns[p] = self.battle_turns
        turns[o] = self.battle_turns - 1 + p
        facts = {p: seen.me, o: seen.them}
        s._health = [facts[q][0] for q in (0, 1)]
        s._base_mana = [min(turns[q], MAX_MANA) for q in (0, 1)]
        s._bonus_mana = [facts[q][1] - s._base_mana[q] for q in (0, 1)]
        s._mana = [0, 0]
        s._mana[p] = seen.me[1]
        spent = sum(CARDS[card].cost for card, verb, _, _ in seen.actions if verb in ("SUMMON", "USE"))
        s._mana[o] = seen.them[1] - spent if turns[o] else 0
        s._rune = [facts[q][3] for q in (0, 1)]
        draws = {q: facts[q][4] if len(facts[q]) > 4 else 1 for q in (0, 1)}
        s._bonus_draw = [0, 0]
        s._bonus_draw[o] = draws[o] - 1
        s._drawn = [0, 0]
        s._drawn[p] = draws[p]
        s._drawn[o] = self._opponent_draws if turns[o] else 0
        self._opponent_draws = draws[o]
        s._turn_log = [[], []]
        s._turn_log[o] = list(seen.actions)
        s._hands = [[], []]
        s._hands[p] = hand
        # the board: each lane in the order its creatures were summoned (the input's order)
        s._board = [0] * (4 * LANE_SPAN)
        s._lane_sizes = [0, 0, 0, 0]
        s._summoned = []
        s._engaged = 0
        for c in seen.cards:
            if c.location == 0:
                continue
            q = p if c.location == 1 else o
            slot = 2 * q + c.lane
            if s._lane_sizes[slot] >= LANE_LIMIT:
                raise UserError(f"more than {LANE_LIMIT} creatures in a lane of the input")
            at = slot * LANE_SPAN + s._lane_sizes[slot] * FIELDS
            ready, attacked = 1, 0
            if q == o:
                ready = int("SUMMON" not in last_turn.get(c.instance, ()))
                attacked = int("ATTACK" in last_turn.get(c.instance, ()))
            s._board[at : at + FIELDS] = [0] * FIELDS
            s._board[at + INSTANCE] = c.instance
            s._board[at + CARD] = c.card
            s._board[at + ATK] = c.attack
            s._board[at + DEF] = c.defense
            s._board[at + KW] = keyword_bits(c.keywords)
            s._board[at + READY] = ready
            s._board[at + ATTACKED] = attacked
            s._lane_sizes[slot] += 1
            s._summoned.append(c.instance)
            card = CARDS[c.card]
            if c.effects == (0, 0, 0) and (card.own_health, card.enemy_health, card.draw) != (0, 0, 0):
                s._engaged |= 1 << c.instance
        # the decks: the instances not drawn yet, the next card at the end
        deck_sizes = {p: seen.me[2], o: seen.them[2]}
        s._decks = [own_instances(q)[DECK_SIZE - deck_sizes[q] :][::-1] for q in (0, 1)]
        gone = {i for i in self.card_of if owner(i) == o}  # the opponent's instances played
        drawn = [i for i in own_instances(o) if i not in s._decks[o] and i not in gone]
        s._hands[o] = drawn[-seen.hand_size :] if seen.hand_size else []
        # the cards: those seen; the player's unseen ones are their picks less every card seen
        card_of = [0] * (2 * DECK_SIZE + 1)
        for instance, card in self.card_of.items():
            card_of[instance] = card
        unseen = Counter(self.picks) - Counter(c for i, c in self.card_of.items() if owner(i) == p)
        unseen_instances = [i for i in s._decks[p] if i not in self.card_of]
        for instance, card in zip(unseen_instances, sorted(unseen.elements()), strict=False):
            card_of[instance] = card
        s._card_of = tuple(card_of)
        return s.resample_hidden(p, rng)
