"""The batch forms of the LOCM field (agents/heuristics/locm_field.py) on the vectorised engine choose
as the state forms do in every game: each deterministic drafter on every offer of many drafts, the
battlers max-attack, greedy and greedy-count in every battle state of games they play themselves."""

from __future__ import annotations

import numpy as np
import pytest

import games
from agents.arena import play_batch
from agents.heuristics.locm_field import (
    BATTLERS,
    BATTLERS_BATCH,
    DRAFTERS,
    DRAFTERS_BATCH,
    FieldAgent,
    uji2_chances,
)
from games.locm import DRAFT, PICK
from games.locm_batch import LocmBatch

GAMES = 40


def dealt(seed: int, size: int = GAMES) -> LocmBatch:
    return LocmBatch.deal(games.make("locm"), np.random.default_rng(seed), size)


def drafted(seed: int, size: int, drafter: str) -> LocmBatch:
    """`size` dealt games whose draft `drafter` played for both seats."""
    batch = dealt(seed, size)
    every = np.arange(size)
    rng = np.random.default_rng(0)
    for _ in range(60):
        batch.apply_actions(every, DRAFTERS_BATCH[drafter](batch, every, rng))
    return batch


@pytest.mark.parametrize("name", [n for n in DRAFTERS if n not in ("random", "uji2")])
def test_each_drafter_picks_on_a_batch_as_on_states(name):
    batch = dealt(1)
    every = np.arange(GAMES)
    rng = np.random.default_rng(0)
    for turn in range(60):
        ours = DRAFTERS_BATCH[name](batch, every, rng)
        expected = [DRAFTERS[name](batch.state(g), rng) for g in range(GAMES)]
        assert ours.tolist() == expected, (name, turn)
        # the draft goes on with other picks, so later turns see varied decks
        batch.apply_actions(every, PICK + (turn * 7 + every) % 3)


def test_uji2_draws_only_picks_its_chances_allow_and_in_their_proportions():
    batch = dealt(2, 2000)
    every = np.arange(2000)
    for _ in range(24):
        batch.apply_actions(every, PICK + every % 3)
    chances = np.array([uji2_chances(batch.state(g)) for g in range(2000)])
    counts = np.zeros(3)
    for seed in range(20):
        picks = DRAFTERS_BATCH["uji2"](batch, every, np.random.default_rng(seed)) - PICK
        assert (chances[every, picks] > 0).all()
        counts += np.bincount(picks, minlength=3)
    expected = chances.sum(axis=0) * 20
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected).max()


@pytest.mark.parametrize("battler", ["max-attack", "greedy", "greedy-count"])
def test_each_battler_acts_on_a_batch_as_on_states(battler):
    batch = drafted(3, 24, "icebox")
    rng = np.random.default_rng(0)
    states = 0
    live = np.arange(24)
    while len(live):
        ours = BATTLERS_BATCH[battler](batch, live, rng)
        assert ours.tolist() == [BATTLERS[battler](batch.state(int(g)), rng) for g in live]
        states += len(live)
        batch.apply_actions(live, ours)
        live = np.flatnonzero(batch.phase == 1)
    assert states > 1000


def test_greedy_and_greedy_count_differ_somewhere():
    batch = drafted(4, 64, "chad")
    rng = np.random.default_rng(0)
    differ = 0
    live = np.arange(64)
    while len(live):
        plain = BATTLERS_BATCH["greedy"](batch, live, rng)
        differ += int((plain != BATTLERS_BATCH["greedy-count"](batch, live, rng)).sum())
        batch.apply_actions(live, plain)
        live = np.flatnonzero(batch.phase == 1)
    assert differ > 0


def test_field_agents_play_the_vectorised_engine_as_they_play_states():
    game = games.make("locm")
    states = [game.new_initial_state(np.random.default_rng(seed)) for seed in range(16)]
    agents = [
        FieldAgent(game, np.random.default_rng(0), "coac", "greedy"),
        FieldAgent(game, None, "chad", "rule-based"),
    ]
    batch = LocmBatch.from_states(states)
    play_batch(batch, [[0, 1]] * 16, agents)
    for g, state in enumerate(states):
        while not state.is_terminal():
            state.apply_action(agents[state.current_player].choose(state))
        assert np.array_equal(batch.state(g).returns(), state.returns())
        assert batch.state(g).picks(0) == state.picks(0) and batch.phase[g] != DRAFT
