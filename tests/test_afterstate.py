"""Afterstate values: the agent takes legal actions, its choice is the argmax of the value network
over the afterstates (checked state by state against clones, also for the shipped LOCM copies asked
together in panel play), the learner trains, resumes exactly and repeats itself for the same seed,
and its model plays through agents.make."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents.afterstate import EXTRA_FEATURES, AfterstateAgent
from agents.afterstate_value import trainer
from agents.afterstate_value.config import AfterstateConfig
from agents.arena import acting_groups, play_match
from agents.base import RandomAgent
from agents.learned import NumpyNetwork, read_npz
from agents.panel import AgentPanel
from agents.rollout import next_decisions
from games.config import config_from_dict
from games.locm_batch import LocmBatch

rng0 = np.random.default_rng(0)
POOL = [sorted(rng0.integers(1, 161, size=30).tolist()) for _ in range(6)]
TINY = {
    "hidden_layers": [16],
    "games_per_batch": 8,
    "minibatch_size": 64,
    "update_epochs": 1,
    "eval_every": 0,
    "eval_games": 4,
    "eval_opponents": ["max-attack"],
    "checkpoint_minutes": 100.0,
    "game_config": {"deck_pool": POOL},
}


def tiny(**settings) -> AfterstateConfig:
    return config_from_dict(AfterstateConfig, {**TINY, **settings})


def random_value_network(game, seed: int) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    n = game.observation_size + EXTRA_FEATURES
    weights = [rng.normal(size=(n, 8)).astype(np.float32), np.zeros(8, np.float32)]
    weights += [rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32)]
    return NumpyNetwork(weights, ["tanh", "tanh"])


def value_by_hand(network, state, action: int) -> float:
    """The value of the afterstate of `action`, from a clone of the state (no batch engine)."""
    p = state.current_player
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal():
        return float(after.returns()[p])
    features = np.append(after.observation(p), float(after.current_player == p)).astype(np.float32)
    return float(network(features[None])[0, 0])


def battle_states(game, count: int, seed: int):
    rng = np.random.default_rng(seed)
    return [game.new_initial_state(rng) for _ in range(count)]


def test_the_agent_takes_the_best_valued_afterstate_of_each_state():
    game = games.make("locm", deck_pool=POOL)
    network = random_value_network(game, 1)
    agent = AfterstateAgent(game, network)
    states, checked = battle_states(game, 4, 2), 0
    while states and checked < 60:
        actions = agent.act(states)
        for s, a in zip(states, actions):
            legal = s.legal_actions()
            values = [value_by_hand(network, s, b) for b in legal]
            assert values[legal.index(a)] >= max(values) - 1e-5  # the best, to float32 rounding across batches
            s.apply_action(int(a))
            checked += 1
        states = [s for s in states if not s.is_terminal()]
    assert checked >= 60


class Checked(AfterstateAgent):
    """An afterstate agent keeping every decision it is asked for: (state, network, action)."""

    decisions: list = []

    @classmethod
    def act_together(cls, agents, batch, games_):
        chosen = super().act_together(agents, batch, games_)
        for agent, mine, actions in zip(agents, games_, chosen, strict=True):
            cls.decisions += [(batch.state(int(g)), agent.network, int(a)) for g, a in zip(mine, actions)]
        return chosen


def test_the_shipped_copies_asked_together_choose_as_each_alone_by_clones():
    game = games.make("locm", deck_pool=POOL)
    networks = [agents.make(f"agents/pretrained/locm_{k}.npz", game).network for k in range(3)]
    panels = [AgentPanel(tuple(Checked(game, n) for n in networks), ("0", "1", "2")) for _ in range(2)]
    Checked.decisions = []
    play_match(game, panels, 12, seed=3)  # every step: all six copies asked together
    play_match(game, [panels[0], agents.make("greedy", game)], 6, seed=4)  # beside an agent of another class
    assert len(Checked.decisions) > 500
    for state, network, action in Checked.decisions:
        legal = state.legal_actions()
        values = [value_by_hand(network, state, b) for b in legal] if len(legal) > 1 else [0.0]
        # the best value, to float32 rounding: a batch's rows may round apart where two afterstates tie alone
        assert values[legal.index(action)] >= max(values) - 1e-5


def test_the_arena_asks_the_agents_of_a_joint_class_together_at_the_first_one_s_place():
    game = games.make("locm", deck_pool=POOL)
    net = random_value_network(game, 1)
    rng = np.random.default_rng(0)
    roster = [RandomAgent(rng), AfterstateAgent(game, net), RandomAgent(rng), AfterstateAgent(game, net)]
    assert acting_groups(roster) == [[0], [1, 3], [2]]


def plays_legal_actions_to_the_end(agent, game, seed: int, count: int) -> None:
    """`agent` plays both seats of `count` batch-engine games: every action legal, every game ended with a winner."""
    batch = LocmBatch.deal(game, np.random.default_rng(seed), count)
    active = np.flatnonzero(batch.current_players() >= 0)
    while active.size:
        actions = agent.act_batch(batch, active)
        assert batch.legal_masks(active)[np.arange(active.size), actions].all()
        batch.apply_actions(active, actions)
        active = np.flatnonzero(batch.current_players() >= 0)
    assert (batch.winner >= 0).all()


def test_the_agent_plays_legal_actions_to_the_end_on_the_batch_engine_with_exploration():
    game = games.make("locm", deck_pool=POOL)
    agent = AfterstateAgent(game, random_value_network(game, 3), epsilon=0.3, rng=np.random.default_rng(4))
    plays_legal_actions_to_the_end(agent, game, 5, 16)


@pytest.mark.cross_cpu
def test_a_resumed_run_equals_an_uninterrupted_one_and_a_seed_repeats_itself(tmp_path):
    config = tiny(seed=3, warmup_agent="greedy", warmup_episodes=8, opponent_mix={"max-attack": 0.25}, td_lambda=0.8)
    resumes_exactly_and_repeats_itself(trainer.train, config, tmp_path, episodes=32)


def resumes_exactly_and_repeats_itself(train, config, tmp_path, episodes: int) -> None:
    """`train` twice straight, and once stopped after its first batch then resumed: the same model."""
    straight, again, split = tmp_path / "straight", tmp_path / "again", tmp_path / "split"
    train("locm", config, straight, episodes=episodes)
    train("locm", config, again, episodes=episodes)
    stops = iter([False, True])
    assert (
        train("locm", config, split, episodes=episodes, should_stop=lambda: next(stops))["episodes"]
        == config.games_per_batch
    )
    assert train("locm", config, split, episodes=episodes, resume=True)["episodes"] == episodes
    for other in (again, split):
        for a, b in zip(read_npz(straight / "model.npz")[0].weights, read_npz(other / "model.npz")[0].weights):
            np.testing.assert_array_equal(a, b)


def test_the_model_plays_through_agents_make(tmp_path):
    trainer.train("locm", tiny(), tmp_path / "run", episodes=16)
    game = games.make("locm", deck_pool=POOL)
    agent = agents.make(str(tmp_path / "run" / "model.npz"), game, seed=1)
    assert isinstance(agent, AfterstateAgent)
    result = agents.arena.play_match(game, [agent, agents.make("max-attack", game)], 8, seed=2)
    assert result.agents[0].record.games == 8


def test_lambda_returns_follow_each_player_s_afterstates_to_the_final_return():
    # one game, players 0 1 0 1 0: player 0's afterstates are rows 0, 2, 4; player 1's rows 1, 3
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], dtype=np.float32)
    finals = np.array([1, -1, 1, -1, 1], dtype=np.float32)
    nxt = next_decisions(np.zeros(5, dtype=np.int64), np.array([0, 1, 0, 1, 0]))
    np.testing.assert_allclose(trainer.lambda_returns(values, finals, nxt, 1.0), finals)
    np.testing.assert_allclose(trainer.lambda_returns(values, finals, nxt, 0.0), [0.3, 0.4, 0.5, -1, 1])
    half = trainer.lambda_returns(values, finals, nxt, 0.5)
    np.testing.assert_allclose(half, [0.5 * 0.3 + 0.5 * (0.5 * 0.5 + 0.5), 0.5 * 0.4 - 0.5, 0.5 * 0.5 + 0.5, -1, 1])
