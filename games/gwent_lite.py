"""Gwent Lite: two players, decks of positive card powers, best of three rounds (games/RULES.md §5).
Its words (`str`, `view`, `describe_move`) are in games/gwent_lite_text.py.

The vectorised engine is games/gwent_lite_batch.py.

Actions (§5.7): `0` = pass, `k` = play a card of power `k` (1 <= k <= rules.max_power). The hand is
kept as counts per power, so its order carries no information; the legal mask is exactly pass + the
powers in hand.

Chance (§5.8): all of it happens in `new_initial_state(rng)`, which draws, in this order, the
round-1 leader, one shuffle seed per seat, and (with `decks=None`) a seed for the two random decks.
For comparing agents, the arena plays the same seed with the seats swapped; for comparing decks,
evolution plays the same seed with the decks swapped (see evolution/scoring/fitness.py).

Observation (§5.9) of `player` (float32, length `2 * max_power + 11`), every feature in [0, 1] except the
card counts noted below:
    [0, M)          own draw pile: count of each power 1..M, / min_cards
    [M, 2M)         own hand: count of each power 1..M, / hand_size
    2M + 0          own unplayed cards (draw pile + hand), / min_cards
    2M + 1          own round total, / max_total
    2M + 2          own round wins, / rounds_to_win
    2M + 3          own remaining power (draw pile + hand), / max_total
    2M + 4          opponent's draw-pile size, / min_cards
    2M + 5          opponent's hand size, / hand_size
    2M + 6          opponent's round total, / max_total
    2M + 7          opponent's round wins, / rounds_to_win
    2M + 8          opponent's remaining power, / max_total
    2M + 9          opponent has passed (0/1)
    2M + 10         round number / max rounds (2 * rounds_to_win - 1)
(M = rules.max_power.) Counts scaled by min_cards exceed 1 only for decks holding more than
min_cards cards (at most max_cards / min_cards). Nothing about the opponent's hand or any deck
order is observed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial

import numpy as np

from games.base import TERMINAL, Game, GameFacts, RareRule, State, as_generator, is_whole
from games.config import need, setting
from games.deckfile import deck_settings_with_rules
from games.decks import DECK_SHAPES, DeckRules, load_deck, shape_name
from games.rounds import RoundFacts, deal

# A round in which both hands are empty ends at once, and the next one starts inside it (one call
# deeper): 100 round wins to win keeps that chain far from Python's recursion limit.
MAX_ROUNDS_TO_WIN = 100


@dataclass(frozen=True)
class GwentLiteConfig:
    """The settings of a game (games/RULES.md §5); `games.make("gwent_lite", **settings)`."""

    rules: DeckRules = setting(factory=DeckRules, help="the deck rules (min_cards, max_total, min_power)", flag=False)
    decks: list[list[int]] | None = setting(
        None, "each seat's deck as card powers; none: a random legal deck per seat at every new game", flag=False
    )
    deck_pool: list[list[int]] | None = setting(
        None,
        "with decks none: each seat's deck is one of these (with chance pool_share; else a random legal deck)",
        flag=False,
    )
    pool_share: float = setting(1.0, "with a deck_pool: the chance that a seat's deck comes from it", metavar="P")
    random_deck_shapes: list[str] = setting(
        factory=lambda: ["uniform"],
        flag=False,
        help="the shapes of the random legal decks (games.decks.DECK_SHAPES): each seat's deck takes one drawn "
        "uniformly from this list (a name given twice counts twice)",
    )
    hand_size: int = setting(10, "the most cards a hand holds; each player starts by drawing this many", metavar="N")
    round_draw: int = setting(3, "cards each player draws after a round (fewer if the hand is full)", metavar="N")
    rounds_to_win: int = setting(2, f"round wins that win the game, 1 to {MAX_ROUNDS_TO_WIN}", metavar="N")

    def __post_init__(self):
        need(isinstance(self.rules, DeckRules), f"gwent_lite: rules must be DeckRules, got {type(self.rules).__name__}")
        limits = {"hand_size": (1, None), "round_draw": (0, None), "rounds_to_win": (1, MAX_ROUNDS_TO_WIN)}
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            span = f"from {low}" + (f" to {high}" if high else "")
            ok = is_whole(value) and value >= low and (high is None or value <= high)
            need(ok, f"gwent_lite: {name} must be a whole number {span}, got {value!r}")
            object.__setattr__(self, name, int(value))  # numpy integers become plain ints
        if self.decks is not None:
            need(
                isinstance(self.decks, (list, tuple)) and len(self.decks) == 2,
                "gwent_lite: decks must be a list of 2 decks (one per seat) or None",
            )
            # each seat's deck sorted, as plain ints; an illegal one is refused with its problems
            decks = [self.rules.validate(d, what=f"gwent_lite: seat {p}'s deck") for p, d in enumerate(self.decks)]
            object.__setattr__(self, "decks", decks)
        need(
            isinstance(self.pool_share, (int, float)) and 0.0 <= self.pool_share <= 1.0,
            f"gwent_lite: pool_share must be in [0, 1], got {self.pool_share!r}",
        )
        shapes = self.random_deck_shapes
        if isinstance(shapes, (list, tuple)):
            shapes = [shape_name(x) for x in shapes]
        need(
            isinstance(shapes, (list, tuple)) and len(shapes) >= 1 and all(x in DECK_SHAPES for x in shapes),
            f"gwent_lite: random_deck_shapes must be a non-empty list of {', '.join(DECK_SHAPES)}, got {shapes!r}",
        )
        object.__setattr__(self, "random_deck_shapes", [str(x) for x in shapes])
        if self.deck_pool is not None:
            need(
                isinstance(self.deck_pool, (list, tuple)) and len(self.deck_pool) >= 1,
                "gwent_lite: deck_pool must be a non-empty list of decks or None",
            )
            pool = [self.rules.validate(d, what=f"gwent_lite: deck_pool[{i}]") for i, d in enumerate(self.deck_pool)]
            object.__setattr__(self, "deck_pool", pool)


def _round_ended(before: GwentLiteState, after: GwentLiteState) -> bool:
    return after._round > before._round or (after._player == TERMINAL and before._player != TERMINAL)


def _draw_pile_emptied(before: GwentLiteState, action: int, after: GwentLiteState) -> bool:
    """A round's draws emptied a draw pile."""
    return after._round > before._round and any(b and not a for b, a in zip(before._piles, after._piles))


def _draw_cut_by_full_hand(before: GwentLiteState, action: int, after: GwentLiteState) -> bool:
    """A round's draws stopped short at a full hand with cards left in the draw pile."""
    full = after.game.config.hand_size
    return after._round > before._round and any(h == full and p for h, p in zip(after._hand_sizes, after._piles))


RARE_RULES = (
    RareRule(
        "a tied round (both win it)",
        lambda before, action, after: (
            _round_ended(before, after) and min(a - b for a, b in zip(after._wins, before._wins)) == 1
        ),
    ),
    RareRule("a drawn game", lambda before, action, after: after._returns == (0.0, 0.0)),
    RareRule("a round's draws cut by a full hand", _draw_cut_by_full_hand),
    RareRule("a draw pile emptied by a round's draws", _draw_pile_emptied),
    RareRule(
        "a round begun with an empty hand",
        lambda before, action, after: (
            after._round > before._round and after._player != TERMINAL and 0 in after._hand_sizes
        ),
    ),
)


class GwentLite(Game):
    name = "gwent_lite"
    num_players = 2
    config_class = GwentLiteConfig
    facts = GameFacts(
        default_agent="evaluator",
        deck_files=partial(deck_settings_with_rules, load_deck),
        hidden_information=True,
    )

    def __init__(self, config: GwentLiteConfig | None = None):
        self.config = c = GwentLiteConfig() if config is None else config
        rules = c.rules
        self.max_power = rules.max_power
        self.max_rounds = 2 * self.config.rounds_to_win - 1
        self.num_actions = self.max_power + 1
        m = self.max_power
        self.observation_size = 2 * m + 11
        # card counts are scaled by min_cards: a bigger deck exceeds 1
        self.observation_range = (0.0, max(1.0, rules.max_cards / rules.min_cards))
        scale = (
            [1 / rules.min_cards] * m
            + [1 / c.hand_size] * m
            + [1 / rules.min_cards, 1 / rules.max_total, 1 / c.rounds_to_win, 1 / rules.max_total]
            + [1 / rules.min_cards, 1 / c.hand_size, 1 / rules.max_total, 1 / c.rounds_to_win, 1 / rules.max_total]
            + [1.0, 1 / self.max_rounds]
        )
        self._obs_scale = np.array(scale, dtype=np.float32)
        self._no_hand = [0] * self.num_actions

    @property
    def rare_rules(self) -> tuple[RareRule, ...]:
        """RARE_RULES; a draw pile runs out (and a round may begin with an empty hand) only where the
        hands and the round draws can take as many cards as the smallest deck holds."""
        c = self.config
        drawn = c.hand_size + c.round_draw * (self.max_rounds - 1)
        return RARE_RULES if drawn >= c.rules.min_cards else RARE_RULES[:3]

    def new_initial_state(self, rng: np.random.Generator | int) -> GwentLiteState:
        """A fresh game from `rng` (a Generator or a seed; required): the leader coin, then one
        shuffle seed per seat, then (decks=None) the random decks."""
        leader, seat_seeds, decks = self._chance(as_generator(rng))
        orders = [np.random.default_rng(seat_seeds[p]).permutation(decks[p]).tolist() for p in (0, 1)]
        return GwentLiteState(self, orders, leader)

    def _chance(self, rng: np.random.Generator, decks=None) -> tuple[int, list[int], list[list[int]]]:
        """(leader, seat shuffle seeds, the two decks) of a new game, drawn from `rng` in this order
        (the vectorised engine, games/gwent_lite_batch.py, deals from it too); given `decks` (a
        game made with them draws nothing more), those."""
        leader = int(rng.integers(2))
        seat_seeds = rng.integers(2**63, size=2).tolist()
        if decks is None:
            decks = self.config.decks
        if decks is None:
            deck_rng = np.random.default_rng(int(rng.integers(2**63)))  # a further stream
            decks = [self._dealt_deck(deck_rng), self._dealt_deck(deck_rng)]
        return leader, seat_seeds, decks

    def _dealt_deck(self, deck_rng: np.random.Generator) -> list[int]:
        """A random legal deck of a shape from `random_deck_shapes`, or (with a deck_pool) one of the
        pool's with chance pool_share. With one shape, no draw chooses it (so `["uniform"]` deals as
        the rules' own `random_deck` always has)."""
        c = self.config
        if c.deck_pool and deck_rng.random() < c.pool_share:
            return c.deck_pool[int(deck_rng.integers(len(c.deck_pool)))]
        shapes = c.random_deck_shapes
        shape = shapes[0] if len(shapes) == 1 else shapes[int(deck_rng.integers(len(shapes)))]
        return DECK_SHAPES[shape](c.rules, deck_rng)

    def action_name(self, action: int) -> str:
        return "pass" if action == 0 else f"play {action}"

    def observations(self, states, players=None) -> np.ndarray:
        # one list of lists into one array: far cheaper than an array per state
        if players is None:
            players = [s.current_player for s in states]
        return np.array([s._features(p) for s, p in zip(states, players)], dtype=np.float32) * self._obs_scale

    def legal_masks(self, states) -> np.ndarray:
        masks = np.array([s._hands[s._player] if s._player != TERMINAL else self._no_hand for s in states], dtype=bool)
        masks[:, 0] = [s._player != TERMINAL for s in states]
        return masks


class GwentLiteState(RoundFacts, State):
    # fmt: off
    __slots__ = (
        "game", "_decks", "_piles", "_pile_counts", "_hands", "_hand_sizes", "_power_left", "_played",
        "_round_start", "_totals", "_wins", "_passed", "_round", "_leader", "_first_leader", "_player",
        "_returns",
    )
    # fmt: on

    def __init__(self, game: GwentLite, orders: list[list[int]], leader: int):
        self.game = game
        n = game.max_power + 1
        self._decks = tuple(tuple(sorted(o)) for o in orders)
        # draw piles with the next card at the END (list.pop is O(1))
        self._piles = [o[::-1] for o in orders]
        self._pile_counts = [[0] * n, [0] * n]
        for p in (0, 1):
            pc = self._pile_counts[p]
            for c in orders[p]:
                pc[c] += 1
        self._hands = [[0] * n, [0] * n]
        self._hand_sizes = [0, 0]
        self._power_left = [sum(orders[0]), sum(orders[1])]
        self._played = [[], []]  # every card played, in order
        self._round_start = [0, 0]  # index in _played where this round began
        self._totals = [0, 0]
        self._wins = [0, 0]
        self._round = 1
        self._first_leader = leader
        self._returns = None
        hs = game.config.hand_size
        for p in (0, 1):
            self._draw(p, hs)
        self._start_round(leader)

    # rules ------------------------------------------------------------------------------------
    def _draw(self, p: int, n: int) -> None:
        pile, pc, hand = self._piles[p], self._pile_counts[p], self._hands[p]
        n = min(n, len(pile), self.game.config.hand_size - self._hand_sizes[p])
        for _ in range(max(0, n)):
            c = pile.pop()
            pc[c] -= 1
            hand[c] += 1
        self._hand_sizes[p] += max(0, n)

    def _start_round(self, leader: int) -> None:
        self._leader = leader
        # a player with an empty hand passes automatically: never hand them a turn
        self._passed = [self._hand_sizes[0] == 0, self._hand_sizes[1] == 0]
        if not self._passed[leader]:
            self._player = leader
        elif not self._passed[1 - leader]:
            self._player = 1 - leader
        else:
            self._end_round()

    def _end_round(self) -> None:
        t0, t1 = self._totals
        leader = self._score_round(t0, t1, self.game.config.rounds_to_win)
        if leader == TERMINAL:
            return
        self._totals = [0, 0]
        self._round += 1
        self._round_start = [len(self._played[0]), len(self._played[1])]
        draw = self.game.config.round_draw
        self._draw(0, draw)
        self._draw(1, draw)
        self._start_round(leader)

    # interface --------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_mask(self) -> np.ndarray:
        if self._player == TERMINAL:
            return np.zeros(self.game.num_actions, dtype=bool)
        mask = np.array(self._hands[self._player], dtype=bool)
        mask[0] = True
        return mask

    def legal_actions(self) -> list[int]:
        if self._player == TERMINAL:
            return []
        return [0] + [k for k, c in enumerate(self._hands[self._player]) if c]

    def is_legal(self, action: int) -> bool:
        p = self._player
        return p != TERMINAL and 0 <= action < self.game.num_actions and (not action or self._hands[p][action] > 0)

    def apply_action(self, action: int) -> None:
        p = self._player
        a = self.checked_action(action)
        if a == 0:
            self._passed[p] = True
        else:
            self._hands[p][a] -= 1
            self._hand_sizes[p] -= 1
            self._power_left[p] -= a
            self._totals[p] += a
            self._played[p].append(a)
            if self._hand_sizes[p] == 0:
                self._passed[p] = True  # an empty hand passes automatically
        o = 1 - p
        if not self._passed[o]:
            self._player = o
        elif not self._passed[p]:
            self._player = p  # the opponent has passed: keep playing until passing or out of cards
        else:
            self._end_round()

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def returns(self) -> np.ndarray:
        return np.zeros(2) if self._returns is None else np.array(self._returns)

    def observation(self, player: int) -> np.ndarray:
        return np.array(self._features(player), dtype=np.float32) * self.game._obs_scale

    def _features(self, player: int) -> list:
        """The observation before scaling, as a list (GwentLite.observations stacks many)."""
        o = 1 - player
        feats = self._pile_counts[player][1:] + self._hands[player][1:]
        feats += [
            len(self._piles[player]) + self._hand_sizes[player],
            self._totals[player],
            self._wins[player],
            self._power_left[player],
            len(self._piles[o]),
            self._hand_sizes[o],
            self._totals[o],
            self._wins[o],
            self._power_left[o],
            self._passed[o],
            self._round,
        ]
        return feats

    def clone(self) -> GwentLiteState:
        s = GwentLiteState.__new__(GwentLiteState)
        s.game = self.game
        s._decks = self._decks
        s._piles = [self._piles[0][:], self._piles[1][:]]
        s._pile_counts = [self._pile_counts[0][:], self._pile_counts[1][:]]
        s._hands = [self._hands[0][:], self._hands[1][:]]
        s._power_left = self._power_left[:]
        s._played = [self._played[0][:], self._played[1][:]]
        s._round_start = self._round_start[:]
        s._totals = self._totals[:]
        self._copy_round_fields(s)
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> GwentLiteState:
        """The opponent's hand and draw pile re-dealt from their union (which `player` knows as a
        multiset, since the deck is known), sizes kept; `player`'s own draw pile reshuffled."""
        s = self.clone()
        o = 1 - player
        # sorted first: the result must depend on what `player` knows and on rng only, never on
        # the hidden order (search with the same rng must not tell two such states apart)
        unplayed = sorted(self.hand(o) + self._piles[o])
        unplayed = rng.permutation(unplayed).tolist() if unplayed else []
        n = self.game.max_power + 1
        s._hands[o], s._pile_counts[o], s._piles[o] = deal(unplayed, self._hand_sizes[o], [0] * n, n)
        own = sorted(self._piles[player])
        s._piles[player] = rng.permutation(own).tolist() if own else []
        return s

    # public facts -----------------------------------------------------------------------------
    @property
    def round_totals(self) -> tuple[int, int]:
        return tuple(self._totals)

    @property
    def remaining_power(self) -> tuple[int, int]:
        """Each player's unplayed power (draw pile + hand): public, since decks are known."""
        return tuple(self._power_left)

    def hand(self, player: int) -> list[int]:
        """`player`'s hand, sorted."""
        out = []
        for k, c in enumerate(self._hands[player]):
            if c:
                out += [k] * c
        return out

    def draw_pile(self, player: int) -> list[int]:
        """The draw pile in draw order (next card first): hidden information, for tools/tests."""
        return self._piles[player][::-1]

    def deck(self, player: int) -> list[int]:
        """The player's whole deck, sorted (public)."""
        return list(self._decks[player])

    def played(self, player: int) -> list[int]:
        """Every card `player` has played, in order (public)."""
        return self._played[player][:]

    def cards(self) -> Counter:
        """Each seat's cards, (seat, power): draw pile + hand + played, the whole deck at every step."""
        return Counter((p, c) for p in (0, 1) for c in self.hand(p) + self._piles[p] + self._played[p])

    def unplayed(self, player: int) -> list[int]:
        """`player`'s hand + draw pile as a sorted multiset (public: the deck is known)."""
        return sorted(self.hand(player) + self._piles[player])

    # words (games/gwent_lite_text.py, which imports this module; games/registry.py attaches it) ---
    def __str__(self) -> str:
        return self.game.text_module.render(self)

    def view(self, player: int) -> str:
        """The game as `player` sees it: own hand (sorted, with counts) and own draw pile as a
        multiset; of the opponent only sizes and the public unplayed multiset."""
        return self.game.text_module.render_view(self, player)

    def describe_move(self, before: GwentLiteState, action: int, viewer: int) -> str:
        """The card played or the pass; at a round's end its result and the draws."""
        return self.game.text_module.describe_move(self, before, action, viewer)
