"""Exploding Kittens for two players, the rules of games/RULES.md "Exploding Kittens". Words (`str`, `view`,
`describe_move`) are in games/exploding_kittens_text.py.

Cards are ints: the ten card types a hand can hold, 0..9 = Defuse, Skip, Attack, Favor, Shuffle, cat1..cat5
(CARD_NAMES), and KITTEN = 10, which only ever sits in the deck. Hands, the discard pile and a deck's
contents are count vectors over the ten types. The deck is a list whose end is its top.

A deck composition is a plain dict of card counts, e.g. {"skip": 4, "defuse": 2, "attack": 3} (the
default), normalised to every name of CARD_NAMES; a later deck-space declaration can mutate it as is.
`composition="random"` deals each game a composition drawn uniformly, count by count, from 0..deck[name].
`preset="paper"` is the paper's card set (PAPER_DECK, 1 Defuse in hand, 4 dealt, 1 play per turn).

Actions (NUM_ACTIONS = 20): 0 draw; 1 skip; 2 attack; 3 favor; 4 shuffle; 5..9 a pair of cat1..cat5;
10 + t gives a card of type t (0..9) to the player who played a Favor (the giver's move).

Chance (the Kitten's reinsertion, Shuffle, the card a cat pair takes) comes from the state's own seed: the
k-th chance event of a game uses numpy.random.default_rng((seed, k)), so states copy, compare and pickle
as plain data.

Observation of `player` (OBSERVATION_SIZE = 61, float32, every feature in [0, 1]); count blocks of 10
(card types as above) divided by MAX_COUNT (10):
    [0:10]   own hand
    [10:20]  cards known to be in the opponent's hand (the whole hand with `open_hands`)
    [20:30]  unseen cards: the composition less own hand, discard pile and the opponent's known cards,
             i.e. the deck's non-Kitten cards plus the opponent's unknown ones (the deck exactly when the
             opponent has no unknown card, as always with open hands)
    [30:40]  the discard pile (every card played or spent)
    [40:50]  the composition of this game (the deck's cards before dealing, Defuses in hand excluded)
    [50]     deck size / 64            [51] own hand size / 64     [52] opponent hand size / 64
    [53]     it is own turn            [54] own turns owed / 2      [55] opponent turns owed / 2
    [56]     cards played this turn / max_plays_per_turn (0 when unlimited)
    [57]     own move: give a card (a Favor asked of us)   [58] waiting for the opponent's Favor card
    [59]     open_hands                [60] chance the top card is the Kitten (1 / deck size)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from games.base import TERMINAL, Game, GameFacts, State, as_generator, is_whole
from games.config import need, setting

CARD_NAMES = ("defuse", "skip", "attack", "favor", "shuffle", "cat1", "cat2", "cat3", "cat4", "cat5")
DEFUSE, SKIP, ATTACK, FAVOR, SHUFFLE = range(5)
CATS = range(5, 10)
KITTEN = 10
NUM_TYPES = 10
DRAW = 0
PLAY_ACTIONS = {SKIP: 1, ATTACK: 2, FAVOR: 3, SHUFFLE: 4, **{c: c for c in CATS}}  # card type -> action
ACTION_CARD = {a: t for t, a in PLAY_ACTIONS.items()}  # action -> card type played
GIVE = 10  # GIVE + t gives a card of type t
NUM_ACTIONS = 20
MAX_COUNT = 10  # at most this many cards of one type in a game (Defuses in hands included)
MAX_CARDS = 63  # at most this many cards in the deck, the Kitten included
OBSERVATION_SIZE = 61
DEFAULT_DECK = {"defuse": 2, "skip": 4, "attack": 3}
PAPER_DECK = {"attack": 4, "skip": 4, "favor": 4, "shuffle": 4, **{f"cat{k}": 4 for k in range(1, 6)}}
PRESETS = {"paper": {"deck": PAPER_DECK, "hand_defuses": 1, "deal": 4, "max_plays_per_turn": 1}}


def full_deck(deck: dict) -> dict:
    """`deck` with every card name, in CARD_NAMES order (missing names count 0)."""
    return {name: int(deck.get(name, 0)) for name in CARD_NAMES}


@dataclass(frozen=True)
class ExplodingKittensConfig:
    """The settings of a game (games/RULES.md "Exploding Kittens"); `games.make("exploding_kittens", ...)`."""

    deck: dict[str, int] = setting(
        factory=lambda: full_deck(DEFAULT_DECK),
        help="cards in the deck besides the Kitten, by name (defuse skip attack favor shuffle cat1..cat5)",
        flag=False,
    )
    hand_defuses: int = setting(1, "Defuses each player starts with in hand", metavar="N")
    deal: int = setting(0, "further cards dealt to each player from the deck before the Kitten goes in", metavar="N")
    max_plays_per_turn: int = setting(0, "cards a player may play before drawing (0: unlimited)", metavar="N")
    open_hands: bool = setting(False, "both hands are shown (the perfect-information variant)")
    composition: str = setting(
        "fixed",
        "fixed: the deck as given; random: each count drawn per game from 0..deck[name]",
        choices=("fixed", "random"),
    )
    preset: str = setting(
        "", "a named card set that replaces deck, hand_defuses, deal and max_plays: paper", metavar="NAME"
    )

    def __post_init__(self):
        need(self.preset in ("", *PRESETS), f"exploding_kittens: unknown preset {self.preset!r}; choose: paper")
        for key, value in PRESETS.get(self.preset, {}).items():
            object.__setattr__(self, key, full_deck(value) if key == "deck" else value)
        need(isinstance(self.deck, dict), "exploding_kittens: deck must be a table of card counts")
        unknown = sorted(set(self.deck) - set(CARD_NAMES))
        need(not unknown, f"exploding_kittens: unknown card {unknown[:1]} in deck; cards: {', '.join(CARD_NAMES)}")
        need(
            all(is_whole(v) and v >= 0 for v in self.deck.values()),
            f"exploding_kittens: deck counts must be whole numbers >= 0, got {self.deck}",
        )
        object.__setattr__(self, "deck", full_deck(self.deck))
        for name in ("hand_defuses", "deal", "max_plays_per_turn"):
            v = getattr(self, name)
            need(is_whole(v) and v >= 0, f"exploding_kittens: {name} must be a whole number >= 0, got {v!r}")
            object.__setattr__(self, name, int(v))
        need(
            isinstance(self.open_hands, (bool, np.bool_)),
            f"exploding_kittens: open_hands must be true or false, got {self.open_hands!r}",
        )
        object.__setattr__(self, "open_hands", bool(self.open_hands))
        need(self.composition in ("fixed", "random"), "exploding_kittens: composition must be fixed or random")
        counts = list(self.deck.values())
        need(
            counts[DEFUSE] + 2 * self.hand_defuses <= MAX_COUNT and max(counts) <= MAX_COUNT,
            f"exploding_kittens: at most {MAX_COUNT} cards of a type (Defuses in hands included)",
        )
        need(sum(counts) + 1 <= MAX_CARDS, f"exploding_kittens: at most {MAX_CARDS - 1} cards besides the Kitten")
        need(2 * self.deal <= sum(counts), f"exploding_kittens: cannot deal {self.deal} each from {sum(counts)} cards")

    def counts(self) -> tuple[int, ...]:
        """The deck's counts in card-type order."""
        return tuple(self.deck[name] for name in CARD_NAMES)


class ExplodingKittens(Game):
    name = "exploding_kittens"
    num_players = 2
    num_actions = NUM_ACTIONS
    observation_size = OBSERVATION_SIZE
    config_class = ExplodingKittensConfig

    def __init__(self, config: ExplodingKittensConfig | None = None):
        self.config = ExplodingKittensConfig() if config is None else config

    @property
    def facts(self) -> GameFacts:
        """Perfect play is known with open hands (the `exact` bot solves the open game). Hidden
        information either way: with open hands the deck's order and the chance events to come."""
        if self.config.open_hands:
            return GameFacts(perfect_play="exact_opponent", default_agent="pretrained", hidden_information=True)
        return GameFacts(perfect_play_note="open_hands = true", default_agent="pretrained", hidden_information=True)

    def new_initial_state(self, rng: np.random.Generator) -> ExplodingKittensState:
        """A new game whose deal and every later chance event come from `rng` (a Generator or a seed)."""
        return ExplodingKittensState(self, as_generator(rng))

    def action_name(self, action: int) -> str:
        if action == DRAW:
            return "draw"
        if action in ACTION_CARD:
            t = ACTION_CARD[action]
            return f"pair of {CARD_NAMES[t]}" if t in CATS else CARD_NAMES[t]
        if GIVE <= action < NUM_ACTIONS:
            return f"give {CARD_NAMES[action - GIVE]}"
        return str(action)


class ExplodingKittensState(State):
    # fmt: off
    __slots__ = (
        "game", "_hands", "_known", "_deck", "_discard", "_comp", "_player", "_turn", "_owed", "_plays", "_favor",
        "_seed", "_chance", "_winner", "_log",
    )
    # fmt: on

    def __init__(self, game: ExplodingKittensGame, rng: np.random.Generator):
        self.game = game
        cfg = game.config
        comp = cfg.counts()
        if cfg.composition == "random":
            comp = tuple(int(rng.integers(c + 1)) for c in comp)
        self._comp = comp
        cards = [t for t in range(NUM_TYPES) for _ in range(comp[t])]
        rng.shuffle(cards)
        self._hands = [[0] * NUM_TYPES for _ in range(2)]
        self._known = [[0] * NUM_TYPES for _ in range(2)]  # cards of a hand its opponent knows are there
        self._log: list[tuple] = []  # (player, event, card): what happened, hidden parts included
        for p in range(2):
            self._hands[p][DEFUSE] = cfg.hand_defuses
            self._known[p][DEFUSE] = cfg.hand_defuses
        for _ in range(min(cfg.deal, len(cards) // 2)):
            for p in range(2):
                c = cards.pop()
                self._hands[p][c] += 1
                self._log.append((p, "draw", c))
        cards.append(KITTEN)
        rng.shuffle(cards)
        self._deck = cards
        self._discard = [0] * NUM_TYPES
        self._player = self._turn = 0
        self._owed = 1
        self._plays = 0
        self._favor = False
        self._seed = int(rng.integers(2**63))
        self._chance = 0
        self._winner = -1

    # --- rules -------------------------------------------------------------------------------
    def _rng(self) -> np.random.Generator:
        self._chance += 1
        return np.random.default_rng((self._seed, self._chance))

    def _total(self) -> list[int]:
        """Every non-Kitten card of the game per type: the composition plus the Defuses dealt to hands."""
        total = list(self._comp)
        total[DEFUSE] += 2 * self.game.config.hand_defuses
        return total

    def _remove(self, p: int, t: int, n: int = 1) -> None:
        """`n` cards of type t leave p's hand; the opponent's lower bound on them drops by as many."""
        self._hands[p][t] -= n
        self._known[p][t] = max(0, self._known[p][t] - n)

    def _end_turn(self) -> None:
        self._owed -= 1
        self._plays = 0
        if self._owed == 0:
            self._turn = 1 - self._turn
            self._owed = 1
        self._player = self._turn

    def _draw(self, p: int) -> None:
        card = self._deck.pop()
        if card != KITTEN:
            self._hands[p][card] += 1
            self._log.append((p, "draw", card))
            self._end_turn()
        elif self._hands[p][DEFUSE]:
            self._remove(p, DEFUSE)
            self._discard[DEFUSE] += 1
            self._deck.insert(int(self._rng().integers(len(self._deck) + 1)), KITTEN)
            self._log.append((p, "defuse", KITTEN))
            self._end_turn()
        else:
            self._log.append((p, "explode", KITTEN))
            self._winner = 1 - p
            self._player = TERMINAL

    def _play(self, p: int, t: int) -> None:
        o = 1 - p
        n = 2 if t in CATS else 1
        self._remove(p, t, n)
        self._discard[t] += n
        self._plays += 1
        self._log.append((p, "play", t))
        if t == SKIP:
            self._end_turn()
        elif t == ATTACK:
            self._turn, self._player, self._owed, self._plays = o, o, 2, 0
        elif t == FAVOR:
            if sum(self._hands[o]):
                self._favor = True
                self._player = o
        elif t == SHUFFLE:
            self._rng().shuffle(self._deck)
        elif sum(self._hands[o]):  # a cat pair: a card uniformly at random from the opponent's hand
            pick = int(self._rng().integers(sum(self._hands[o])))
            c = 0
            while pick >= self._hands[o][c]:
                pick -= self._hands[o][c]
                c += 1
            self._remove(o, c)
            self._hands[p][c] += 1
            self._known[p][c] += 1
            self._log.append((p, "steal", c))

    def _give(self, giver: int, t: int) -> None:
        taker = 1 - giver
        self._remove(giver, t)
        self._hands[taker][t] += 1
        self._known[taker][t] += 1
        self._log.append((giver, "give", t))
        self._favor = False
        self._player = taker

    def _legal_list(self) -> list[int]:
        p = self._player
        if p == TERMINAL:
            return []
        hand = self._hands[p]
        if self._favor:
            return [GIVE + t for t in range(NUM_TYPES) if hand[t]]
        out = [DRAW]
        cap = self.game.config.max_plays_per_turn
        if cap == 0 or self._plays < cap:
            out += [a for t, a in PLAY_ACTIONS.items() if hand[t] >= (2 if t in CATS else 1)]
        return out

    # --- the State interface ---------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_actions(self) -> list[int]:
        return self._legal_list()

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self._legal_list()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        return action in self._legal_list()

    def apply_action(self, action: int) -> None:
        action = self.checked_action(action)
        p = self._player
        if action >= GIVE:
            self._give(p, action - GIVE)
        elif action == DRAW:
            self._draw(p)
        else:
            self._play(p, ACTION_CARD[action])

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def returns(self) -> np.ndarray:
        """+1 for the survivor, -1 for the player who exploded; zeros before the end."""
        r = np.zeros(2)
        if self._winner >= 0:
            r[self._winner], r[1 - self._winner] = 1.0, -1.0
        return r

    def observation(self, player: int) -> np.ndarray:
        o = 1 - player
        open_hands = self.game.config.open_hands
        hand = self._hands[player]
        known = self._hands[o] if open_hands else self._known[o]
        total = self._total()
        unseen = [total[t] - hand[t] - self._discard[t] - known[t] for t in range(NUM_TYPES)]
        counts = np.array(hand + list(known) + unseen + self._discard + list(self._comp), dtype=np.float32)
        live = self._player != TERMINAL
        cap = self.game.config.max_plays_per_turn
        mine = live and self._turn == player
        rest = [
            len(self._deck) / 64,
            sum(hand) / 64,
            sum(self._hands[o]) / 64,
            float(mine),
            self._owed / 2 if mine else 0.0,
            self._owed / 2 if live and not mine else 0.0,
            min(1.0, self._plays / cap) if cap and live else 0.0,
            float(live and self._favor and self._player == player),
            float(live and self._favor and self._player == o),
            float(open_hands),
            1.0 / len(self._deck) if live else 0.0,
        ]
        return np.concatenate([counts / MAX_COUNT, np.array(rest, dtype=np.float32)])

    def clone(self) -> ExplodingKittensState:
        s = ExplodingKittensState.__new__(ExplodingKittensState)
        s.game = self.game
        s._hands = [h[:] for h in self._hands]
        s._known = [k[:] for k in self._known]
        s._deck = self._deck[:]
        s._discard = self._discard[:]
        s._log = self._log[:]
        for name in ("_comp", "_player", "_turn", "_owed", "_plays", "_favor", "_seed", "_chance", "_winner"):
            setattr(s, name, getattr(self, name))
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> ExplodingKittensState:
        """A copy with what `player` cannot know re-drawn: the opponent's unknown cards and the deck's
        contents (a uniform split of the unseen cards), the deck's order, and every future chance event.
        With open hands only the order and the chance events. In the copy, the opponent's hidden draws
        in the log are the re-drawn world's business: `history(player)` stays the same."""
        s = self.clone()
        o = 1 - player
        if not self.game.config.open_hands:
            known = self._known[o]
            total = self._total()
            pool = [t for t in range(NUM_TYPES) for _ in range(total[t] - self._hands[player][t])]
            for t in range(NUM_TYPES):
                for _ in range(self._discard[t] + known[t]):
                    pool.remove(t)
            rng.shuffle(pool)
            k = sum(self._hands[o]) - sum(known)
            s._hands[o] = known[:]
            for c in pool[:k]:
                s._hands[o][c] += 1
            s._deck = pool[k:] + ([KITTEN] if self._deck and KITTEN in self._deck else [])
            s._log = [(q, e, None if q == o and e == "draw" else c) for q, e, c in self._log]
        s._deck.sort()
        rng.shuffle(s._deck)
        s._seed = int(rng.integers(2**63))
        assert len(s._deck) == len(self._deck)
        return s

    # --- public facts ------------------------------------------------------------------------
    @property
    def composition(self) -> dict[str, int]:
        """This game's deck before dealing (the Kitten and the Defuses in hand aside), by card name."""
        return dict(zip(CARD_NAMES, self._comp))

    @property
    def deck_size(self) -> int:
        """Cards in the deck, the Kitten included."""
        return len(self._deck)

    @property
    def hand_sizes(self) -> tuple[int, int]:
        return (sum(self._hands[0]), sum(self._hands[1]))

    @property
    def discard(self) -> dict[str, int]:
        """Every card played or spent so far, by name."""
        return dict(zip(CARD_NAMES, self._discard))

    @property
    def turn(self) -> int:
        """Whose turn it is (during a Favor the opponent moves, but it is still this player's turn)."""
        return self._turn

    @property
    def turns_owed(self) -> int:
        """Turns the player whose turn it is still owes (2 after an Attack, then 1)."""
        return self._owed

    @property
    def plays_this_turn(self) -> int:
        return self._plays

    @property
    def favor_pending(self) -> bool:
        """The opponent of the turn's player must give a card (it is their move)."""
        return self._favor and self._player != TERMINAL

    @property
    def known_cards(self) -> tuple[dict[str, int], dict[str, int]]:
        """Per player, the cards their opponent knows are in their hand (given or taken, Defuses dealt)."""
        return tuple(dict(zip(CARD_NAMES, k)) for k in self._known)

    @property
    def winner(self) -> int | None:
        return self._winner if self._winner >= 0 else None

    # --- private views (what one player sees) -------------------------------------------------
    def cards(self) -> Counter:
        """Every card but the Kitten, by type: in the deck, in a hand or in the discard pile (the
        Kitten leaves the deck only when it explodes)."""
        out = Counter(c for c in self._deck if c != KITTEN)
        for counts in (*self._hands, self._discard):
            out.update({t: n for t, n in enumerate(counts) if n})
        return out

    def hand(self, player: int) -> tuple[int, ...]:
        """`player`'s hand as counts per card type (private)."""
        return tuple(self._hands[player])

    def deck_counts(self) -> tuple[int, ...]:
        """The deck's non-Kitten cards per type (hidden unless the hands are open)."""
        counts = [0] * NUM_TYPES
        for c in self._deck:
            if c != KITTEN:
                counts[c] += 1
        return tuple(counts)

    def history(self, player: int) -> list[tuple]:
        """The events of the game as `player` saw them, in order: (who, event, card type), event one of
        draw, defuse (a Kitten drawn and defused), explode, play (a cat pair: card is its kind), give
        (who gave), steal (who took). The opponent's drawn cards are None unless the hands are open."""
        if self.game.config.open_hands:
            return list(self._log)
        return [(q, e, None if q != player and e == "draw" else c) for q, e, c in self._log]

    # --- words (games/exploding_kittens_text.py, attached by games/registry.py) ----------------
    def __str__(self) -> str:
        return self.game.text_module.render(self, None)

    def view(self, player: int) -> str:
        return self.game.text_module.render(self, player)

    def describe_move(self, before: ExplodingKittensState, action: int, viewer: int) -> str:
        return self.game.text_module.describe_move(self, before, action, viewer)


ExplodingKittensGame = ExplodingKittens
