"""The batch form of the game interface (games/batch.py) and lock-step play over it."""

import numpy as np
import pytest

import games
from agents.arena import play_batch, play_states
from agents.base import RandomAgent
from games.batch import StateBatch, batch_of


@pytest.mark.parametrize("name", games.GAME_NAMES)
def test_random_agent_draws_the_same_actions_from_states_and_from_a_batch(name):
    game = games.make(name)
    chance = np.random.default_rng(1)
    states = [game.new_initial_state(chance) for _ in range(40)]
    for _ in range(6):  # a few plies in, so the masks differ between games
        live = [s for s in states if not s.is_terminal()]
        if not live:
            break
        batch = StateBatch(live)
        by_states = RandomAgent(np.random.default_rng(7)).act(live)
        by_batch = RandomAgent(np.random.default_rng(7)).act_batch(batch, np.arange(len(live)))
        assert by_batch.tolist() == by_states.tolist()
        for s, a in zip(live, by_states.tolist()):
            s.apply_action(a)


def test_play_batch_on_copies_leaves_the_states_alone_and_matches_play_states():
    game = games.make("gwent_lite")
    states = [game.new_initial_state(s) for s in range(30)]
    batch = batch_of(states)
    steps = play_batch(
        batch, [(0, 1)] * 30, [RandomAgent(np.random.default_rng(3)), RandomAgent(np.random.default_rng(4))]
    )
    assert all(not s.is_terminal() for s in states)
    assert batch.is_terminal().all()
    play_states(states, [(0, 1)] * 30, [RandomAgent(np.random.default_rng(3)), RandomAgent(np.random.default_rng(4))])
    assert np.array_equal(batch.returns(), np.array([s.returns() for s in states]))
    assert steps > 30


@pytest.mark.cross_cpu
@pytest.mark.parametrize("mode", ["sample", "greedy"])
def test_a_policy_agent_acts_the_same_on_states_and_on_a_vectorised_batch(mode):
    from agents.learned import NumpyNetwork
    from agents.policy import PolicyAgent

    game = games.make("connect_four")
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(84, 32)), np.zeros(32), rng.normal(size=(32, 7)), np.zeros(7)]
    net = NumpyNetwork(weights, ["relu", "linear"])
    states = [game.new_initial_state(None) for _ in range(50)]
    for _ in range(8):
        by_states = PolicyAgent(game, net, mode, np.random.default_rng(5)).act(states)
        batch = batch_of(states)
        by_batch = PolicyAgent(game, net, mode, np.random.default_rng(5)).act_batch(batch, np.arange(len(states)))
        assert by_batch.tolist() == by_states.tolist()
        for s, a in zip(states, by_states.tolist()):
            s.apply_action(a)
        states = [s for s in states if not s.is_terminal()]
