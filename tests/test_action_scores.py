"""Action scores: LOCM's action features describe the card played, the creature attacking and its
target wherever they sit; the split first-layer product equals the MLP on [observation, features];
the agent takes the legal action the network scores highest and plays legal actions to the end; the
distillation learner resumes exactly, repeats itself for a seed, labels its decisions with the
teacher's choices, and its model plays through agents.make."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents.action_scores import ActionScoreAgent, action_feature_size, action_features, action_scores
from agents.afterstate import AfterstateAgent
from agents.base import RandomAgent
from agents.best_response import best_response_start
from agents.distillation import trainer
from agents.distillation.config import DistillationConfig
from agents.learned import NumpyNetwork
from agents.scored_choice import best_actions
from games import UserError
from games.batch import batch_of
from games.config import config_from_dict
from games.conformance import ConformanceFailure, check_interface
from games.locm import _CARD_FEATURES, ATTACK, CARD_FEATURES, CREATURE_FEATURES, PICK, SUMMON, USE
from games.locm_batch import LocmBatch
from tests.test_afterstate import POOL, plays_legal_actions_to_the_end, resumes_exactly_and_repeats_itself
from tests.test_afterstate import TINY as AFTERSTATE_TINY

TEACHER = "agents/pretrained/locm_0.npz"
TINY = {**AFTERSTATE_TINY, "teacher": TEACHER}


def tiny(**settings) -> DistillationConfig:
    return config_from_dict(DistillationConfig, {**TINY, **settings})


def random_scorer(game, seed: int) -> NumpyNetwork:
    rng = np.random.default_rng(seed)
    n = game.observation_size + action_feature_size(game)
    weights = [rng.normal(size=(n, 12)).astype(np.float32), rng.normal(size=12).astype(np.float32)]
    weights += [rng.normal(size=(12, 1)).astype(np.float32), np.zeros(1, np.float32)]
    return NumpyNetwork(weights, ["relu", "linear"])


def played_states(game, count: int, seed: int) -> list:
    """Every state met in `count` games of random play, drafts and battles."""
    rng = np.random.default_rng(seed)
    player, out = RandomAgent(rng), []
    for _ in range(count):
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            out.append(state.clone())
            state.apply_action(int(player.act([state])[0]))
    return out


def features_by_hand(state, action: int) -> list[float]:
    """The features of `action`, read from the state itself (its hand, offers and board)."""
    p = state.current_player
    obs = state.observation(p)
    creature_at = 17 + 3 * CARD_FEATURES + 17 + 8 * CARD_FEATURES

    def creature(side: int, lane: int, place: int) -> list[float]:
        at = creature_at + ((2 * side + lane) * 3 + place) * CREATURE_FEATURES
        return obs[at : at + CREATURE_FEATURES].tolist()

    def hand_card(h: int) -> list[float]:
        return list(_CARD_FEATURES[state._card_of[state._hands[p][h]]])

    kind, lane, card = [0.0] * 5, [0.0, 0.0], [0.0] * CARD_FEATURES
    attacker, target, targeted = [0.0] * CREATURE_FEATURES, [0.0] * 4, [0.0] * CREATURE_FEATURES
    if action >= PICK:
        kind[4], card = 1.0, list(_CARD_FEATURES[state._offers[len(state._picks[1])][action - PICK]])
    elif action >= ATTACK:
        c, t = divmod(action - ATTACK, 4)
        kind[3], attacker = 1.0, creature(0, c // 3, c % 3)
        if t == 0:
            target[3] = 1.0
        else:
            target[2], targeted = 1.0, creature(1, c // 3, t - 1)
    elif action >= USE:
        h, t = divmod(action - USE, 13)
        kind[2], card = 1.0, hand_card(h)
        if t == 0:
            target[0] = 1.0
        else:
            side = int(t > 6)
            target[1 + side], targeted = 1.0, creature(side, ((t - 1) % 6) // 3, (t - 1) % 3)
    elif action >= SUMMON:
        h, side = divmod(action - SUMMON, 2)
        kind[1], card, lane[side] = 1.0, hand_card(h), 1.0
    else:
        kind[0] = 1.0
    return kind + lane + card + attacker + target + targeted


def test_each_legal_action_is_described_by_the_card_it_plays_and_the_creatures_it_involves():
    game = games.make("locm")  # drafts its decks: picks are met too
    kinds = set()
    for state in played_states(game, 3, 1):
        obs = state.observation(state.current_player)[None]
        legal = np.array(state.legal_actions())
        features = action_features(game, obs, np.zeros(len(legal), np.int64), legal)
        for a, row in zip(legal, features):
            np.testing.assert_array_equal(row, np.array(features_by_hand(state, int(a)), np.float32))
            kinds.add(int(np.argmax(row[:5])))
            if ATTACK <= a < PICK:
                assert row[7 + CARD_FEATURES] == 1.0  # a legal attacker is on the board
    assert kinds == {0, 1, 2, 3, 4}  # pass, summon, use, attack and pick were all met


def test_a_gwent_abilities_action_is_described_by_its_card_s_counts_and_identity():
    game = games.make("gwent_abilities")
    scale = 1 / (2 * game.config.rules.copy_limit)
    pending = set()
    for state in played_states(game, 3, 2):
        p = state.current_player
        obs = state.observation(p)[None]
        legal = np.array(state.legal_actions())
        features = action_features(game, obs, np.zeros(len(legal), np.int64), legal)
        pending.add(int(obs[0, -2] > 0) + 2 * int(obs[0, -1] > 0))
        for a, row in zip(legal.tolist(), features):
            identity = np.zeros(game.num_actions, np.float32)
            identity[a] = 1.0
            np.testing.assert_array_equal(row[8:], identity)
            if a == 0:
                assert not row[:8].any()
            else:  # the card's count in the mover's hand, board and discard pile, as the state holds them
                k = a - 1
                hand, board, discard = state._hands[p][k], state._boards[p][k], state._discards[p][k]
                np.testing.assert_allclose(row[[0, 2, 3]], np.minimum(np.array([hand, board, discard]) * scale, 1.0))
    assert pending >= {0, 1}  # plays and a medic's revivals were both described


def test_the_split_first_layer_scores_as_the_mlp_on_observation_and_features():
    game = games.make("locm", deck_pool=POOL)
    network = random_scorer(game, 2)
    states = played_states(game, 1, 3)[::7]
    obs = np.stack([s.observation(s.current_player) for s in states])
    rows = np.concatenate([np.full(len(s.legal_actions()), i) for i, s in enumerate(states)])
    actions = np.concatenate([s.legal_actions() for s in states])
    whole = network(np.concatenate([obs[rows], action_features(game, obs, rows, actions)], axis=1))[:, 0]
    np.testing.assert_allclose(action_scores(network, game, obs, rows, actions), whole, rtol=1e-5, atol=1e-5)


def test_the_agent_takes_the_legal_action_scored_highest():
    game = games.make("locm", deck_pool=POOL)
    network = random_scorer(game, 4)
    agent = ActionScoreAgent(game, network)
    states = played_states(game, 2, 5)[::3]
    chosen = agent.act(states)
    choices = 0
    for state, a in zip(states, chosen):
        legal = np.array(state.legal_actions())
        obs = state.observation(state.current_player)[None]
        inputs = np.concatenate(
            [np.repeat(obs, len(legal), 0), action_features(game, obs, np.zeros(len(legal), np.int64), legal)], 1
        )
        scores = network(inputs)[:, 0]
        assert scores[list(legal).index(a)] >= scores.max() - 1e-5  # the best, to float32 rounding across batches
        choices += len(legal) > 1
    assert choices > 50


def test_scorers_asked_together_choose_as_each_alone():
    game = games.make("locm", deck_pool=POOL)
    # the fourth has the third's weights in a network of its own: the two score their games together
    scorers = [ActionScoreAgent(game, random_scorer(game, 10 + k)) for k in (0, 1, 2, 2)]
    assert scorers[2].network is not scorers[3].network and scorers[2].network.key == scorers[3].network.key
    assert len({s.network.key for s in scorers}) == 3
    batch = LocmBatch.deal(game, np.random.default_rng(11), 30)
    for _ in range(40):  # into the battle: states with choices
        live = np.flatnonzero(batch.current_players() >= 0)
        parts = [live[k::4] for k in range(4)]
        together = ActionScoreAgent.act_together(scorers, batch, parts)
        for agent, part, chosen in zip(scorers, parts, together, strict=True):
            np.testing.assert_array_equal(chosen, agent.act_batch(batch, part))
        batch.apply_actions(np.concatenate(parts), np.concatenate(together))


def test_a_network_keeps_read_only_copies_of_its_weights_and_its_key_follows_them():
    game = games.make("locm", deck_pool=POOL)
    weights = [w.copy() for w in random_scorer(game, 3).weights]
    network = NumpyNetwork(weights, ["relu", "linear"])
    weights[0][0, 0] += 1.0  # the caller's arrays are not the network's
    assert network.kernels[0][0, 0] == weights[0][0, 0] - 1.0
    with pytest.raises(ValueError, match="read-only"):
        network.kernels[0][0, 0] = 0.0
    assert NumpyNetwork(weights, ["relu", "linear"]).key != network.key
    assert NumpyNetwork(weights, ["tanh", "linear"]).key != NumpyNetwork(weights, ["relu", "linear"]).key


def test_the_agent_plays_legal_actions_to_the_end_on_the_batch_engine_with_exploration():
    game = games.make("locm", deck_pool=POOL)
    agent = ActionScoreAgent(game, random_scorer(game, 6), epsilon=0.3, rng=np.random.default_rng(7))
    plays_legal_actions_to_the_end(agent, game, 8, 16)


def test_a_network_of_the_wrong_shape_and_a_game_without_action_features_are_refused():
    game = games.make("locm", deck_pool=POOL)
    wrong = NumpyNetwork([np.zeros((game.observation_size, 1), np.float32), np.zeros(1, np.float32)], ["linear"])
    with pytest.raises(UserError, match="takes"):
        ActionScoreAgent(game, wrong)
    with pytest.raises(UserError, match="declares no action features"):
        action_feature_size(games.make("tic_tac_toe"))


def test_the_labels_are_the_teacher_s_softmax_and_the_teacher_plays_as_its_afterstate_agent():
    game = games.make("locm", deck_pool=POOL)
    teacher = agents.make(TEACHER, game)
    labelling = trainer.Labelling(None, teacher.network, 0.02)
    states = played_states(game, 1, 9)[::5]
    batch = batch_of(states)
    np.testing.assert_array_equal(
        labelling.act_batch(batch, np.arange(len(states))), AfterstateAgent(game, teacher.network).act(states)
    )
    observations, actions, targets, counts = labelling.data()
    assert len(observations) == len(counts) == sum(len(s.legal_actions()) > 1 for s in states)
    rows = np.repeat(np.arange(len(counts)), counts)
    np.testing.assert_allclose(np.bincount(rows, targets), 1.0, rtol=1e-5)
    assert (targets > 0).all()


@pytest.mark.cross_cpu
def test_a_resumed_run_equals_an_uninterrupted_one_and_a_seed_repeats_itself(tmp_path):
    config = tiny(seed=3, teacher_episodes=8, opponent_mix={"max-attack": 0.25})
    resumes_exactly_and_repeats_itself(trainer.train, config, tmp_path, episodes=24)


def test_the_model_plays_through_agents_make_and_a_teacher_must_be_an_afterstate_model(tmp_path):
    trainer.train("locm", tiny(), tmp_path / "run", episodes=16)
    game = games.make("locm", deck_pool=POOL)
    agent = agents.make(str(tmp_path / "run" / "model.npz"), game, seed=1)
    assert isinstance(agent, ActionScoreAgent)
    result = agents.arena.play_match(game, [agent, agents.make("max-attack", game)], 8, seed=2)
    assert result.agents[0].record.games == 8
    model = str(tmp_path / "run" / "model.npz")  # a best response starts from the teacher, as an afterstate learner
    assert best_response_start(f"{model},{model}", None, game) == (TEACHER, "afterstate")
    assert best_response_start(model, "", game) == ("", "dqn")
    with pytest.raises(UserError, match="not an afterstate model"):
        trainer.train("locm", tiny(teacher=str(tmp_path / "run" / "model.npz")), tmp_path / "again", episodes=8)
    with pytest.raises(UserError, match="needs a teacher"):
        trainer.train("locm", tiny(teacher=""), tmp_path / "none", episodes=8)


def test_the_conformance_check_refuses_an_action_feature_table_of_the_wrong_shape_or_range():
    game = games.make("locm", deck_pool=POOL)
    assert check_interface(game, 1)
    for broken in (game.action_feature_index[:-1], game.action_feature_index + game.observation_size):
        game.action_feature_index = broken  # on the instance: the class's table is untouched
        with pytest.raises(ConformanceFailure, match="action_feature_index"):
            check_interface(game, 1)


def test_best_actions_takes_each_game_s_highest_value_and_its_lowest_action_on_ties_in_any_order():
    rows = np.array([0, 0, 0, 2, 2, 3])
    actions = np.array([1, 4, 7, 0, 5, 9])
    values = np.array([0.5, 0.9, 0.9, -1.0, -2.0, 0.0])
    expected = [4, 0, 0, 9]  # game 1 has no rows
    np.testing.assert_array_equal(best_actions(rows, actions, values, 4), expected)
    shuffled = np.random.default_rng(0).permutation(len(rows))
    np.testing.assert_array_equal(best_actions(rows[shuffled], actions[shuffled], values[shuffled], 4), expected)
    rng = np.random.default_rng(1)
    for _ in range(20):
        masks = rng.random((30, 12)) < 0.4
        r, a = np.nonzero(masks)
        v = rng.integers(0, 3, size=len(r)).astype(float)  # many ties
        slow = [a[r == g][np.argmax(v[r == g])] if (r == g).any() else 0 for g in range(30)]
        np.testing.assert_array_equal(best_actions(r, a, v, 30), slow)
