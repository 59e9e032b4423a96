"""The vectorised Connect Four engine (games/connect_four_batch.py) plays exactly as the scalar one:
every ply of many random games compared side by side, illegal actions, every way a game ends,
mid-game positions, and the lock-step users (play_batch, DQN self-play, matches) whose results must
not depend on which engine ran them."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents import dqn
from agents.arena import lockstep_batch, play_batch, play_match, play_states
from agents.base import Agent, RandomAgent
from agents.learned import PRETRAINED_DIR, LearnedAgent, NumpyNetwork, load_agent
from games import IllegalActionError
from games.batch import StateBatch, batch_of
from games.connect_four import ConnectFour
from games.connect_four_batch import ConnectFourBatch

GAME = games.make("connect_four")
DRAWN = "350436003406430244555061341131625116262252"  # a full board without four in a row (seed 40)


def fields(s) -> tuple:
    return (s._bits, s._heights, s._free, s._player, s._outcome, s._moves)


def assert_same(batch: ConnectFourBatch, states: list) -> None:
    """Everything the batch says about every game equals what the scalar states say."""
    every = np.arange(len(states))
    assert batch.current_players().tolist() == [s.current_player for s in states]
    assert batch.is_terminal().tolist() == [s.is_terminal() for s in states]
    masks = batch.legal_masks(every)
    assert masks.dtype == bool and np.array_equal(masks, GAME.legal_masks(states))
    live = [g for g, s in enumerate(states) if not s.is_terminal()]  # the player to move: live games only
    obs = batch.observations(np.array(live, dtype=np.int64))
    assert obs.dtype == np.float32 and obs.tobytes() == GAME.observations([states[g] for g in live]).tobytes()
    for viewer in (0, 1):
        obs = batch.observations(every, np.full(len(states), viewer))
        assert obs.dtype == np.float32 and obs.tobytes() == GAME.observations(states, [viewer] * len(states)).tobytes()
    returns = batch.returns()
    assert returns.dtype == np.float64 and np.array_equal(returns, np.array([s.returns() for s in states]))
    assert [fields(batch.state(g)) for g in every] == [fields(s) for s in states]


def play(moves: str) -> tuple[ConnectFourBatch, object]:
    """One game of `moves` (column digits) on both engines."""
    state = GAME.new_initial_state(None)
    batch = ConnectFourBatch(GAME, 1)
    for c in moves:
        state.apply_action(int(c))
        batch.apply_actions(np.array([0]), np.array([int(c)]))
    return batch, state


def test_random_games_ply_by_ply_with_illegal_attempts():
    rng = np.random.default_rng(0)
    n = 150
    states = [GAME.new_initial_state(None) for _ in range(n)]
    batch = batch_of(states)
    assert isinstance(batch, ConnectFourBatch)
    illegal_tries = 0
    while True:
        assert_same(batch, states)
        live = np.flatnonzero(batch.current_players() >= 0)
        if not live.size:
            break
        # a few games try an illegal move first: a full column, or any column once over
        for g in rng.choice(n, 3, replace=False).tolist():
            full = [c for c in range(7) if not states[g].legal_mask()[c]]
            if full:
                c = int(rng.choice(full))
                with pytest.raises(IllegalActionError) as by_state:
                    states[g].apply_action(c)
                with pytest.raises(IllegalActionError) as by_batch:
                    batch.apply_actions(np.array([g]), np.array([c]))
                assert str(by_batch.value) == f"{by_state.value} (game {g} of the batch)"
                illegal_tries += 1
        # random legal moves, in a random order of the games
        live = rng.permutation(live)
        masks = batch.legal_masks(live)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        batch.apply_actions(live, actions)
        for g, a in zip(live.tolist(), actions.tolist()):
            states[g].apply_action(a)
    assert illegal_tries > 50
    outcomes = {s.winner if s.winner is not None else "draw" for s in states}
    assert {0, 1} <= outcomes


def test_illegal_actions_name_the_game_and_the_action_and_change_nothing():
    batch, _ = play("000000")  # column 0 full, player 0 to move
    before = fields(batch.state(0))
    for bad in (np.array([0]), np.array([7]), np.array([-1]), np.array([2.0]), np.array([True])):
        with pytest.raises(IllegalActionError, match=r"connect_four: action .* \(game 0 of the batch\)"):
            batch.apply_actions(np.array([0]), bad)
        assert fields(batch.state(0)) == before
    with pytest.raises(IllegalActionError, match="connect_four: action 0 is not legal for player 0"):
        batch.apply_actions(np.array([0]), np.array([0]))
    # many games, one illegal action: refused before anything moves
    many = ConnectFourBatch.from_states([batch.state(0)] * 3)
    snapshot = [fields(many.state(g)) for g in range(3)]
    with pytest.raises(IllegalActionError, match="action 0 is not legal.*game 2 of the batch"):
        many.apply_actions(np.array([0, 1, 2]), np.array([3, 4, 0]))
    assert [fields(many.state(g)) for g in range(3)] == snapshot
    won, _ = play("0101010")
    with pytest.raises(IllegalActionError, match="connect_four: action 3 after the game has ended"):
        won.apply_actions(np.array([0]), np.array([3]))


@pytest.mark.parametrize(
    "moves, winner",
    [
        ("0101010", 0),  # vertical
        ("0011223", 0),  # horizontal, bottom row
        ("6061626", 0),  # vertical in the last column
        ("60011223", 1),  # horizontal, player 1
        ("01122323353", 0),  # diagonal /
        ("65543443233", 0),  # diagonal \
        ("3456345634563", 0),  # vertical, next to other columns of three
    ],
)
def test_wins_in_every_direction(moves, winner):
    batch, state = play(moves)
    assert state.winner == winner
    assert_same(batch, [state])
    assert batch.returns()[0].tolist() == ([1.0, -1.0] if winner == 0 else [-1.0, 1.0])


def test_a_full_board_is_a_draw():
    batch, state = play(DRAWN)
    assert state.is_draw and batch.outcome[0] == 2 and batch.moves[0] == 42
    assert_same(batch, [state])
    assert not batch.legal_masks(np.array([0])).any()


def test_from_states_of_mid_game_and_finished_positions_then_played_on():
    rng = np.random.default_rng(5)
    states = []
    for _ in range(60):
        s = GAME.new_initial_state(None)
        for _ in range(int(rng.integers(0, 43))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        states.append(s)
    _, drawn = play(DRAWN)
    states.append(drawn)
    assert any(s.is_terminal() for s in states) and any(not s.is_terminal() for s in states)
    batch = ConnectFourBatch.from_states(states)
    assert_same(batch, states)
    copies = [s.clone() for s in states]
    play_batch(
        batch, [(0, 1)] * len(states), [RandomAgent(np.random.default_rng(1)), RandomAgent(np.random.default_rng(2))]
    )
    play_states(
        copies, [(0, 1)] * len(states), [RandomAgent(np.random.default_rng(1)), RandomAgent(np.random.default_rng(2))]
    )
    assert_same(batch, copies)
    assert [fields(s) for s in states] != [fields(s) for s in copies]  # from_states copied the states


class Logged(Agent):
    """Wraps an agent and logs every action it returns (through whichever path it is asked)."""

    def __init__(self, inner: Agent):
        self.inner, self.log = inner, []

    def act(self, states):
        actions = self.inner.act(states)
        self.log.append(actions.tolist())
        return actions

    def act_batch(self, batch, games_):
        actions = self.inner.act_batch(batch, games_)
        self.log.append(actions.tolist())
        return actions


def shipped_or_random_agent() -> LearnedAgent:
    if (PRETRAINED_DIR / "connect_four.npz").is_file():
        agent = load_agent("pretrained", GAME)
        assert isinstance(agent, LearnedAgent)
        return agent
    rng = np.random.default_rng(3)
    sizes = [GAME.observation_size, 64, GAME.num_actions]
    weights = [w for a, b in zip(sizes, sizes[1:]) for w in (rng.normal(size=(a, b)), rng.normal(size=b))]
    return LearnedAgent(GAME, NumpyNetwork(weights, ["relu", "tanh"]))


@pytest.mark.parametrize("opponent", ["random", "learned", "heuristic", "mcts:12"])
def test_play_batch_on_the_engine_plays_as_play_states(opponent):
    def lineup():
        other = {
            "random": lambda: RandomAgent(np.random.default_rng(8)),
            "learned": shipped_or_random_agent,
        }.get(opponent, lambda: agents.make(opponent, GAME, seed=4))()  # the others decide on states(g)
        return [Logged(RandomAgent(np.random.default_rng(7))), Logged(other)]

    n = 12 if opponent.startswith("mcts") else 80
    seats = [(0, 1) if g % 2 == 0 else (1, 0) for g in range(n)]
    states = [GAME.new_initial_state(None) for _ in range(n)]
    batch = ConnectFourBatch.from_states(states)
    by_batch, by_states = lineup(), lineup()
    steps = play_batch(batch, seats, by_batch)
    assert play_states(states, seats, by_states) == steps
    assert [a.log for a in by_batch] == [a.log for a in by_states]
    assert_same(batch, states)


def random_network(seed: int) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [GAME.observation_size, 48, 48, GAME.num_actions]
    weights = [w for a, b in zip(sizes, sizes[1:]) for w in (rng.normal(size=(a, b)) * 0.3, rng.normal(size=b) * 0.1)]
    return NumpyNetwork(weights, ["relu", "relu", "tanh"])


def run_self_play(seed: int, **kwargs):
    rng = np.random.default_rng(seed)
    recorder = dqn.SelfPlayRecorder(random_network(seed), rng)
    results = [dqn.self_play(GAME, recorder, 40, eps, 0.85, rng, **kwargs) for eps in (0.3, 0.05)]
    return results, recorder.decisions, rng.random(4)  # and where the generator ended


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"random_opening_moves": 6, "opponents": "mix"},
    ],
)
def test_self_play_on_the_engine_is_self_play_on_states(monkeypatch, kwargs):
    def opponents():
        if kwargs.get("opponents") != "mix":
            return {}
        return {
            "opponents": [(agents.make("heuristic", GAME, seed=5), 0.2), (agents.make("random", GAME, seed=6), 0.4)]
        }

    settings = {k: v for k, v in kwargs.items() if k != "opponents"}
    fast = run_self_play(3, **settings, **opponents())
    monkeypatch.setattr(ConnectFour, "batch_class", None)  # every game a plain State
    slow = run_self_play(3, **settings, **opponents())
    (fast_results, fast_decisions, fast_next), (slow_results, slow_decisions, slow_next) = fast, slow
    for a, b in zip(fast_results, slow_results):
        for x, y in zip(a, b):  # observations, actions, targets, returns
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)
    assert fast_decisions == slow_decisions
    assert np.array_equal(fast_next, slow_next)


def test_self_play_targets_equal_episode_targets():
    rng = np.random.default_rng(11)
    recorder = dqn.SelfPlayRecorder(random_network(11), rng)
    obs, actions, targets, returns = dqn.self_play(GAME, recorder, 30, 0.5, 0.9, rng)
    expected = np.empty(len(obs), dtype=np.float32)
    for g, decisions in enumerate(recorder.decisions):
        players, rows = zip(*decisions)
        expected[list(rows)] = dqn.episode_targets(players, returns[g].tolist(), 0.9)
    assert np.array_equal(targets, expected)


def test_matches_give_the_same_results_on_either_engine(monkeypatch):
    def matches():
        lineups = [("random", "random"), ("pretrained", "random"), ("heuristic", "random")]
        if not (PRETRAINED_DIR / "connect_four.npz").is_file():
            lineups = lineups[::2]
        return [
            play_match(
                GAME, [agents.make(spec, GAME, seed=i + 3) for i, spec in enumerate(specs)], 60, seed=7, batch_size=24
            ).as_dict()
            for specs in lineups
        ]

    fast = matches()
    monkeypatch.setattr(ConnectFour, "batch_class", None)
    assert matches() == fast


def test_lockstep_batch_uses_the_engine_only_for_batch_agents():
    states = [GAME.new_initial_state(None) for _ in range(4)]
    assert isinstance(lockstep_batch(states), ConnectFourBatch)
    assert isinstance(
        lockstep_batch(states, [RandomAgent(np.random.default_rng(0)), shipped_or_random_agent()]), ConnectFourBatch
    )
    in_place = lockstep_batch(states, [agents.make("heuristic", GAME, seed=0)])
    assert isinstance(in_place, StateBatch) and in_place.states[0] is states[0]
    ttt = games.make("tic_tac_toe")
    assert isinstance(lockstep_batch([ttt.new_initial_state(None)]), StateBatch)


def test_nfsp_ppo_rollouts_on_the_engine_are_rollouts_on_states(monkeypatch):
    from agents.rollout import Recorder, play_recorded

    def rollout():
        noise = np.random.default_rng(4)

        def choose(obs, masks, games_, players):  # a stand-in learner: random legal, obs-dependent extra
            return np.where(masks, noise.random(masks.shape), -1.0).argmax(axis=1), {"seen": obs.sum(axis=1)}

        rng = np.random.default_rng(3)
        opponents = [(agents.make("heuristic", GAME, seed=5), 0.25), (agents.make("random", GAME, seed=6), 0.25)]
        b = play_recorded(GAME, Recorder(choose), 40, rng, opponents)
        return [b.obs, b.masks, b.actions, b.games, b.players, b.returns, b.extras["seen"], rng.random(2)]

    fast = rollout()
    monkeypatch.setattr(ConnectFour, "batch_class", None)
    for x, y in zip(fast, rollout()):
        assert x.dtype == y.dtype and np.array_equal(x, y)
