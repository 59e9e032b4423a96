"""The one game interface (OpenSpiel's State API in plain Python).

A `Game` holds the rules and config; a `State` is one position. Chance (shuffles, draws, who
starts) uses the `numpy.random.Generator` passed to `new_initial_state` and kept by the state, so
the same seed replays the same game.

Players are `0..num_players-1`. `current_player` is `TERMINAL` (-1) once the game is over.
The rules each engine implements are written down in games/RULES.md (§1 for what every game shares).
"""

from __future__ import annotations

import abc
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from games.errors import IllegalActionError

TERMINAL = -1


def as_generator(rng) -> np.random.Generator:
    """`rng` itself, or a Generator seeded by it (an int or a sequence of ints). None is refused: a
    game's chance always comes from a seed the caller chose, so every game can be replayed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise TypeError("a game with chance needs its random generator, e.g. numpy.random.default_rng(seed)")
    return np.random.default_rng(rng)


def is_whole(value) -> bool:
    """An int or numpy integer, not a bool: what a count in a config may be."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Mirror:
    """A symmetry of a game that maps a decision to an equally good one (Connect Four's left-right
    mirror), applied to arrays of a batch of decisions."""

    observations: Callable[[np.ndarray], np.ndarray]  # rows of observations
    actions: Callable[[np.ndarray], np.ndarray]  # action numbers
    per_action: Callable[[np.ndarray], np.ndarray]  # rows of one value per action (masks, policies)


@dataclass(frozen=True)
class GameFacts:
    """What a game declares about itself (as OpenSpiel's GameType), read by agents and commands
    instead of the game's name. Every field's default is right for a new game; a game whose facts
    depend on its config makes `facts` a property.

    players: the numbers of players a config may choose, (fewest, most), with `num_players` a
      setting of the config; None: always the class's `num_players`. `deckopt match` seats
      max(the config's default, the number of agent specs) players when `--players` is not given.
    exact_exploitability: the best response against a deterministic agent can be searched over
      every opponent move (`deckopt eval`, training's evaluations): a small two-player game without
      chance or hidden information, whose mover's observation and mover identify the position.
    perfect_play: how `deckopt eval --perfect N` checks an agent against perfect play, or None:
      "solved_positions" (the agent's moves on positions an exact solver rates) or
      "exact_opponent" (games against the game's `exact` bot; what each move gives away of the
      game value).
    perfect_play_note: for a game whose perfect play is known under another config, which one
      (said when `--perfect` is refused).
    eval_opponents: the opponents `deckopt eval` plays by default.
    default_agent: the agent spec that plays where a command needs an agent and none is given
      (deck evolution's `--agent`), or None: the command asks for one (`evolution.config.default_agent_spec`).
    pretrained: the agent spec `pretrained` stands for (the game's shipped learned agent) where it is
      not the model file agents/pretrained/GAME.npz, e.g. a named panel; None: that file.
    deck_files: for a game with decks, the function from deck files (`--deck FILE`, one path per
      seat) to the game's config keywords, e.g. games.deckfile.deck_settings (the files' cards become
      the `decks` setting); None: the game takes no deck files.
    bots: a plug-in's rule agents by name, each `callable(game, rng) -> Agent`, usable as agent
      specs in every command; `heuristic` is the one `deckopt play` faces by default. (Our games'
      are in agents/heuristics, which games/ does not import.)
    hidden_information: the state holds what a player cannot see (hidden cards, a deck's order, the
      chance events to come), so a search draws worlds with `State.resample_hidden`, which the game
      overrides; False: perfect information, `resample_hidden` returns a clone and a solver applies
      (the conformance check holds the fact to the override).
    drafted_in: for a game whose decks are drafted in the game (LOCM), the deck space that battles
      two given decks of it (`locm_constructed`): `deckopt study` and `exploit` judge such a game on
      drafts, played as that space plays its decks; None: a deck game or a game without decks.
    mirror: the game's symmetry (Mirror) that learners may add mirrored decisions by
      (`mirror_augment`), or None.
    input_features: features a learner may append to the observation (`input_features`), by name:
      (function of [k, observation_size] observations -> [k, size] features, size).
    """

    players: tuple[int, int] | None = None
    exact_exploitability: bool = False
    perfect_play: str | None = None
    perfect_play_note: str = ""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    default_agent: str | None = None
    pretrained: str | None = None
    deck_files: Callable[[Sequence[str]], dict] | None = None
    bots: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    hidden_information: bool = False
    drafted_in: str | None = None
    mirror: Mirror | None = None
    input_features: Mapping[str, tuple[Callable[[np.ndarray], np.ndarray], int]] = field(default_factory=dict)


@dataclass(frozen=True)
class RareRule:
    """A rule that random play seldom reaches, declared by its game (`Game.rare_rules`) so that the
    conformance suite counts whether its games reached it. `fired(before, action, after)`: whether
    the step that took `before` (a copy of the state) by `action` to `after` applied the rule.
    `script`: for a rule random play almost never reaches, the actions of a game from seed 0
    (`new_initial_state(numpy.random.default_rng(0))`) that reach it; the check plays it too."""

    name: str
    fired: Callable[[State, int, State], bool]
    script: tuple[int, ...] = ()


class Game(abc.ABC):
    name: str
    num_players: int
    num_actions: int
    observation_size: int
    config_class: type  # the config dataclass; `games.make` builds one from keyword arguments
    config: Any  # an instance of config_class
    #: what the game declares about itself (GameFacts)
    facts: GameFacts = GameFacts()
    #: a vectorised engine of this game (a games.batch.BatchState subclass), or None; games/registry.py
    #: attaches our games' (the vectorised engine imports the engine, so the engine cannot name it)
    batch_class: type | None = None
    #: the module that puts the game's states into words (`render`, `describe_move`, ...), or None;
    #: attached by games/registry.py like `batch_class`
    text_module: ModuleType | None = None
    #: (C, H, W) when the observation is C board planes of H x W cells, plane after plane (a
    #: learner may read it as an image), else None
    observation_planes: tuple[int, int, int] | None = None
    #: (low, high): every observation feature lies in this range (the conformance check holds it)
    observation_range: tuple[float, float] = (0.0, 1.0)
    #: (num_actions, F) integers, or None: row a names the F observation entries that describe action
    #: a by what it acts on (the card played, the creature attacking, its target), so a learner can
    #: score actions from features that follow a card wherever it sits; an entry equal to
    #: observation_size stands for the constant 1, observation_size + 1 for 0
    action_feature_index: np.ndarray | None = None
    #: the rules random play seldom reaches (RareRule): the conformance check of the vectorised
    #: engine fails when its games never fire one of them
    rare_rules: tuple[RareRule, ...] = ()

    @abc.abstractmethod
    def new_initial_state(self, rng: np.random.Generator) -> State:
        """A fresh game; `rng` drives all of its chance events."""

    def outcomes(self, returns: np.ndarray) -> np.ndarray:
        """Each player's result of a finished game: 1 win, 0 draw, -1 loss. By default a sole top
        return wins, a shared top return draws and the rest lose; a game whose "win" means
        something else (Durak: not being the durak) says so here."""
        top = returns.max()
        at_top = returns == top
        if at_top.sum() == 1:
            return np.where(at_top, 1, -1)
        return np.where(at_top, 0, -1)

    def action_name(self, action: int) -> str:
        return str(action)

    # Batches: lock-step play asks for many states at once; a game may answer in one numpy
    # operation instead of one small array per state (these defaults do the latter).
    def observations(self, states: Sequence[State], players: Sequence[int] | None = None) -> np.ndarray:
        """(len(states), observation_size) float32: state i seen by `players[i]` (default: the
        player to move), row for row equal to `states[i].observation(players[i])`."""
        if players is None:
            players = [s.current_player for s in states]
        return np.stack([s.observation(p) for s, p in zip(states, players)])

    def legal_masks(self, states: Sequence[State]) -> np.ndarray:
        """(len(states), num_actions) bool, row i equal to `states[i].legal_mask()`."""
        return np.stack([s.legal_mask() for s in states])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


class State(abc.ABC):
    game: Game

    @property
    @abc.abstractmethod
    def current_player(self) -> int:
        """The player to move, or TERMINAL."""

    @abc.abstractmethod
    def legal_mask(self) -> np.ndarray:
        """Bool array of length `game.num_actions`; empty (all False) only at the end."""

    @abc.abstractmethod
    def apply_action(self, action: int) -> None:
        """Play `action` for the current player; raises IllegalActionError if it is not legal."""

    @abc.abstractmethod
    def is_terminal(self) -> bool: ...

    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """float64 array, one entry per player; zeros before the end."""

    @abc.abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """float32 vector of length `game.observation_size`, from `player`'s view only."""

    @abc.abstractmethod
    def clone(self) -> State: ...

    def resample_hidden(self, player: int, rng: np.random.Generator) -> State:
        """A copy in which everything `player` cannot see is re-drawn consistently with what
        `player` knows (determinization for search). Perfect-information games return a clone."""
        return self.clone()

    def cards(self) -> Counter | None:
        """Every card of the game wherever it lies (draw piles, hands, table, discard pile), counted
        by card, for a game whose cards neither appear nor vanish; the conformance check holds the
        count constant through every game. None (the default): the game does not count its cards."""
        return None

    def view(self, player: int) -> str:
        """The position as `player` may see it (used by `deckopt play`); hidden-information games
        override it to hide what `player` cannot know. `str(state)` shows everything."""
        return str(self)

    def describe_move(self, before: State, action: int, viewer: int) -> str:
        """What `viewer` sees happen when `action` took `before` (a copy of the state before it)
        to this state: a line or a few for `deckopt play`, "" if nothing visible happened. Games
        with secret moves or chance override it."""
        mover = before.current_player
        who = "you play" if mover == viewer else f"player {mover} plays"
        return f"{who} {self.game.action_name(action)}"

    # Helpers shared by every game -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def is_legal(self, action: int) -> bool:
        """Whether `action` (an int) is legal for the player to move. This default reads `legal_mask`;
        an engine answers faster from its own fields (`checked_action` asks it on every move)."""
        return 0 <= action < self.game.num_actions and bool(self.legal_mask()[action])

    def checked_action(self, action: Any) -> int:
        """`action` as an int, checked at the top of every `apply_action`: a whole number (an int or a
        numpy integer; a bool, float or string is never coerced) that `is_legal` accepts; otherwise
        the IllegalActionError saying what is legal."""
        a = action
        if a.__class__ is not int:
            if not isinstance(a, np.integer):
                raise self._illegal(action)
            a = int(a)
        if not self.is_legal(a):
            raise self._illegal(action)
        return a

    def _illegal(self, action: Any) -> IllegalActionError:
        legal = self.legal_actions()
        if self.is_terminal():
            return IllegalActionError(f"{self.game.name}: action {action!r} after the game has ended")
        return IllegalActionError(
            f"{self.game.name}: action {action!r} is not legal for player {self.current_player} "
            f"(legal: {', '.join(self.game.action_name(a) for a in legal)})"
        )
