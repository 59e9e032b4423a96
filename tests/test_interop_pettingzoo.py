"""Every registered game as a PettingZoo AEC environment: PettingZoo's own api_test and seed_test, and
full games through the environment ending with the engine's returns for the same actions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the interop extra is not installed (pip install 'deckopt[interop]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import games  # noqa: E402
from games.interop.pettingzoo_env import env  # noqa: E402

# every registered game in its default config, plus the configs that change the agents or spaces
CONFIGS = [(name, {}) for name in games.GAME_NAMES] + [
    ("incan_gold", {"num_players": 8, "num_rounds": 2}),
    ("durak", {"num_players": 4}),
    ("gwent_lite", {"rules": {"min_cards": 6, "max_total": 30, "min_power": 2}, "hand_size": 4}),
    ("exploding_kittens", {"deck": {"skip": 2, "defuse": 0, "attack": 1}}),
]
# api_test's advice on observation spaces in general (a Dict observation with a mask is the convention
# PettingZoo's own classic games use)
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")
IDS = [name + ("-" + "-".join(config) if config else "") for name, config in CONFIGS]


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_pettingzoo_api_and_seed(name, config):
    api_test(env(name, render_mode="ansi", **config), num_cycles=300)
    seed_test(lambda: env(name, **config), num_cycles=300)


def play_through(e, seed: int):
    """A random game through the environment: (actions, each agent's summed reward, render texts)."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    actions, total, texts = [], dict.fromkeys(e.possible_agents, 0.0), []
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        total[agent] += reward
        assert not truncation
        if termination:
            e.step(None)
            continue
        texts.append(e.render())
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        e.step(action)
    return actions, total, texts


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_a_game_through_the_env_is_the_engines_game(name, config):
    e = env(name, render_mode="ansi", **config)
    actions, total, texts = play_through(e, seed=3)
    assert e.agents == []  # every agent was stepped out after the end
    assert all(isinstance(t, str) and t for t in texts)
    # the same first game of seed 3, replayed on the engine itself
    game = games.make(name, **config)
    state = game.new_initial_state(np.random.default_rng(int(np.random.default_rng(3).integers(2**63))))
    for a in actions:
        state.apply_action(a)
    assert state.is_terminal()
    assert [total[f"player_{p}"] for p in range(game.num_players)] == state.returns().tolist()


def test_observations_hide_the_mask_of_agents_not_to_move_and_render_hides_hands():
    e = env("exploding_kittens", render_mode="ansi")
    e.reset(seed=1)
    mover = e.agent_selection
    other = next(a for a in e.agents if a != mover)
    assert e.observe(mover)["action_mask"].any() and not e.observe(other)["action_mask"].any()
    # the render is the mover's view, as `deckopt play` shows it: not the whole position
    assert e.render() == e.state.view(0) != str(e.state)


def test_reset_without_seed_continues_the_stream_and_a_seed_replays_it():
    e = env("durak")
    e.reset(seed=5)
    first = e.observe("player_0")["observation"]
    e.reset()
    second = e.observe("player_0")["observation"]
    e.reset(seed=5)
    assert np.array_equal(e.observe("player_0")["observation"], first)
    assert not np.array_equal(first, second)


def test_bad_render_mode_is_refused():
    with pytest.raises(games.UserError, match="render_mode"):
        env("tic_tac_toe", render_mode="human")
