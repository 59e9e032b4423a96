"""Gwent Lite: two players, decks of positive card powers, best of three rounds (RULES.md).

Actions: `0` = pass, `k` = play a card of power `k` (1 <= k <= rules.max_power). The hand is kept as
counts per power, so its order carries no information; the legal mask is exactly pass + the powers
in hand.

Chance: all of it happens in `new_initial_state(rng)`, which draws, in this order, the round-1
leader, one shuffle seed per seat, and (with `decks=None`) a seed for the two random decks. With
`mirrored=True` the two seats swap shuffle seeds (and random decks), while the same seat leads:
a game with decks [A, B] and its mirror with decks [B, A] give each deck exactly the same card
order, and the other deck leads, so both the draw luck and the leading luck cancel over the pair.
That is the mirror for comparing DECKS under one agent. For comparing AGENTS on fixed seat decks,
the mirror is the plain one: the same seed with the agents' seats swapped (what the arena does).

Observation of `player` (float32, length `2 * max_power + 11`), every feature in [0, 1] except the
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

from dataclasses import dataclass, field

import numpy as np

from games.base import TERMINAL, Game, State
from games.decks import Deck, DeckRules
from games.errors import UserError


@dataclass(frozen=True)
class GwentLiteConfig:
    rules: DeckRules = field(default_factory=DeckRules)
    # each seat's deck (sorted powers), or None: a random legal deck per seat at every new game
    decks: list[list[int]] | None = None
    hand_size: int = 10
    round_draw: int = 3
    rounds_to_win: int = 2


def _whole(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise UserError(f"gwent_lite: {name} must be a whole number >= {low}, got {value!r}")
    return int(value)


class GwentLite(Game):
    name = "gwent_lite"
    num_players = 2

    def __init__(
        self,
        rules: DeckRules | dict | None = None,
        decks=None,
        hand_size: int = 10,
        round_draw: int = 3,
        rounds_to_win: int = 2,
    ):
        if rules is None:
            rules = DeckRules()
        elif isinstance(rules, dict):
            rules = DeckRules(**rules)
        elif not isinstance(rules, DeckRules):
            raise UserError(f"gwent_lite: rules must be a DeckRules, got {type(rules).__name__}")
        if decks is not None:
            if isinstance(decks, (str, bytes)) or len(decks) != 2:
                raise UserError("gwent_lite: decks must be a list of 2 decks (one per seat) or None")
            decks = [
                rules.validate(d.cards if isinstance(d, Deck) else d, what=f"gwent_lite: seat {p}'s deck")
                for p, d in enumerate(decks)
            ]
        self.config = GwentLiteConfig(
            rules=rules,
            decks=decks,
            hand_size=_whole("hand_size", hand_size, 1),
            round_draw=_whole("round_draw", round_draw, 0),
            rounds_to_win=_whole("rounds_to_win", rounds_to_win, 1),
        )
        self.max_power = rules.max_power
        self.max_rounds = 2 * self.config.rounds_to_win - 1
        self.num_actions = self.max_power + 1
        m = self.max_power
        self.observation_size = 2 * m + 11
        c = self.config
        scale = (
            [1 / rules.min_cards] * m
            + [1 / c.hand_size] * m
            + [1 / rules.min_cards, 1 / rules.max_total, 1 / c.rounds_to_win, 1 / rules.max_total]
            + [1 / rules.min_cards, 1 / c.hand_size, 1 / rules.max_total, 1 / c.rounds_to_win, 1 / rules.max_total]
            + [1.0, 1 / self.max_rounds]
        )
        self._obs_scale = np.array(scale, dtype=np.float32)
        self._no_hand = [0] * self.num_actions

    def new_initial_state(self, rng: np.random.Generator, mirrored: bool = False) -> "GwentLiteState":
        """A fresh game: the leader coin, then one shuffle seed per seat, then (decks=None) the
        random decks. `mirrored` swaps the seats' seeds and random decks, not the leader."""
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        leader = int(rng.integers(2))
        seat_seeds = rng.integers(2**63, size=2).tolist()
        if self.config.decks is None:
            deck_rng = np.random.default_rng(int(rng.integers(2**63)))  # a further stream
            decks = [self.config.rules.random_deck(deck_rng), self.config.rules.random_deck(deck_rng)]
        else:
            decks = self.config.decks[:]
        if mirrored:
            seat_seeds.reverse()
            if self.config.decks is None:
                decks.reverse()
        orders = [np.random.default_rng(seat_seeds[p]).permutation(decks[p]).tolist() for p in (0, 1)]
        return GwentLiteState(self, orders, leader)

    def state_from_orders(self, orders, leader: int) -> "GwentLiteState":
        """A game with no chance left: `orders[p]` is seat p's deck in draw order (first card drawn
        first), `leader` leads round 1. For tests and tools; each deck must be legal under the
        rules (the config's decks are not consulted)."""
        if len(orders) != 2 or leader not in (0, 1):
            raise UserError("gwent_lite: state_from_orders needs 2 draw orders and a leader 0 or 1")
        for p, order in enumerate(orders):
            self.config.rules.validate(order, what=f"gwent_lite: seat {p}'s deck")
        return GwentLiteState(self, [[int(c) for c in o] for o in orders], leader)

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


class GwentLiteState(State):
    __slots__ = (
        "game", "_decks", "_piles", "_pile_counts", "_hands", "_hand_sizes", "_power_left", "_played",
        "_round_start", "_totals", "_wins", "_passed", "_round", "_leader", "_first_leader", "_player",
        "_returns",
    )

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
        wins = self._wins
        if t0 >= t1:
            wins[0] += 1
        if t1 >= t0:  # equal totals: both score a round win
            wins[1] += 1
        rtw = self.game.config.rounds_to_win
        done0, done1 = wins[0] >= rtw, wins[1] >= rtw
        if done0 or done1:
            self._player = TERMINAL
            self._returns = (0.0, 0.0) if done0 and done1 else ((1.0, -1.0) if done0 else (-1.0, 1.0))
            return
        leader = 0 if t0 > t1 else 1 if t1 > t0 else 1 - self._first_leader
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

    def apply_action(self, action: int) -> None:
        p = self._player
        try:
            a = int(action)
            ok = a == action and p != TERMINAL and 0 <= a < self.game.num_actions and (a == 0 or self._hands[p][a] > 0)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise self._illegal(action)
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

    def clone(self) -> "GwentLiteState":
        s = GwentLiteState.__new__(GwentLiteState)
        s.game = self.game
        s._decks = self._decks
        s._piles = [self._piles[0][:], self._piles[1][:]]
        s._pile_counts = [self._pile_counts[0][:], self._pile_counts[1][:]]
        s._hands = [self._hands[0][:], self._hands[1][:]]
        s._hand_sizes = self._hand_sizes[:]
        s._power_left = self._power_left[:]
        s._played = [self._played[0][:], self._played[1][:]]
        s._round_start = self._round_start[:]
        s._totals = self._totals[:]
        s._wins = self._wins[:]
        s._passed = self._passed[:]
        s._round = self._round
        s._leader = self._leader
        s._first_leader = self._first_leader
        s._player = self._player
        s._returns = self._returns
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> "GwentLiteState":
        """The opponent's hand and draw pile re-dealt from their union (which `player` knows as a
        multiset, since the deck is known), sizes kept; `player`'s own draw pile reshuffled."""
        s = self.clone()
        o = 1 - player
        # sorted first: the result must depend on what `player` knows and on rng only, never on
        # the hidden order (search with the same rng must not tell two such states apart)
        unplayed = sorted(self.hand(o) + self._piles[o])
        unplayed = rng.permutation(unplayed).tolist() if unplayed else []
        h = self._hand_sizes[o]
        n = self.game.max_power + 1
        hand, pc = [0] * n, [0] * n
        for c in unplayed[:h]:
            hand[c] += 1
        for c in unplayed[h:]:
            pc[c] += 1
        s._hands[o], s._pile_counts[o], s._piles[o] = hand, pc, unplayed[h:]
        own = sorted(self._piles[player])
        s._piles[player] = rng.permutation(own).tolist() if own else []
        return s

    # public facts -----------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The round being played (from 1); the last round played once the game is over."""
        return self._round

    @property
    def leader(self) -> int:
        """The player who led the current round."""
        return self._leader

    @property
    def first_leader(self) -> int:
        return self._first_leader

    @property
    def round_totals(self) -> tuple[int, int]:
        return tuple(self._totals)

    @property
    def round_wins(self) -> tuple[int, int]:
        return tuple(self._wins)

    @property
    def passed(self) -> tuple[bool, bool]:
        return tuple(self._passed)

    @property
    def hand_sizes(self) -> tuple[int, int]:
        return tuple(self._hand_sizes)

    @property
    def draw_pile_sizes(self) -> tuple[int, int]:
        return (len(self._piles[0]), len(self._piles[1]))

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

    def unplayed(self, player: int) -> list[int]:
        """`player`'s hand + draw pile as a sorted multiset (public: the deck is known)."""
        return sorted(self.hand(player) + self._piles[player])

    # rendering --------------------------------------------------------------------------------
    def _header(self) -> str:
        w = self._wins
        head = f"Gwent Lite, round {self._round} (player {self._leader} led), round wins {w[0]}-{w[1]}"
        if self._returns is not None:
            r = self._returns
            head += ": draw" if r[0] == r[1] else f": player {0 if r[0] > 0 else 1} wins"
        return head

    def _board(self, p: int) -> str:
        on_table = self._played[p][self._round_start[p]:]
        passed = ", passed" if self._passed[p] else ""
        return f"total {self._totals[p]}{passed}, played this round {on_table}"

    def __str__(self) -> str:
        lines = [self._header()]
        for p in (0, 1):
            lines.append(
                f"player {p}: {self._board(p)}; hand {self.hand(p)}; draw pile (next first) {self.draw_pile(p)}"
            )
        if self._returns is None:
            lines.append(f"player {self._player} to move")
        return "\n".join(lines)

    def view(self, player: int) -> str:
        """The game as `player` sees it: own hand (sorted, with counts) and own draw pile as a
        multiset; of the opponent only sizes and the public unplayed multiset."""
        o = 1 - player
        w = self._wins
        lines = [
            f"Gwent Lite, round {self._round} of at most {self.game.max_rounds} (player {self._leader} led); "
            f"round wins: you {w[player]}, player {o} {w[o]}"
        ]
        if self._returns is not None:
            r = self._returns
            lines[0] += ": a draw" if r[0] == r[1] else (": you win" if r[player] > 0 else f": player {o} wins")
        for p, name in ((player, f"you (player {player})"), (o, f"player {o}")):
            lines.append(
                f"{name + ':':16} {self._board(p)}; hand {self._hand_sizes[p]} cards, "
                f"draw pile {len(self._piles[p])} cards"
            )
        lines.append(f"your hand ({self._hand_sizes[player]} cards): [{_with_counts(self.hand(player))}]")
        lines.append(f"your draw pile (order hidden): [{_with_counts(sorted(self._piles[player]))}]")
        lines.append(f"player {o}'s unplayed cards (hand + draw pile): [{_with_counts(self.unplayed(o))}]")
        if self._returns is None and self._player != player:
            lines.append(f"player {self._player} to move")
        return "\n".join(lines)

    def describe_move(self, before: "GwentLiteState", action: int, viewer: int) -> str:
        """The card played or the pass; at a round's end its result and the draws."""
        mover = before.current_player

        def name(p: int) -> str:
            return "you" if p == viewer else f"player {p}"

        def verb(p: int, word: str) -> str:
            return word if p == viewer else word + ("es" if word.endswith("ss") else "s")

        totals = list(before._totals)
        if action == 0:
            line = f"{name(mover)} {verb(mover, 'pass')} (total {totals[mover]})"
        else:
            totals[mover] += action
            line = f"{name(mover)} {verb(mover, 'play')} a {action} (total {totals[mover]})"
            if before._hand_sizes[mover] == 1:
                line += f", out of cards: {verb(mover, 'pass')}"
        lines = [line]
        if self._round == before._round and self._returns is None:
            return line
        t = totals
        if t[0] == t[1]:
            result = "a tie: both score a round win"
        else:
            winner = 0 if t[0] > t[1] else 1
            result = f"{name(winner)} {verb(winner, 'win')} the round"
        o = 1 - viewer
        w = self._wins
        lines.append(
            f"== round {before._round} over, {t[viewer]} to {t[o]}: {result}; "
            f"round wins: you {w[viewer]}, player {o} {w[o]}"
        )
        if self._returns is None:
            drew = [self._hand_sizes[p] - before._hand_sizes[p] + (p == mover and action != 0) for p in (0, 1)]
            lines.append(
                f"round {self._round}: {name(self._leader)} {verb(self._leader, 'lead')}; you drew {drew[viewer]} "
                f"card{'' if drew[viewer] == 1 else 's'}, player {o} drew {drew[o]}"
            )
            for p in (0, 1):
                if self._passed[p]:
                    lines.append(f"{name(p)} {'have' if p == viewer else 'has'} no cards: {verb(p, 'pass')}")
        return "\n".join(lines)


def _with_counts(cards: list[int]) -> str:
    """Sorted powers with repeats counted: [1, 1, 4, 7, 7, 7] -> "1 x2, 4, 7 x3"."""
    out = []
    for power in sorted(set(cards)):
        n = cards.count(power)
        out.append(f"{power} x{n}" if n > 1 else str(power))
    return ", ".join(out)
