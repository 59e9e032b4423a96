"""Gwent Lite's vectorised engine: a batch of games as numpy arrays, stepped a whole step at a time.

The batch form (games/batch.py) of games/gwent_lite.py. It plays exactly as the scalar engine does:
the same deals for the same seeds, the same transitions (round ends, draws capped by the hand
size, automatic passes of empty hands, tied rounds, the leader rule, draws at equal round wins),
bit-identical float32 observations and the same legal masks (the conformance check "vectorised
engine", games/conformance.py, checks every step of random and scripted games against the scalar
engine, and that its rare rules fire).

Layout: every per-seat array has one row per (game, seat), row `2 * g + p`, so a step addresses
the movers and their opponents with one flat index each (`r` and `r ^ 1`):
    _order       (2B, L)  each seat's deck in draw order; the draw pile is _order[r, _drawn[r]:_len[r]]
    _pile_counts (2B, M)  the draw pile as counts per power (M = max_power + 1; column 0 unused)
    _hands       (2B, M)  the hand as counts per power
    _hand_sizes, _power_left, _totals, _wins, _passed, _drawn, _len, _n_played, _round_start  (2B,)
    _played      (2B, L)  the cards played, in order (only `state(g)` reads them: the text views)
    _round, _leader, _first_leader, _player  (B,);  _returns (B, 2)

Every game of a batch has the same settings (deck rules, hand_size, round_draw, rounds_to_win);
their decks may differ (deck fitness plays many pairings in one batch). `from_states` of games
with different settings falls back to a StateBatch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from games.base import TERMINAL, as_generator
from games.batch import BatchState, StateBatch
from games.errors import IllegalActionError
from games.gwent_lite import GwentLite, GwentLiteState
from games.numpy_streams import SeedStreams, is_seed64, shuffles, streams_match_numpy


def _settings(game: GwentLite) -> tuple:
    c = game.config
    return (c.rules, c.hand_size, c.round_draw, c.rounds_to_win)


class GwentLiteBatch(BatchState):
    """`size` Gwent Lite games in numpy arrays (module docstring). Build it with `from_states`
    (copies of states) or `deal` (new games from seeds, without building any state)."""

    def __init__(self, game: GwentLite, games: Sequence[GwentLite], decks: Sequence[tuple], length: int):
        """Empty arrays for `len(games)` games of `game`'s settings, seats' decks up to `length`
        cards; the constructors fill them."""
        self.game = game
        self._games = list(games)  # each game's own Game (its decks), for `state(g)`
        self._decks = list(decks)  # each game's (deck of seat 0, deck of seat 1), sorted tuples
        b, m = len(self._games), game.num_actions
        c = game.config
        self._hand_size, self._round_draw, self._rounds_to_win = c.hand_size, c.round_draw, c.rounds_to_win
        rows = 2 * b
        self._order = np.zeros((rows, length), dtype=np.int64)
        self._played = np.zeros((rows, length), dtype=np.int64)
        self._pile_counts = np.zeros((rows, m), dtype=np.int64)
        self._hands = np.zeros((rows, m), dtype=np.int64)
        for name in ("_len", "_drawn", "_hand_sizes", "_power_left", "_totals", "_wins", "_n_played", "_round_start"):
            setattr(self, name, np.zeros(rows, dtype=np.int64))
        self._passed = np.zeros(rows, dtype=bool)
        self._round = np.ones(b, dtype=np.int64)
        self._leader = np.zeros(b, dtype=np.int64)
        self._first_leader = np.zeros(b, dtype=np.int64)
        self._player = np.zeros(b, dtype=np.int64)
        self._returns = np.zeros((b, 2), dtype=np.float64)

    # constructors -----------------------------------------------------------------------------
    @classmethod
    def deal(cls, game: GwentLite, seeds: Sequence, decks: Sequence | None = None) -> GwentLiteBatch:
        """The batch of `game.new_initial_state(seeds[i])` for every i, with the very same chance
        (the leader coin, then one shuffle seed per seat, shuffles by
        `default_rng(seat_seed).permutation(deck)`), without building any state. With `decks`,
        game i is played as if `game` had been made with `decks=decks[i]` (a pair of legal decks,
        seat 0's first): many pairings in one batch. With fixed decks and integer seeds, numpy's
        generators are replayed for all games at once (see `SeedStreams`)."""
        seeds = list(seeds)
        if not seeds:
            raise ValueError("deal needs at least one seed")
        if decks is None:
            pairs = [None] * len(seeds)
        else:
            # each distinct deck validated and sorted once, as GwentLiteConfig does with `decks`
            legal: dict = {}
            for pair in decks:
                for d in pair:
                    d = tuple(d)
                    if d not in legal:
                        legal[d] = tuple(game.config.rules.validate(list(d), what="gwent_lite: a deck of the batch"))
            pairs = [(legal[tuple(a)], legal[tuple(b)]) for a, b in decks]
            if len(pairs) != len(seeds):
                raise ValueError(f"{len(seeds)} seeds but {len(pairs)} pairs of decks")
        fixed = game.config.decks is not None or decks is not None
        own = None if game.config.decks is None else tuple(tuple(d) for d in game.config.decks)
        leaders = np.zeros(len(seeds), dtype=np.int64)
        seat_seeds = np.zeros((len(seeds), 2), dtype=np.uint64)
        dealt = [None] * len(seeds)  # each game's two decks as drawn (the ones shuffled)
        fast = [i for i, x in enumerate(seeds) if fixed and streams_match_numpy() and is_seed64(x)]
        if fast:
            leaders[fast], seat_seeds[fast] = SeedStreams.chance(
                np.array([int(seeds[i]) for i in fast], dtype=np.uint64)
            )
            for i in fast:
                dealt[i] = pairs[i] or own
        for i in sorted(set(range(len(seeds))) - set(fast)):
            leader, seats, pair = game._chance(as_generator(seeds[i]), pairs[i])
            leaders[i], seat_seeds[i] = leader, seats
            dealt[i] = (tuple(pair[0]), tuple(pair[1]))
        # the states' public decks are sorted (fixed decks are already: validated)
        public = dealt if fixed else [(tuple(sorted(a)), tuple(sorted(b))) for a, b in dealt]
        batch = cls(game, [game] * len(seeds), public, max(len(d) for pair in dealt for d in pair))
        if decks is not None:
            batch._games = None  # made on demand by `state(g)`: a Game per pair of decks
        batch._fill_orders(dealt, shuffles(seat_seeds.reshape(-1), [len(d) for pair in dealt for d in pair]))
        batch._first_leader[:] = leaders
        batch._start_game()
        return batch

    @classmethod
    def from_states(cls, states: Sequence[GwentLiteState]) -> BatchState:
        """Copies of `states`, same order (a StateBatch of copies if their settings differ)."""
        states = list(states)
        if not states or any(_settings(s.game) != _settings(states[0].game) for s in states):
            return StateBatch.from_states(states)
        length = max(len(d) for s in states for d in s._decks)
        batch = cls(states[0].game, [s.game for s in states], [s._decks for s in states], length)
        for g, s in enumerate(states):
            for p in (0, 1):
                r = 2 * g + p
                pile = s._piles[p][::-1]  # draw order
                batch._order[r, : len(pile)] = pile
                batch._len[r] = len(pile)
                batch._pile_counts[r] = s._pile_counts[p]
                batch._hands[r] = s._hands[p]
                batch._played[r, : len(s._played[p])] = s._played[p]
                batch._n_played[r] = len(s._played[p])
            rows = slice(2 * g, 2 * g + 2)
            batch._hand_sizes[rows] = s._hand_sizes
            batch._power_left[rows] = s._power_left
            batch._totals[rows] = s._totals
            batch._wins[rows] = s._wins
            batch._passed[rows] = s._passed
            batch._round_start[rows] = s._round_start
            batch._round[g] = s._round
            batch._leader[g] = s._leader
            batch._first_leader[g] = s._first_leader
            batch._player[g] = s._player
            if s._returns is not None:
                batch._returns[g] = s._returns
        return batch

    def _fill_orders(self, dealt: list[tuple], perms: np.ndarray) -> None:
        """Seat-row r's draw order is its deck (the r-th deck of `dealt`'s pairs, as drawn)
        shuffled by perms[r]; its counts and power follow."""
        index: dict = {}  # each distinct deck once, as a row of zero-padded powers
        rows = [index.setdefault(d, len(index)) for pair in dealt for d in pair]
        width = self._order.shape[1]
        unique = np.zeros((len(index), width), dtype=np.int64)
        for d, u in index.items():
            unique[u, : len(d)] = d
        lengths = np.array([len(d) for d in index], dtype=np.int64)[rows]
        # beyond a deck's length its permutation row is the identity, pointing at the padding
        self._order[:] = np.take_along_axis(unique[rows], perms, axis=1)
        self._len[:] = lengths
        m = self._pile_counts.shape[1]
        valid = np.arange(width) < lengths[:, None]
        cells = (np.arange(len(rows))[:, None] * m + self._order)[valid]
        self._pile_counts[:] = np.bincount(cells, minlength=len(rows) * m).reshape(len(rows), m)
        self._power_left[:] = self._order.sum(axis=1)

    def _start_game(self) -> None:
        rows = np.arange(self._order.shape[0])
        self._draw(rows, self._hand_size)
        games = np.arange(self.size)
        self._end_rounds(self._start_rounds(games, self._first_leader.copy()))

    # rules, vectorised (games/gwent_lite.py's _draw, _start_round, _end_round) ----------------
    def _draw(self, rows: np.ndarray, n: int) -> None:
        """Seat-rows `rows` (distinct) each draw n cards, fewer if the pile runs out or the hand is full."""
        top = self._drawn[rows]
        k = np.minimum(np.minimum(self._len[rows] - top, self._hand_size - self._hand_sizes[rows]), n)
        k = np.maximum(k, 0)
        total = int(k.sum())
        if total:
            # every card drawn, at once: row r takes _order[r, top : top + k]
            each = np.repeat(rows, k)
            start = np.cumsum(k) - k
            at = np.repeat(top - start, k) + np.arange(total)
            m = self._hands.shape[1]
            cells = each * m + self._order[each, at]
            np.add.at(self._hands.reshape(-1), cells, 1)
            np.subtract.at(self._pile_counts.reshape(-1), cells, 1)
        self._drawn[rows] += k
        self._hand_sizes[rows] += k

    def _start_rounds(self, games: np.ndarray, leaders: np.ndarray) -> np.ndarray:
        """Rounds start in `games` led by `leaders`; returns the games whose round ends at once
        (both hands empty)."""
        self._leader[games] = leaders
        r0 = 2 * games
        e0 = self._hand_sizes[r0] == 0
        e1 = self._hand_sizes[r0 + 1] == 0
        self._passed[r0] = e0  # a player with an empty hand passes automatically
        self._passed[r0 + 1] = e1
        lead_empty = np.where(leaders == 0, e0, e1)
        self._player[games] = np.where(lead_empty, 1 - leaders, leaders)
        return games[e0 & e1]

    def _end_rounds(self, games: np.ndarray) -> None:
        """Both players have passed in `games`: score the rounds, end the games or start the next rounds."""
        while games.size:
            r0 = 2 * games
            t0, t1 = self._totals[r0], self._totals[r0 + 1]
            self._wins[r0] += t0 >= t1
            self._wins[r0 + 1] += t1 >= t0  # equal totals: both score a round win
            done0 = self._wins[r0] >= self._rounds_to_win
            done1 = self._wins[r0 + 1] >= self._rounds_to_win
            over = done0 | done1
            if over.any():
                ended = games[over]
                self._player[ended] = TERMINAL
                d0, d1 = done0[over], done1[over]
                first = np.where(d0 & d1, 0.0, np.where(d0, 1.0, -1.0))
                self._returns[ended, 0] = first
                self._returns[ended, 1] = np.where(d0 & d1, 0.0, -first)  # never -0.0
            on = ~over
            games, t0, t1 = games[on], t0[on], t1[on]
            if not games.size:
                return
            leaders = np.where(t0 > t1, 0, np.where(t1 > t0, 1, 1 - self._first_leader[games]))
            r0 = 2 * games
            rows = np.concatenate([r0, r0 + 1])
            self._totals[rows] = 0
            self._round[games] += 1
            self._round_start[rows] = self._n_played[rows]
            self._draw(r0, self._round_draw)
            self._draw(r0 + 1, self._round_draw)
            games = self._start_rounds(games, leaders)

    # the batch interface ----------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self._player.shape[0]

    def current_players(self) -> np.ndarray:
        return self._player.copy()

    def observations(self, games: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        p = self._player[games] if players is None else np.asarray(players, dtype=np.int64)
        if p.size and (p.min() < 0 or p.max() > 1):
            raise ValueError("observations are seen by player 0 or 1 (a finished game has no player to move)")
        r = 2 * games + p
        o = r ^ 1
        m = self.game.max_power
        out = np.empty((games.size, self.game.observation_size), dtype=np.float32)
        out[:, :m] = self._pile_counts[r, 1:]
        out[:, m : 2 * m] = self._hands[r, 1:]
        pile_r = self._len[r] - self._drawn[r]
        out[:, 2 * m] = pile_r + self._hand_sizes[r]
        out[:, 2 * m + 1] = self._totals[r]
        out[:, 2 * m + 2] = self._wins[r]
        out[:, 2 * m + 3] = self._power_left[r]
        out[:, 2 * m + 4] = self._len[o] - self._drawn[o]
        out[:, 2 * m + 5] = self._hand_sizes[o]
        out[:, 2 * m + 6] = self._totals[o]
        out[:, 2 * m + 7] = self._wins[o]
        out[:, 2 * m + 8] = self._power_left[o]
        out[:, 2 * m + 9] = self._passed[o]
        out[:, 2 * m + 10] = self._round[games]
        out *= self.game._obs_scale  # the scalar engine's float32 product, element for element
        return out

    def legal_masks(self, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        p = self._player[games]
        live = p != TERMINAL
        masks = self._hands[2 * games + np.maximum(p, 0)] > 0
        masks[:, 0] = True
        masks &= live[:, None]
        return masks

    def apply_actions(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Game `games[i]` (distinct) takes `actions[i]`; nothing changes if one is illegal."""
        games = np.asarray(games, dtype=np.int64)
        a = np.asarray(actions)
        if a.shape != games.shape:
            raise ValueError(f"{games.size} games but {a.size} actions")
        if not games.size:
            return
        p = self._player[games]
        r = 2 * games + p
        self._check(games, a, p, r)
        a = a.astype(np.int64, copy=False)
        play = a > 0
        rp, ap = r[play], a[play]
        self._hands[rp, ap] -= 1
        self._hand_sizes[rp] -= 1
        self._power_left[rp] -= ap
        self._totals[rp] += ap
        self._played[rp, self._n_played[rp]] = ap
        self._n_played[rp] += 1
        # a pass, or the last card of a hand (an empty hand passes automatically)
        self._passed[r[~play]] = True
        self._passed[rp[self._hand_sizes[rp] == 0]] = True
        opponent_on = ~self._passed[r ^ 1]
        # the opponent moves unless they have passed; then the mover keeps playing until they pass
        self._player[games] = np.where(opponent_on, 1 - p, p)
        both_passed = ~opponent_on & self._passed[r]
        if both_passed.any():
            self._end_rounds(games[both_passed])

    def _check(self, games: np.ndarray, a: np.ndarray, p: np.ndarray, r: np.ndarray) -> None:
        """IllegalActionError naming the first game whose action is not legal (`p`: the players to
        move, `r`: their rows)."""
        if a.dtype.kind not in "iu":  # floats, bools, strings never coerce (as in the scalar engine)
            g, bad = int(games[0]), a[0]
            raise IllegalActionError(f"gwent_lite: game {g}: action {bad!r} is not an integer action")
        if p.min() >= 0 and a.min() >= 0 and a.max() < self.game.num_actions:  # the usual case: one lookup
            if ((a == 0) | (self._hands[r, a] > 0)).all():
                return
        live = p != TERMINAL
        in_range = (a >= 0) & (a < self.game.num_actions)
        held = np.zeros(games.size, dtype=bool)
        ok = live & in_range
        held[ok] = self._hands[2 * games[ok] + p[ok], a[ok]] > 0
        legal = ok & ((a == 0) | held)
        if legal.all():
            return
        i = int(np.flatnonzero(~legal)[0])
        g, action = int(games[i]), a[i].item()
        if not live[i]:
            raise IllegalActionError(f"gwent_lite: game {g}: action {action!r} after the game has ended")
        legal_actions = np.flatnonzero(self.legal_masks(games[i : i + 1])[0]).tolist()
        raise IllegalActionError(
            f"gwent_lite: game {g}: action {action!r} is not legal for player {int(p[i])} (legal: {legal_actions})"
        )

    def returns(self) -> np.ndarray:
        return self._returns.copy()

    def _game_of(self, g: int) -> GwentLite:
        """Game g's own Game (its decks in the config), made on first use after `deal(decks=...)`."""
        if self._games is None:
            self._games = [None] * self.size
            self._made: dict = {}
        game = self._games[g]
        if game is None:
            pair = self._decks[g]
            game = self._made.get(pair)
            if game is None:
                config = dataclasses.replace(self.game.config, decks=[list(d) for d in pair], deck_pool=None)
                game = self._made[pair] = GwentLite(config)
            self._games[g] = game
        return game

    def state(self, g: int) -> GwentLiteState:
        """Game `g` as a new GwentLiteState (a snapshot: playing the batch does not change it),
        equal to the scalar engine's state in every field, the played-card history included."""
        s = GwentLiteState.__new__(GwentLiteState)
        s.game = self._game_of(g)
        s._decks = self._decks[g]
        rows = (2 * g, 2 * g + 1)
        s._piles = [self._order[r, self._drawn[r] : self._len[r]][::-1].tolist() for r in rows]
        s._pile_counts = [self._pile_counts[r].tolist() for r in rows]
        s._hands = [self._hands[r].tolist() for r in rows]
        s._hand_sizes = self._hand_sizes[2 * g : 2 * g + 2].tolist()
        s._power_left = self._power_left[2 * g : 2 * g + 2].tolist()
        s._played = [self._played[r, : self._n_played[r]].tolist() for r in rows]
        s._round_start = self._round_start[2 * g : 2 * g + 2].tolist()
        s._totals = self._totals[2 * g : 2 * g + 2].tolist()
        s._wins = self._wins[2 * g : 2 * g + 2].tolist()
        s._passed = self._passed[2 * g : 2 * g + 2].tolist()
        s._round = int(self._round[g])
        s._leader = int(self._leader[g])
        s._first_leader = int(self._first_leader[g])
        s._player = int(self._player[g])
        s._returns = tuple(self._returns[g].tolist()) if s._player == TERMINAL else None
        return s


__all__ = ["GwentLiteBatch"]
