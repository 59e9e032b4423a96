"""Durak ("fool"), the rules of games/RULES.md §6: 2..4 players, 36 cards, the podkidnoy (throw-in) game
without transfers. Its words (`str`, `view`, `describe_move`) are in games/durak_text.py.
The cards and their bit sets are in games/durak_cards.py (re-exported here).

Cards (§6.1) are ints 0..35, suit-major: card = 9 * suit + rank, ranks 6 7 8 9 10 J Q K A (0..8), suits
clubs, diamonds, hearts, spades (c d h s). Inside the engine every set of cards (a hand, the table, the
discard pile, the cards known to be in a hand) is a 36-bit int, so copying a state, testing a move and
picking up the table are a few integer operations. The public properties turn them into `Card`s.

Actions (§6.7): `k` (0..35) plays card k; `36` is PASS for an attacker or thrower and TAKE for the
defender (the same number). A player whose only legal action would be to pass or to take (a thrower
with no card of a rank on the table, a defender who cannot beat the card) is not asked: the engine
passes or takes for them (§6.8), so every decision a player is asked for is a real choice.

Chance (§6.2): all of it happens in `new_initial_state(rng)`: the shuffle (again after an illegal
opening hand) and, when no hand holds a trump, the first attacker. A state keeps no generator.

Observation (§6.9) of `player`, float32, every feature in [0, 1], length 36 * (6 + n) + 12 + 4 * (n - 1)
(n = num_players: 304, 344, 384 for 2, 3, 4 players). Card blocks of 36 (card order as above):
    [0]        own hand
    [1]        unseen cards: not in own hand, not on the table, not discarded, not known to be in another
               hand, not the face-up trump (so: the other hands' unknown cards and the rest of the deck)
    [2]        attack cards on the table (beaten or not)
    [3]        defence cards on the table
    [4]        the attack card still to beat (at most one)
    [5]        the discard pile
    [6]        the face-up trump card (all zero with `fixed_trump`)
    [7 .. 6+n-1]  for each other player, in seat order after `player`: the cards known to be in their
               hand (picked up from the table, or the face-up trump drawn last; until played)
then, from B = 36 * (6 + n):
    B + 0..3   trump suit, one-hot (c d h s)
    B + 4..6   own role in the bout: attacker (opened it), defender, thrower (neither), one-hot; all zero
               once out of the game or at the end
    B + 7      own hand size / 36
    B + 8      deck size / 24 (the most it holds, with 2 players)
    B + 9      attack cards on the table / 6
    B + 10     players still in the game / n
    B + 11     bout number / max_bouts
    then for each other player (same order), 4 features: hand size / 36, still in the game (0/1),
    is the attacker, is the defender.

One module: the rules of one game, read as a whole beside games/RULES.md §6 (attack, defence and
throw-ins share the same few fields).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from games.base import TERMINAL, Game, GameFacts, State, as_generator, is_whole
from games.config import need, setting
from games.durak_cards import (  # noqa: F401 - re-exported: games.durak is the game's one import
    ALL_CARDS,
    BEATEN_BY,
    CARDS,
    FIXED_TRUMP_SUIT,
    HAND_SIZE,
    MAX_ATTACKS,
    MAX_BOUTS_LIMIT,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    PASS_BIT,
    RANK_MASK,
    RANKS,
    SUIT_MASK,
    SUIT_NAMES,
    SUITS,
    TAKE,
    Card,
    beats,
    bits_of,
    card_id,
    card_name,
    card_strength,
    cards_of,
)


@dataclass(frozen=True)
class DurakConfig:
    """The settings of a game (games/RULES.md §6); `games.make("durak", **settings)`."""

    num_players: int = setting(2, "players, 2 to 4", metavar="N")
    fixed_trump: bool = setting(False, "the seed's variant: hearts are always trump and no card is turned face up")
    max_bouts: int = setting(
        300, f"a game still running after this many bouts is a draw for everyone (1 to {MAX_BOUTS_LIMIT})", metavar="N"
    )

    def __post_init__(self):
        need(
            is_whole(self.num_players) and 2 <= self.num_players <= 4,
            f"durak: num_players must be a whole number from 2 to 4, got {self.num_players!r}",
        )
        need(
            isinstance(self.fixed_trump, (bool, np.bool_)),
            f"durak: fixed_trump must be true or false, got {self.fixed_trump!r}",
        )
        need(
            is_whole(self.max_bouts) and 1 <= self.max_bouts <= MAX_BOUTS_LIMIT,
            f"durak: max_bouts must be a whole number from 1 to {MAX_BOUTS_LIMIT}, got {self.max_bouts!r}",
        )
        object.__setattr__(self, "num_players", int(self.num_players))
        object.__setattr__(self, "fixed_trump", bool(self.fixed_trump))
        object.__setattr__(self, "max_bouts", int(self.max_bouts))


def _unpack(masks: list, width: int) -> np.ndarray:
    """Rows of ints (each < 2**64) -> (rows, len(row) * width) float32 of their lowest `width` bits."""
    arr = np.array(masks, dtype="<u8")
    rows, k = arr.shape
    bits = np.unpackbits(arr.view(np.uint8).reshape(rows, k, 8), axis=2, bitorder="little")
    return bits[:, :, :width].reshape(rows, k * width)


class Durak(Game):
    name = "durak"
    num_actions = NUM_ACTIONS
    config_class = DurakConfig
    facts = GameFacts(players=(2, 4), default_agent="pretrained", hidden_information=True)

    def __init__(self, config: DurakConfig | None = None):
        self.config = DurakConfig() if config is None else config
        n = self.num_players = self.config.num_players
        self.max_bouts = self.config.max_bouts
        self.fixed_trump = self.config.fixed_trump
        self._mask_blocks = 6 + n
        self.observation_size = NUM_CARDS * self._mask_blocks + 12 + 4 * (n - 1)

    def new_initial_state(self, rng: np.random.Generator) -> DurakState:
        """A new game dealt from `rng` (a Generator or a seed; required)."""
        return DurakState(self, as_generator(rng))

    def outcomes(self, returns: np.ndarray) -> np.ndarray:
        """A "win" is not being the durak (§6): every player above the lowest return wins; a game
        where nobody is the durak (all returns 0) is a draw for everyone."""
        if not returns.any():
            return np.zeros(len(returns), dtype=int)
        return np.where(returns > returns.min(), 1, -1)

    def action_name(self, action: int) -> str:
        if action == PASS:
            return "pass/take"
        return card_name(action) if 0 <= action < NUM_CARDS else str(action)

    def observations(self, states, players=None) -> np.ndarray:
        if players is None:
            players = [s._player for s in states]
        rows = [s._features(p) for s, p in zip(states, players)]
        cards = _unpack([r[0] for r in rows], NUM_CARDS)
        rest = np.array([r[1] for r in rows], dtype=np.float32)
        return np.concatenate([cards.astype(np.float32), rest], axis=1)

    def legal_masks(self, states) -> np.ndarray:
        return _unpack([[s._legal_bits()] for s in states], NUM_ACTIONS).astype(bool)


def _deal(n: int, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Shuffle and deal until every opening hand is legal (§6.2): (deck, hands). The deck's top is its
    end; its first card is the bottom one (the face-up trump)."""
    while True:
        deck = rng.permutation(NUM_CARDS).tolist()
        hands = []
        for _ in range(n):
            hand = 0
            for _ in range(HAND_SIZE):
                hand |= 1 << deck.pop()
            hands.append(hand)
        if all((h & m).bit_count() < 5 for h in hands for m in SUIT_MASK):
            return deck, hands


class DurakState(State):
    # fmt: off
    __slots__ = (
        "game", "_n", "_hands", "_known", "_deck", "_trump", "_trump_card", "_attacks", "_defences", "_table",
        "_addable", "_discard", "_in", "_num_in", "_attacker", "_defender", "_player", "_adder", "_passes",
        "_bout", "_returns", "_durak", "_last_end",
    )
    # fmt: on

    def __init__(self, game: Durak, rng: np.random.Generator):
        self.game = game
        n = self._n = game.num_players
        self._deck, self._hands = _deal(n, rng)
        if game.fixed_trump:
            self._trump = FIXED_TRUMP_SUIT
            self._trump_card = -1
        else:
            self._trump_card = self._deck[0]
            self._trump = self._trump_card // 9
        self._known = [0] * n
        self._attacks: list[int] = []
        self._defences: list[int] = []
        self._table = 0
        self._addable = 0  # every card of a rank on the table
        self._discard = 0
        self._in = [True] * n
        self._num_in = n
        self._passes = 0
        self._bout = 1
        self._returns: tuple | None = None
        self._durak: int | None = None
        self._last_end: tuple | None = None
        # §6.2: the lowest trump in a hand attacks first; a random player if no hand holds a trump
        trumps = [h & SUIT_MASK[self._trump] for h in self._hands]
        lowest = [(t & -t).bit_length() if t else 99 for t in trumps]
        first = min(range(n), key=lowest.__getitem__) if min(lowest) < 99 else int(rng.integers(n))
        self._start_bout(first)

    # --- rules -------------------------------------------------------------------------------
    def _next_in(self, q: int) -> int:
        """The next player after q, clockwise, who is still in the game."""
        n, inside = self._n, self._in
        q = (q + 1) % n
        while not inside[q]:
            q = (q + 1) % n
        return q

    def _start_bout(self, attacker: int) -> None:
        self._attacker = attacker
        self._defender = self._next_in(attacker)
        self._adder = attacker
        self._player = attacker

    def _offer(self, q: int) -> None:
        """The chance to add a card goes to non-defender q, then on clockwise (§6.4); a player with no
        card of a rank on the table passes without being asked. All non-defenders passing in a row
        ends the bout in a successful defence."""
        d, addable, hands = self._defender, self._addable, self._hands
        others = self._num_in - 1
        while not hands[q] & addable:
            self._passes += 1
            if self._passes >= others:
                self._end_bout(False)
                return
            q = self._next_in(q)
            if q == d:
                q = self._next_in(q)
        self._player = q

    def _end_bout(self, taken: bool) -> None:
        """§6.5-§6.6: take or discard the table, draw, leave, end or start the next bout."""
        table = self._table
        a, d = self._attacker, self._defender
        hands, known, inside = self._hands, self._known, self._in
        if taken:
            hands[d] |= table
            known[d] |= table
        else:
            self._discard |= table
        self._table = 0
        self._addable = 0
        self._attacks = []
        self._defences = []
        self._passes = 0
        # drawing: the attacker, the other non-defenders clockwise, the defender last
        deck = self._deck
        n = self._n
        drawn = [0] * n
        if deck:
            order = [a]
            q = self._next_in(a)
            while q != a:
                if q != d:
                    order.append(q)
                q = self._next_in(q)
            order.append(d)
            for q in order:
                missing = HAND_SIZE - hands[q].bit_count()
                while missing > 0 and deck:
                    c = deck.pop()
                    hands[q] |= 1 << c
                    missing -= 1
                    drawn[q] += 1
                    if c == self._trump_card:  # the face-up card, drawn last: everyone saw who took it
                        known[q] |= 1 << c
                if not deck:
                    break
        left = ()
        if not deck:
            left = tuple(q for q in range(n) if inside[q] and not hands[q])
            for q in left:
                inside[q] = False
            self._num_in -= len(left)
        self._last_end = (self._bout, a, d, taken, table, tuple(drawn), left)
        if self._num_in <= 1:
            self._finish(inside.index(True) if self._num_in else None)
        elif self._bout >= self.game.max_bouts:
            self._finish(None)
        else:
            self._bout += 1
            self._start_bout(d if not taken and inside[d] else self._next_in(d))

    def _finish(self, durak: int | None) -> None:
        n = self._n
        self._player = TERMINAL
        self._durak = durak
        if durak is None:
            self._returns = (0.0,) * n
        else:
            self._returns = tuple(-1.0 if p == durak else 1.0 / (n - 1) for p in range(n))

    def _legal_bits(self) -> int:
        p = self._player
        if p == TERMINAL:
            return 0
        if p == self._defender:
            return (self._hands[p] & BEATEN_BY[self._trump][self._attacks[-1]]) | PASS_BIT
        if not self._attacks:
            return self._hands[p]  # the opening card: no pass
        return (self._hands[p] & self._addable) | PASS_BIT

    # --- the State interface ---------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_mask(self) -> np.ndarray:
        return _unpack([[self._legal_bits()]], NUM_ACTIONS)[0].astype(bool)

    def legal_actions(self) -> list[int]:
        return cards_of(self._legal_bits())

    def is_legal(self, action: int) -> bool:
        return 0 <= action <= PASS and self._legal_bits() >> action & 1 == 1

    def apply_action(self, action: int) -> None:
        action = self.checked_action(action)
        p = self._player
        d = self._defender
        if action == PASS:
            if p == d:
                self._end_bout(True)
                return
            self._passes += 1
            if self._passes >= self._num_in - 1:
                self._end_bout(False)
                return
            q = self._next_in(p)
            self._offer(self._next_in(q) if q == d else q)
            return
        bit = 1 << action
        self._hands[p] ^= bit
        self._known[p] &= ~bit
        self._table |= bit
        self._addable |= RANK_MASK[action % 9]
        if p == d:
            self._defences.append(action)
            if len(self._attacks) >= MAX_ATTACKS or not self._hands[d]:
                self._end_bout(False)
                return
            self._passes = 0
            self._offer(self._adder)
            return
        self._attacks.append(action)
        self._adder = p
        if self._hands[d] & BEATEN_BY[self._trump][action]:
            self._player = d
        else:
            self._end_bout(True)  # nothing beats it: the defender takes without being asked

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def action_name(self, action: int) -> str:
        """The game's name of `action`, with action 36 named for the player to move: take or pass."""
        if action == PASS:
            return "take" if self._player == self._defender else "pass"
        return self.game.action_name(action)

    def returns(self) -> np.ndarray:
        """Zeros before the end; then the durak -1 and everyone else +1/(n-1), or 0 for all in a draw."""
        if self._returns is None:
            return np.zeros(self._n)
        return np.array(self._returns, dtype=np.float64)

    def _features(self, p: int) -> tuple[list[int], list[float]]:
        """The observation of `p` as raw parts: the card sets (ints) and the other features."""
        n = self._n
        hands, known = self._hands, self._known
        attacks = bits_of(self._attacks)
        open_attack = 1 << self._attacks[-1] if len(self._attacks) > len(self._defences) else 0
        trump_bit = 1 << self._trump_card if self._trump_card >= 0 else 0
        face_up = trump_bit if self._deck else 0
        others = [(p + i) % n for i in range(1, n)]
        known_others = 0
        for q in others:
            known_others |= known[q]
        seen = hands[p] | self._table | self._discard | known_others | face_up
        cards = [hands[p], ALL_CARDS & ~seen, attacks, self._table & ~attacks, open_attack, self._discard, trump_bit]
        cards += [known[q] for q in others]
        suit = [0.0] * 4
        suit[self._trump] = 1.0
        live = self._player != TERMINAL
        inside = self._in
        a, d = self._attacker, self._defender
        role = [0.0, 0.0, 0.0]
        if live and inside[p]:
            role[0 if p == a else 1 if p == d else 2] = 1.0
        rest = suit + role
        rest += (
            hands[p].bit_count() / 36,
            len(self._deck) / 24,
            len(self._attacks) / MAX_ATTACKS,
            self._num_in / n,
            self._bout / self.game.max_bouts,
        )
        for q in others:
            rest += (hands[q].bit_count() / 36, float(inside[q]), float(live and q == a), float(live and q == d))
        return cards, rest

    def observation(self, player: int) -> np.ndarray:
        return self.game.observations([self], [player])[0]

    def clone(self) -> DurakState:
        s = DurakState.__new__(DurakState)
        s.game = self.game
        s._n = self._n
        s._hands = self._hands[:]
        s._known = self._known[:]
        s._deck = self._deck[:]
        s._trump = self._trump
        s._trump_card = self._trump_card
        s._attacks = self._attacks[:]
        s._defences = self._defences[:]
        s._table = self._table
        s._addable = self._addable
        s._discard = self._discard
        s._in = self._in[:]
        s._num_in = self._num_in
        s._attacker = self._attacker
        s._defender = self._defender
        s._player = self._player
        s._adder = self._adder
        s._passes = self._passes
        s._bout = self._bout
        s._returns = self._returns
        s._durak = self._durak
        s._last_end = self._last_end
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> DurakState:
        """A copy in which the cards `player` cannot place are dealt again uniformly: every other hand
        keeps its size and its known cards and gets the rest from the pool of unseen cards, and the deck
        takes the remainder in a random order (the face-up trump stays at its bottom)."""
        s = self.clone()
        n = self._n
        hands, known = s._hands, s._known
        face_up = self._deck and self._trump_card >= 0
        pool = ALL_CARDS & ~(hands[player] | self._table | self._discard)
        for q in range(n):
            if q != player:
                pool &= ~known[q]
        if face_up:
            pool &= ~(1 << self._trump_card)
        cards = cards_of(pool)  # sorted: the result depends on rng only, not on the hidden deal
        rng.shuffle(cards)
        for q in range(n):
            if q != player:
                k = hands[q].bit_count() - known[q].bit_count()
                hands[q] = known[q] | bits_of(cards[:k])
                del cards[:k]
        s._deck = ([self._trump_card] if face_up else []) + cards
        assert len(s._deck) == len(self._deck)
        return s

    # --- public facts ------------------------------------------------------------------------
    @property
    def trump_suit(self) -> str:
        """The trump suit's letter: c, d, h or s."""
        return SUITS[self._trump]

    @property
    def trump_card(self) -> Card | None:
        """The face-up card under the deck (it stays known after it is drawn); None with fixed_trump."""
        return CARDS[self._trump_card] if self._trump_card >= 0 else None

    @property
    def table(self) -> tuple[tuple[Card, Card | None], ...]:
        """The bout's (attack, defence) pairs in the order played; the defence is None while unbeaten."""
        d = self._defences
        return tuple((CARDS[a], CARDS[d[i]] if i < len(d) else None) for i, a in enumerate(self._attacks))

    @property
    def discard(self) -> tuple[Card, ...]:
        """The discard pile (face down, but everyone saw the cards go there), in card order."""
        return tuple(CARDS[c] for c in cards_of(self._discard))

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(h.bit_count() for h in self._hands)

    @property
    def deck_size(self) -> int:
        """Cards left in the deck, the face-up trump included."""
        return len(self._deck)

    @property
    def known_cards(self) -> tuple[tuple[Card, ...], ...]:
        """Per player, the cards everyone knows are in their hand: picked up from the table, or the face-up
        trump drawn as the last card, until played."""
        return tuple(tuple(CARDS[c] for c in cards_of(k)) for k in self._known)

    @property
    def attacker(self) -> int:
        """Who opened the current bout (the last bout's once the game is over)."""
        return self._attacker

    @property
    def defender(self) -> int:
        return self._defender

    @property
    def bout(self) -> int:
        """The current bout, from 1 (the last one once the game is over)."""
        return self._bout

    @property
    def players_in(self) -> tuple[bool, ...]:
        """Who is still in the game (a player leaves with an empty hand once the deck is empty)."""
        return tuple(self._in)

    @property
    def durak(self) -> int | None:
        """The loser once the game is over; None before the end and in a draw."""
        return self._durak

    @property
    def last_bout(self) -> tuple | None:
        """How the last finished bout ended: (bout, attacker, defender, taken, table cards, cards drawn per
        player, players who left), the table as Cards; None before the first one ends."""
        if self._last_end is None:
            return None
        bout, a, d, taken, table, drawn, left = self._last_end
        return (bout, a, d, taken, tuple(CARDS[c] for c in cards_of(table)), drawn, left)

    def cards(self) -> Counter:
        """The 36 cards, once each: in the deck, in a hand, on the table or in the discard pile."""
        held = [c for h in self._hands for c in cards_of(h)]
        return Counter(self._deck + held + self._attacks + self._defences + cards_of(self._discard))

    def hand(self, player: int) -> list[int]:
        """`player`'s cards as ints, lowest first (private: what that player sees, not a public fact)."""
        return cards_of(self._hands[player])

    @property
    def trump_index(self) -> int:
        """The trump suit as an index into SUITS (for bots: `card // 9 == trump_index`)."""
        return self._trump

    @property
    def attack_cards(self) -> tuple[int, ...]:
        """The attack cards on the table as ints, in order (the last one is to beat while unbeaten)."""
        return tuple(self._attacks)

    @property
    def defence_cards(self) -> tuple[int, ...]:
        return tuple(self._defences)

    # --- words (games/durak_text.py, which imports this module; games/registry.py attaches it) ---
    def __str__(self) -> str:
        return self.game.text_module.render(self, None)

    def view(self, player: int) -> str:
        """The position as `player` sees it: their own hand, never the others' unknown cards."""
        return self.game.text_module.render(self, player)

    def describe_move(self, before: DurakState, action: int, viewer: int) -> str:
        return self.game.text_module.describe_move(self, before, action, viewer)
