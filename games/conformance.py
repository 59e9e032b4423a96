"""The conformance suite of the game interface: does a rules engine keep the promises of
games/RULES.md §1? In the spirit of OpenSpiel's random_sim_test and PettingZoo's api_test, over
random games:

    results = run_checks(game, num_games=100)     # one CheckResult per check, in CHECKS order
    failed = [r for r in results if r.status == FAILED]

Each check plays its own seeded random games, so a result is reproducible. Nothing is printed: the
caller (`deckopt check`, tests/test_conformance.py) reports the results. A check fails on a broken
promise and also on any exception the engine raises (a crash is a failure too).

The state helpers below (random playouts, comparing states field by field, public facts) are the
ones the checks use; the tests reuse them.
"""

from __future__ import annotations

import copy
import pickle
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from games.base import TERMINAL, Game, State
from games.batch import batch_of
from games.config import config_from_dict, config_to_dict
from games.errors import IllegalActionError, UserError, one_line

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
#: a random game longer than this many moves counts as one that never ends
MAX_MOVES = 100_000


class ConformanceFailure(AssertionError):
    """A broken promise of the game interface, explained in one line."""


class Skip(Exception):
    """A check that does not apply to the game (e.g. no cards to count)."""


@dataclass(frozen=True)
class CheckResult:
    name: str  # the check's name, as in CHECKS
    status: str  # PASSED, FAILED or SKIPPED
    detail: str = ""  # why it failed or was skipped; what was checked when it passed
    trace: str = ""  # the traceback of an exception the game raised ("" otherwise)

    @property
    def ok(self) -> bool:
        return self.status != FAILED


def need(ok, message: str) -> None:
    if not ok:
        raise ConformanceFailure(message)


# --- state helpers -------------------------------------------------------------------------------
def random_playout(state: State, rng: np.random.Generator, on_state=None) -> list[int]:
    """Play uniformly random legal actions until the game ends; `on_state(state)` is called before
    every action and once at the end. Returns the actions played. A legal action the engine refuses,
    or a game that does not end within MAX_MOVES moves, is a ConformanceFailure."""
    actions = []
    while True:
        if on_state is not None:
            on_state(state)
        if state.is_terminal():
            return actions
        need(len(actions) < MAX_MOVES, f"a random game did not end within {MAX_MOVES} moves")
        legal = state.legal_actions()
        need(legal, f"player {state.current_player} is to move but has no legal action")
        action = legal[int(rng.integers(len(legal)))]
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            message = f"action {action} is in the legal mask but apply_action refused it: {exc}"
            raise ConformanceFailure(message) from None
        except Exception as exc:  # noqa: BLE001 - a legal action must never crash the engine
            message = f"legal action {action} ({state.game.action_name(action)}) raised {type(exc).__name__}: {exc}"
            raise ConformanceFailure(message) from None
        actions.append(action)


def random_states(game: Game, count: int, seed: int) -> list[State]:
    """States after random numbers of random moves: openings, middles and (a quarter) finished games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        s = game.new_initial_state(np.random.default_rng(rng.integers(2**32)))
        moves = MAX_MOVES if rng.random() < 0.25 else int(rng.integers(0, 60))
        for _ in range(moves):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        out.append(s)
    return out


def state_fields(state: State) -> dict:
    """Every field of `state` (slots along the class hierarchy and any instance dict), `game` aside."""
    names = {n for cls in type(state).__mro__ for n in getattr(cls, "__slots__", ())}
    names |= set(getattr(state, "__dict__", {}))
    names.discard("game")
    return {n: getattr(state, n) for n in sorted(names) if hasattr(state, n)}


def same_pickle(a, b) -> bool:
    """Whether `a` and `b` pickle to the same bytes (then they hold the same values of the same types,
    element for element): the quick answer for large containers; False leaves the question open."""
    try:
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:  # noqa: BLE001 - an object that does not pickle is compared element by element
        return False


def same_value(a, b) -> bool:
    """Equality that also compares numpy arrays (element-wise, with shape and dtype)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        return same_pickle(a, b) or all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and (same_pickle(a, b) or all(same_value(a[k], b[k]) for k in a))
    return type(a) is type(b) and a == b


def identity_only(fields: dict, differ: list[str]) -> str:
    """A hint for differing fields whose values are compared by identity only (a class without
    `__eq__`, such as a wrapped engine's state object): two equal positions never compare equal."""
    opaque = sorted({type(fields[n]).__name__ for n in differ if type(fields[n]).__eq__ is object.__eq__})
    if not opaque:
        return ""
    return f" ({', '.join(opaque)} has no __eq__, so two copies never compare equal: give it one, or keep plain fields)"


def assert_same_state(a: State, b: State) -> None:
    """`a` and `b` are the same position: same class, same game config, every field equal."""
    need(type(a) is type(b), f"a {type(a).__name__} is not a {type(b).__name__}")
    need(type(a.game) is type(b.game) and a.game.config == b.game.config, "the states' games differ")
    fa, fb = state_fields(a), state_fields(b)
    need(fa.keys() == fb.keys(), f"the states have different fields: {sorted(fa.keys() ^ fb.keys())}")
    differ = [n for n in fa if not same_value(fa[n], fb[n])]
    need(not differ, f"fields differ: {differ}{identity_only(fa, differ)}")


def snapshot(state: State) -> dict:
    """A deep copy of every field, to check later that something left `state` unchanged."""
    return copy.deepcopy(state_fields(state))


def assert_unchanged(state: State, before: dict) -> None:
    now = state_fields(state)
    differ = [n for n in before if not same_value(before[n], now[n])]
    need(not differ, f"fields changed: {differ}")


def public_facts(state: State) -> dict:
    """Every public read-only property of the state (the public facts of games/RULES.md §1.4)."""
    names = {
        n
        for cls in type(state).__mro__
        for n, v in vars(cls).items()
        if isinstance(v, property) and not n.startswith("_") and n != "current_player"
    }
    return {n: getattr(state, n) for n in sorted(names)}


# --- the checks ----------------------------------------------------------------------------------
def check_interface(game: Game, num_games: int) -> str:
    """The game's sizes are whole numbers >= 1 and its config round-trips through plain settings."""
    for attr in ("num_players", "num_actions", "observation_size"):
        value = getattr(game, attr, None)
        need(type(value) is int and value >= 1, f"{attr} must be an int >= 1, got {value!r}")
    low, high = game.observation_range
    need(low <= high, f"observation_range {game.observation_range} is empty")
    index = game.action_feature_index
    if index is not None:
        need(
            index.ndim == 2 and index.shape[0] == game.num_actions and np.issubdtype(index.dtype, np.integer),
            f"action_feature_index must be ({game.num_actions}, F) integers, got {index.dtype} {index.shape}",
        )
        need(
            ((index >= 0) & (index <= game.observation_size + 1)).all(),
            f"action_feature_index entries must lie in 0..{game.observation_size + 1} (observation, 1, 0)",
        )
    need(isinstance(game.config, game.config_class), f"config is not a {game.config_class.__name__}")
    settings = config_to_dict(game.config)
    again = config_from_dict(game.config_class, settings, where=game.name)
    need(again == game.config, "the config written as plain settings reads back as a different config")
    rebuilt = type(game)(again)
    need(rebuilt.observation_size == game.observation_size, "the same config gives another observation size")
    try:
        config_from_dict(game.config_class, {"no_such_setting": 1}, where=game.name)
    except UserError:
        pass
    else:
        raise ConformanceFailure("an unknown setting is accepted")
    return f"{game.num_players} players, {game.num_actions} actions, observations of {game.observation_size}"


def check_step(state: State) -> None:
    """The invariants of one state, finished or not (games/RULES.md §1.1 and §1.3)."""
    game = state.game
    n = game.num_players
    mask = state.legal_mask()
    need(
        isinstance(mask, np.ndarray) and mask.dtype == bool and mask.shape == (game.num_actions,),
        f"legal_mask must be a bool array of shape ({game.num_actions},)",
    )
    need(np.flatnonzero(mask).tolist() == state.legal_actions(), "legal_actions differs from the legal mask")
    low, high = game.observation_range
    for p in range(n):
        obs = state.observation(p)
        need(
            isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == (game.observation_size,),
            f"player {p}'s observation must be float32 of shape ({game.observation_size},)",
        )
        need(np.isfinite(obs).all(), f"player {p}'s observation is not finite")
        need(
            obs.min() >= low and obs.max() <= high,
            f"player {p}'s observation leaves [{low}, {high}]: {obs.min()}..{obs.max()}",
        )
    r = state.returns()
    need(isinstance(r, np.ndarray) and r.shape == (n,), f"returns must be an array of shape ({n},)")
    need(np.isfinite(r).all(), "returns are not finite")
    if state.is_terminal():
        need(state.current_player == TERMINAL, "a finished game's current_player is not TERMINAL")
        need(not mask.any() and state.legal_actions() == [], "a finished game has legal actions")
    else:
        need(0 <= state.current_player < n, f"current_player {state.current_player} is not a player")
        need(mask.any(), f"player {state.current_player} is to move but has no legal action")
        need(not r.any(), f"returns {r.tolist()} before the end")


def check_invariants(game: Game, num_games: int) -> str:
    """Every state of `num_games` random games keeps check_step's invariants; random play does not
    always end the same way (from 20 games on)."""
    rng = np.random.default_rng(0)
    outcomes, moves = set(), 0
    for g in range(num_games):
        state = game.new_initial_state(np.random.default_rng(g))
        played = len(random_playout(state, rng, on_state=check_step))
        need(played, f"game {g} was over before its first move")
        moves += played
        outcomes.add(tuple(state.returns().tolist()))
    need(num_games < 20 or len(outcomes) >= 2, f"all {num_games} random games ended with returns {outcomes.pop()}")
    return f"{moves} moves of {num_games} random games"


def check_cards_conserved(game: Game, num_games: int) -> str:
    """Where the game counts its cards (`State.cards`), no card appears or vanishes in a game."""
    rng = np.random.default_rng(10)
    start = game.new_initial_state(np.random.default_rng(0)).cards()
    if start is None:
        raise Skip("the game does not count its cards (State.cards)")
    for g in range(num_games):
        state = game.new_initial_state(np.random.default_rng(g))
        start = state.cards()

        def same_cards(s, start=start):
            now = s.cards()
            gone, new = start - now, now - start
            need(not gone and not new, f"cards not conserved: {dict(gone)} vanished, {dict(new)} appeared")

        random_playout(state, rng, on_state=same_cards)
    return f"{sum(start.values())} cards in each of {num_games} games"


def refuses_illegal_actions(state: State) -> None:
    """Every kind of illegal action raises IllegalActionError and changes nothing."""
    game = state.game
    mask = state.legal_mask()
    bad = [-1, game.num_actions, 1.5, 0.0, True, "0", None]
    bad += np.flatnonzero(~mask).tolist()[:2]  # legal elsewhere, not here (everything once the game is over)
    before = snapshot(state)
    for action in bad:
        try:
            state.apply_action(action)
        except IllegalActionError:
            pass
        except Exception as exc:  # noqa: BLE001 - any other exception breaks the promise
            raise ConformanceFailure(f"action {action!r} raised {type(exc).__name__}, not IllegalActionError") from None
        else:
            raise ConformanceFailure(f"illegal action {action!r} was accepted")
        assert_unchanged(state, before)


def check_illegal_refused(game: Game, num_games: int) -> str:
    """Illegal actions (out of range, wrong type, masked out) are refused without change, mid-game and at the end."""
    rng = np.random.default_rng(1)
    count = min(num_games, 10)
    for g in range(count):
        state = game.new_initial_state(np.random.default_rng(g))
        actions = random_playout(state, rng)
        refuses_illegal_actions(state)
        mid = game.new_initial_state(np.random.default_rng(g))
        for a in actions[: len(actions) // 2]:
            mid.apply_action(a)
        refuses_illegal_actions(mid)
    return f"{2 * count} positions"


def check_same_seed(game: Game, num_games: int) -> str:
    """Same seed and same actions: the same states, observation for observation (RULES.md §1.2)."""
    count = min(num_games, 20)
    for seed in range(count):
        trace = []
        for _ in range(2):
            state = game.new_initial_state(np.random.default_rng(seed))
            seen = []
            actions = random_playout(
                state,
                np.random.default_rng(seed + 1000),
                on_state=lambda s, seen=seen: seen.append((s.current_player, s.observation(max(s.current_player, 0)))),
            )
            trace.append((actions, seen, state.returns().tolist(), state_fields(state)))
        (a1, o1, r1, f1), (a2, o2, r2, f2) = trace
        need(a1 == a2 and len(o1) == len(o2), f"seed {seed}: the same random play took another course")
        same = all(p == q and np.array_equal(x, y) for (p, x), (q, y) in zip(o1, o2))
        need(same, f"seed {seed}: the same seed and actions gave other observations")
        need(r1 == r2, f"seed {seed}: the same seed and actions ended with other returns")
        differ = [n for n in f1 if n not in f2 or not same_value(f1[n], f2[n])]
        need(
            f1.keys() == f2.keys() and not differ,
            f"seed {seed}: the same seed and actions ended in other fields: {differ}{identity_only(f1, differ)}",
        )
    return f"{count} seeds replayed"


def check_clone(game: Game, num_games: int) -> str:
    """A clone equals its original, and playing on either leaves the other unchanged."""
    rng = np.random.default_rng(3)
    count = min(num_games, 40)
    for state in random_states(game, count, seed=4):
        before = snapshot(state)
        clone = state.clone()
        need(clone is not state, "clone returned the state itself")
        assert_same_state(clone, state)
        actions = random_playout(clone, rng)  # the clone plays on ...
        try:
            assert_unchanged(state, before)  # ... and the original does not move
        except ConformanceFailure as exc:
            raise ConformanceFailure(f"playing a clone changed its original: {exc}") from None
        for a in actions:  # the original, given the same actions, ends where the clone did
            state.apply_action(a)
        assert_same_state(state, clone)
    return f"{count} positions"


def check_pickle(game: Game, num_games: int) -> str:
    """A pickled and restored state equals the original and plays on identically."""
    rng = np.random.default_rng(5)
    count = min(num_games, 20)
    for state in random_states(game, count, seed=6):
        restored = pickle.loads(pickle.dumps(state))
        assert_same_state(restored, state)
        actions = random_playout(restored, rng)
        for a in actions:
            state.apply_action(a)
        assert_same_state(state, restored)
        need(np.array_equal(state.returns(), restored.returns()), "a restored state ends with other returns")
    return f"{count} positions"


def check_resample_hidden(game: Game, num_games: int) -> str:
    """`resample_hidden(p)` changes nothing `p` knows: observation, view, public facts, `p`'s own
    choices (RULES.md §1.4); a perfect-information game returns an exact copy. A game overrides it
    exactly when it declares hidden information (`GameFacts.hidden_information`)."""
    rng = np.random.default_rng(7)
    count = min(num_games, 40)
    perfect_information = not game.facts.hidden_information
    overridden = type(game.new_initial_state(np.random.default_rng(0))).resample_hidden is not State.resample_hidden
    declared = "declares no hidden information" if perfect_information else "declares hidden information"
    need(
        overridden != perfect_information,
        f"the game {declared} (GameFacts.hidden_information) but "
        + ("overrides resample_hidden" if overridden else "keeps the default resample_hidden"),
    )
    for state in random_states(game, count, seed=8):
        before = snapshot(state)
        facts = public_facts(state)
        for p in range(game.num_players):
            r = state.resample_hidden(p, rng)
            need(r is not state and type(r) is type(state), "resample_hidden must return a new state of the same type")
            assert_unchanged(state, before)
            if perfect_information:
                assert_same_state(r, state)
            need(
                np.array_equal(r.observation(p), state.observation(p)),
                f"player {p}'s observation changes when what they cannot see is re-drawn "
                "(does the observation show a hidden card?)",
            )
            need(r.view(p) == state.view(p), f"player {p}'s view changes when what they cannot see is re-drawn")
            need(r.current_player == state.current_player, "resampling changed the player to move")
            need(r.is_terminal() == state.is_terminal(), "resampling changed whether the game is over")
            if state.current_player == p:  # p's choices are p's to know
                need(np.array_equal(r.legal_mask(), state.legal_mask()), f"resampling changed player {p}'s choices")
            now = public_facts(r)
            differ = [k for k in facts if not same_value(facts[k], now[k])]
            need(not differ, f"public facts changed by resampling for player {p}: {differ}")
            random_playout(r, rng)  # a resampled state is a state like any other
    kind = "perfect information" if perfect_information else "hidden information"
    return f"{count} positions, {kind}"


def check_batch_views(game: Game, num_games: int) -> str:
    """`game.observations` and `game.legal_masks` answer row for row as the states do, and so does
    the game's vectorised engine (`batch_class`) if it has one."""
    states = random_states(game, max(num_games, 20), seed=9)
    live = [s for s in states if not s.is_terminal()]
    if live:
        got = game.observations(live)  # the player to move by default
        need(got.dtype == np.float32 and got.shape == (len(live), game.observation_size), "observations: bad shape")
        need(np.array_equal(got, np.stack([s.observation(s.current_player) for s in live])), "observations differ")
    players = [int(p) for p in np.random.default_rng(1).integers(game.num_players, size=len(states))]
    seen = np.stack([s.observation(p) for s, p in zip(states, players)])
    need(np.array_equal(game.observations(states, players), seen), "observations for given players differ")
    masks = game.legal_masks(states)
    need(masks.dtype == bool and masks.shape == (len(states), game.num_actions), "legal_masks: bad shape")
    need(np.array_equal(masks, np.stack([s.legal_mask() for s in states])), "legal_masks differ from the states'")
    batch = batch_of(states)
    every = np.arange(len(states))
    players_to_move = np.array([s.current_player for s in states])
    need(np.array_equal(batch.current_players(), players_to_move), "the batch's players to move differ")
    need(np.array_equal(batch.returns(), np.stack([s.returns() for s in states])), "the batch's returns differ")
    need(np.array_equal(batch.legal_masks(every), masks), "the batch's legal masks differ")
    need(
        np.array_equal(batch.observations(every, np.array(players)), game.observations(states, players)),
        "the batch's observations differ",
    )
    return f"{len(states)} positions, {type(batch).__name__}"


#: the games the vectorised engine check steps at once (fewer when the check is given fewer)
BATCH_ENGINE_GAMES = 36
#: how often a scripted player of that check takes its scripted action rather than a random one
SCRIPTED_SHARE = 0.75


def scripted_action(legal: list[int], script: int, rng: np.random.Generator) -> int:
    """A legal action of one of three players: uniformly random (script 0), mostly the first legal
    action (1: in most games the passive one, pass or the lowest card) or mostly the last (2)."""
    if script and rng.random() < SCRIPTED_SHARE:
        return legal[0] if script == 1 else legal[-1]
    return legal[int(rng.integers(len(legal)))]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """The same array bit for bit: dtype, shape and bytes (so -0.0 is not 0.0)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_batch_views(batch, states: list[State], step: int = 0, finished_too: bool = True) -> np.ndarray:
    """The batch's players to move, returns, legal masks and observations (by the player to move and
    by every player; of the finished games too unless `finished_too` is False) equal those of
    `states`, game for game; returns the indices of the games not over."""
    players = np.array([s.current_player for s in states])
    need(np.array_equal(batch.current_players(), players), f"step {step}: the players to move differ")
    need(np.array_equal(batch.returns(), np.stack([s.returns() for s in states])), f"step {step}: returns differ")
    live = np.flatnonzero(players != TERMINAL)
    if live.size:
        masks = batch.legal_masks(live)
        differ = [int(g) for g, m in zip(live, masks) if not np.array_equal(m, states[g].legal_mask())]
        need(not differ, f"step {step}: the legal masks of games {differ} differ")
        seen = batch.observations(live)
        differ = [int(g) for g, o in zip(live, seen) if not same_bits(o, states[g].observation(players[g]))]
        need(not differ, f"step {step}: the observations of games {differ} by the player to move differ")
    shown = np.arange(len(states)) if finished_too else live
    for p in range(states[0].game.num_players):
        seen = batch.observations(shown, np.full(len(shown), p))
        differ = [int(g) for g, o in zip(shown, seen) if not same_bits(o, states[g].observation(p))]
        need(not differ, f"step {step}: player {p}'s observations of games {differ} differ")
    return live


def check_batch_engine(game: Game, num_games: int) -> str:
    """The game's vectorised engine (`batch_class`) steps as the game does: seeded random and scripted
    play, every step compared (players, masks, observations before it, the whole state after it),
    illegal actions refused, and each rare rule the game declares (`Game.rare_rules`) reached (in
    BATCH_ENGINE_GAMES games or more; fewer report the rules they did not reach)."""
    batch_class = type(game).batch_class
    if batch_class is None:
        raise Skip("the game has no vectorised engine (batch_class)")
    count = min(num_games, BATCH_ENGINE_GAMES)
    scripts = [list(rule.script) for rule in game.rare_rules if rule.script]
    states = [game.new_initial_state(np.random.default_rng(g)) for g in range(count)]
    states += [game.new_initial_state(np.random.default_rng(0)) for _ in scripts]
    batch = batch_class.from_states(states)
    rng = np.random.default_rng(12)
    reached = Counter({rule.name: 0 for rule in game.rare_rules})

    def next_action(state: State, g: int, rng: np.random.Generator) -> int:
        """Game g's next action: its rule's script while it lasts, else a player's of scripted_action."""
        script = scripts[g - count] if g >= count else ()
        return script.pop(0) if script else scripted_action(state.legal_actions(), g % 3, rng)

    step = refused = 0
    while (live := assert_batch_views(batch, states, step, finished_too=False)).size:
        g = int(live[rng.integers(live.size)])
        illegal = np.flatnonzero(~states[g].legal_mask())
        if illegal.size and step % 3 == 0:  # a masked-out action is refused and changes nothing
            try:
                batch.apply_actions(np.array([g]), illegal[rng.integers(illegal.size)][None])
            except IllegalActionError as exc:
                need(f"game {g}" in str(exc), f"the batch's refusal does not name the game ({g}): {exc}")
                refused += 1
            else:
                raise ConformanceFailure(f"step {step}: the batch accepted a masked-out action in game {g}")
            assert_same_state(batch.state(g), states[g])
        order = rng.permutation(live)  # the games in any order
        actions = np.array([next_action(states[g], g, rng) for g in order], dtype=np.int64)
        for g, a in zip(order.tolist(), actions.tolist()):
            before = states[g].clone() if game.rare_rules else None
            states[g].apply_action(a)
            reached.update(r.name for r in game.rare_rules if r.fired(before, a, states[g]))
        batch.apply_actions(order, actions)
        for g in order.tolist():
            try:
                assert_same_state(batch.state(g), states[g])
            except ConformanceFailure as exc:
                raise ConformanceFailure(f"step {step}, game {g}: {exc}") from None
        step += 1
    assert_batch_views(batch, states, step)  # the finished games, seen by every player
    never = [name for name, n in reached.items() if not n]
    need(
        not never or count < BATCH_ENGINE_GAMES,
        f"rare rules never reached in {len(states)} games: {', '.join(never)}",
    )
    rules = ", ".join(f"{name} {n}" for name, n in reached.items() if n)
    detail = f"{len(states)} games, {step} steps, {refused} illegal actions refused, {type(batch).__name__}"
    detail += f"; rare rules reached: {rules}" if rules else ""
    # fewer games than BATCH_ENGINE_GAMES: a rule not reached is reported, not failed
    return detail + (f"; not reached in so few games: {', '.join(never)}" if never else "")


#: (name, function, what it checks): the order of `deckopt check`'s report
CHECKS: list[tuple[str, Callable[[Game, int], str]]] = [
    ("interface", check_interface),
    ("invariants", check_invariants),
    ("cards conserved", check_cards_conserved),
    ("illegal actions refused", check_illegal_refused),
    ("same seed same game", check_same_seed),
    ("clone", check_clone),
    ("pickle", check_pickle),
    ("hidden information", check_resample_hidden),
    ("batch views", check_batch_views),
    ("vectorised engine", check_batch_engine),
]
CHECK_NAMES = tuple(name for name, _ in CHECKS)


def describe(name: str) -> str:
    """The first line of check `name`'s docstring: what it checks."""
    return dict(CHECKS)[name].__doc__.split("\n")[0].strip()


def run_check(game: Game, name: str, num_games: int) -> CheckResult:
    """One check of CHECKS on `game` over `num_games` random games (fewer for the costly checks)."""
    try:
        detail = dict(CHECKS)[name](game, num_games)
    except Skip as exc:
        return CheckResult(name, SKIPPED, str(exc))
    except ConformanceFailure as exc:
        return CheckResult(name, FAILED, str(exc))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - an engine that crashes (or exits) fails the check
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        trace = "".join(traceback.format_exception(exc))
        return CheckResult(name, FAILED, f"raised {one_line(exc)}{where}", trace)
    return CheckResult(name, PASSED, detail)


def run_checks(game: Game, num_games: int = 100, on_result=None) -> list[CheckResult]:
    """Every check of CHECKS on `game`; `on_result(result)` after each."""
    out = []
    for name in CHECK_NAMES:
        out.append(run_check(game, name, num_games))
        if on_result is not None:
            on_result(out[-1])
    return out


__all__ = ["CHECKS", "CHECK_NAMES", "CheckResult", "run_check", "run_checks", "PASSED", "FAILED", "SKIPPED"]
