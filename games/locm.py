"""Legends of Code and Magic 1.2: a 30-turn draft, then a battle on two lanes (games/RULES.md §9).
Its words (`str`, `view`, `describe_move`) are in games/locm_text.py.

A flat-array engine: a state is a few lists of whole numbers, so `clone` copies lists and never a
graph of card objects. Cards are numbers 1..160 of the card list (`CARDS`, read from
games/data/locm_cardlist.txt); a card in a game is an instance number 1..60 (player 0's cards are
the odd numbers in draw order, player 1's the even ones, as the referee and gym-locm number them),
and `_card_of[instance]` is its card. Hands and decks are lists of instance numbers (a deck's next
card at the END). The board is one flat list of 4 lanes (player 0 left, player 0 right, player 1
left, player 1 right) x 3 places x `FIELDS` numbers; `_lane_sizes` says how many places are taken.

Actions (§9.7): 0..144 the battle's, in gym-locm's layout (pass, summon, use, attack); 145..147 the
draft's picks.

Observation (§9.9) of `player`, float32 in [0, 1], length 330:
    [0, 17)      the phase (draft, battle), the player's picks / 30, then for the player and the
                 opponent: health / 60 (0 at or below 0), mana left / 13, mana / 13, deck size / 30,
                 next rune / 25, pending card draws / 8, hand size / 8
    [17, 65)     the three cards offered (draft only), 16 features each (`card_features`)
    [65, 82)     the player's picks: count by mana cost 0..12, then by type, / 30
    [82, 210)    the player's hand, 8 places of 16 card features (zeros past the hand)
    [210, 270)   the player's creatures, left lane then right, 3 places of 10 features each:
                 present, attack / 12, defense / 12, the six keywords, may attack now
    [270, 330)   the opponent's creatures, alike
(values past the bounds are clipped).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.base import TERMINAL, Game, GameFacts, RareRule, State, as_generator, is_whole
from games.config import need, setting
from games.deckfile import deck_settings

CARD_LIST = Path(__file__).parent / "data" / "locm_cardlist.txt"
NUM_CARDS = 160
DECK_SIZE = 30
DRAFT_TURNS = 30
OFFERED = 3
DRAFT_POOL = 60
HAND_LIMIT = 8
LANE_LIMIT = 3
MAX_MANA = 12
START_HEALTH = 30
FIRST_RUNE = 25
RUNE_STEP = 5
LAST_TURN_WITH_DECK = 50

CREATURE, GREEN, RED, BLUE = 0, 1, 2, 3
TYPE_NAMES = {"creature": CREATURE, "itemGreen": GREEN, "itemRed": RED, "itemBlue": BLUE}
KEYWORDS = "BCDGLW"
BREAKTHROUGH, CHARGE, DRAIN, GUARD, LETHAL, WARD = (1 << i for i in range(6))

DRAFT, BATTLE, ENDED = 0, 1, 2

# actions (gym-locm's layout for the battle)
PASS = 0
SUMMON = 1  # + 2 * hand place + lane
USE = 17  # + 13 * hand place + target
ATTACK = 121  # + 4 * creature + target
PICK = 145  # + offered place
NUM_ACTIONS = PICK + OFFERED

# the numbers of a creature on the board, FIELDS per place
INSTANCE, CARD, ATK, DEF, KW, READY, ATTACKED, DEAD = range(8)
FIELDS = 8
LANE_SPAN = LANE_LIMIT * FIELDS

CARD_FEATURES = 16
CREATURE_FEATURES = 10
OBSERVATION_SIZE = 17 + OFFERED * CARD_FEATURES + 17 + HAND_LIMIT * CARD_FEATURES + 4 * LANE_LIMIT * CREATURE_FEATURES


def action_feature_index() -> np.ndarray:
    """`Locm.action_feature_index`: each action described by the observation's entries for what it acts
    on, so its features follow the card, not the place. A row is [pass, summon, use, attack, pick]
    (one of them 1), the lane of a summon (2), the card played or picked (CARD_FEATURES: the hand
    place's or the offer's), the attacking creature (CREATURE_FEATURES), then the target: none, own
    creature, the opponent's creature, the opponent (4) and the targeted creature (CREATURE_FEATURES)."""
    one, zero = OBSERVATION_SIZE, OBSERVATION_SIZE + 1
    offers, hand = 17, 17 + OFFERED * CARD_FEATURES + 17
    board = hand + HAND_LIMIT * CARD_FEATURES  # own lanes 0 and 1, then the opponent's, LANE_LIMIT places each

    def creature(side: int, lane: int, place: int) -> list[int]:
        at = board + ((2 * side + lane) * LANE_LIMIT + place) * CREATURE_FEATURES
        return list(range(at, at + CREATURE_FEATURES))

    def card(at: int) -> list[int]:
        return list(range(at, at + CARD_FEATURES))

    no_card, no_creature = [zero] * CARD_FEATURES, [zero] * CREATURE_FEATURES
    rows = []
    for action in range(NUM_ACTIONS):
        kind, lane, played, attacker = 0, [zero, zero], no_card, no_creature
        target, targeted = [zero] * 4, no_creature
        if SUMMON <= action < USE:
            h, side = divmod(action - SUMMON, 2)
            kind, played, lane[side] = 1, card(hand + h * CARD_FEATURES), one
        elif USE <= action < ATTACK:
            h, t = divmod(action - USE, 13)
            kind, played = 2, card(hand + h * CARD_FEATURES)
            if t == 0:
                target[0] = one
            else:
                side, (at_lane, place) = int(t > 6), divmod((t - 1) % 6, LANE_LIMIT)
                target[1 + side], targeted = one, creature(side, at_lane, place)
        elif ATTACK <= action < PICK:
            c, t = divmod(action - ATTACK, 4)
            at_lane, place = divmod(c, LANE_LIMIT)
            kind, attacker = 3, creature(0, at_lane, place)
            if t == 0:
                target[3] = one
            else:
                target[2], targeted = one, creature(1, at_lane, t - 1)
        elif action >= PICK:
            kind, played = 4, card(offers + (action - PICK) * CARD_FEATURES)
        kinds = [zero] * 5
        kinds[kind] = one
        rows.append(kinds + lane + played + attacker + target + targeted)
    return np.array(rows, dtype=np.int64)


@dataclass(frozen=True)
class Card:
    number: int
    name: str
    type: int
    cost: int
    attack: int
    defense: int
    keywords: int  # bits B C D G L W
    own_health: int  # health change for its player
    enemy_health: int  # health change for the opponent
    draw: int  # extra cards its player draws at the start of their next turn
    text: str


def keyword_bits(letters: str) -> int:
    return sum(1 << i for i, k in enumerate(KEYWORDS) if k in letters)


def keyword_letters(bits: int) -> str:
    return "".join(k if bits >> i & 1 else "-" for i, k in enumerate(KEYWORDS))


def read_cards(path: Path = CARD_LIST) -> tuple[Card | None, ...]:
    """The card list, indexed by card number (index 0 is None)."""
    cards: list[Card | None] = [None]
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        number, name, kind, cost, attack, defense, keywords, own, enemy, draw, text = (
            x.strip() for x in line.split(";")
        )
        card = Card(
            int(number),
            name,
            TYPE_NAMES[kind],
            int(cost),
            int(attack),
            int(defense),
            keyword_bits(keywords),
            int(own),
            int(enemy),
            int(draw),
            text,
        )
        if card.number != len(cards):
            raise ValueError(f"{path}: card {card.number} out of order")
        cards.append(card)
    if len(cards) != NUM_CARDS + 1:
        raise ValueError(f"{path}: {len(cards) - 1} cards, not {NUM_CARDS}")
    return tuple(cards)


CARDS = read_cards()
# the card list as columns, for the engine's hot paths
_TYPE = tuple(c.type if c else 0 for c in CARDS)
_COST = tuple(c.cost if c else 0 for c in CARDS)
_ATK = tuple(c.attack if c else 0 for c in CARDS)
_DEF = tuple(c.defense if c else 0 for c in CARDS)
_KW = tuple(c.keywords if c else 0 for c in CARDS)
_OWN_HP = tuple(c.own_health if c else 0 for c in CARDS)
_ENEMY_HP = tuple(c.enemy_health if c else 0 for c in CARDS)
_DRAW = tuple(c.draw if c else 0 for c in CARDS)


def _clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def card_features(card: Card) -> tuple[float, ...]:
    """16 numbers in [0, 1]: the type (one-hot), cost / 12, (attack + 12) / 24, (defense + 12) / 24,
    the health changes, each (x + 12) / 24, the card draw / 2, the six keywords (an item's changes
    may be negative)."""
    kind = [0.0] * 4
    kind[card.type] = 1.0
    signed = [card.attack, card.defense, card.own_health, card.enemy_health]
    scaled = [card.cost / 12] + [(x + 12) / 24 for x in signed] + [card.draw / 2]
    return tuple(kind + [_clip(x) for x in scaled] + [float(card.keywords >> i & 1) for i in range(6)])


_CARD_FEATURES = (None,) + tuple(card_features(c) for c in CARDS[1:])
_NO_CARD = (0.0,) * CARD_FEATURES
_NO_CREATURE = [0.0] * CREATURE_FEATURES


def _card_numbers(value, what: str) -> list[int]:
    need(isinstance(value, (list, tuple)), f"locm: {what} must be a list of card numbers")
    ok = all(is_whole(x) and 1 <= x <= NUM_CARDS for x in value)
    need(ok, f"locm: {what} holds something other than a card number 1..{NUM_CARDS}: {list(value)!r}")
    return [int(x) for x in value]


@dataclass(frozen=True)
class LocmConfig:
    """The settings of a game (games/RULES.md §9); `games.make("locm", **settings)`."""

    decks: list[list[int]] | None = setting(
        None, "each seat's 30 card numbers (1..160): no draft, the battle starts at once; none: a draft", flag=False
    )
    draft: list[list[int]] | None = setting(
        None,
        "the 30 draft turns' offers, three different card numbers each, in every game; none: drawn per game",
        flag=False,
    )
    deck_pool: list[list[int]] | None = setting(
        None,
        "decks of 30 card numbers each; every game draws each seat's deck from them (uniformly, the two seats "
        "independently) and starts with the battle; none: the decks come from decks or a draft",
        flag=False,
    )

    def __post_init__(self):
        given = [name for name in ("decks", "draft", "deck_pool") if getattr(self, name) is not None]
        need(len(given) <= 1, f"locm: give one of decks, draft and deck_pool, not {' and '.join(given)}")
        if self.decks is not None:
            need(isinstance(self.decks, (list, tuple)) and len(self.decks) == 2, "locm: decks must be 2 decks")
            decks = [_card_numbers(d, f"seat {p}'s deck") for p, d in enumerate(self.decks)]
            for p, d in enumerate(decks):
                need(len(d) == DECK_SIZE, f"locm: seat {p}'s deck has {len(d)} cards, not {DECK_SIZE}")
            object.__setattr__(self, "decks", decks)
        if self.draft is not None:
            need(
                isinstance(self.draft, (list, tuple)) and len(self.draft) == DRAFT_TURNS,
                f"locm: draft must be {DRAFT_TURNS} offers",
            )
            offers = [_card_numbers(o, f"draft turn {t + 1}") for t, o in enumerate(self.draft)]
            for t, o in enumerate(offers):
                need(
                    len(o) == OFFERED and len(set(o)) == OFFERED,
                    f"locm: draft turn {t + 1} must offer {OFFERED} different cards, got {o}",
                )
            object.__setattr__(self, "draft", offers)
        if self.deck_pool is not None:
            pool = self.deck_pool
            need(
                isinstance(pool, (list, tuple)) and len(pool) >= 1, "locm: deck_pool must be a non-empty list of decks"
            )
            decks = [_card_numbers(d, f"deck_pool[{i}]") for i, d in enumerate(pool)]
            for i, d in enumerate(decks):
                need(len(d) == DECK_SIZE, f"locm: deck_pool[{i}] has {len(d)} cards, not {DECK_SIZE}")
            object.__setattr__(self, "deck_pool", decks)


def _creatures(state: LocmState) -> dict[int, int]:
    """Every creature on the board: its instance number -> its keyword bits."""
    board, sizes = state._board, state._lane_sizes
    return {
        board[slot * LANE_SPAN + i * FIELDS + INSTANCE]: board[slot * LANE_SPAN + i * FIELDS + KW]
        for slot in range(4)
        for i in range(sizes[slot])
    }


def _empty_deck_draw(before: LocmState, action: int, after: LocmState) -> bool:
    """A turn began with a draw from an empty deck (or past the last turn with a deck)."""
    p = 1 - before._player
    return before._phase == BATTLE and action == PASS and (not before._decks[p] or after._turn > LAST_TURN_WITH_DECK)


def _full_hand_draw(before: LocmState, action: int, after: LocmState) -> bool:
    """A turn began with a full hand: its draw is cancelled."""
    p = 1 - before._player
    return before._phase == BATTLE and action == PASS and len(before._hands[p]) == HAND_LIMIT


def _ward_lost(before: LocmState, action: int, after: LocmState) -> bool:
    """A creature that stays on the board lost its Ward."""
    now = _creatures(after)
    return any(kw & WARD and not now.get(c, WARD) & WARD for c, kw in _creatures(before).items())


def _lethal_kill(before: LocmState, action: int, after: LocmState) -> bool:
    """A creature with Lethal attacked a creature, and one of them died."""
    if before._phase != BATTLE or action < ATTACK or action >= PICK or (action - ATTACK) & 3 == 0:
        return False
    was = _creatures(before)
    return any(kw & LETHAL for kw in was.values()) and len(_creatures(after)) < len(was)


def _item_used(kind: int):
    def fired(before: LocmState, action: int, after: LocmState) -> bool:
        if before._phase != BATTLE or not USE <= action < ATTACK:
            return False
        hand = before._hands[before._player]
        return _TYPE[before._card_of[hand[(action - USE) // 13]]] == kind

    return fired


RARE_RULES = (
    RareRule("a draw from an empty deck", _empty_deck_draw),
    RareRule("a draw stopped by a full hand", _full_hand_draw),
    RareRule("a rune broken", lambda before, action, after: after._rune != before._rune),
    RareRule("a Ward lost", _ward_lost),
    RareRule("a Lethal attack that killed", _lethal_kill),
    RareRule("a green item used", _item_used(GREEN)),
    RareRule("a red item used", _item_used(RED)),
    RareRule("a blue item used", _item_used(BLUE)),
    RareRule("player 1's bonus mana lost", lambda before, action, after: before._bonus_mana[1] > after._bonus_mana[1]),
)


class Locm(Game):
    name = "locm"
    num_players = 2
    num_actions = NUM_ACTIONS
    observation_size = OBSERVATION_SIZE
    config_class = LocmConfig
    #: deck files (`--deck FILE`, games.deckfile's `name` and `cards`: 30 card numbers) give the
    #: `decks` setting: the battle without a draft (the locm_constructed deck space writes such files);
    #: its drafts are judged as that space plays two decks; `pretrained` is its learned battler panel
    facts = GameFacts(
        deck_files=deck_settings,
        drafted_in="locm_constructed",
        hidden_information=True,
        pretrained="locm_league3_scorer_panel",
    )
    action_feature_index = action_feature_index()
    rare_rules = RARE_RULES

    def __init__(self, config: LocmConfig | None = None):
        self.config = LocmConfig() if config is None else config

    def new_initial_state(self, rng: np.random.Generator | int) -> LocmState:
        """A fresh game from `rng` (a Generator or a seed; required): the offers (unless given),
        then one shuffle per seat (§9.8)."""
        rng = as_generator(rng)
        c = self.config
        offers, decks = None, c.decks
        if c.deck_pool is not None:
            decks = [c.deck_pool[int(k)] for k in rng.integers(len(c.deck_pool), size=2)]
        elif c.decks is None:
            offers = c.draft if c.draft is not None else draw_offers(rng)
        shuffles = (tuple(rng.permutation(DECK_SIZE).tolist()), tuple(rng.permutation(DECK_SIZE).tolist()))
        return LocmState(self, None if offers is None else tuple(tuple(o) for o in offers), shuffles, decks)

    def state_from_chance(self, offers, shuffles) -> LocmState:
        """The game whose chance is given: `offers` (30 lists of three card numbers, or None when
        the config gives the decks) and `shuffles`, each seat's deck order as the places 0..29 of
        its cards in pick order (draw order, next card first). For replaying a recorded game."""
        need(
            isinstance(shuffles, (list, tuple))
            and len(shuffles) == 2
            and all(sorted(s) == list(range(DECK_SIZE)) for s in shuffles),
            f"locm: shuffles must be two orders of 0..{DECK_SIZE - 1}",
        )
        need(self.config.deck_pool is None, "locm: a game of a deck_pool is not replayed from its offers")
        need((offers is None) == (self.config.decks is not None), "locm: offers are given exactly when decks are not")
        if offers is not None:
            offers = tuple(tuple(_card_numbers(o, "an offer")) for o in offers)
            need(len(offers) == DRAFT_TURNS and all(len(o) == OFFERED for o in offers), "locm: bad offers")
        shuffles = (tuple(int(x) for x in shuffles[0]), tuple(int(x) for x in shuffles[1]))
        return LocmState(self, offers, shuffles, self.config.decks)

    def action_name(self, action: int) -> str:
        return action_name(action)


def draw_offers(rng: np.random.Generator) -> tuple[tuple[int, ...], ...]:
    """A pool of 60 different cards of the 160, then each turn's three different cards from it
    (the first three of a random order of the pool)."""
    pool = rng.permutation(NUM_CARDS)[:DRAFT_POOL] + 1
    orders = rng.random((DRAFT_TURNS, DRAFT_POOL)).argsort(axis=1)[:, :OFFERED]
    return tuple(tuple(row) for row in pool[orders].tolist())


def _target_name(target: int) -> str:
    if target == 0:
        return "no creature"
    side = "own" if target <= 6 else "enemy"
    lane = "left" if (target - 1) % 6 < 3 else "right"
    return f"{side} {lane} {(target - 1) % 3}"


def action_name(action: int) -> str:
    if action == PASS:
        return "pass"
    if action < USE:
        h, lane = divmod(action - SUMMON, 2)
        return f"summon hand {h} to {'left' if lane == 0 else 'right'}"
    if action < ATTACK:
        h, t = divmod(action - USE, 13)
        return f"use hand {h} on {_target_name(t)}"
    if action < PICK:
        c, t = divmod(action - ATTACK, 4)
        lane = "left" if c < 3 else "right"
        return f"attack with {lane} {c % 3} " + ("the opponent" if t == 0 else f"enemy {lane} {t - 1}")
    return f"pick {action - PICK}"


class LocmState(State):
    # fmt: off
    __slots__ = (
        "game", "_offers", "_shuffles", "_phase", "_player", "_turn", "_winner", "_picks", "_played",
        "_card_of", "_hands", "_decks", "_board", "_lane_sizes", "_health", "_base_mana", "_bonus_mana",
        "_mana", "_rune", "_bonus_draw", "_drawn", "_turn_log", "_summoned", "_engaged",
    )
    # fmt: on

    def __init__(self, game: Locm, offers, shuffles, decks=None):
        """A game at its start: the draft's `offers`, or (offers None) the two `decks` of 30 card
        numbers, and each seat's `shuffles`."""
        self.game = game
        self._offers = offers  # None when the decks are given
        self._shuffles = shuffles
        self._winner = None
        self._played = [[], []]  # card numbers each player summoned or used, in order (public)
        self._card_of = ()
        self._hands = [[], []]
        self._decks = [[], []]
        self._board = [0] * (4 * LANE_SPAN)
        self._lane_sizes = [0, 0, 0, 0]
        self._health = [START_HEALTH, START_HEALTH]
        self._base_mana = [0, 0]
        self._bonus_mana = [0, 0]
        self._mana = [0, 0]
        self._rune = [FIRST_RUNE, FIRST_RUNE]
        self._bonus_draw = [0, 0]
        self._drawn = [0, 0]  # cards each player drew at the start of their latest turn
        self._turn_log = [[], []]  # each player's actions of their latest turn (`turn_actions`)
        self._summoned = []  # instances in the order they were summoned, both players
        self._engaged = 0  # bit i: creature i has attacked, been attacked or been the target of an item
        self._turn = 1
        self._player = 0
        if offers is None:
            self._picks = [list(decks[0]), list(decks[1])]
            self._start_battle()
        else:
            self._picks = [[], []]
            self._phase = DRAFT

    # the battle's rules ---------------------------------------------------------------------------
    def _start_battle(self) -> None:
        """Shuffle, number the cards, draw 4 and 5, give player 1 the bonus mana, start turn 1 (§9.3)."""
        self._phase = BATTLE
        orders = [[self._picks[p][k] for k in self._shuffles[p]] for p in (0, 1)]
        card_of = [0] * (2 * DECK_SIZE + 1)
        for k in range(DECK_SIZE):
            card_of[2 * k + 1] = orders[0][k]
            card_of[2 * k + 2] = orders[1][k]
        self._card_of = tuple(card_of)
        self._decks = [[2 * k + 1 + p for k in reversed(range(DECK_SIZE))] for p in (0, 1)]
        for p in (0, 1):
            self._draw(p, 4)
        self._draw(1, 1)
        self._bonus_mana[1] = 1
        self._turn = 1
        self._player = 0
        self._start_turn()

    def _draw(self, p: int, n: int) -> None:
        """Draw `n` cards: an empty deck costs a rune for each draw left, a full hand cancels the rest."""
        deck, hand = self._decks[p], self._hands[p]
        for i in range(n):
            if not deck:
                for _ in range(n - i):
                    self._damage_player(p, self._health[p] - self._rune[p])
                return
            if len(hand) >= HAND_LIMIT:
                return
            hand.append(deck.pop())

    def _damage_player(self, p: int, amount: int) -> int:
        """Take `amount` health (a negative amount heals); break every rune at or above the health."""
        health = self._health[p] - amount
        self._health[p] = health
        rune = self._rune[p]
        while rune > 0 and health <= rune:
            rune -= RUNE_STEP
            self._bonus_draw[p] += 1
        self._rune[p] = rune
        return amount

    def _damage_creature(self, at: int, amount: int, lethal: bool) -> int:
        """Deal `amount` to the creature at board index `at`; a Ward stops it (and is lost)."""
        if amount <= 0:
            return 0
        board = self._board
        if board[at + KW] & WARD:
            board[at + KW] &= ~WARD
            return 0
        board[at + DEF] -= amount
        if lethal or board[at + DEF] <= 0:
            board[at + DEAD] = 1
        return amount

    def _start_turn(self) -> None:
        """§9.4, 1 to 4, for the player to move."""
        p = self._player
        board = self._board
        for lane in (2 * p, 2 * p + 1):
            base = lane * LANE_SPAN
            for i in range(self._lane_sizes[lane]):
                board[base + i * FIELDS + READY] = 1
                board[base + i * FIELDS + ATTACKED] = 0
        if self._base_mana[p] > 0 and self._mana[p] == 0:
            self._bonus_mana[p] = 0
        if self._base_mana[p] < MAX_MANA:
            self._base_mana[p] += 1
        self._mana[p] = self._base_mana[p] + self._bonus_mana[p]
        if self._turn > LAST_TURN_WITH_DECK:
            self._decks[p] = []
        self._turn_log[p] = []
        self._drawn[p] = 1 + self._bonus_draw[p]  # runes an empty deck breaks now add no draws
        self._draw(p, 1 + self._bonus_draw[p])
        self._bonus_draw[p] = 0

    def _summon(self, p: int, h: int, lane: int) -> None:
        instance = self._hands[p].pop(h)
        card = self._card_of[instance]
        slot = 2 * p + lane
        at = slot * LANE_SPAN + self._lane_sizes[slot] * FIELDS
        self._board[at : at + FIELDS] = [instance, card, _ATK[card], _DEF[card], _KW[card], 0, 0, 0]
        self._lane_sizes[slot] += 1
        self._summoned.append(instance)
        self._turn_log[p].append((card, "SUMMON", instance, lane))
        self._played[p].append(card)
        self._bonus_draw[p] += _DRAW[card]
        self._damage_player(p, -_OWN_HP[card])
        self._damage_player(1 - p, -_ENEMY_HP[card])
        self._mana[p] -= _COST[card]

    def _use(self, p: int, h: int, target: int) -> None:
        o = 1 - p
        instance = self._hands[p].pop(h)
        card = self._card_of[instance]
        board = self._board
        if target == 0:  # a blue item on no creature
            self._turn_log[p].append((card, "USE", instance, -1))
            self._damage_player(o, -_DEF[card])
        else:
            side, place = divmod(target - 1, 6)  # side 0: own, 1: enemy
            owner = p if side == 0 else o
            lane, i = divmod(place, 3)
            at = (2 * owner + lane) * LANE_SPAN + i * FIELDS
            self._turn_log[p].append((card, "USE", instance, board[at + INSTANCE]))
            self._engaged |= 1 << board[at + INSTANCE]
            board[at + ATK] = max(0, board[at + ATK] + _ATK[card])
            if _TYPE[card] == GREEN:
                board[at + DEF] += _DEF[card]
                board[at + KW] |= _KW[card]
            else:
                board[at + KW] &= ~_KW[card]
                self._damage_creature(at, -_DEF[card], False)
            if board[at + DEF] <= 0:
                board[at + DEAD] = 1
        self._played[p].append(card)
        self._bonus_draw[p] += _DRAW[card]
        self._damage_player(p, -_OWN_HP[card])
        self._damage_player(o, -_ENEMY_HP[card])
        self._mana[p] -= _COST[card]

    def _attack(self, p: int, c: int, target: int) -> None:
        o = 1 - p
        board = self._board
        lane, i = divmod(c, 3)
        at = (2 * p + lane) * LANE_SPAN + i * FIELDS
        power = board[at + ATK]
        self._engaged |= 1 << board[at + INSTANCE]
        if target == 0:
            self._turn_log[p].append((board[at + CARD], "ATTACK", board[at + INSTANCE], -1))
            dealt = self._damage_player(o, power)
        else:
            to = (2 * o + lane) * LANE_SPAN + (target - 1) * FIELDS
            self._turn_log[p].append((board[at + CARD], "ATTACK", board[at + INSTANCE], board[to + INSTANCE]))
            self._engaged |= 1 << board[to + INSTANCE]
            defense = board[to + DEF]
            dealt = self._damage_creature(to, power, bool(board[at + KW] & LETHAL))
            self._damage_creature(at, board[to + ATK], bool(board[to + KW] & LETHAL))
            if board[at + KW] & BREAKTHROUGH and dealt - defense > 0:
                self._damage_player(o, dealt - defense)
        if board[at + KW] & DRAIN:
            self._health[p] += dealt
        board[at + ATTACKED] = 1

    def _remove_dead(self) -> None:
        board = self._board
        for slot in range(4):
            n = self._lane_sizes[slot]
            base = slot * LANE_SPAN
            kept = 0
            for i in range(n):
                at = base + i * FIELDS
                if not board[at + DEAD]:
                    if kept != i:
                        board[base + kept * FIELDS : base + (kept + 1) * FIELDS] = board[at : at + FIELDS]
                    kept += 1
            if kept != n:
                board[base + kept * FIELDS : base + n * FIELDS] = [0] * ((n - kept) * FIELDS)
                self._lane_sizes[slot] = kept

    def _check_end(self) -> None:
        if self._health[0] <= 0:
            self._winner = 1
        elif self._health[1] <= 0:
            self._winner = 0
        else:
            return
        self._phase = ENDED
        self._player = TERMINAL

    def _able(self, at: int) -> bool:
        board = self._board
        return not board[at + ATTACKED] and (board[at + READY] or board[at + KW] & CHARGE)

    # interface ----------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> list[int]:
        if self._phase == DRAFT:
            return [PICK, PICK + 1, PICK + 2]
        if self._phase == ENDED:
            return []
        p = self._player
        o = 1 - p
        sizes = self._lane_sizes
        board = self._board
        mana = self._mana[p]
        summon, use, attack = [], [], []
        own = sizes[2 * p] + sizes[2 * p + 1]
        enemy = sizes[2 * o] + sizes[2 * o + 1]
        own_targets = [1 + i for i in range(sizes[2 * p])] + [4 + i for i in range(sizes[2 * p + 1])]
        enemy_targets = [7 + i for i in range(sizes[2 * o])] + [10 + i for i in range(sizes[2 * o + 1])]
        for h, instance in enumerate(self._hands[p]):
            card = self._card_of[instance]
            if _COST[card] > mana:
                continue
            kind = _TYPE[card]
            if kind == CREATURE:
                if sizes[2 * p] < LANE_LIMIT:
                    summon.append(SUMMON + 2 * h)
                if sizes[2 * p + 1] < LANE_LIMIT:
                    summon.append(SUMMON + 2 * h + 1)
            else:
                base = USE + 13 * h
                if kind == GREEN:
                    if own:
                        use += [base + t for t in own_targets]
                else:
                    if kind == BLUE:
                        use.append(base)
                    if enemy:
                        use += [base + t for t in enemy_targets]
        for lane in (0, 1):
            n = sizes[2 * p + lane]
            if not n:
                continue
            enemy_base = (2 * o + lane) * LANE_SPAN
            m = sizes[2 * o + lane]
            guards = [1 + j for j in range(m) if board[enemy_base + j * FIELDS + KW] & GUARD]
            targets = guards or list(range(m + 1))
            base = (2 * p + lane) * LANE_SPAN
            for i in range(n):
                if self._able(base + i * FIELDS):
                    first = ATTACK + 4 * (3 * lane + i)
                    attack += [first + t for t in targets]
        return [PASS] + summon + use + attack

    def is_legal(self, a: int) -> bool:
        """Whether action `a` is in legal_actions(), without listing them."""
        if self._phase != BATTLE:
            return self._phase == DRAFT and PICK <= a < PICK + OFFERED
        if a <= 0 or a >= PICK:
            return a == PASS
        p = self._player
        o = 1 - p
        sizes = self._lane_sizes
        board = self._board
        if a < ATTACK:
            h, rest = divmod(a - SUMMON, 2) if a < USE else divmod(a - USE, 13)
            hand = self._hands[p]
            if h >= len(hand):
                return False
            card = self._card_of[hand[h]]
            kind = _TYPE[card]
            if _COST[card] > self._mana[p]:
                return False
            if a < USE:
                return kind == CREATURE and sizes[2 * p + rest] < LANE_LIMIT
            if kind == CREATURE:
                return False
            if rest == 0:
                return kind == BLUE
            side, place = divmod(rest - 1, 6)
            lane, i = divmod(place, 3)
            if side == 0:
                return kind == GREEN and i < sizes[2 * p + lane]
            return kind != GREEN and i < sizes[2 * o + lane]
        lane, i = divmod((a - ATTACK) >> 2, 3)
        t = (a - ATTACK) & 3
        if i >= sizes[2 * p + lane] or not self._able((2 * p + lane) * LANE_SPAN + i * FIELDS):
            return False
        enemy = (2 * o + lane) * LANE_SPAN
        m = sizes[2 * o + lane]
        guarded = any(board[enemy + j * FIELDS + KW] & GUARD for j in range(m))
        if t == 0:
            return not guarded
        return t - 1 < m and (not guarded or bool(board[enemy + (t - 1) * FIELDS + KW] & GUARD))

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply_action(self, action: int) -> None:
        a = self.checked_action(action)
        p = self._player
        if self._phase == DRAFT:
            turn = len(self._picks[1])
            self._picks[p].append(self._offers[turn][a - PICK])
            if p == 0:
                self._player = 1
            elif turn + 1 < DRAFT_TURNS:
                self._player = 0
            else:
                self._start_battle()
            return
        if a == PASS:
            if p == 1:
                self._turn += 1
            self._player = 1 - p
            self._start_turn()
        else:
            if a < USE:
                self._summon(p, (a - SUMMON) >> 1, (a - SUMMON) & 1)
            elif a < ATTACK:
                self._use(p, *divmod(a - USE, 13))
            else:
                self._attack(p, *divmod(a - ATTACK, 4))
            self._remove_dead()
        self._check_end()

    def is_terminal(self) -> bool:
        return self._phase == ENDED

    def forfeit(self, player: int) -> None:
        """End the game now, lost by `player` (a hosted bot that crashed, hung or sent what the
        referee cannot read loses so)."""
        self._winner = 1 - player
        self._phase = ENDED
        self._player = TERMINAL

    def returns(self) -> np.ndarray:
        if self._winner is None:
            return np.zeros(2)
        out = np.full(2, -1.0)
        out[self._winner] = 1.0
        return out

    def observation(self, player: int) -> np.ndarray:
        return np.array(self._features(player), dtype=np.float32)

    def _features(self, player: int) -> list[float]:
        o = 1 - player
        draft = self._phase == DRAFT
        feats = [float(draft), float(self._phase == BATTLE), len(self._picks[player]) / DECK_SIZE]
        for p in (player, o):
            feats += [
                _clip(self._health[p] / 60),
                self._mana[p] / 13,
                (self._base_mana[p] + self._bonus_mana[p]) / 13,
                len(self._decks[p]) / DECK_SIZE,
                self._rune[p] / FIRST_RUNE,
                min(self._bonus_draw[p], HAND_LIMIT) / HAND_LIMIT,
                len(self._hands[p]) / HAND_LIMIT,
            ]
        if draft:
            for card in self._offers[len(self._picks[1])]:
                feats += _CARD_FEATURES[card]
        else:
            feats += [0.0] * (OFFERED * CARD_FEATURES)
        curve = [0] * 17
        for card in self._picks[player]:
            curve[_COST[card]] += 1
            curve[13 + _TYPE[card]] += 1
        feats += [x / DECK_SIZE for x in curve]
        hand = self._hands[player]
        for h in range(HAND_LIMIT):
            feats += _CARD_FEATURES[self._card_of[hand[h]]] if h < len(hand) else _NO_CARD
        board = self._board
        for p in (player, o):
            for lane in (2 * p, 2 * p + 1):
                base = lane * LANE_SPAN
                for i in range(LANE_LIMIT):
                    if i >= self._lane_sizes[lane]:
                        feats += _NO_CREATURE
                        continue
                    at = base + i * FIELDS
                    kw = board[at + KW]
                    feats += [1.0, min(board[at + ATK], 12) / 12, _clip(board[at + DEF] / 12)]
                    feats += [float(kw >> k & 1) for k in range(6)]
                    feats.append(float(bool(self._able(at))))
        return feats

    def clone(self) -> LocmState:
        s = LocmState.__new__(LocmState)
        s.game = self.game
        s._offers = self._offers
        s._shuffles = self._shuffles
        s._phase = self._phase
        s._player = self._player
        s._turn = self._turn
        s._winner = self._winner
        s._picks = [self._picks[0][:], self._picks[1][:]]
        s._played = [self._played[0][:], self._played[1][:]]
        s._card_of = self._card_of
        s._hands = [self._hands[0][:], self._hands[1][:]]
        s._decks = [self._decks[0][:], self._decks[1][:]]
        s._board = self._board[:]
        s._lane_sizes = self._lane_sizes[:]
        s._health = self._health[:]
        s._base_mana = self._base_mana[:]
        s._bonus_mana = self._bonus_mana[:]
        s._mana = self._mana[:]
        s._rune = self._rune[:]
        s._bonus_draw = self._bonus_draw[:]
        s._drawn = self._drawn[:]
        s._turn_log = [self._turn_log[0][:], self._turn_log[1][:]]
        s._summoned = self._summoned[:]
        s._engaged = self._engaged
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> LocmState:
        """The opponent's picks re-drawn (every card they played among them), their unplayed cards
        dealt between hand and deck, both decks reshuffled (§9.9)."""
        s = self.clone()
        o = 1 - player
        if self._phase == DRAFT:
            s._picks[o] = [self._offers[t][int(rng.integers(OFFERED))] for t in range(len(self._picks[o]))]
            s._shuffles = (tuple(rng.permutation(DECK_SIZE).tolist()), tuple(rng.permutation(DECK_SIZE).tolist()))
            return s
        if self._phase == ENDED:
            return s
        if self._offers is not None:
            picks = self._consistent_picks(o, rng)
        elif self.game.config.deck_pool is not None:
            picks = self._consistent_pool_deck(o, rng)
        else:
            picks = self._picks[o]
        s._picks[o] = picks
        card_of = list(self._card_of)
        # the opponent's unplayed cards: their picks less what they played, hand and deck re-dealt
        unplayed = list(picks)
        for card in self._played[o]:
            unplayed.remove(card)
        unplayed = rng.permutation(sorted(unplayed)).tolist()
        for instance, card in zip(self._hands[o] + self._decks[o], unplayed):
            card_of[instance] = card
        # the player's own deck reshuffled among its places
        own = sorted(card_of[i] for i in self._decks[player])
        for instance, card in zip(self._decks[player], rng.permutation(own).tolist() if own else []):
            card_of[instance] = card
        s._card_of = tuple(card_of)
        return s

    def _consistent_pool_deck(self, o: int, rng: np.random.Generator) -> list[int]:
        """A deck of the deck_pool holding every card `o` played, uniformly among those that do."""
        played = Counter(self._played[o])
        fits = [d for d in self.game.config.deck_pool if not played - Counter(d)]
        return list(fits[int(rng.integers(len(fits)))])

    def _consistent_picks(self, o: int, rng: np.random.Generator) -> list[int]:
        """One card of each draft turn's offers, such that every card `o` played is one of them: the
        played cards are matched to distinct turns offering them (augmenting paths), in random order."""
        played = self._played[o]
        turns = rng.permutation(DRAFT_TURNS).tolist()
        matched: dict[int, int] = {}  # turn -> index into played

        def place(j: int, seen: set) -> bool:
            for t in turns:
                if t not in seen and played[j] in self._offers[t]:
                    seen.add(t)
                    if t not in matched or place(matched[t], seen):
                        matched[t] = j
                        return True
            return False

        for j in rng.permutation(len(played)).tolist():
            place(j, set())
        return [
            played[matched[t]] if t in matched else self._offers[t][int(rng.integers(OFFERED))]
            for t in range(DRAFT_TURNS)
        ]

    # public facts -------------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return ("draft", "battle", "ended")[self._phase]

    @property
    def health(self) -> tuple[int, int]:
        return tuple(self._health)

    @property
    def hand_sizes(self) -> tuple[int, int]:
        return (len(self._hands[0]), len(self._hands[1]))

    @property
    def deck_sizes(self) -> tuple[int, int]:
        return (len(self._decks[0]), len(self._decks[1]))

    @property
    def played(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cards each player has summoned or used, in order."""
        return (tuple(self._played[0]), tuple(self._played[1]))

    def offers(self) -> tuple[int, ...]:
        """The three cards offered on this draft turn (empty after the draft)."""
        return self._offers[len(self._picks[1])] if self._phase == DRAFT else ()

    def picks(self, player: int) -> list[int]:
        """`player`'s deck in pick order (hidden from the opponent)."""
        return self._picks[player][:]

    def hand(self, player: int) -> list[int]:
        """`player`'s hand as card numbers, in hand order."""
        return [self._card_of[i] for i in self._hands[player]]

    def deck(self, player: int) -> list[int]:
        """`player`'s deck as card numbers, next card first (hidden information)."""
        return [self._card_of[i] for i in reversed(self._decks[player])]

    def lanes(self, player: int) -> list[list[dict]]:
        """`player`'s two lanes, each a list of creatures as dicts (instance, card, attack, defense,
        keywords as letters, can attack now)."""
        out = []
        for lane in (2 * player, 2 * player + 1):
            base = lane * LANE_SPAN
            creatures = []
            for i in range(self._lane_sizes[lane]):
                at = base + i * FIELDS
                b = self._board
                creatures.append(
                    {
                        "instance": b[at + INSTANCE],
                        "card": b[at + CARD],
                        "attack": b[at + ATK],
                        "defense": b[at + DEF],
                        "keywords": keyword_letters(b[at + KW]),
                        "can_attack": bool(self._able(at)),
                    }
                )
            out.append(creatures)
        return out

    def turn_actions(self, player: int) -> list[tuple[int, str, int, int]]:
        """`player`'s actions of their turn in progress or, once it ended, of their latest turn, in
        order, as the referee lists them: (card number, SUMMON, instance, lane), (card number, USE,
        instance, target instance or -1), (card number, ATTACK, attacker, target instance or -1)."""
        return self._turn_log[player][:]

    def cards_drawn(self, player: int) -> int:
        """The cards `player` drew at the start of their latest turn (1 and the bonus draws)."""
        return self._drawn[player]

    def summon_order(self, instance: int) -> int:
        """When the creature `instance` was summoned: lower is earlier, over both players' creatures."""
        return self._summoned.index(instance)

    def engaged(self, instance: int) -> bool:
        """True once the creature `instance` has attacked, been attacked or been the target of an item
        (the referee then shows it without its card's health changes and card draw)."""
        return bool(self._engaged >> instance & 1)

    def player_facts(self, player: int) -> dict:
        """Health, mana (left and maximum with bonus), next rune and pending card draws of `player`."""
        return {
            "health": self._health[player],
            "mana": self._mana[player],
            "max_mana": self._base_mana[player] + self._bonus_mana[player],
            "rune": self._rune[player],
            "bonus_draw": self._bonus_draw[player],
        }

    # words (games/locm_text.py, which imports this module; games/registry.py attaches it) ---------
    def __str__(self) -> str:
        return self.game.text_module.render(self)

    def view(self, player: int) -> str:
        return self.game.text_module.render_view(self, player)

    def describe_move(self, before: LocmState, action: int, viewer: int) -> str:
        return self.game.text_module.describe_move(self, before, action, viewer)
