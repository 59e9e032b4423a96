"""The Legends of Code and Magic 1.2 field (agents/heuristics/locm_field.py) against gym-locm 2.0.0b1's
own agents: seeded games in which gym-locm's agent chooses (scripts/locm_gym_driver.py --agent, under
the oracle environment that `make oracle` builds), each of its choices asked of ours in the same state
of our engine. A missing oracle environment fails these tests. scripts/results/locm_field_check.py
compares 10 000 states per agent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents.heuristics.locm_field import (
    BATTLERS,
    DRAFTERS,
    FIELD_AGENTS,
    agreement,
    battle_greedy_count,
    chance_agreement,
    uji2_chances,
)
from games.locm import PICK

ROOT = Path(__file__).resolve().parent.parent
ORACLE_PYTHON = ROOT / ".venv-oracle" / "bin" / "python"
DRIVER = ROOT / "scripts" / "locm_gym_driver.py"


def gym_locm_choices(agent: str, games_count: int, seed: int, random_play: bool = False) -> list[dict]:
    if not ORACLE_PYTHON.exists():
        pytest.fail(f"the LOCM oracle environment {ORACLE_PYTHON.parent.parent} is missing: `make oracle` builds it")
    command = [str(ORACLE_PYTHON), str(DRIVER), "--games", str(games_count), "--seed", str(seed), "--agent", agent]
    command += ["--random-play"] if random_play else []
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=300).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("random_play", [False, True], ids=["playing itself", "watching uniform play"])
@pytest.mark.parametrize("name", ["max-attack", "greedy", "rule-based"])
def test_battlers_choose_as_gym_locm(name, random_play):
    records = gym_locm_choices(f"battle:{name}", 6 if not random_play else 4, 600_000, random_play)
    result = agreement(records, "battle", lambda s: BATTLERS[name](s, None))
    assert result.states >= 250
    assert result.same == result.states, result.first_difference


@pytest.mark.parametrize("name", ["max-attack", "rule-based", "icebox", "closet-ai", "uji1", "coac", "chad"])
def test_drafters_pick_as_gym_locm(name):
    records = gym_locm_choices(f"draft:{name}", 5, 700_000)
    result = agreement(records, "draft", lambda s: DRAFTERS[name](s, None))
    assert result.states == 300
    assert result.same == result.states, result.first_difference


def test_uji2_draws_its_picks_with_gym_locms_chances():
    records = gym_locm_choices("draft:uji2", 20, 800_000)
    result = chance_agreement(records, uji2_chances)
    assert result.states == 1200 and result.impossible == 0
    assert abs(result.z) < 4


def test_the_comparison_tells_agents_apart():
    greedy = gym_locm_choices("battle:greedy", 6, 600_000)
    counted = agreement(greedy, "battle", lambda s: battle_greedy_count(s, None))
    assert counted.same < counted.states  # counting the creatures changes some choices
    coac = gym_locm_choices("draft:coac", 5, 700_000)
    assert agreement(coac, "draft", lambda s: DRAFTERS["chad"](s, None)).same < 250
    uji2 = gym_locm_choices("draft:uji2", 20, 800_000)
    uniform_by_place = chance_agreement(uji2, lambda s: [0.6, 0.3, 0.1])
    assert abs(uniform_by_place.z) > 4


def test_a_spec_names_a_drafter_and_a_battler():
    game = games.make("locm")
    agent = agents.make("coac+greedy", game, seed=0)
    assert (agent.drafter, agent.battler, agent.spec) == ("coac", "greedy", "coac+greedy")
    assert (agents.make("greedy", game).drafter, agents.make("chad", game).battler) == ("max-attack", "max-attack")
    assert len(FIELD_AGENTS) == len(DRAFTERS) * len(BATTLERS) + len(DRAFTERS.keys() | BATTLERS.keys())
    state = game.new_initial_state(np.random.default_rng(3))
    picks = []
    while not state.is_terminal():
        action = int(agent.act([state])[0])
        assert action in state.legal_actions()
        if action >= PICK and state.current_player == 0:
            picks.append(state.offers()[action - PICK])
        state.apply_action(action)
    assert len(picks) == 30
