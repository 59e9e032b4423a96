"""The turn search (agents/turn_search.py): its choice is the best-valued end of turn, checked state by
state against clones played on by hand; it searches a determinisation, so states that differ only in
what the mover cannot see get the same choice; `turn:MODEL` makes it, also as a LOCM battler."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import games
from agents.afterstate import AfterstateAgent
from agents.draft_battle import DraftThenBattle
from agents.turn_search import TurnSearchAgent
from games.batch import batch_of
from games.errors import UserError
from tests.test_afterstate import POOL, battle_states, random_value_network

ROOT_MODEL = "agents/pretrained/locm_league3_0.npz"


def end_of_turn_value(network, policy, state, action: int) -> float:
    """The value for the mover of the state where its turn ends after `action`, the rest of the turn
    played by `policy` one clone at a time (no batch engine)."""
    p = state.current_player
    s = state.clone()
    s.apply_action(action)
    while not s.is_terminal() and s.current_player == p:
        s.apply_action(int(policy.act([s])[0]))
    if s.is_terminal():
        return float(s.returns()[p])
    features = np.append(s.observation(p), 0.0).astype(np.float32)
    return float(network(features[None])[0, 0])


def test_the_search_takes_the_action_whose_turn_ends_best_for_the_mover():
    game = games.make("locm", deck_pool=POOL)
    network = random_value_network(game, 3)
    value = AfterstateAgent(game, network)
    search = TurnSearchAgent(game, value)
    states, checked, differ = battle_states(game, 4, 5), 0, 0
    while states and checked < 40:
        chosen = search.search(batch_of(states), np.arange(len(states)))
        for s, a in zip(states, chosen):
            legal = s.legal_actions()
            assert int(a) in legal
            values = [end_of_turn_value(network, value, s, b) for b in legal]
            assert values[legal.index(a)] >= max(values) - 1e-5  # the best, to float32 rounding across batches
            differ += int(a) != int(value.act([s])[0])
            s.apply_action(int(a))
            checked += 1
        states = [s for s in states if not s.is_terminal()]
    assert checked >= 40
    assert differ > 0  # looking to the turn's end changes some choices of the afterstate battler


def test_the_search_plays_on_a_state_the_same_to_the_mover_with_the_opponents_hidden_cards_redrawn(monkeypatch):
    game = games.make("locm", deck_pool=POOL)
    search = TurnSearchAgent(game, AfterstateAgent(game, random_value_network(game, 4)), rng=np.random.default_rng(8))
    searched = []
    inner = search.search
    monkeypatch.setattr(search, "search", lambda batch, games_: searched.append(batch) or inner(batch, games_))
    rng, redrawn = np.random.default_rng(6), 0
    for state in battle_states(game, 6, 7):
        for _ in range(int(rng.integers(2, 12))):  # some way into the battle
            if not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        p = state.current_player
        assert search.act([state])[0] in state.legal_actions()
        batch = searched[-1]
        mine, theirs = (batch.observations(np.array([0]), np.array([q]))[0] for q in (p, 1 - p))
        np.testing.assert_array_equal(mine, state.observation(p))
        redrawn += not np.array_equal(theirs, state.observation(1 - p))
    assert redrawn > 0


def test_turn_spec_makes_a_search_over_an_afterstate_network_and_refuses_other_models():
    game = games.make("locm")
    agent = agents.make(f"turn:{ROOT_MODEL}", game)
    assert isinstance(agent, TurnSearchAgent)
    both = agents.make(f"coac+turn:{ROOT_MODEL}", game)
    assert isinstance(both, DraftThenBattle) and isinstance(both.battler, TurnSearchAgent)
    with pytest.raises(UserError, match="is not an afterstate value network"):
        agents.make("turn:agents/pretrained/locm_league3_scorer_0.npz", game)
