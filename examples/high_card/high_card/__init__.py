"""High Card: a small two-player card game written against deckopt's public game interface, and its
deck space (in high_card.space). The worked example of docs/plugins.md;
`pip install -e examples/high_card` registers both (pyproject.toml, entry point groups `deckopt.games`
and `deckopt.spaces`), `deckopt check high_card` tests them and `deckopt evolve --game high_card`
evolves its decks.

Rules. Each player owns a deck of 8 cards, values 1..9, worth at most 40 in total (default: 1..8
for both). Each deck is shuffled and each player draws `hand_size` cards (5); the rest of the deck
stays face down, unseen. As many tricks follow. In each, the leader plays a card face down, then the other player
plays a card face up, and the face-down card is turned: the higher card wins the trick, except that
a 1 beats a 9; equal cards win nothing. The leader of the first trick is player 0, and the leads
alternate. Whoever wins more tricks wins the game (returns +1 and -1; equal tricks: 0 each).

Both decks are known to both players; what a player cannot see is which of the opponent's cards are
in their hand and which one lies face down.

Actions: `v - 1` plays a card of value v (0..8). Observation of player p (31 numbers in 0..1):
p's hand counted by value (/hand_size), the opponent's cards not yet shown counted by value (/8),
p's own face-down card (one-hot, 9), then: a card is face down, p leads this trick, p's tricks and
the opponent's (/hand_size).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from agents.base import RuleAgent
from games import TERMINAL, Game, State
from games.base import GameFacts, as_generator, is_whole
from games.config import need, setting
from games.deckfile import deck_settings

VALUES = range(1, 10)
DECK_SIZE = 8
BUDGET = 40
DEFAULT_DECK = [1, 2, 3, 4, 5, 6, 7, 8]


def deck_problems(cards) -> list[str]:
    """What makes `cards` an illegal deck ([] for a legal one)."""
    cards = list(cards)
    if not all(is_whole(c) and c in VALUES for c in cards):
        return [f"cards must be whole numbers 1..9, got {cards!r}"]
    out = []
    if len(cards) != DECK_SIZE:
        out.append(f"{len(cards)} cards, not {DECK_SIZE}")
    if sum(cards) > BUDGET:
        out.append(f"worth {sum(cards)}, more than {BUDGET}")
    return out


def beats(a: int, b: int) -> bool:
    """Card value `a` beats `b`: higher wins, but a 1 beats a 9."""
    return (a == 1 and b == 9) or (a > b and not (a == 9 and b == 1))


@dataclass
class HighCardConfig:
    decks: list[list[int]] | None = setting(None, "each player's deck of 8 cards (default 1..8 for both)", flag=False)
    hand_size: int = setting(5, "cards drawn, and tricks played", metavar="N")
    deck_pool: list[list[int]] | None = setting(
        None, "decks each seat's deck is drawn from, each game (training on many decks)", flag=False
    )
    pool_share: float = setting(1.0, "with a deck_pool: the chance that a seat's deck comes from it", metavar="P")

    def __post_init__(self):
        need(is_whole(self.hand_size) and 1 <= self.hand_size <= DECK_SIZE, "hand_size must be 1..8")
        if self.decks is not None:
            need(isinstance(self.decks, list) and len(self.decks) == 2, "decks: give two decks")
            for p, deck in enumerate(self.decks):
                problems = deck_problems(deck)
                need(not problems, f"decks: player {p}'s deck: {'; '.join(problems)}")
            self.decks = [sorted(int(c) for c in deck) for deck in self.decks]
        need(isinstance(self.pool_share, (int, float)) and 0.0 <= self.pool_share <= 1.0, "pool_share must be 0..1")
        if self.deck_pool is not None:
            need(isinstance(self.deck_pool, list) and len(self.deck_pool) >= 1, "deck_pool: give a list of decks")
            for i, deck in enumerate(self.deck_pool):
                problems = deck_problems(deck)
                need(not problems, f"deck_pool[{i}]: {'; '.join(problems)}")
            self.deck_pool = [sorted(int(c) for c in deck) for deck in self.deck_pool]


class HighestCard(RuleAgent):
    """Plays its highest card, but a 1 on a trick it follows while the opponent may hold a 9."""

    def choose(self, state: HighCardState) -> int:
        me = state.current_player
        hand = state.hand(me)
        if state.card_down and 1 in hand and 9 in state.unshown(1 - me):
            return 0
        return max(hand) - 1


class LowestCard(RuleAgent):
    """Plays its lowest card: it gives tricks away and keeps its high cards for the end."""

    def choose(self, state: HighCardState) -> int:
        return min(state.hand(state.current_player)) - 1


class HighCard(Game):
    name = "high_card"
    num_players = 2
    num_actions = 9
    observation_size = 31
    config_class = HighCardConfig
    #: what deckopt's commands read instead of the game's name: the rule agents by name (agent specs in
    #: every command: `deckopt match high_card lowest heuristic`), the agent that plays where a command
    #: needs one and none is named, deck files (`--deck FILE`: `name` and `cards`) as the `decks` setting,
    #: and hidden information (the opponent's hand and the face-down card: `resample_hidden` re-draws them)
    facts = GameFacts(
        bots={"heuristic": HighestCard, "highest": HighestCard, "lowest": LowestCard},
        default_agent="heuristic",
        deck_files=deck_settings,
        hidden_information=True,
    )
    #: what describes action a (card a+1) to an action scorer (agents/action_scores.py), as indices into the
    #: observation (observation_size: the constant 1, observation_size + 1: the constant 0): its count in
    #: the mover's hand, its count among the opponent's unshown cards, and a one-hot of the card
    action_feature_index = np.array([[a, 9 + a] + [31 + (b != a) for b in range(9)] for a in range(9)])
    state_class: type[HighCardState]  # the class of its positions (set below the class)

    def __init__(self, config: HighCardConfig | None = None):
        self.config = HighCardConfig() if config is None else config
        self.decks = self.config.decks or [DEFAULT_DECK, DEFAULT_DECK]

    def new_initial_state(self, rng) -> HighCardState:
        return self.state_class(self, as_generator(rng))

    def action_name(self, action: int) -> str:
        return f"card {action + 1}"


class HighCardState(State):
    def __init__(self, game: HighCard, rng: np.random.Generator):
        self.game = game
        size = game.config.hand_size
        self._hands, self._piles = [], []
        decks, pool = game.decks, game.config.deck_pool
        if pool:  # each seat's deck from the pool with chance pool_share, else the game's own
            decks = [pool[rng.integers(len(pool))] if rng.random() < game.config.pool_share else d for d in decks]
        for deck in decks:
            order = rng.permutation(deck).tolist()
            self._hands.append(sorted(order[:size]))
            self._piles.append(sorted(order[size:]))
        self._shown = [[], []]  # the cards each player has played face up or turned, in order
        self._down = 0  # the leader's face-down card, 0 while none lies there
        self._tricks = [0, 0]
        self._trick = 0
        self._player = 0

    # --- the rules ------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(9, dtype=bool)
        if not self.is_terminal():
            mask[[v - 1 for v in self._hands[self._player]]] = True
        return mask

    def apply_action(self, action) -> None:
        p, value = self._player, self.checked_action(action) + 1
        self._hands[p].remove(value)
        if self._down == 0:  # the leader plays face down
            self._down = value
            self._player = 1 - p
            return
        leader, led = 1 - p, self._down
        self._shown[leader].append(led)
        self._shown[p].append(value)
        self._down = 0
        if beats(led, value):
            self._tricks[leader] += 1
        elif beats(value, led):
            self._tricks[p] += 1
        self._trick += 1
        self._player = TERMINAL if self._trick == self.game.config.hand_size else self._trick % 2

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(2)
        a, b = self._tricks
        return np.array([np.sign(a - b), np.sign(b - a)], dtype=np.float64)

    def observation(self, player: int) -> np.ndarray:
        size = self.game.config.hand_size
        other = 1 - player
        obs = np.zeros(31, dtype=np.float32)
        for v in self._hands[player]:
            obs[v - 1] += 1 / size
        for v in self.unshown(other):
            obs[9 + v - 1] += 1 / DECK_SIZE
        leader = self._trick % 2
        if self._down and leader == player:
            obs[18 + self._down - 1] = 1.0
        obs[27] = self._down != 0
        obs[28] = not self.is_terminal() and leader == player
        obs[29] = self._tricks[player] / size
        obs[30] = self._tricks[other] / size
        return obs

    def hand(self, player: int) -> list[int]:
        """`player`'s hand, sorted (what that player sees)."""
        return self._hands[player][:]

    def unshown(self, player: int) -> list[int]:
        """`player`'s cards not shown yet, as a multiset: hand, draw pile and a face-down card
        (public: decks are known)."""
        down = [self._down] if self._down and self._trick % 2 == player else []
        return self._hands[player] + self._piles[player] + down

    def clone(self) -> HighCardState:
        new = object.__new__(type(self))
        new.game = self.game
        new._hands = [h[:] for h in self._hands]
        new._piles = [p[:] for p in self._piles]
        new._shown = [s[:] for s in self._shown]
        new._down, new._tricks, new._trick, new._player = self._down, self._tricks[:], self._trick, self._player
        return new

    def resample_hidden(self, player: int, rng: np.random.Generator) -> HighCardState:
        """The opponent's hand, draw pile and face-down card re-dealt from their unshown cards; the
        player's own draw pile (never seen, but known as a whole) stays."""
        new = self.clone()
        other = 1 - player
        pool = rng.permutation(self.unshown(other)).tolist()
        hand_size = len(self._hands[other])
        new._hands[other] = sorted(pool[:hand_size])
        rest = pool[hand_size:]
        if self._down and self._trick % 2 == other:
            new._down = rest.pop()
        new._piles[other] = sorted(rest)
        return new

    def cards(self) -> Counter:
        """Each player's 8 cards, (player, value): hand, draw pile, shown or face down."""
        out = Counter((p, v) for p in (0, 1) for v in self._hands[p] + self._piles[p] + self._shown[p])
        if self._down:
            out[self._trick % 2, self._down] += 1
        return out

    # --- public facts and words ---------------------------------------------------------------------
    @property
    def tricks(self) -> tuple[int, int]:
        return tuple(self._tricks)

    @property
    def shown(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cards each player has shown, trick by trick."""
        return tuple(self._shown[0]), tuple(self._shown[1])

    @property
    def card_down(self) -> bool:
        return self._down != 0

    @property
    def hand_sizes(self) -> tuple[int, int]:
        return len(self._hands[0]), len(self._hands[1])

    def view(self, player: int) -> str:
        down = "a card face down" if self._down else "no card down"
        if self._down and self._trick % 2 == player:
            down = f"your {self._down} face down"
        return (
            f"trick {min(self._trick + 1, self.game.config.hand_size)}, tricks {self._tricks[player]}-"
            f"{self._tricks[1 - player]}, {down}; your hand: {' '.join(map(str, self._hands[player]))}"
        )

    def describe_move(self, before: HighCardState, action: int, viewer: int) -> str:
        """What `viewer` sees of a move (`deckopt play`): a card led face down stays hidden from the other."""
        mover = before.current_player
        who = "you play" if mover == viewer else f"player {mover} plays"
        if not before.card_down:
            return f"{who} {action + 1 if mover == viewer else 'a card'} face down"
        turned = self._shown[1 - mover][-1]
        return f"{who} {action + 1}; the face-down card is {turned}; tricks {self._tricks[0]}-{self._tricks[1]}"

    def __str__(self) -> str:
        hands = " | ".join(" ".join(map(str, h)) for h in self._hands)
        return f"trick {self._trick + 1}, tricks {self._tricks}, down {self._down or '-'}, hands {hands}"


HighCard.state_class = HighCardState


__all__ = [
    "HighCard",
    "HighCardConfig",
    "HighCardState",
    "HighestCard",
    "LowestCard",
    "beats",
    "deck_problems",
]
