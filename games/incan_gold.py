"""Incan Gold (Diamant), the rules of games/RULES.md §4: 3..8 players, 5 rounds, actions 0 = leave,
1 = stay. Its words (`str`, `view`, `describe_move`) are in games/incan_gold_text.py.

Simultaneous secret choices are played as sequential decisions (§4.4): within a decision step every
player still in the temple chooses in seat order; the choices are kept pending (hidden from
everyone's observation) and resolved together when the last one is in.

Cards are small ints inside the engine (fast to copy and compare): a treasure is its gem value
(1..17), an artifact is 0, a hazard of kind k is -1 - k (kinds: fire, mummy, rocks, snakes,
spiders). The public `path` property turns them into readable `Card`s.

Chance (§4.8): the state draws all its shuffle randomness from the Generator given to
`new_initial_state` when the game starts (one row of uniforms per round, consumed by a
Fisher-Yates shuffle at the start of that round). So a seed replays a game exactly, and `clone()`
is an exact copy without copying a Generator. `resample_hidden` re-draws the deck order and these
future uniforms from the caller's Generator.

Observation (§4.9; float32, length 34 + 4 * (num_players - 1)), from player p's view:
    [0]      own banked gems / 100 (artifacts included)
    [1]      own round gems / 50 (capped at 1.5)
    [2]      own in-temple flag
    [3]      own artifacts claimed / 5
    then for each opponent, ordered by banked gems (most first; ties by seat order after p),
    4 features each: banked / 100, round gems / 50, in-temple flag, artifacts claimed / 5
    [o + 0]  round number / num_rounds                     (o = 4 + 4 * (num_players - 1))
    [o + 1]  gems on the path / 20 (capped at 1.5)
    [o + 2]  artifacts on the path / 5
    [o + 3]  what the artifacts on the path are worth to a lone leaver now / 35 (all five)
    [o + 4 .. o + 8]   hazard on the path, per kind (0/1), kinds in HAZARD_KINDS order
    [o + 9]  players in the temple / num_players
    [o + 10 .. o + 21] remaining deck: count of each treasure value (TREASURE_VALUES order) / its
                       count in the full deck
    [o + 22 .. o + 26] remaining deck: hazards per kind / 3
    [o + 27] remaining deck: artifacts / 5
    [o + 28] remaining deck size / 35
    [o + 29] chance that the next card is a second hazard of a kind on the path
Gem features are capped at 1.5 (reached only in freak games). Nothing in the observation depends
on the choices already made in the current decision step.

One module: the rules of one game, read as a whole beside games/RULES.md (simultaneous choices,
the hazards and the temple's rounds share the same few fields).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from games.base import TERMINAL, Game, GameFacts, State, as_generator, is_whole
from games.config import need, setting

LEAVE, STAY = 0, 1
TREASURES = (1, 2, 3, 4, 5, 5, 7, 7, 9, 11, 11, 13, 14, 15, 17)
TREASURE_VALUES = tuple(sorted(set(TREASURES)))  # the 12 distinct values
HAZARD_KINDS = ("fire", "mummy", "rocks", "snakes", "spiders")
HAZARD_COPIES = 3
# the k-th artifact claimed in the game is worth ARTIFACT_VALUES[k]
ARTIFACT_VALUES = (5, 5, 5, 10, 10)
NUM_ARTIFACTS = len(ARTIFACT_VALUES)
ARTIFACT = 0
MAX_DECK = len(TREASURES) + HAZARD_COPIES * len(HAZARD_KINDS) + NUM_ARTIFACTS  # 35
# Each round that ends on a hazard removes one card; a deck can only run dry without a repeat
# once every kind is down to one card (10 removals), i.e. in round 11 at the earliest.
MAX_ROUNDS = 10

_FULL_TREASURE_COUNT = {v: TREASURES.count(v) for v in TREASURE_VALUES}
# observation: the deck's cards counted by code + 5 (hazards -5..-1, artifact 0, treasures 1..17)
_CODE_SLOTS = 23
_DECK_SLOTS = tuple(v + 5 for v in TREASURE_VALUES) + tuple(4 - k for k in range(len(HAZARD_KINDS))) + (5,)
_INITIAL_DECK = tuple(TREASURES) + tuple(-1 - k for k in range(len(HAZARD_KINDS)) for _ in range(HAZARD_COPIES))


class Card(NamedTuple):
    """A card as people read it: ("treasure", gems), ("hazard", kind name) or ("artifact", None)."""

    kind: str
    value: int | str | None

    def __str__(self) -> str:
        if self.kind == "treasure":
            return f"{self.value} gem{'' if self.value == 1 else 's'}"
        return str(self.value) if self.kind == "hazard" else "artifact"


class Step(NamedTuple):
    """A resolved decision step, as everyone sees it once the choices are revealed together."""

    round: int
    choices: tuple[int | None, ...]  # LEAVE or STAY per player; None: already out of the temple
    left_with: tuple[int, ...]  # gems each player banked by leaving at this step (artifacts included)
    path_share: int  # gems from the path each leaver took
    artifacts: tuple[int, ...]  # artifacts each player claimed at this step
    artifact_gems: tuple[int, ...]  # what those artifacts were worth
    turned: Card | None  # the card turned after the step; None when everyone had left
    round_over: bool  # the step ended the round: everyone left, or `turned` was a second hazard
    lost: tuple[int, ...]  # gems each player in the temple lost to that second hazard


def _make_card(code: int) -> Card:
    if code > 0:
        return Card("treasure", code)
    if code == ARTIFACT:
        return Card("artifact", None)
    return Card("hazard", HAZARD_KINDS[-1 - code])


_CARDS = {code: _make_card(code) for code in set(_INITIAL_DECK) | {ARTIFACT}}


def card_of(code: int) -> Card:
    """The readable Card of an engine card code."""
    return _CARDS[code]


@dataclass(frozen=True)
class IncanGoldConfig:
    """The settings of a game (games/RULES.md §4.1); `games.make("incan_gold", **settings)`."""

    num_players: int = setting(3, "players, 3 to 8", metavar="N")
    num_rounds: int = setting(
        5, f"rounds, 1 to {MAX_ROUNDS} (rounds after the fifth add no artifact: there are five)", metavar="R"
    )
    rank_returns: bool = setting(
        False, "return a score by final rank (first +1, last -1, evenly spaced) instead of +1 for a sole winner"
    )

    def __post_init__(self):
        need(
            is_whole(self.num_players) and 3 <= self.num_players <= 8,
            f"incan_gold: num_players must be a whole number from 3 to 8, got {self.num_players!r}",
        )
        # past MAX_ROUNDS a deck could run dry without a repeated hazard, which the rules do not cover
        need(
            is_whole(self.num_rounds) and 1 <= self.num_rounds <= MAX_ROUNDS,
            f"incan_gold: num_rounds must be a whole number from 1 to {MAX_ROUNDS}, got {self.num_rounds!r}",
        )
        need(
            isinstance(self.rank_returns, (bool, np.bool_)),
            f"incan_gold: rank_returns must be true or false, got {self.rank_returns!r}",
        )
        # numpy scalars become plain Python values (fast arithmetic, clean config.json)
        object.__setattr__(self, "num_players", int(self.num_players))
        object.__setattr__(self, "num_rounds", int(self.num_rounds))
        object.__setattr__(self, "rank_returns", bool(self.rank_returns))


class IncanGold(Game):
    name = "incan_gold"
    num_actions = 2
    config_class = IncanGoldConfig
    facts = GameFacts(players=(3, 8), default_agent="pretrained", hidden_information=True)
    observation_range = (0.0, 1.5)  # gem features are capped at 1.5

    def __init__(self, config: IncanGoldConfig | None = None):
        self.config = IncanGoldConfig() if config is None else config
        self.num_players = self.config.num_players
        self.num_rounds = self.config.num_rounds
        self.observation_size = 34 + 4 * (self.num_players - 1)
        # raw observation features -> about [0, 1] (layout in the module docstring)
        per_seat = [1 / 100, 1 / 50, 1.0, 1 / NUM_ARTIFACTS]
        self._obs_scale = np.array(
            per_seat * self.num_players
            + [1 / self.num_rounds, 1 / 20, 1 / NUM_ARTIFACTS, 1 / sum(ARTIFACT_VALUES)]
            + [1.0] * len(HAZARD_KINDS)
            + [1 / self.num_players]
            + [1 / _FULL_TREASURE_COUNT[v] for v in TREASURE_VALUES]
            + [1 / HAZARD_COPIES] * len(HAZARD_KINDS)
            + [1 / NUM_ARTIFACTS, 1 / MAX_DECK, 1.0],
            dtype=np.float32,
        )
        assert len(self._obs_scale) == self.observation_size

    def new_initial_state(self, rng: np.random.Generator) -> IncanGoldState:
        """A new game whose every shuffle comes from `rng` (a Generator or a seed; required)."""
        return IncanGoldState(self, as_generator(rng))

    def action_name(self, action: int) -> str:
        return {LEAVE: "leave", STAY: "stay"}.get(action, str(action))


def _shuffle(deck: list, u: list) -> None:
    """Fisher-Yates in place with pre-drawn uniforms u (len(u) >= len(deck))."""
    for i in range(len(deck) - 1, 0, -1):
        j = int(u[i] * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]


class IncanGoldState(State):
    # fmt: off
    __slots__ = (
        "game", "_n", "_round", "_terminal", "_uniforms", "_deck", "_path", "_path_gems", "_path_artifacts",
        "_hazard_seen", "_banked", "_round_gems", "_in_temple", "_num_in", "_artifacts_claimed",
        "_artifact_gems", "_claimed_total", "_artifacts_added", "_artifacts_lost", "_removed", "_pending",
        "_player", "_returns", "_last_end", "_last_step",
    )
    # fmt: on

    def __init__(self, game: IncanGold, rng: np.random.Generator):
        self.game = game
        n = self._n = game.num_players
        # one row of shuffle uniforms per round, drawn now: see the module docstring
        self._uniforms = rng.random((game.num_rounds, MAX_DECK)).tolist()
        self._round = 0
        self._terminal = False
        self._deck = list(_INITIAL_DECK)
        self._path: list[int] = []
        self._path_gems = 0
        self._path_artifacts = 0
        self._hazard_seen = [False] * len(HAZARD_KINDS)
        self._banked = [0] * n
        self._round_gems = [0] * n
        self._in_temple = [True] * n
        self._num_in = n
        self._artifacts_claimed = [0] * n
        self._artifact_gems = [0] * n
        self._claimed_total = 0
        self._artifacts_added = 0
        self._artifacts_lost = 0
        self._removed: list[int] = []  # hazard kinds removed from the game
        self._pending = [-1] * n  # this step's choices so far (-1: not chosen / not in the temple)
        self._player = 0
        self._returns: tuple | None = None
        self._last_end: tuple | None = None  # (round, hazard kind or None, gems lost per player, path)
        # the last resolved decision step, raw and cheap to record (`last_step` dresses it up):
        # (round, choices, leavers, path share, leavers' round gems, (player, artifacts, gems) or None)
        self._last_step: tuple | None = None
        self._start_round()

    # --- rules -------------------------------------------------------------------------------
    def _start_round(self) -> None:
        self._round += 1
        if self._artifacts_added < NUM_ARTIFACTS:
            self._deck.append(ARTIFACT)
            self._artifacts_added += 1
        n = self._n
        self._in_temple = [True] * n
        self._num_in = n
        self._round_gems = [0] * n
        _shuffle(self._deck, self._uniforms[self._round - 1])
        self._player = 0
        self._turn_card()

    def _turn_card(self) -> None:
        # the deck's top is its end; a repeat always comes before the deck runs dry (MAX_ROUNDS)
        card = self._deck.pop()
        self._path.append(card)
        if card > 0:
            k = self._num_in
            share = card // k
            rg = self._round_gems
            for p, inside in enumerate(self._in_temple):
                if inside:
                    rg[p] += share
            self._path_gems += card - share * k
        elif card == ARTIFACT:
            self._path_artifacts += 1
        else:
            kind = -1 - card
            if self._hazard_seen[kind]:
                self._path.pop()
                self._removed.append(kind)
                self._end_round(kind)
            else:
                self._hazard_seen[kind] = True

    def _end_round(self, hazard: int | None) -> None:
        n = self._n
        lost = tuple(self._round_gems[p] if self._in_temple[p] else 0 for p in range(n))
        self._last_end = (self._round, hazard, lost, tuple(self._path))
        self._artifacts_lost += self._path_artifacts
        self._deck.extend(c for c in self._path if c != ARTIFACT)
        self._path = []
        self._path_gems = 0
        self._path_artifacts = 0
        self._hazard_seen = [False] * len(HAZARD_KINDS)
        self._round_gems = [0] * n
        if self._round >= self.game.num_rounds:
            self._terminal = True
            self._player = TERMINAL
            self._in_temple = [False] * n
            self._num_in = 0
            self._returns = self._final_returns()
            return
        self._start_round()

    def _resolve_step(self) -> None:
        pending = self._pending
        inside = self._in_temple
        leavers = [p for p in range(self._n) if inside[p] and pending[p] == LEAVE]
        self._pending = [-1] * self._n
        share, carried, claimed = 0, None, None
        if leavers:
            k = len(leavers)
            share = self._path_gems // k
            self._path_gems -= share * k
            if k == 1 and self._path_artifacts:
                p = leavers[0]
                claimed = (p, self._path_artifacts, self.artifact_worth)
                for _ in range(self._path_artifacts):
                    value = ARTIFACT_VALUES[self._claimed_total]  # worth is set when claimed
                    self._claimed_total += 1
                    self._artifacts_claimed[p] += 1
                    self._artifact_gems[p] += value
                    self._banked[p] += value
                self._path = [c for c in self._path if c != ARTIFACT]
                self._path_artifacts = 0
            banked, rg = self._banked, self._round_gems
            carried = [rg[p] for p in leavers]
            for p in leavers:
                banked[p] += rg[p] + share
                rg[p] = 0
                inside[p] = False
            self._num_in -= k
        self._last_step = (self._round, pending, leavers, share, carried, claimed)
        if self._num_in == 0:
            self._end_round(None)
            return
        self._turn_card()
        if not self._terminal:
            self._player = self._in_temple.index(True)

    def _final_returns(self) -> tuple:
        n = self._n
        keys = [(self._banked[p], self._artifacts_claimed[p]) for p in range(n)]
        if self.game.config.rank_returns:
            # rank r (0 = first) scores 1 - 2r/(n-1); tied players average their ranks' scores
            out = [0.0] * n
            for p in range(n):
                above = sum(1 for q in range(n) if keys[q] > keys[p])
                tied = sum(1 for q in range(n) if keys[q] == keys[p])
                ranks = range(above, above + tied)
                out[p] = sum(1.0 - 2.0 * r / (n - 1) for r in ranks) / tied
            return tuple(out)
        best = max(keys)
        winners = [p for p in range(n) if keys[p] == best]
        top = 1.0 if len(winners) == 1 else 0.0
        return tuple(top if keys[p] == best else -1.0 for p in range(n))

    # --- the State interface ---------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._player

    def legal_mask(self) -> np.ndarray:
        return np.full(2, not self._terminal, dtype=bool)

    def legal_actions(self) -> list[int]:
        return [] if self._terminal else [LEAVE, STAY]

    def is_legal(self, action: int) -> bool:
        return not self._terminal and (action == 0 or action == 1)

    def apply_action(self, action: int) -> None:
        action = self.checked_action(action)
        p = self._player
        self._pending[p] = action
        inside = self._in_temple
        n = self._n
        q = p + 1
        while q < n and not inside[q]:
            q += 1
        if q < n:
            self._player = q
        else:
            self._resolve_step()

    def is_terminal(self) -> bool:
        return self._terminal

    def returns(self) -> np.ndarray:
        """Zeros before the end. Players are ranked by banked gems, then by artifacts claimed.
        Default: +1 for a sole winner, 0 for each of several tied first places, -1 for everyone
        else. With `rank_returns`: rank r (0 = first) of n scores 1 - 2r/(n-1) (first +1, last -1,
        evenly spaced); tied players each get the average of the scores of the ranks they share
        (two tied first of three: (1 + 0) / 2 = 0.5 each)."""
        if self._returns is None:
            return np.zeros(self._n)
        return np.array(self._returns, dtype=np.float64)

    def observation(self, player: int) -> np.ndarray:
        n = self._n
        banked, rg, inside, arts = self._banked, self._round_gems, self._in_temple, self._artifacts_claimed
        raw = [banked[player], rg[player], inside[player], arts[player]]
        # opponents by banked gems, most first; ties in seat order after `player`
        for q in sorted(((player + i) % n for i in range(1, n)), key=lambda q: (-banked[q], (q - player) % n)):
            raw += (banked[q], rg[q], inside[q], arts[q])
        claimed = self._claimed_total
        raw += (
            self._round,
            self._path_gems,
            self._path_artifacts,
            sum(ARTIFACT_VALUES[claimed : claimed + self._path_artifacts]),
        )
        raw += self._hazard_seen
        raw.append(self._num_in)
        counts = [0] * _CODE_SLOTS  # cards in the deck by code + 5
        for c in self._deck:
            counts[c + 5] += 1
        raw += [counts[i] for i in _DECK_SLOTS]
        size = len(self._deck)
        raw.append(size)
        repeats = sum(counts[4 - k] for k, seen in enumerate(self._hazard_seen) if seen)
        raw.append(repeats / size if size else 0.0)
        obs = np.array(raw, dtype=np.float32)
        obs *= self.game._obs_scale
        return np.minimum(obs, 1.5, out=obs)

    def clone(self) -> IncanGoldState:
        s = IncanGoldState.__new__(IncanGoldState)
        s.game = self.game
        s._n = self._n
        s._round = self._round
        s._terminal = self._terminal
        s._uniforms = self._uniforms  # never mutated: shared
        s._deck = self._deck[:]
        s._path = self._path[:]
        s._path_gems = self._path_gems
        s._path_artifacts = self._path_artifacts
        s._hazard_seen = self._hazard_seen[:]
        s._banked = self._banked[:]
        s._round_gems = self._round_gems[:]
        s._in_temple = self._in_temple[:]
        s._num_in = self._num_in
        s._artifacts_claimed = self._artifacts_claimed[:]
        s._artifact_gems = self._artifact_gems[:]
        s._claimed_total = self._claimed_total
        s._artifacts_added = self._artifacts_added
        s._artifacts_lost = self._artifacts_lost
        s._removed = self._removed[:]
        s._pending = self._pending[:]
        s._player = self._player
        s._returns = self._returns
        s._last_end = self._last_end
        s._last_step = self._last_step
        return s

    def resample_hidden(self, player: int, rng: np.random.Generator) -> IncanGoldState:
        """A copy with everything `player` cannot know re-drawn from `rng`: the deck order, the
        shuffles of later rounds, and the choices other players already made in this decision step
        (uniform over leave/stay). `player`'s own pending choice is kept."""
        s = self.clone()
        s._deck.sort()  # the result must not depend on the hidden order, only on rng
        rng.shuffle(s._deck)
        s._uniforms = rng.random((self.game.num_rounds, MAX_DECK)).tolist()
        pending = s._pending
        for q in range(self._n):
            if q != player and pending[q] != -1:
                pending[q] = int(rng.integers(2))
        return s

    # --- public facts ------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The current round, from 1 (the last round once the game is over)."""
        return self._round

    @property
    def path(self) -> tuple[Card, ...]:
        """The cards on the path this round, in the order turned."""
        return tuple(card_of(c) for c in self._path)

    @property
    def banked(self) -> tuple[int, ...]:
        """Each player's safe gems so far, artifact values included."""
        return tuple(self._banked)

    @property
    def round_gems(self) -> tuple[int, ...]:
        return tuple(self._round_gems)

    @property
    def in_temple(self) -> tuple[bool, ...]:
        return tuple(self._in_temple)

    @property
    def num_in_temple(self) -> int:
        return self._num_in

    @property
    def artifacts_claimed(self) -> tuple[int, ...]:
        return tuple(self._artifacts_claimed)

    @property
    def artifact_gems(self) -> tuple[int, ...]:
        """The part of each player's banked gems that came from artifacts."""
        return tuple(self._artifact_gems)

    @property
    def artifacts_on_path(self) -> int:
        return self._path_artifacts

    @property
    def artifacts_lost(self) -> int:
        """Artifacts left on the path at the end of a round (out of the game)."""
        return self._artifacts_lost

    @property
    def artifact_worth(self) -> int:
        """What the artifacts on the path would bring a lone leaver now."""
        return sum(ARTIFACT_VALUES[self._claimed_total : self._claimed_total + self._path_artifacts])

    @property
    def gems_on_path(self) -> int:
        return self._path_gems

    @property
    def hazards_on_path(self) -> tuple[str, ...]:
        return tuple(k for k, seen in zip(HAZARD_KINDS, self._hazard_seen) if seen)

    @property
    def removed_hazards(self) -> tuple[str, ...]:
        """Hazard cards removed from the game, in the order removed."""
        return tuple(HAZARD_KINDS[k] for k in self._removed)

    @property
    def deck_size(self) -> int:
        return len(self._deck)

    def cards(self) -> Counter:
        """The treasures and hazards by code: in the deck, on the path or removed from the game
        (artifacts join the deck one a round and are not counted)."""
        out = Counter(c for c in self._deck + self._path if c != ARTIFACT)
        out.update(-1 - k for k in self._removed)
        return out

    @property
    def deck_composition(self) -> dict[Card, int]:
        """How many of each card the (face-down) deck holds; its order stays hidden."""
        counts: dict[int, int] = {}
        for c in self._deck:
            counts[c] = counts.get(c, 0) + 1
        return {_CARDS[c]: counts[c] for c in sorted(counts, reverse=True)}

    @property
    def repeat_hazard_chance(self) -> float:
        """The chance that the next card is a second hazard of a kind on the path."""
        if not self._deck:
            return 0.0
        seen = self._hazard_seen
        return sum(1 for c in self._deck if c < 0 and seen[-1 - c]) / len(self._deck)

    @property
    def last_step(self) -> Step | None:
        """The last resolved decision step (None before the first): the choices revealed together
        and what followed them. Public: everyone sees it once the last choice of the step is in."""
        if self._last_step is None:
            return None
        step_round, pending, leavers, share, carried, claimed = self._last_step
        n = self._n
        # nothing has happened since the step, so the state tells how it ended
        ended = self._terminal or self._round != step_round
        end = self._last_end
        if not ended:
            card = self._path[-1]
        else:  # `end` is this round's end: everyone left (no hazard) or a second hazard
            card = None if end[1] is None else -1 - end[1]
        artifacts, artifact_gems, left_with = [0] * n, [0] * n, [0] * n
        if claimed is not None:
            artifacts[claimed[0]], artifact_gems[claimed[0]] = claimed[1], claimed[2]
        for p, gems in zip(leavers, carried or ()):
            left_with[p] = gems + share + artifact_gems[p]
        lost = end[2] if ended and end[1] is not None else (0,) * n
        return Step(
            round=step_round,
            choices=tuple(None if c == -1 else c for c in pending),
            left_with=tuple(left_with),
            path_share=share,
            artifacts=tuple(artifacts),
            artifact_gems=tuple(artifact_gems),
            turned=None if card is None else card_of(card),
            round_over=ended,
            lost=tuple(lost),
        )

    # --- words (games/incan_gold_text.py, which imports this module; games/registry.py attaches it)
    def __str__(self) -> str:
        return self.game.text_module.render(self, None)

    def view(self, player: int) -> str:
        """The position as `player` sees it: other players' choices of this step stay hidden."""
        return self.game.text_module.render(self, player)

    def describe_move(self, before: IncanGoldState, action: int, viewer: int) -> str:
        """Nothing while a step's choices are secret; once the last one is in, the step."""
        if self._last_step is before._last_step:
            return ""
        return self.describe_last_step(viewer)

    def describe_last_step(self, viewer: int | None = None) -> str:
        """The last resolved step in words: the choices revealed, who left with what, the card
        turned and, when the round ended, a summary of the tents."""
        return self.game.text_module.describe_last_step(self, viewer)
