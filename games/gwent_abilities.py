"""Gwent Abilities: two players, three rows, best of three rounds, a pool of cards with abilities
(games/RULES.md §8). The card pool and the deck rules are in games/gwent_abilities_cards.py; the
words (`str`, `view`, `describe_move`) in games/gwent_abilities_text.py.

Actions (§8.7): `0` = pass, `1 + k` = card `k` of the pool (`CARDS[k]`): play it from the hand, or,
while a choice is pending, revive it from the discard pile (medic) or take it back from the board
(decoy). Zones are kept as counts per card, so no order but the draw pile's carries information.

Chance (§8.8): all of it happens in `new_initial_state(rng)`, which draws, in this order, the
round-1 leader, one shuffle seed per seat, and (without given decks) a seed for the two seats' decks
(random, or from a deck_pool).

Observation (§8.9) of `player` (float32, length `8 * K + 22`, K = len(CARDS) cards), every feature in
[0, 1]; card counts are scaled by 2 x copy_limit (the most copies two decks can hold), strengths by
STRENGTH_SCALE and sizes by max_cards, each capped at 1:
    [0K, 1K)    own hand, count per card
    [1K, 2K)    own draw pile, count per card (its order is hidden)
    [2K, 3K)    own side of the board, count per card
    [3K, 4K)    own discard pile, count per card
    [4K, 5K)    opponent's side of the board
    [5K, 6K)    opponent's discard pile
    [6K, 7K)    opponent's unplayed cards (hand + draw pile, a public multiset)
    [7K, 8K)    opponent's cards known to be in hand (taken back with a decoy)
    8K + 0..2   weather on melee, ranged, siege (0/1)
    8K + 3..5   own row strengths;   8K + 6..8  opponent's row strengths
    8K + 9, 10  own total, opponent's total
    8K + 11..14 own hand size, own draw-pile size, opponent's hand size, opponent's draw-pile size
    8K + 15, 16 own round wins, opponent's round wins (/ rounds_to_win)
    8K + 17, 18 own passed, opponent passed (0/1)
    8K + 19     round / max rounds
    8K + 20, 21 a medic's choice pending, a decoy's choice pending (0/1)
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass
from functools import partial

import numpy as np

from games.base import TERMINAL, Game, GameFacts, State, as_generator, is_whole
from games.config import need, setting
from games.deckfile import deck_settings_with_rules
from games.gwent_abilities_cards import (
    BOND,
    CARD_INDEX,
    CARDS,
    CLEAR,
    DECOY,
    HORN,
    MEDIC,
    MORALE,
    MUSTER,
    SCORCH,
    SPY,
    WEATHER,
    AbilityDeckRules,
    load_ability_deck,
)
from games.rounds import RoundFacts, deal

MAX_ROUNDS_TO_WIN = 100
#: row strengths are scaled by this in the observation (and totals by twice it), capped at 1
STRENGTH_SCALE = 100.0
#: the pending choices (§8.3): none, a medic's (revive a unit), a decoy's (take a unit back)
NO_CHOICE, MEDIC_CHOICE, DECOY_CHOICE = 0, 1, 2

K = len(CARDS)
_POWER = [c.power for c in CARDS]
_ABILITY = [c.ability for c in CARDS]
_HERO = [c.hero for c in CARDS]
#: the units of each row, by card index
_ROW_UNITS = [[k for k, c in enumerate(CARDS) if c.unit and c.row == r] for r in range(3)]
#: units a medic may revive and a decoy may take back: not heroes
_ORDINARY = [c.unit and not c.hero for c in CARDS]
_ORDINARY_IDS = [k for k in range(K) if _ORDINARY[k]]
# the abilities that change other units' strengths, on units that are not heroes (ints: 1 or 0)
_MORALE_UNIT = [int(c.ability == MORALE and not c.hero) for c in CARDS]
_HORN_UNIT = [int(c.ability == HORN and not c.hero) for c in CARDS]
_BOND_UNIT = [c.ability == BOND and not c.hero for c in CARDS]
_WEATHER_CARD = [next(k for k, c in enumerate(CARDS) if c.ability == WEATHER and c.row == r) for r in range(3)]


#: the observation's blocks of K per-card counts (GwentAbilitiesState._features): the mover's hand, draw
#: pile, board and discard pile, the opponent's board, discard pile, unplayed cards and known hand cards
CARD_BLOCKS = 8
#: the observation's length: the per-card blocks, then 22 facts of the board and the round
OBSERVATION_SIZE = CARD_BLOCKS * K + 22


def action_feature_index() -> np.ndarray:
    """`GwentAbilities.action_feature_index`: action a (pass, or card a-1 played, revived by a medic or
    taken back by a decoy, as the observation's pending flags say) is described by the card's entry in
    each of the observation's CARD_BLOCKS per-card blocks (none for a pass) and a one-hot of the action
    (the card's identity, so its power, row and ability can be learned)."""
    one, zero = OBSERVATION_SIZE, OBSERVATION_SIZE + 1
    rows = []
    for action in range(1 + K):
        counts = [zero] * CARD_BLOCKS if action == 0 else [b * K + action - 1 for b in range(CARD_BLOCKS)]
        rows.append(counts + [one if a == action else zero for a in range(1 + K)])
    return np.array(rows, dtype=np.int64)


@dataclass(frozen=True)
class GwentAbilitiesConfig:
    """The settings of a game (games/RULES.md §8); `games.make("gwent_abilities", **settings)`."""

    rules: AbilityDeckRules = setting(
        factory=AbilityDeckRules,
        help="the deck rules (min_cards, max_cards, copy_limit, gold_copy_limit, provision_budget)",
        flag=False,
    )
    decks: list[list[str]] | None = setting(
        None, "each seat's deck as card names; none: a random legal deck per seat at every new game", flag=False
    )
    deck_pool: list[list[str]] | None = setting(
        None,
        "with decks none: each seat's deck is one of these (with chance pool_share; else a random legal deck)",
        flag=False,
    )
    pool_share: float = setting(1.0, "with a deck_pool: the chance that a seat's deck comes from it", metavar="P")
    hand_size: int = setting(10, "cards each player draws to start; round draws stop at this many", metavar="N")
    round_draw: int = setting(2, "cards each player draws after a round (fewer if the hand is full)", metavar="N")
    spy_draw: int = setting(2, "cards a spy's player draws", metavar="N")
    rounds_to_win: int = setting(2, f"round wins that win the game, 1 to {MAX_ROUNDS_TO_WIN}", metavar="N")

    def __post_init__(self):
        need(
            isinstance(self.rules, AbilityDeckRules),
            f"gwent_abilities: rules must be AbilityDeckRules, got {type(self.rules).__name__}",
        )
        limits = {
            "hand_size": (1, None),
            "round_draw": (0, None),
            "spy_draw": (0, 10),
            "rounds_to_win": (1, MAX_ROUNDS_TO_WIN),
        }
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            span = f"from {low}" + (f" to {high}" if high else "")
            ok = is_whole(value) and value >= low and (high is None or value <= high)
            need(ok, f"gwent_abilities: {name} must be a whole number {span}, got {value!r}")
            object.__setattr__(self, name, int(value))
        if self.decks is not None:
            need(
                isinstance(self.decks, (list, tuple)) and len(self.decks) == 2,
                "gwent_abilities: decks must be a list of 2 decks (one per seat) or None",
            )
            decks = [self.rules.validate(d, what=f"gwent_abilities: seat {p}'s deck") for p, d in enumerate(self.decks)]
            object.__setattr__(self, "decks", decks)
        need(
            isinstance(self.pool_share, (int, float)) and 0.0 <= self.pool_share <= 1.0,
            f"gwent_abilities: pool_share must be in [0, 1], got {self.pool_share!r}",
        )
        if self.deck_pool is not None:
            need(
                isinstance(self.deck_pool, (list, tuple)) and len(self.deck_pool) >= 1,
                "gwent_abilities: deck_pool must be a non-empty list of decks (card names) or None",
            )
            pool = [
                self.rules.validate(d, what=f"gwent_abilities: deck_pool[{i}]") for i, d in enumerate(self.deck_pool)
            ]
            object.__setattr__(self, "deck_pool", pool)


class GwentAbilities(Game):
    name = "gwent_abilities"
    num_players = 2
    num_actions = 1 + K
    observation_size = OBSERVATION_SIZE
    config_class = GwentAbilitiesConfig
    facts = GameFacts(
        default_agent="gwent_abilities_evaluator",
        pretrained="gwent_abilities_evaluator",
        deck_files=partial(deck_settings_with_rules, load_ability_deck),
        hidden_information=True,
    )
    action_feature_index = action_feature_index()

    def __init__(self, config: GwentAbilitiesConfig | None = None):
        self.config = c = GwentAbilitiesConfig() if config is None else config
        self.max_rounds = 2 * c.rounds_to_win - 1
        count = 1 / (2 * c.rules.copy_limit)
        size = 1 / c.rules.max_cards
        row = 1 / STRENGTH_SCALE
        scale = [count] * (8 * K) + [1.0] * 3 + [row] * 6 + [row / 2] * 2 + [size] * 4
        scale += [1 / c.rounds_to_win] * 2 + [1.0] * 2 + [1 / self.max_rounds] + [1.0] * 2
        self._obs_scale = np.array(scale, dtype=np.float32)

    def new_initial_state(self, rng: np.random.Generator | int) -> GwentAbilitiesState:
        """A fresh game from `rng` (a Generator or a seed; required): the leader coin, then one
        shuffle seed per seat, then (decks=None) the seed of both seats' decks (`_dealt_deck`)."""
        rng = as_generator(rng)
        leader = int(rng.integers(2))
        seat_seeds = rng.integers(2**63, size=2).tolist()
        decks = self.config.decks
        if decks is None:
            deck_rng = np.random.default_rng(int(rng.integers(2**63)))
            decks = [self._dealt_deck(deck_rng), self._dealt_deck(deck_rng)]
        orders = [
            np.random.default_rng(seat_seeds[p]).permutation([CARD_INDEX[c] for c in decks[p]]).tolist() for p in (0, 1)
        ]
        return GwentAbilitiesState(self, orders, leader)

    def _dealt_deck(self, deck_rng: np.random.Generator) -> list[str]:
        """A random legal deck, or (with a deck_pool) one of the pool's with chance pool_share; without
        a pool no draw decides, so such games deal as the rules' own `random_deck` always has."""
        c = self.config
        if c.deck_pool and deck_rng.random() < c.pool_share:
            return c.deck_pool[int(deck_rng.integers(len(c.deck_pool)))]
        return c.rules.random_deck(deck_rng)

    def action_name(self, action: int) -> str:
        return "pass" if action == 0 else f"play {CARDS[action - 1].name}"

    def observations(self, states, players=None) -> np.ndarray:
        if players is None:
            players = [s.current_player for s in states]
        raw = b"".join([s._feature_bytes(p) for s, p in zip(states, players)])
        out = np.frombuffer(raw, dtype=np.uint8).reshape(len(players), -1).astype(np.float32) * self._obs_scale
        return np.minimum(out, 1.0, out=out)


class GwentAbilitiesState(RoundFacts, State):
    # fmt: off
    __slots__ = (
        "game", "_piles", "_pile_counts", "_hands", "_hand_sizes", "_known", "_boards", "_discards",
        "_weather_cards", "_rows", "_wins", "_passed", "_round", "_leader", "_first_leader", "_player",
        "_pending", "_last_totals", "_returns",
    )
    # fmt: on

    def __init__(self, game: GwentAbilities, orders: list[list[int]], leader: int):
        """A game whose seat `p` draws `orders[p]` (card indices, first drawn first); `leader`
        leads round 1."""
        self.game = game
        self._piles = [o[::-1] for o in orders]  # the next card at the END (list.pop is O(1))
        self._pile_counts = [[0] * K, [0] * K]
        for p in (0, 1):
            for k in orders[p]:
                self._pile_counts[p][k] += 1
        self._hands = [[0] * K, [0] * K]
        self._hand_sizes = [0, 0]
        self._known = [[0] * K, [0] * K]  # cards each player is known to hold (taken back by a decoy)
        self._boards = [[0] * K, [0] * K]  # the units on each side of the board
        self._discards = [[0] * K, [0] * K]
        self._weather_cards = [[0] * K, [0] * K]  # weather cards each player has in play
        self._rows = [[0, 0, 0], [0, 0, 0]]  # each side's row strengths
        self._wins = [0, 0]
        self._round = 1
        self._first_leader = leader
        self._pending = NO_CHOICE
        self._last_totals = None  # the totals the last round ended with
        self._returns = None
        for p in (0, 1):
            self._draw(p, game.config.hand_size)
        self._start_round(leader)

    # rules ------------------------------------------------------------------------------------
    def _draw(self, p: int, n: int) -> None:
        pile, pc, hand = self._piles[p], self._pile_counts[p], self._hands[p]
        n = max(0, min(n, len(pile)))
        for _ in range(n):
            k = pile.pop()
            pc[k] -= 1
            hand[k] += 1
        self._hand_sizes[p] += n

    def _start_round(self, leader: int) -> None:
        """Round `self._round` begins; a round in which both hands are empty ends at once."""
        while True:
            self._leader = leader
            self._passed = [self._hand_sizes[0] == 0, self._hand_sizes[1] == 0]
            if not self._passed[leader]:
                self._player = leader
                return
            if not self._passed[1 - leader]:
                self._player = 1 - leader
                return
            leader = self._end_round()
            if leader == TERMINAL:
                return

    def _end_round(self) -> int:
        """Score the round, clear the board and draw; the next round's leader, or TERMINAL."""
        t0, t1 = sum(self._rows[0]), sum(self._rows[1])
        self._last_totals = (t0, t1)
        leader = self._score_round(t0, t1, self.game.config.rounds_to_win)
        if leader == TERMINAL:
            return TERMINAL
        for p in (0, 1):
            board, weather, discard = self._boards[p], self._weather_cards[p], self._discards[p]
            for k in range(K):
                if board[k] or weather[k]:
                    discard[k] += board[k] + weather[k]
                    board[k] = weather[k] = 0
        self._rows = [[0, 0, 0], [0, 0, 0]]
        self._round += 1
        cap = self.game.config.hand_size
        for p in (0, 1):
            self._draw(p, min(self.game.config.round_draw, cap - self._hand_sizes[p]))
        return leader

    def _weather(self) -> list[bool]:
        w0, w1 = self._weather_cards
        return [bool(w0[k] or w1[k]) for k in _WEATHER_CARD]

    def _strengths(self, p: int, weather: list[bool], out: list[int] | None = None) -> list[int]:
        """The strengths of `p`'s melee, ranged and siege rows (§8.4); with `out`, also the
        strength of one copy of each card on `p`'s side, written into it."""
        board = self._boards[p]
        rows = [0, 0, 0]
        for r in range(3):
            units = [k for k in _ROW_UNITS[r] if board[k]]
            if not units:
                continue
            morale = horns = 0
            for k in units:
                if _MORALE_UNIT[k]:
                    morale += board[k]
                elif _HORN_UNIT[k]:
                    horns += board[k]
            total = 0
            for k in units:
                if _HERO[k]:
                    s = _POWER[k]
                else:
                    s = 1 if weather[r] else _POWER[k]
                    if _BOND_UNIT[k]:
                        s *= board[k]
                    s += morale - _MORALE_UNIT[k]
                    if horns > _HORN_UNIT[k]:
                        s *= 2
                if out is not None:
                    out[k] = s
                total += s * board[k]
            rows[r] = total
        return rows

    def _recount(self) -> None:
        weather = self._weather()
        self._rows = [self._strengths(0, weather), self._strengths(1, weather)]

    def _scorch(self) -> None:
        """Every non-hero unit of the greatest strength on the board, on both sides, to its side's
        discard pile (nothing if that strength is 0)."""
        weather = self._weather()
        strengths = [[0] * K, [0] * K]
        for p in (0, 1):
            self._strengths(p, weather, strengths[p])
        top = max((strengths[p][k] for p in (0, 1) for k in range(K) if self._boards[p][k] and _ORDINARY[k]), default=0)
        if top <= 0:
            return
        for p in (0, 1):
            board, discard = self._boards[p], self._discards[p]
            for k in range(K):
                if board[k] and _ORDINARY[k] and strengths[p][k] == top:
                    discard[k] += board[k]
                    board[k] = 0

    def _put(self, p: int, k: int) -> None:
        """Unit `k` enters play for player `p` (from the hand or the discard pile), with its ability."""
        a = _ABILITY[k]
        if a == SPY:
            self._boards[1 - p][k] += 1
            self._draw(p, self.game.config.spy_draw)
            return
        self._boards[p][k] += 1
        if a == MUSTER:
            hand, pile = self._hands[p], self._piles[p]
            n = hand[k] + self._pile_counts[p][k]
            if n:
                self._boards[p][k] += n
                self._hand_sizes[p] -= hand[k]
                hand[k] = self._known[p][k] = self._pile_counts[p][k] = 0
                self._piles[p] = [c for c in pile if c != k]
        elif a == MEDIC and self._revivable(p):
            self._pending = MEDIC_CHOICE

    def _revivable(self, p: int) -> bool:
        discard = self._discards[p]
        return any(discard[k] for k in _ORDINARY_IDS)

    def _decoy_target(self, p: int) -> bool:
        board = self._boards[p]
        return any(board[k] for k in _ORDINARY_IDS)

    def _play(self, p: int, k: int) -> None:
        """Player `p` plays card `k` from the hand."""
        hand = self._hands[p]
        hand[k] -= 1
        self._hand_sizes[p] -= 1
        if self._known[p][k] > hand[k]:
            self._known[p][k] = hand[k]
        a = _ABILITY[k]
        if a == SCORCH:
            self._discards[p][k] += 1
            self._scorch()
        elif a == WEATHER:
            self._weather_cards[p][k] += 1
        elif a == CLEAR:
            self._discards[p][k] += 1
            for q in (0, 1):
                weather, discard = self._weather_cards[q], self._discards[q]
                for w in _WEATHER_CARD:
                    discard[w] += weather[w]
                    weather[w] = 0
        elif a == DECOY:
            self._discards[p][k] += 1
            self._pending = DECOY_CHOICE
        else:
            self._put(p, k)

    # interface --------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> list[int]:
        p = self._player
        if p == TERMINAL:
            return []
        if self._pending == MEDIC_CHOICE:
            discard = self._discards[p]
            return [1 + k for k in _ORDINARY_IDS if discard[k]]
        if self._pending == DECOY_CHOICE:
            board = self._boards[p]
            return [1 + k for k in _ORDINARY_IDS if board[k]]
        hand = self._hands[p]
        decoy = self._decoy_target(p)
        return [0] + [1 + k for k in range(K) if hand[k] and (decoy or _ABILITY[k] != DECOY)]

    def is_legal(self, a: int) -> bool:
        """Whether action `a` (an int) is legal: legal_actions without building the list."""
        p = self._player
        if p == TERMINAL or not 0 <= a <= K:
            return False
        k = a - 1
        if self._pending == MEDIC_CHOICE:
            return a > 0 and _ORDINARY[k] and self._discards[p][k] > 0
        if self._pending == DECOY_CHOICE:
            return a > 0 and _ORDINARY[k] and self._boards[p][k] > 0
        return a == 0 or (self._hands[p][k] > 0 and (_ABILITY[k] != DECOY or self._decoy_target(p)))

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def apply_action(self, action: int) -> None:
        a = self.checked_action(action)
        p = self._player
        if self._pending == MEDIC_CHOICE:
            self._pending = NO_CHOICE
            self._discards[p][a - 1] -= 1
            self._put(p, a - 1)
        elif self._pending == DECOY_CHOICE:
            self._pending = NO_CHOICE
            k = a - 1
            self._boards[p][k] -= 1
            self._hands[p][k] += 1
            self._hand_sizes[p] += 1
            self._known[p][k] += 1
        elif a == 0:
            self._passed[p] = True
        else:
            self._play(p, a - 1)
        if a:
            self._recount()
        if self._pending != NO_CHOICE:
            return  # the same player chooses
        if self._hand_sizes[p] == 0:
            self._passed[p] = True  # an empty hand passes
        o = 1 - p
        if not self._passed[o]:
            self._player = o
        elif not self._passed[p]:
            self._player = p
        else:
            leader = self._end_round()
            if leader != TERMINAL:
                self._start_round(leader)

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def returns(self) -> np.ndarray:
        return np.zeros(2) if self._returns is None else np.array(self._returns)

    def observation(self, player: int) -> np.ndarray:
        return self.game.observations([self], [player])[0]

    def _feature_bytes(self, player: int) -> bytes:
        """The observation before scaling, one byte a feature (GwentAbilities.observations stacks many
        and scales them). Only row strengths can pass 255; every feature's scale caps it at 1.0 below
        that (the largest cap is 200), so a strength is kept as min(strength, 255) with no change."""
        o = 1 - player
        rows, other = self._rows[player], self._rows[o]
        strengths = [*rows, *other, sum(rows), sum(other)]
        counts = (
            self._hands[player],
            self._pile_counts[player],
            self._boards[player],
            self._discards[player],
            self._boards[o],
            self._discards[o],
            map(operator.add, self._hands[o], self._pile_counts[o]),  # the opponent's unplayed cards
            self._known[o],
            self._weather(),
            [v if v < 256 else 255 for v in strengths],
            [
                self._hand_sizes[player],
                len(self._piles[player]),
                self._hand_sizes[o],
                len(self._piles[o]),
                self._wins[player],
                self._wins[o],
                self._passed[player],
                self._passed[o],
                self._round,
                self._pending == MEDIC_CHOICE,
                self._pending == DECOY_CHOICE,
            ],
        )
        return b"".join([bytes(c) for c in counts])

    def clone(self) -> GwentAbilitiesState:
        s = GwentAbilitiesState.__new__(GwentAbilitiesState)
        s.game = self.game
        a, b = self._piles
        s._piles = [a[:], b[:]]
        a, b = self._pile_counts
        s._pile_counts = [a[:], b[:]]
        a, b = self._hands
        s._hands = [a[:], b[:]]
        a, b = self._known
        s._known = [a[:], b[:]]
        a, b = self._boards
        s._boards = [a[:], b[:]]
        a, b = self._discards
        s._discards = [a[:], b[:]]
        a, b = self._weather_cards
        s._weather_cards = [a[:], b[:]]
        a, b = self._rows
        s._rows = [a[:], b[:]]
        self._copy_round_fields(s)
        s._pending = self._pending
        s._last_totals = self._last_totals
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> GwentAbilitiesState:
        """The opponent's unknown hand cards and draw pile re-dealt from their union (a multiset
        `player` knows), sizes and known hand cards kept; `player`'s own draw pile reshuffled."""
        s = self.clone()
        o = 1 - player
        known = self._known[o]
        hidden = [k for k in range(K) for _ in range(self._hands[o][k] - known[k])] + sorted(self._piles[o])
        hidden = rng.permutation(sorted(hidden)).tolist() if hidden else []
        s._hands[o], s._pile_counts[o], s._piles[o] = deal(hidden, self._hand_sizes[o] - sum(known), known[:], K)
        own = sorted(self._piles[player])
        s._piles[player] = rng.permutation(own).tolist() if own else []
        return s

    # public facts -----------------------------------------------------------------------------
    @property
    def round_totals(self) -> tuple[int, int]:
        return (sum(self._rows[0]), sum(self._rows[1]))

    @property
    def row_strengths(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """Each side's melee, ranged and siege strengths."""
        return (tuple(self._rows[0]), tuple(self._rows[1]))

    @property
    def last_round_totals(self) -> tuple[int, int] | None:
        """The totals the last finished round ended with (None during round 1)."""
        return self._last_totals

    @property
    def weather(self) -> tuple[bool, bool, bool]:
        """Whether weather hits melee, ranged, siege."""
        return tuple(self._weather())

    @property
    def pending(self) -> int:
        """The choice the player to move owes: NO_CHOICE, MEDIC_CHOICE or DECOY_CHOICE."""
        return self._pending

    @property
    def boards(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The units on each side of the board, by name in pool order."""
        return _both(self._boards)

    @property
    def discard_piles(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return _both(self._discards)

    @property
    def weather_in_play(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The weather cards each player has in play."""
        return _both(self._weather_cards)

    @property
    def known_in_hand(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Cards each player is known to hold (taken back with a decoy and not played since)."""
        return _both(self._known)

    def hand(self, player: int) -> list[str]:
        """`player`'s hand by name, in pool order."""
        return list(_names(self._hands[player]))

    def unplayed(self, player: int) -> list[str]:
        """`player`'s hand + draw pile as a multiset in pool order (public: every move is)."""
        return list(_names([h + c for h, c in zip(self._hands[player], self._pile_counts[player])]))

    def draw_pile(self, player: int) -> list[str]:
        """The draw pile in draw order (next card first): hidden information, for tools/tests."""
        return [CARDS[k].name for k in reversed(self._piles[player])]

    def strength(self, player: int, card: str) -> int:
        """The strength of one copy of `card` on `player`'s side now (0 if none lies there)."""
        out = [0] * K
        self._strengths(player, self._weather(), out)
        return out[CARD_INDEX[card]]

    def cards(self) -> Counter:
        """Every card by name, wherever it lies: cards change sides (spies, decoys) but never
        appear or vanish."""
        out = Counter()
        for p in (0, 1):
            for zone in (self._hands[p], self._pile_counts[p], self._boards[p], self._discards[p]):
                for k, n in enumerate(zone):
                    if n:
                        out[CARDS[k].name] += n
            for k, n in enumerate(self._weather_cards[p]):
                if n:
                    out[CARDS[k].name] += n
        return out

    def action_name(self, action: int) -> str:
        """The move `action` means here: a play, a medic's revival or a decoy's target."""
        if action and self._pending == MEDIC_CHOICE:
            return f"revive {CARDS[action - 1].name}"
        if action and self._pending == DECOY_CHOICE:
            return f"take back {CARDS[action - 1].name}"
        return self.game.action_name(action)

    # words (games/gwent_abilities_text.py, which imports this module; games/registry.py attaches it) ---
    def __str__(self) -> str:
        return self.game.text_module.render(self)

    def view(self, player: int) -> str:
        """The game as `player` sees it: own hand and draw pile (as a multiset), the board, the
        discard piles; of the opponent's hand only its size, known cards and the unplayed multiset."""
        return self.game.text_module.render_view(self, player)

    def describe_move(self, before: GwentAbilitiesState, action: int, viewer: int) -> str:
        """The card played (and what its ability did) or the pass; at a round's end its result."""
        return self.game.text_module.describe_move(self, before, action, viewer)


def _names(counts: list[int]) -> tuple[str, ...]:
    return tuple(CARDS[k].name for k, n in enumerate(counts) for _ in range(n))


def _both(zones: list[list[int]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (_names(zones[0]), _names(zones[1]))
