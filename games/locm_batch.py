"""LOCM 1.2 as a vectorised engine: many games in numpy arrays, stepped together (games/batch.py).
It plays exactly as games/locm.py does (the conformance check "vectorised engine" compares every
state and counts the rare rules reached: `Locm.rare_rules`); the rules are
in games/RULES.md §9 and are not repeated here. The arrays mirror LocmState's fields, one row a game:
hands and decks hold instance numbers (a deck's next card at index `deck_len - 1`), the board is
(game, lane, place, field) with lanes player 0 left, player 0 right, player 1 left, player 1 right."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from games.base import TERMINAL
from games.batch import BatchState
from games.errors import IllegalActionError
from games.locm import (
    _ATK,
    _CARD_FEATURES,
    _COST,
    _DEF,
    _DRAW,
    _ENEMY_HP,
    _KW,
    _OWN_HP,
    _TYPE,
    ATK,
    ATTACK,
    ATTACKED,
    BATTLE,
    BLUE,
    BREAKTHROUGH,
    CARD,
    CARD_FEATURES,
    CHARGE,
    CREATURE,
    CREATURE_FEATURES,
    DEAD,
    DECK_SIZE,
    DEF,
    DRAFT,
    DRAFT_POOL,
    DRAFT_TURNS,
    DRAIN,
    ENDED,
    FIELDS,
    FIRST_RUNE,
    GREEN,
    GUARD,
    HAND_LIMIT,
    INSTANCE,
    KW,
    LANE_LIMIT,
    LETHAL,
    MAX_MANA,
    NUM_ACTIONS,
    NUM_CARDS,
    OBSERVATION_SIZE,
    OFFERED,
    PICK,
    READY,
    RED,
    RUNE_STEP,
    START_HEALTH,
    SUMMON,
    USE,
    WARD,
    Locm,
    LocmState,
)

TYPE = np.array(_TYPE, dtype=np.int64)
COST = np.array(_COST, dtype=np.int64)
CARD_ATK = np.array(_ATK, dtype=np.int64)
CARD_DEF = np.array(_DEF, dtype=np.int64)
CARD_KW = np.array(_KW, dtype=np.int64)
OWN_HP = np.array(_OWN_HP, dtype=np.int64)
ENEMY_HP = np.array(_ENEMY_HP, dtype=np.int64)
DRAW = np.array(_DRAW, dtype=np.int64)
INSTANCES = 2 * DECK_SIZE + 1
#: a turn's actions at most: the 8 cards of a full hand played, and 14 attacks (the 6 creatures on
#: the board and 8 summoned with Charge)
TURN_LOG = 24
VERBS = ("SUMMON", "USE", "ATTACK")  # LocmState.turn_actions' verbs, by their codes in `turn_log`
SUMMON_VERB, USE_VERB, ATTACK_VERB = range(3)
CARD_FEATURE_TABLE = np.array([[0.0] * CARD_FEATURES] + list(_CARD_FEATURES[1:]), dtype=np.float32)  # by card number
# the divisors of each seat's features in the observation: health, mana, mana of the turn, deck, rune,
# bonus draws, hand (games/locm.py LocmState._features)
SEAT_SCALES = np.array([60, 13, 13, DECK_SIZE, FIRST_RUNE, HAND_LIMIT, HAND_LIMIT], dtype=np.float64)
NO_OFFERS = np.zeros((DRAFT_TURNS, 3), dtype=np.int64)
# for each set of dead places of a lane (bit i: place i), the places in their new order: the living first
ALIVE_FIRST = np.array([sorted(range(LANE_LIMIT), key=lambda i, d=d: (d >> i) & 1) for d in range(1 << LANE_LIMIT)])
CURVE = 13 + 4  # the observation's counts of the picks: each cost 0..12, then each type
# each card's ones in that curve, by card number (none for 0, no card): at its cost and at 13 + its type
CARD_CURVE = np.zeros((NUM_CARDS + 1, CURVE), dtype=np.int16)
CARD_CURVE[np.arange(1, NUM_CARDS + 1), COST[1:]] = 1
CARD_CURVE[np.arange(1, NUM_CARDS + 1), 13 + TYPE[1:]] = 1


def curve_counts(picks: np.ndarray, npicks: np.ndarray) -> np.ndarray:
    """(..., CURVE) counts of each cost 0..12 and each type among the first `npicks` of `picks` (..., DECK_SIZE)."""
    held = np.arange(DECK_SIZE) < npicks[..., None]
    return np.take(CARD_CURVE, np.where(held, picks, 0), axis=0).sum(axis=-2)


def _creature_table() -> np.ndarray:
    """The observation's features of a creature by `1 + attack + 13 * defense + 169 * (keywords + 64 * can
    attack)`, attack and defense clipped to 0..12 (games/locm.py LocmState._features); row 0 an empty place."""
    atk, defense, kw, able = np.meshgrid(np.arange(13), np.arange(13), np.arange(64), np.arange(2), indexing="ij")
    rows = np.zeros((1 + 13 * 13 * 128, CREATURE_FEATURES), dtype=np.float32)
    code = (1 + atk + 13 * defense + 169 * (kw + 64 * able)).ravel()
    rows[code, 0] = 1.0
    rows[code, 1] = (np.minimum(atk, 12) / 12).ravel()
    rows[code, 2] = np.clip(defense / 12, 0.0, 1.0).ravel()
    rows[code, 3:9] = ((kw[..., None] >> np.arange(6)) & 1).reshape(-1, 6)
    rows[code, 9] = able.ravel()
    return rows


CREATURE_TABLE = _creature_table()


class LocmBatch(BatchState):
    def __init__(self, game: Locm, size: int):
        self.game = game
        n = size
        self._size = n
        # small numbers (cards, places, instances, attack, defense, keyword bits, flags) in 16 bits:
        # gathers of whole boards and copies of whole games stay cheap
        self.has_offers = np.zeros(n, dtype=bool)
        self.offers = np.zeros((n, DRAFT_TURNS, 3), dtype=np.int16)
        self.shuffles = np.zeros((n, 2, DECK_SIZE), dtype=np.int16)
        self.phase = np.zeros(n, dtype=np.int64)
        self.player = np.zeros(n, dtype=np.int64)
        self.turn = np.ones(n, dtype=np.int64)
        self.winner = np.full(n, -1, dtype=np.int64)
        self.picks = np.zeros((n, 2, DECK_SIZE), dtype=np.int16)
        self.npicks = np.zeros((n, 2), dtype=np.int64)
        # the picks' counts of each cost 0..12 and each type (columns 13..16), kept with the picks for the observation
        self.curves = np.zeros((n, 2, CURVE), dtype=np.int16)
        self.played = np.zeros((n, 2, DECK_SIZE), dtype=np.int16)
        self.nplayed = np.zeros((n, 2), dtype=np.int64)
        self.card_of = np.zeros((n, INSTANCES), dtype=np.int16)
        self.hands = np.zeros((n, 2, HAND_LIMIT), dtype=np.int16)
        self.hand_len = np.zeros((n, 2), dtype=np.int64)
        self.decks = np.zeros((n, 2, DECK_SIZE), dtype=np.int16)
        self.deck_len = np.zeros((n, 2), dtype=np.int64)
        self.board = np.zeros((n, 4, LANE_LIMIT, FIELDS), dtype=np.int16)
        self.lane_sizes = np.zeros((n, 4), dtype=np.int64)
        self.health = np.zeros((n, 2), dtype=np.int64)
        self.base_mana = np.zeros((n, 2), dtype=np.int64)
        self.bonus_mana = np.zeros((n, 2), dtype=np.int64)
        self.mana = np.zeros((n, 2), dtype=np.int64)
        self.rune = np.zeros((n, 2), dtype=np.int64)
        self.bonus_draw = np.zeros((n, 2), dtype=np.int64)
        # the referee's facts of the turns (LocmState.cards_drawn, summon_order, turn_actions)
        self.drawn = np.zeros((n, 2), dtype=np.int64)
        self.summoned = np.zeros((n, INSTANCES), dtype=np.int16)
        self.nsummoned = np.zeros(n, dtype=np.int64)
        self.engaged = np.zeros(n, dtype=np.int64)  # LocmState._engaged: a bit per instance
        self.turn_log = np.zeros((n, 2, TURN_LOG, 4), dtype=np.int16)
        self.nlog = np.zeros((n, 2), dtype=np.int64)

    # states in and out ---------------------------------------------------------------------------
    @classmethod
    def from_states(cls, states: Sequence[LocmState]) -> LocmBatch:
        states = list(states)
        b = cls(states[0].game, len(states))
        for g, s in enumerate(states):
            b.has_offers[g] = s._offers is not None
            b.offers[g] = NO_OFFERS if s._offers is None else s._offers
            b.shuffles[g] = s._shuffles
            b.phase[g], b.player[g], b.turn[g] = s._phase, s._player, s._turn
            b.winner[g] = -1 if s._winner is None else s._winner
            for p in (0, 1):
                b.npicks[g, p] = len(s._picks[p])
                b.picks[g, p, : len(s._picks[p])] = s._picks[p]
                b.nplayed[g, p] = len(s._played[p])
                b.played[g, p, : len(s._played[p])] = s._played[p]
                b.hand_len[g, p] = len(s._hands[p])
                b.hands[g, p, : len(s._hands[p])] = s._hands[p]
                b.deck_len[g, p] = len(s._decks[p])
                b.decks[g, p, : len(s._decks[p])] = s._decks[p]
            if s._card_of:
                b.card_of[g] = s._card_of
            b.board[g] = np.array(s._board).reshape(4, LANE_LIMIT, FIELDS)
            b.lane_sizes[g] = s._lane_sizes
            b.health[g], b.base_mana[g], b.bonus_mana[g] = s._health, s._base_mana, s._bonus_mana
            b.mana[g], b.rune[g], b.bonus_draw[g] = s._mana, s._rune, s._bonus_draw
            b.drawn[g] = s._drawn
            b.engaged[g] = s._engaged
            b.nsummoned[g] = len(s._summoned)
            b.summoned[g, : len(s._summoned)] = s._summoned
            for p in (0, 1):
                b.nlog[g, p] = len(s._turn_log[p])
                for k, (card, verb, origin, target) in enumerate(s._turn_log[p]):
                    b.turn_log[g, p, k] = (card, VERBS.index(verb), origin, target)
        b.curves[:] = curve_counts(b.picks, b.npicks)
        return b

    @classmethod
    def deal(cls, game: Locm, rng: np.random.Generator, size: int) -> LocmBatch:
        """`size` new games of `game` in one go, their chance drawn from `rng` with array draws (not
        the draws of `new_initial_state`, so not the same games for the same seed): each game's
        offers (unless the config gives the draft or the decks), then both shuffles."""
        c = game.config
        if c.decks is not None or c.deck_pool is not None:
            if c.decks is not None:
                decks = np.broadcast_to(np.array(c.decks, dtype=np.int64), (size, 2, DECK_SIZE))
            else:
                decks = np.array(c.deck_pool, dtype=np.int64)[rng.integers(len(c.deck_pool), size=(size, 2))]
            return cls.from_decks(game, decks, rng.random((size, 2, DECK_SIZE)).argsort(axis=2))
        b = cls(game, size)
        if c.draft is not None:
            b.has_offers[:] = True
            b.offers[:] = np.array(c.draft, dtype=np.int64)
        else:
            b.has_offers[:] = True
            pools = rng.random((size, NUM_CARDS)).argsort(axis=1)[:, :DRAFT_POOL] + 1
            # three different places of the pool for each turn, uniformly: the second and third
            # are drawn among the places left and moved past those already taken
            first = rng.integers(DRAFT_POOL, size=(size, DRAFT_TURNS))
            second = rng.integers(DRAFT_POOL - 1, size=(size, DRAFT_TURNS))
            third = rng.integers(DRAFT_POOL - 2, size=(size, DRAFT_TURNS))
            second += second >= first
            low, high = np.minimum(first, second), np.maximum(first, second)
            third += third >= low
            third += third >= high
            chosen = np.stack([first, second, third], axis=2)
            b.offers[:] = np.take_along_axis(pools[:, None, :], chosen, axis=2)
        b.shuffles[:] = rng.random((size, 2, DECK_SIZE)).argsort(axis=2)
        b.health[:], b.rune[:] = START_HEALTH, FIRST_RUNE
        return b

    @classmethod
    def from_decks(cls, game: Locm, decks: np.ndarray, shuffles: np.ndarray) -> LocmBatch:
        """New battles of `game` whose decks and shuffles are given, one row a game: `decks` (size, 2,
        30) each seat's card numbers and `shuffles` (size, 2, 30) each seat's deck order as places in
        that list (draw order, next card first), as `Locm.state_from_chance` takes them; the battle
        starts at once, whatever the config's decks or draft."""
        decks, shuffles = np.asarray(decks), np.asarray(shuffles)
        b = cls(game, len(decks))
        b.picks[:] = decks
        b.npicks[:] = DECK_SIZE
        b.curves[:] = curve_counts(b.picks, b.npicks)
        b.shuffles[:] = shuffles
        b.health[:], b.rune[:] = START_HEALTH, FIRST_RUNE
        b._start_battle(np.arange(len(decks)))
        return b

    @classmethod
    def from_chance(cls, game: Locm, offers: np.ndarray, shuffles: np.ndarray) -> LocmBatch:
        """New games of `game` whose chance is given, one row a game: `offers` (size, 30, 3) card
        numbers and `shuffles` (size, 2, 30), each seat's deck order as places in pick order, as
        `Locm.state_from_chance` takes them (the config must leave the draft open)."""
        offers, shuffles = np.asarray(offers), np.asarray(shuffles)
        b = cls(game, len(offers))
        b.has_offers[:] = True
        b.offers[:] = offers
        b.shuffles[:] = shuffles
        b.health[:], b.rune[:] = START_HEALTH, FIRST_RUNE
        return b

    def take(self, games: np.ndarray) -> LocmBatch:
        """A new batch holding copies of games `games` (repeats allowed), in that order: cheap clones
        for a search that tries an action in each."""
        b = LocmBatch.__new__(LocmBatch)
        b.game = self.game
        b._size = len(games)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                setattr(b, name, value[games])
        return b

    def state(self, g: int) -> LocmState:
        s = LocmState.__new__(LocmState)
        s.game = self.game
        s._offers = tuple(tuple(o) for o in self.offers[g].tolist()) if self.has_offers[g] else None
        s._shuffles = tuple(tuple(x) for x in self.shuffles[g].tolist())
        s._phase, s._player, s._turn = int(self.phase[g]), int(self.player[g]), int(self.turn[g])
        s._winner = None if self.winner[g] < 0 else int(self.winner[g])
        s._picks = [self.picks[g, p, : self.npicks[g, p]].tolist() for p in (0, 1)]
        s._played = [self.played[g, p, : self.nplayed[g, p]].tolist() for p in (0, 1)]
        s._card_of = tuple(self.card_of[g].tolist()) if s._phase != DRAFT else ()
        s._hands = [self.hands[g, p, : self.hand_len[g, p]].tolist() for p in (0, 1)]
        s._decks = [self.decks[g, p, : self.deck_len[g, p]].tolist() for p in (0, 1)]
        s._board = self.board[g].reshape(-1).tolist()
        s._lane_sizes = self.lane_sizes[g].tolist()
        s._health, s._base_mana = self.health[g].tolist(), self.base_mana[g].tolist()
        s._bonus_mana, s._mana = self.bonus_mana[g].tolist(), self.mana[g].tolist()
        s._rune, s._bonus_draw = self.rune[g].tolist(), self.bonus_draw[g].tolist()
        s._drawn = self.drawn[g].tolist()
        s._engaged = int(self.engaged[g])
        s._summoned = self.summoned[g, : self.nsummoned[g]].tolist()
        s._turn_log = [
            [(c, VERBS[v], o, t) for c, v, o, t in self.turn_log[g, p, : self.nlog[g, p]].tolist()] for p in (0, 1)
        ]
        return s

    # the interface -------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self._size

    def current_players(self) -> np.ndarray:
        return np.where(self.phase == ENDED, TERMINAL, self.player)

    def returns(self) -> np.ndarray:
        out = np.zeros((self._size, 2))
        over = self.winner >= 0
        out[over] = -1.0
        out[np.flatnonzero(over), self.winner[over]] = 1.0
        return out

    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """`LocmState.observation` of each game, built in array operations (games/locm.py lays it out)."""
        g = np.asarray(games, dtype=np.int64)
        me = self.player[g] if players is None else np.asarray(players, dtype=np.int64)
        k = len(g)
        out = np.zeros((k, OBSERVATION_SIZE), dtype=np.float32)
        phase = self.phase[g]
        draft = phase == DRAFT
        out[:, 0], out[:, 1] = draft, phase == BATTLE
        seats = 2 * g[:, None] + np.stack([me, 1 - me], axis=1)  # (game, seat) rows: the player's, then the other's
        mine = seats[:, 0]
        out[:, 2] = np.take(self.npicks, mine) / DECK_SIZE
        seat = (
            np.stack(
                [
                    np.take(self.health, seats),
                    np.take(self.mana, seats),
                    np.take(self.base_mana, seats) + np.take(self.bonus_mana, seats),
                    np.take(self.deck_len, seats),
                    np.take(self.rune, seats),
                    np.minimum(np.take(self.bonus_draw, seats), HAND_LIMIT),
                    np.take(self.hand_len, seats),
                ],
                axis=2,
            )
            / SEAT_SCALES
        )
        seat[..., 0] = np.clip(seat[..., 0], 0.0, 1.0)
        out[:, 3:17] = seat.reshape(k, 14)
        col = 17
        if draft.any():
            d = np.flatnonzero(draft)
            offers = self.offers[g[d], np.minimum(self.npicks[g[d], 1], DRAFT_TURNS - 1)]  # (d, 3)
            out[d, col : col + OFFERED * CARD_FEATURES] = CARD_FEATURE_TABLE[offers].reshape(len(d), -1)
        col += OFFERED * CARD_FEATURES
        out[:, col : col + CURVE] = np.take(self.curves.reshape(-1, CURVE), mine, axis=0) / DECK_SIZE
        col += CURVE
        hand = np.take(self.hands.reshape(-1, HAND_LIMIT), mine, axis=0)
        in_hand = np.arange(HAND_LIMIT) < np.take(self.hand_len, mine)[:, None]
        cards = np.where(in_hand, np.take(self.card_of, INSTANCES * g[:, None] + hand), 0)
        out[:, col : col + HAND_LIMIT * CARD_FEATURES] = np.take(CARD_FEATURE_TABLE, cards, axis=0).reshape(
            k, HAND_LIMIT * CARD_FEATURES
        )
        col += HAND_LIMIT * CARD_FEATURES
        slots = 4 * g[:, None] + ((np.arange(4)[None, :] + 2 * me[:, None]) & 3)  # own lanes, then the opponent's
        board = np.take(self.board.reshape(-1, LANE_LIMIT, FIELDS), slots, axis=0)  # (k, 4, 3, F)
        kw = board[..., KW]
        able = (board[..., ATTACKED] == 0) & ((board[..., READY] != 0) | ((kw & CHARGE) != 0))
        # each creature's row of CREATURE_TABLE: its attack (never negative), defense, keywords, whether it can attack
        code = np.clip(board[..., ATK], 0, 12).astype(np.int64)
        code += 13 * np.clip(board[..., DEF], 0, 12)
        code += 169 * (kw + 64 * able)
        code += 1
        code *= np.arange(LANE_LIMIT) < np.take(self.lane_sizes, slots)[:, :, None]  # an empty place: row 0
        out[:, col:] = np.take(CREATURE_TABLE, code, axis=0).reshape(k, OBSERVATION_SIZE - col)
        return out

    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        n = len(games)
        mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
        phase = self.phase[games]
        mask[phase == DRAFT, PICK:] = True
        rows = np.flatnonzero(phase == BATTLE)
        if not len(rows):
            return mask
        g = games[rows]
        p = self.player[g]
        o = 1 - p
        mask[rows, 0] = True
        sizes = self.lane_sizes[g]
        own = sizes[np.arange(len(g))[:, None], 2 * p[:, None] + np.arange(2)]  # (k, 2)
        enemy = sizes[np.arange(len(g))[:, None], 2 * o[:, None] + np.arange(2)]
        hand = self.hands[g, p]  # (k, 8)
        in_hand = np.arange(HAND_LIMIT) < self.hand_len[g, p][:, None]
        cards = self.card_of[g[:, None], hand]
        kind = TYPE[cards]
        affordable = in_hand & (COST[cards] <= self.mana[g, p][:, None])
        creature = affordable & (kind == CREATURE)
        summon = creature[:, :, None] & (own < LANE_LIMIT)[:, None, :]  # (k, 8, 2)
        mask[rows, SUMMON:USE] = summon.reshape(len(g), -1)
        place = np.arange(3)
        own_places = (place[None, None, :] < own[:, :, None]).reshape(len(g), 6)  # left 0..2, right 0..2
        enemy_places = (place[None, None, :] < enemy[:, :, None]).reshape(len(g), 6)
        targets = np.zeros((len(g), HAND_LIMIT, 13), dtype=bool)
        green = affordable & (kind == GREEN)
        hostile = affordable & ((kind == RED) | (kind == BLUE))
        targets[:, :, 0] = affordable & (kind == BLUE)
        targets[:, :, 1:7] = green[:, :, None] & own_places[:, None, :]
        targets[:, :, 7:13] = hostile[:, :, None] & enemy_places[:, None, :]
        mask[rows, USE:ATTACK] = targets.reshape(len(g), -1)
        lanes = 2 * p[:, None] + np.arange(2)  # (k, 2)
        board = self.board[g[:, None], lanes]  # (k, 2, 3, F)
        able = (
            (place[None, None, :] < own[:, :, None])
            & (board[..., ATTACKED] == 0)
            & ((board[..., READY] != 0) | ((board[..., KW] & CHARGE) != 0))
        )
        foes = self.board[g[:, None], 2 * o[:, None] + np.arange(2)]  # (k, 2, 3, F)
        present = place[None, None, :] < enemy[:, :, None]
        guards = present & ((foes[..., KW] & GUARD) != 0)
        guarded = guards.any(axis=2)  # (k, 2)
        options = np.zeros((len(g), 2, 4), dtype=bool)
        options[:, :, 0] = ~guarded
        options[:, :, 1:] = np.where(guarded[:, :, None], guards, present)
        attack = able[:, :, :, None] & options[:, :, None, :]  # (k, 2, 3, 4)
        mask[rows, ATTACK:PICK] = attack.reshape(len(g), -1)
        return mask

    def _legal(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Whether each game's action is in its legal mask, without building the masks: each kind of
        action checked only in the games that take it."""
        a = actions
        ok = np.zeros(len(games), dtype=bool)
        phase = self.phase[games]
        draft = phase == DRAFT
        ok[draft] = (a[draft] >= PICK) & (a[draft] < PICK + 3)
        battle = phase == BATTLE
        ok[battle & (a == 0)] = True  # pass
        for low, high, check in (
            (SUMMON, USE, self._legal_summon),
            (USE, ATTACK, self._legal_use),
            (ATTACK, PICK, self._legal_attack),
        ):
            rows = np.flatnonzero(battle & (a >= low) & (a < high))
            if len(rows):
                ok[rows] = check(games[rows], a[rows])
        return ok

    def _playable(self, g: np.ndarray, p: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether hand place `h` holds a card its owner can pay for, and that card's type."""
        card = self.card_of[g, self.hands[g, p, h]]
        return (h < self.hand_len[g, p]) & (COST[card] <= self.mana[g, p]), TYPE[card]

    def _legal_summon(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        p = self.player[g]
        playable, kind = self._playable(g, p, (a - SUMMON) >> 1)
        return playable & (kind == CREATURE) & (self.lane_sizes[g, 2 * p + ((a - SUMMON) & 1)] < LANE_LIMIT)

    def _legal_use(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        p = self.player[g]
        playable, kind = self._playable(g, p, (a - USE) // 13)
        t = (a - USE) % 13
        side, place = np.divmod(np.maximum(t - 1, 0), 6)
        target_lane, i = np.divmod(place, 3)
        owner = np.where(side == 0, p, 1 - p)
        exists = i < self.lane_sizes[g, 2 * owner + target_lane]
        fits = np.where(t == 0, kind == BLUE, np.where(side == 0, kind == GREEN, (kind == RED) | (kind == BLUE)))
        return playable & (kind != CREATURE) & fits & ((t == 0) | exists)

    def _legal_attack(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        p = self.player[g]
        k = np.arange(len(g))
        target = (a - ATTACK) & 3
        lane, i = np.divmod((a - ATTACK) >> 2, 3)
        own_slot = 4 * g + 2 * p + lane  # rows of (game, lane)
        foe_slot = 4 * g + 2 * (1 - p) + lane
        here = np.take(self.board.reshape(-1, FIELDS), LANE_LIMIT * own_slot + i, axis=0)
        able = (
            (i < np.take(self.lane_sizes, own_slot))
            & (here[:, ATTACKED] == 0)
            & ((here[:, READY] != 0) | ((here[:, KW] & CHARGE) != 0))
        )
        present = np.arange(LANE_LIMIT)[None, :] < np.take(self.lane_sizes, foe_slot)[:, None]
        foes = np.take(self.board.reshape(-1, LANE_LIMIT, FIELDS), foe_slot, axis=0)
        guards = present & ((foes[..., KW] & GUARD) != 0)
        guarded = guards[:, 0] | guards[:, 1] | guards[:, 2]
        j = np.maximum(target - 1, 0)
        return able & np.where(target == 0, ~guarded, present[k, j] & (~guarded | guards[k, j]))

    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        ok = self._legal(games, actions)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise IllegalActionError(f"locm: action {int(actions[i])} is not legal in game {int(games[i])}")
        draft = self.phase[games] == DRAFT
        if draft.any():
            self._pick(games[draft], actions[draft] - PICK)
        battle = ~draft
        g, a = games[battle], actions[battle]
        passing = a == 0
        if passing.any():
            gp = g[passing]
            self.turn[gp] += self.player[gp] == 1
            self.player[gp] = 1 - self.player[gp]
            self._start_turn(gp)
        summon = (a > 0) & (a < USE)
        if summon.any():
            self._summon(g[summon], (a[summon] - SUMMON) >> 1, (a[summon] - SUMMON) & 1)
        use = (a >= USE) & (a < ATTACK)
        if use.any():
            self._use(g[use], (a[use] - USE) // 13, (a[use] - USE) % 13)
        attack = a >= ATTACK
        if attack.any():
            self._attack(g[attack], (a[attack] - ATTACK) >> 2, (a[attack] - ATTACK) & 3)
        acted = g[~passing]
        if len(acted):
            self._remove_dead(acted)
        if len(g):
            self._check_end(g)

    # the rules -----------------------------------------------------------------------------------
    def _pick(self, g: np.ndarray, k: np.ndarray) -> None:
        p = self.player[g]
        rows = 2 * g + p
        turn = np.take(self.npicks, 2 * g + 1)
        taken = np.take(self.npicks, rows)
        card = np.take(self.offers, 3 * (DRAFT_TURNS * g + turn) + k)
        np.put(self.picks, DECK_SIZE * rows + taken, card)
        np.put(self.npicks, rows, taken + 1)
        curves = self.curves.reshape(-1, CURVE)
        curves[rows, COST[card]] += 1  # one pick per game: the (row, column) pairs differ
        curves[rows, 13 + TYPE[card]] += 1
        first = p == 0
        self.player[g[first]] = 1
        second = g[~first]
        more = self.npicks[second, 1] < DRAFT_TURNS
        self.player[second[more]] = 0
        if (~more).any():
            self._start_battle(second[~more])

    def _start_battle(self, g: np.ndarray) -> None:
        self.phase[g] = BATTLE
        k = np.arange(DECK_SIZE)
        for p in (0, 1):
            order = np.take_along_axis(self.picks[g, p], self.shuffles[g, p], axis=1)
            self.card_of[g[:, None], 2 * k + 1 + p] = order
            self.decks[g, p] = 2 * k[::-1] + 1 + p
            self.deck_len[g, p] = DECK_SIZE
        zero, one = np.zeros(len(g), dtype=np.int64), np.ones(len(g), dtype=np.int64)
        for _ in range(4):
            self._draw_one(g, zero)
        for _ in range(4):
            self._draw_one(g, one)
        self._draw_one(g, one)
        self.bonus_mana[g, 1] = 1
        self.turn[g] = 1
        self.player[g] = 0
        self._start_turn(g)

    def _draw_one(self, g: np.ndarray, p: np.ndarray) -> None:
        """A card from the deck's end into the hand (the deck holds one and the hand has room)."""
        rows = 2 * g + p  # (game, seat) rows, read and written flat with take and put
        top = np.take(self.deck_len, rows) - 1
        held = np.take(self.hand_len, rows)
        np.put(self.hands, HAND_LIMIT * rows + held, np.take(self.decks, DECK_SIZE * rows + top))
        np.put(self.decks, DECK_SIZE * rows + top, 0)
        np.put(self.deck_len, rows, top)
        np.put(self.hand_len, rows, held + 1)

    def _damage_player(self, g: np.ndarray, p: np.ndarray, amount: np.ndarray) -> None:
        rows = 2 * g + p
        health = np.take(self.health, rows) - amount
        np.put(self.health, rows, health)
        rune = np.take(self.rune, rows)
        # the runes at or above the health break: the next is the highest multiple of 5 below it
        below = np.maximum(0, RUNE_STEP * (-(-health // RUNE_STEP)) - RUNE_STEP)
        left = np.minimum(rune, below)
        np.put(self.bonus_draw, rows, np.take(self.bonus_draw, rows) + (rune - left) // RUNE_STEP)
        np.put(self.rune, rows, left)

    def _start_turn(self, g: np.ndarray) -> None:
        p = self.player[g]
        rows = 2 * g + p  # (game, seat) rows of the seat arrays
        sides = self.board.reshape(-1, 2, LANE_LIMIT, FIELDS)
        own = np.take(sides, rows, axis=0)
        # an empty place holds zeros, so the flags are written for every place
        own[..., READY] = np.arange(LANE_LIMIT) < np.take(self.lane_sizes.reshape(-1, 2), rows, axis=0)[:, :, None]
        own[..., ATTACKED] = 0
        sides[rows] = own
        base, mana, bonus = np.take(self.base_mana, rows), np.take(self.mana, rows), np.take(self.bonus_mana, rows)
        bonus = np.where((base > 0) & (mana == 0), 0, bonus)
        base = np.minimum(base + 1, MAX_MANA)
        np.put(self.bonus_mana, rows, bonus)
        np.put(self.base_mana, rows, base)
        np.put(self.mana, rows, base + bonus)
        late = self.turn[g] > 50
        if late.any():
            self.decks[g[late], p[late]] = 0
            self.deck_len[g[late], p[late]] = 0
        draws = 1 + np.take(self.bonus_draw, rows)
        np.put(self.drawn, rows, draws)  # runes an empty deck breaks now add no draws
        np.put(self.nlog, rows, 0)
        drawing = np.ones(len(g), dtype=bool)
        for k in range(int(draws.max())):
            active = drawing & (k < draws)
            if not active.any():
                break
            empty = active & (np.take(self.deck_len, rows) == 0)
            if empty.any():
                ge, pe, re = g[empty], p[empty], rows[empty]
                self._damage_player(ge, pe, np.take(self.health, re) - np.take(self.rune, re))
            full = active & ~empty & (np.take(self.hand_len, rows) >= HAND_LIMIT)
            drawing &= ~full
            draw = active & ~empty & ~full
            if draw.any():
                self._draw_one(g[draw], p[draw])
        np.put(self.bonus_draw, rows, 0)

    def _take_from_hand(self, g: np.ndarray, p: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Remove hand place `h` (the later cards close up; the card counts as played): its
        instance and card numbers."""
        rows = 2 * g + p
        hands = self.hands.reshape(-1, HAND_LIMIT)
        hand = np.take(hands, rows, axis=0)
        k = np.arange(len(g))
        instance = hand[k, h]
        j = np.arange(HAND_LIMIT)
        hand = np.take_along_axis(hand, np.minimum(j[None, :] + (j[None, :] >= h[:, None]), HAND_LIMIT - 1), axis=1)
        last = np.take(self.hand_len, rows) - 1
        hand[k, last] = 0
        hands[rows] = hand
        np.put(self.hand_len, rows, last)
        card = np.take(self.card_of, INSTANCES * g + instance)
        played = np.take(self.nplayed, rows)
        np.put(self.played, DECK_SIZE * rows + played, card)
        np.put(self.nplayed, rows, played + 1)
        return instance, card

    def _card_effects(self, g: np.ndarray, p: np.ndarray, card: np.ndarray) -> None:
        rows = 2 * g + p
        np.put(self.bonus_draw, rows, np.take(self.bonus_draw, rows) + DRAW[card])
        self._damage_player(g, p, -OWN_HP[card])
        self._damage_player(g, 1 - p, -ENEMY_HP[card])
        np.put(self.mana, rows, np.take(self.mana, rows) - COST[card])

    def _summon(self, g: np.ndarray, h: np.ndarray, lane: np.ndarray) -> None:
        p = self.player[g]
        instance, card = self._take_from_hand(g, p, h)
        lanes = 4 * g + 2 * p + lane  # (game, lane) rows
        at = np.take(self.lane_sizes, lanes)
        fields = np.zeros((len(g), FIELDS), dtype=np.int64)
        fields[:, INSTANCE], fields[:, CARD] = instance, card
        fields[:, ATK], fields[:, DEF], fields[:, KW] = CARD_ATK[card], CARD_DEF[card], CARD_KW[card]
        self.board.reshape(-1, FIELDS)[LANE_LIMIT * lanes + at] = fields
        np.put(self.lane_sizes, lanes, at + 1)
        np.put(self.summoned, INSTANCES * g + self.nsummoned[g], instance)
        self.nsummoned[g] += 1
        self._log(g, p, card, SUMMON_VERB, instance, lane)
        self._card_effects(g, p, card)

    def _log(self, g: np.ndarray, p: np.ndarray, card, verb: int, origin, target) -> None:
        """Append (card, verb, origin, target) to each game's log of the turn of its player `p`."""
        rows = 2 * g + p
        k = np.take(self.nlog, rows)
        logs = self.turn_log.reshape(-1, TURN_LOG, 4)
        logs[rows, k] = np.stack(np.broadcast_arrays(card, verb, origin, target), axis=1)
        np.put(self.nlog, rows, k + 1)

    def _place(self, g: np.ndarray, slot: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Where the fields of the creature at (lane `slot`, place `at`) of each game begin in the flat
        board: read a field with `np.take(self.board, where + FIELD)`, write it with `np.put`."""
        return FIELDS * (LANE_LIMIT * (4 * g + slot) + at)

    def _damage_creature(self, at: np.ndarray, amount: np.ndarray, lethal: np.ndarray) -> np.ndarray:
        """Damage dealt to the creature whose fields begin at `at` (`_place`), Ward and Lethal applied."""
        board = self.board
        kw = np.take(board, at + KW)
        hits = amount > 0
        warded = hits & ((kw & WARD) != 0)
        np.put(board, at + KW, np.where(warded, kw & ~WARD, kw))
        taken = hits & ~warded
        defense = np.take(board, at + DEF) - np.where(taken, amount, 0)
        np.put(board, at + DEF, defense)
        dies = taken & (lethal | (defense <= 0))
        np.put(board, at + DEAD, np.take(board, at + DEAD) | dies)
        return np.where(taken, amount, 0)

    def _use(self, g: np.ndarray, h: np.ndarray, target: np.ndarray) -> None:
        p = self.player[g]
        o = 1 - p
        instance, card = self._take_from_hand(g, p, h)
        at_player = target == 0
        side, place = np.divmod(np.maximum(target, 1) - 1, 6)
        lane, i = np.divmod(place, 3)
        where = self._place(g, 2 * np.where(side == 0, p, o) + lane, i)
        target_instance = np.take(self.board, where + INSTANCE).astype(np.int64)
        self._log(g, p, card, USE_VERB, instance, np.where(at_player, -1, target_instance))
        self.engaged[g] |= np.where(at_player, 0, np.left_shift(1, target_instance))
        if at_player.any():
            self._damage_player(g[at_player], o[at_player], -CARD_DEF[card[at_player]])
        on = ~at_player
        if on.any():
            gc, cc, t = g[on], card[on], target[on]
            side, place = np.divmod(t - 1, 6)
            lane, i = np.divmod(place, 3)
            at = self._place(gc, 2 * np.where(side == 0, p[on], o[on]) + lane, i)
            board = self.board
            np.put(board, at + ATK, np.maximum(0, np.take(board, at + ATK) + CARD_ATK[cc]))
            green = TYPE[cc] == GREEN
            kw = np.take(board, at + KW)
            np.put(board, at + DEF, np.take(board, at + DEF) + np.where(green, CARD_DEF[cc], 0))
            np.put(board, at + KW, np.where(green, kw | CARD_KW[cc], kw & ~CARD_KW[cc]))
            hostile = ~green
            if hostile.any():
                self._damage_creature(at[hostile], -CARD_DEF[cc[hostile]], np.zeros(int(hostile.sum()), bool))
            np.put(board, at + DEAD, np.take(board, at + DEAD) | (np.take(board, at + DEF) <= 0))
        self._card_effects(g, p, card)

    def _attack(self, g: np.ndarray, c: np.ndarray, target: np.ndarray) -> None:
        board = self.board
        p = self.player[g]
        o = 1 - p
        lane, i = np.divmod(c, 3)
        me = self._place(g, 2 * p + lane, i)
        power = np.take(board, me + ATK)
        foes = self._place(g, 2 * o + lane, np.maximum(target, 1) - 1)
        foe_instance = np.where(target == 0, -1, np.take(board, foes + INSTANCE))
        self._log(g, p, np.take(board, me + CARD), ATTACK_VERB, np.take(board, me + INSTANCE), foe_instance)
        self.engaged[g] |= np.left_shift(1, np.take(board, me + INSTANCE).astype(np.int64))
        self.engaged[g] |= np.where(target == 0, 0, np.left_shift(1, np.maximum(foe_instance, 0).astype(np.int64)))
        dealt = np.zeros(len(g), dtype=np.int64)
        face = target == 0
        if face.any():
            self._damage_player(g[face], o[face], power[face])
            dealt[face] = power[face]
        fight = ~face
        if fight.any():
            mine = me[fight]
            foe = self._place(g[fight], 2 * o[fight] + lane[fight], target[fight] - 1)
            defense = np.take(board, foe + DEF)
            lethal = (np.take(board, mine + KW) & LETHAL) != 0
            hit = self._damage_creature(foe, power[fight], lethal)
            back = np.take(board, foe + ATK)
            foe_lethal = (np.take(board, foe + KW) & LETHAL) != 0
            self._damage_creature(mine, back, foe_lethal)
            excess = hit - defense
            through = ((np.take(board, mine + KW) & BREAKTHROUGH) != 0) & (excess > 0)
            if through.any():
                self._damage_player(g[fight][through], o[fight][through], excess[through])
            dealt[fight] = hit
        drain = (np.take(board, me + KW) & DRAIN) != 0
        if drain.any():
            rows = 2 * g[drain] + p[drain]
            np.put(self.health, rows, np.take(self.health, rows) + dealt[drain])
        np.put(board, me + ATTACKED, 1)

    def _remove_dead(self, g: np.ndarray) -> None:
        dead = np.take(self.board[..., DEAD], g, axis=0) != 0  # (k, 4, 3)
        dying = dead.reshape(len(g), -1).any(axis=1)
        if not dying.any():
            return
        g, dead = g[dying], dead[dying]
        # the living keep their order at the front of each lane: one of 8 orders by the lane's dead
        order = ALIVE_FIRST[dead[..., 0] + 2 * dead[..., 1] + 4 * dead[..., 2]]  # (k, 4, 3)
        lanes = LANE_LIMIT * np.arange(4 * len(g)).reshape(len(g), 4, 1)
        board = np.take(self.board[g].reshape(-1, FIELDS), (lanes + order).ravel(), axis=0).reshape(
            -1, 4, LANE_LIMIT, FIELDS
        )
        alive = self.lane_sizes[g] - dead.sum(axis=2)
        board[np.arange(LANE_LIMIT)[None, None, :] >= alive[:, :, None]] = 0
        self.board[g] = board
        self.lane_sizes[g] = alive

    def _check_end(self, g: np.ndarray) -> None:
        lost0 = np.take(self.health, 2 * g) <= 0
        lost1 = ~lost0 & (np.take(self.health, 2 * g + 1) <= 0)
        over = lost0 | lost1
        self.winner[g[lost0]] = 1
        self.winner[g[lost1]] = 0
        self.phase[g[over]] = ENDED
        self.player[g[over]] = TERMINAL
