"""Every registered game as an OpenSpiel Python game, so OpenSpiel's algorithms run on ours.

    from games.interop.openspiel_game import register_all
    import pyspiel
    register_all()                                   # "python_deckopt_<game>" for every game
    game = pyspiel.load_game("python_deckopt_exploding_kittens",
                             {"config": '{"deck": {"skip": 2, "defuse": 0, "attack": 1}}'})

Parameters: "config", the game's settings as a JSON object (what `games.make` takes as keywords), and
"seed" (int): the seed of the games' chance where it is sampled (below).

How each game maps onto OpenSpiel's GameType:
  - dynamics: sequential, except Incan Gold, whose decision steps are simultaneous moves (the engine
    plays them as hidden sequential choices; here every player gives an action at once, a player out
    of the temple only LEAVE, which changes nothing).
  - chance: Tic Tac Toe and Connect Four are deterministic. Exploding Kittens has explicit chance
    nodes: its deal, deck order, the Kitten's reinsertion, Shuffle and a cat pair's steal are chance
    outcomes with their probabilities (games/interop/kittens_chance.py says how), so CFR and exact
    best responses see the real game. Incan Gold, Gwent Lite and Durak are sampled stochastic: a new
    game draws its whole chance from a seed taken from the OpenSpiel game's own stream, which starts
    at the "seed" parameter (clones keep their world, as our engines' states do).
  - information: perfect for the two board games, imperfect for the others.
An information state string is what the player has seen, in order: at each decision point their
observation vector, then their own action or what they saw of another's move (`describe_move`), which
gives perfect recall and never shows the hidden state. An observation string is the game's own text
for that player (`view`, as `deckopt play` shows it); the observation tensor is our observation vector.
"""

from __future__ import annotations

import json

import numpy as np

import games
from games.interop import missing_extra
from games.interop.kittens_chance import MAX_CHANCE_OUTCOMES, ExplicitKittens

try:
    import pyspiel
except ImportError as exc:
    raise missing_extra("games.interop.openspiel_game", exc) from None

PREFIX = "python_deckopt_"
DETERMINISTIC = {"tic_tac_toe", "connect_four"}
EXPLICIT_CHANCE = {"exploding_kittens"}
SIMULTANEOUS = {"incan_gold"}
SAMPLED = set(games.GAME_NAMES) - DETERMINISTIC - EXPLICIT_CHANCE
# returns sum to 0 in these (checked over random games in tests/test_interop_openspiel.py)
ZERO_SUM = {"tic_tac_toe", "connect_four", "gwent_lite", "gwent_abilities", "durak", "exploding_kittens"}
# our engines declare no longest game; OpenSpiel wants a bound (used for sizes, not for play)
MAX_GAME_LENGTH = {"tic_tac_toe": 9, "connect_four": 42}
LONG_GAME = 100_000
DEFAULT_PARAMS = {"config": "{}", "seed": 0}


def spiel_name(game_name: str) -> str:
    return PREFIX + game_name


def _player_range(name: str) -> tuple[int, int]:
    """The fewest and most players the game's config accepts (games without the setting: their own)."""
    fields = getattr(games.game_class(name).config_class, "__dataclass_fields__", {})
    if "num_players" not in fields:
        n = games.make(name).num_players
        return n, n
    ok = []
    for n in range(1, 11):
        try:
            games.make(name, num_players=n)
            ok.append(n)
        except games.UserError:
            pass
    return min(ok), max(ok)


def game_type(name: str) -> pyspiel.GameType:
    """The OpenSpiel GameType of our registered game `name`."""
    lo, hi = _player_range(name)
    kind = pyspiel.GameType
    if name in DETERMINISTIC:
        chance = kind.ChanceMode.DETERMINISTIC
    elif name in EXPLICIT_CHANCE:
        chance = kind.ChanceMode.EXPLICIT_STOCHASTIC
    else:
        chance = kind.ChanceMode.SAMPLED_STOCHASTIC
    return pyspiel.GameType(
        short_name=spiel_name(name),
        long_name=f"deckopt {name}",
        dynamics=kind.Dynamics.SIMULTANEOUS if name in SIMULTANEOUS else kind.Dynamics.SEQUENTIAL,
        chance_mode=chance,
        information=kind.Information.PERFECT_INFORMATION
        if name in DETERMINISTIC
        else kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if name in ZERO_SUM else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMS,
    )


class DeckoptGame(pyspiel.Game):
    """One of our games (`games.make(name, **config)`) as an OpenSpiel game; `register_all` makes a
    subclass per game, whose `game_name` says which."""

    game_name: str

    def __init__(self, params: dict | None = None):
        name = self.game_name
        params = {**DEFAULT_PARAMS, **(params or {})}
        config = json.loads(params["config"]) if isinstance(params["config"], str) else params["config"]
        self.engine = games.make(name, **config)
        self._rng = np.random.default_rng(int(params["seed"]))
        self._replays = {}  # see _Track
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES if name in EXPLICIT_CHANCE else 0,
            num_players=self.engine.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if name in ZERO_SUM else None,
            max_game_length=MAX_GAME_LENGTH.get(name, LONG_GAME),
        )
        super().__init__(game_type(name), info, {"config": json.dumps(config), "seed": int(params["seed"])})

    def new_initial_state(self) -> DeckoptState:
        return DeckoptState(self)

    def _new_core(self):
        """A new game's engine: explicit chance for Exploding Kittens, else a state of a fresh seed."""
        if self.engine.name in EXPLICIT_CHANCE:
            return ExplicitKittens(self.engine)
        return _Engine(self.engine.new_initial_state(np.random.default_rng(int(self._rng.integers(2**63)))))

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return DeckoptObserver(self.engine, perfect_recall)


class _Engine:
    """An engine state behind the same small interface as ExplicitKittens (no chance nodes)."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def clone(self) -> _Engine:
        return _Engine(self.state.clone())

    def is_chance(self) -> bool:
        return False

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def apply_action(self, action: int) -> None:
        self.state.apply_action(action)


class _Track:
    """A game's root, its current engine and the moves between them; made on first use.

    OpenSpiel clones a Python state by making a new initial state and deep-copying its attributes:
    keeping everything in this one object, made lazily and copied by `clone`, spares a clone the
    cost of a new game and keeps it from drawing a seed from the game's stream."""

    __slots__ = ("game", "_root", "_core", "moves", "replays")

    def __init__(self, game: DeckoptGame):
        self.game, self._root, self._core, self.moves = game, None, None, []
        # (moves, player) -> _Seen, shared by every state from the same root; all of a game's roots are
        # the same where chance is explicit or absent, so there the game's one table serves them all
        self.replays = game._replays if game.engine.name not in SAMPLED else {}

    @property
    def core(self):
        if self._core is None:
            self._root = self.game._new_core()
            self._core = self._root.clone()
        return self._core

    @property
    def root(self):
        self.core  # noqa: B018 (makes the root)
        return self._root

    def __deepcopy__(self, memo) -> _Track:
        t = _Track(self.game)
        t._core, t._root, t.moves = self.core.clone(), self._root, self.moves[:]  # the root is never changed
        t.replays = self.replays
        return t


class DeckoptState(pyspiel.State):
    def __init__(self, game: DeckoptGame):
        super().__init__(game)
        self._track = _Track(game)

    @property
    def engine_state(self):
        """Our engine's state behind this one (None before Exploding Kittens' deal)."""
        return self._track.core.state

    def _simultaneous(self) -> bool:
        return self._track.game.engine.name in SIMULTANEOUS

    def current_player(self) -> int:
        core = self._track.core
        if core.is_chance():
            return pyspiel.PlayerId.CHANCE
        if core.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self._simultaneous():
            return pyspiel.PlayerId.SIMULTANEOUS
        return core.state.current_player

    def _legal_actions(self, player: int) -> list[int]:
        state = self._track.core.state
        if self._simultaneous():  # Incan Gold: out of the temple, only LEAVE (a no-op)
            return [0, 1] if state.in_temple[player] else [0]
        return state.legal_actions() if player == state.current_player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._track.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        core = self._track.core
        if core.is_chance():
            core.apply_chance(int(action))
            self._track.moves.append((pyspiel.PlayerId.CHANCE, int(action)))
        else:
            player = core.state.current_player
            core.apply_action(int(action))
            self._track.moves.append((player, int(action)))

    def _apply_actions(self, actions) -> None:
        state = self._track.core.state
        _play_step(state, actions)
        self._track.moves.append((pyspiel.PlayerId.SIMULTANEOUS, tuple(int(a) for a in actions)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            core = self._track.core  # named by the node it is drawn at; elsewhere only a number
            return core.outcome_name(action) if core.is_chance() else f"chance outcome {action}"
        return self._track.game.engine.action_name(action)

    def is_terminal(self) -> bool:
        core = self._track.core
        return not core.is_chance() and core.is_terminal()

    def returns(self) -> list[float]:
        state = self._track.core.state
        if state is None:
            return [0.0] * self._track.game.engine.num_players
        return [float(r) for r in state.returns()]

    def __str__(self) -> str:
        state = self._track.core.state
        return "(dealing)" if state is None else str(state)

    def seen_by(self, player: int) -> str:
        """The information state string: everything `player` has seen, in order (module docstring).
        Replayed from the root, resuming from the longest prefix of the moves already replayed for
        this root (CFR asks for a node's string after its parent's: each costs one move)."""
        track = self._track
        moves, cache = tuple(track.moves), track.replays
        k = len(moves)
        while k and (moves[:k], player) not in cache:
            k -= 1
        seen = cache.get((moves[:k], player)) or _Seen.start(track, player)
        for i in range(k, len(moves)):
            seen = seen.then(moves[i])
            if len(cache) > _MAX_REPLAYS:
                cache.clear()
            cache[(moves[: i + 1], player)] = seen
        return seen.text()


_MAX_REPLAYS = 50_000  # replays kept per root: ample for CFR on small games, bounded for long runs


class _Seen:
    """A replay for one viewer: the game after some moves and what the viewer saw of them."""

    __slots__ = ("track", "player", "core", "lines", "pending")

    @classmethod
    def start(cls, track: _Track, player: int) -> _Seen:
        return cls(track, player, track.root.clone(), (f"player {player}",), ())

    def __init__(self, track, player, core, lines, pending):
        self.track, self.player, self.core, self.lines, self.pending = track, player, core, lines, pending

    def _told(self) -> tuple:
        """The lines telling the moves whose chance is now resolved (`describe_move` from the viewer)."""
        p, state = self.player, self.core.state
        return tuple(state.describe_move(b, a, p) or f"player {b.current_player} moved" for b, a in self.pending)

    def then(self, move) -> _Seen:
        who, action = move
        core = self.core.clone()
        if who == pyspiel.PlayerId.CHANCE:
            core.apply_chance(action)
            return _Seen(self.track, self.player, core, self.lines, self.pending)
        p, name = self.player, self.track.game.engine.action_name
        lines = self.lines + self._told() + ("sees " + _numbers(core.state.observation(p)),)
        if who == pyspiel.PlayerId.SIMULTANEOUS:
            lines += (f"you {name(action[p])}",)
            pending = tuple(_play_step(core.state, action, keep_before=True))
        else:
            before = core.state.clone()
            core.apply_action(action)
            lines += (f"you {name(action)}",) if who == p else ()
            pending = () if who == p else ((before, action),)
        return _Seen(self.track, p, core, lines, pending)

    def text(self) -> str:
        if self.core.is_chance():  # asked between a move and its chance: the move untold yet
            return "\n".join(self.lines)
        last = () if self.core.state is None else ("sees " + _numbers(self.core.state.observation(self.player)),)
        return "\n".join(self.lines + self._told() + last)


def _play_step(state, actions, keep_before: bool = False) -> list:
    """Incan Gold: one decision step's choices (one per player) played in the engine's seat order."""
    choosers = [p for p, inside in enumerate(state.in_temple) if inside]
    played = []
    for p in choosers:
        assert state.current_player == p, (state.current_player, p)
        before = state.clone() if keep_before else None
        state.apply_action(int(actions[p]))
        played.append((before, int(actions[p])))
    return played if keep_before else []


def _numbers(obs: np.ndarray) -> str:
    """An observation vector as text, exactly and quickly (its float32 bytes in hex)."""
    return obs.astype(np.float32).tobytes().hex()


class DeckoptObserver:
    """OpenSpiel's PyObserver: the information state (perfect recall) or the observation."""

    def __init__(self, engine: games.Game, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        size = 0 if perfect_recall else engine.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DeckoptState, player: int) -> None:
        engine_state = state.engine_state
        if not self.perfect_recall and engine_state is not None:
            self.tensor[:] = engine_state.observation(player)

    def string_from(self, state: DeckoptState, player: int) -> str:
        if self.perfect_recall:
            return state.seen_by(player)
        engine_state = state.engine_state
        return "(dealing)" if engine_state is None else engine_state.view(player)


def register_all() -> list[str]:
    """Registers every game of games.GAME_NAMES with OpenSpiel (once; later calls do nothing); returns
    their OpenSpiel names."""
    registered = set(pyspiel.registered_names())
    for name in games.GAME_NAMES:
        if spiel_name(name) not in registered:
            # a class, not a closure: OpenSpiel keeps the factory until the interpreter ends, and a
            # registered closure aborts Python's shutdown (pyspiel 2.0.2: "GIL is released")
            game_class = type(f"Deckopt_{name}", (DeckoptGame,), {"game_name": name})
            pyspiel.register_game(game_type(name), game_class)
    return [spiel_name(name) for name in games.GAME_NAMES]


def load(name: str, seed: int = 0, **config) -> pyspiel.Game:
    """Our game `name` with its config as keyword arguments, loaded through OpenSpiel's registry."""
    register_all()
    return pyspiel.load_game(spiel_name(name), {"config": json.dumps(config), "seed": seed})
