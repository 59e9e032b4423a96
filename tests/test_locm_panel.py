"""The shipped LOCM battlers: each copy loads as an afterstate agent (an action scorer) and plays legal
actions to the end of its games on the batch engine, and the named panel `locm_panel`
(`locm_scorer_panel`, `locm_robust_scorer_panel`, `locm_league_scorer_panel`,
`locm_league3_scorer_panel`) is the three copies;
each copy was trained by its recipe from its seed (and its start model or teacher), and each shipped
best response is the one its panel's exploitability command trains."""

from __future__ import annotations

import tomllib

import pytest

import agents
import games
from agents.action_scores import ActionScoreAgent
from agents.afterstate import AfterstateAgent
from agents.learned import read_npz
from agents.panel import NAMED_PANELS, AgentPanel, trust_figures
from games.errors import UserError
from tests.test_afterstate import POOL, plays_legal_actions_to_the_end

COPIES = [f"agents/pretrained/locm_{k}.npz" for k in range(3)]
SCORERS = [f"agents/pretrained/locm_scorer_{k}.npz" for k in range(3)]
ROBUST = [f"agents/pretrained/locm_robust_{k}.npz" for k in range(3)]
ROBUST_SCORERS = [f"agents/pretrained/locm_robust_scorer_{k}.npz" for k in range(3)]
LEAGUE = [f"agents/pretrained/locm_league_{k}.npz" for k in range(3)]
LEAGUE_SCORERS = [f"agents/pretrained/locm_league_scorer_{k}.npz" for k in range(3)]
LEAGUE3 = [f"agents/pretrained/locm_league3_{k}.npz" for k in range(3)]
LEAGUE3_SCORERS = [f"agents/pretrained/locm_league3_scorer_{k}.npz" for k in range(3)]
BEST_RESPONSE = "agents/pretrained/locm_scorer_panel_best_response.npz"
ROBUST_BEST_RESPONSE = "agents/pretrained/locm_robust_scorer_panel_best_response.npz"
LEAGUE_BEST_RESPONSE = "agents/pretrained/locm_league_scorer_panel_best_response.npz"
LEAGUE3_BEST_RESPONSE = "agents/pretrained/locm_league3_scorer_panel_best_response.npz"


def recipe_settings(path: str) -> dict:
    """The settings of a shipped recipe, its deck pool (`game_config`) aside."""
    with open(path, "rb") as f:
        return {key: value for key, value in tomllib.load(f).items() if key != "game_config"}


SHIPPED = COPIES + SCORERS + ROBUST + ROBUST_SCORERS + LEAGUE + LEAGUE_SCORERS + LEAGUE3 + LEAGUE3_SCORERS


@pytest.mark.parametrize("spec", SHIPPED)
def test_a_shipped_copy_plays_legal_actions_to_the_end(spec):
    game = games.make("locm", deck_pool=POOL)
    agent = agents.make(spec, game, seed=1)
    assert isinstance(agent, ActionScoreAgent if "scorer" in spec else AfterstateAgent)
    plays_legal_actions_to_the_end(agent, game, 2, 8)


@pytest.mark.parametrize(
    "name, scorers, teachers",
    [
        ("locm_scorer_panel", SCORERS, COPIES),
        ("locm_robust_scorer_panel", ROBUST_SCORERS, ROBUST),
        ("locm_league_scorer_panel", LEAGUE_SCORERS, LEAGUE),
        ("locm_league3_scorer_panel", LEAGUE3_SCORERS, LEAGUE3),
    ],
)
def test_a_scorer_panel_is_the_three_scorers_each_distilled_from_its_afterstate_copy(name, scorers, teachers):
    assert agents.PANELS[name] == tuple(scorers)
    game = games.make("locm", deck_pool=POOL)
    panel = agents.make_panel(name, game, seed=3)
    assert all(isinstance(a, ActionScoreAgent) for a in panel.agents)
    assert [a.metadata["teacher"] for a in panel.agents] == teachers
    result = agents.arena.play_match(game, [panel, agents.make("greedy", game)], 6, seed=4)
    assert result.agents[0].record.games == 6


def test_the_locm_panel_is_the_three_copies():
    assert agents.PANELS["locm_panel"] == tuple(COPIES)
    assert NAMED_PANELS["locm_panel"]["game"] == "locm"
    game = games.make("locm", deck_pool=POOL)
    panel = agents.make_panel("locm_panel", game, seed=3)
    assert isinstance(panel, AgentPanel) and panel.specs == tuple(COPIES) and panel.spec == "locm_panel"
    assert all(isinstance(a, AfterstateAgent) for a in panel.agents)
    assert len({a.network.weights[0].tobytes() for a in panel.agents}) == 3  # three networks, not one thrice
    result = agents.arena.play_match(game, [panel, agents.make("greedy", game)], 6, seed=4)
    assert result.agents[0].record.games == 6
    trust = trust_figures("locm_panel")  # measured on docs/results/locm-battlers.md (tests/test_panel_trust.py)
    exploitability = trust["exploitability"]
    assert trust["game"] == "locm" and exploitability["ci95"][0] <= exploitability["score"] <= exploitability["ci95"][1]
    with pytest.raises(UserError, match="'locm_panel' is the locm"):
        agents.make_panel("locm_panel", games.make("gwent_lite"), seed=0)


@pytest.mark.parametrize("k", range(3))
@pytest.mark.parametrize(
    "recipe, scorers, teachers",
    [
        ("locm_scorer.toml", SCORERS, COPIES),
        ("locm_scorer_robust.toml", ROBUST_SCORERS, ROBUST),
        ("locm_scorer_league.toml", LEAGUE_SCORERS, LEAGUE),
        ("locm_scorer_league3.toml", LEAGUE3_SCORERS, LEAGUE3),
    ],
)
def test_each_shipped_scorer_was_trained_by_the_recipe_from_its_teacher_and_seed(k, recipe, scorers, teachers):
    settings = recipe_settings(f"agents/pretrained/{recipe}")
    _, metadata = read_npz(scorers[k])
    trained = metadata["distillation_config"]
    assert {key: trained[key] for key in settings} == settings
    assert trained["seed"] == k and trained["teacher"] == teachers[k]
    assert metadata["action_scores"] and metadata["episodes"] >= settings["episodes"]


@pytest.mark.parametrize("k", range(3))
@pytest.mark.parametrize(
    "recipe, copies, starts, best_responses",
    [
        ("locm_afterstate_robust.toml", ROBUST, COPIES, [BEST_RESPONSE]),
        ("locm_afterstate_league.toml", LEAGUE, ROBUST, [BEST_RESPONSE, ROBUST_BEST_RESPONSE]),
        (
            "locm_afterstate_league3.toml",
            LEAGUE3,
            LEAGUE,
            [BEST_RESPONSE, ROBUST_BEST_RESPONSE, LEAGUE_BEST_RESPONSE],
        ),
    ],
)
def test_each_copy_trained_on_was_trained_by_its_recipe_from_its_start_against_the_best_responses(
    k, recipe, copies, starts, best_responses
):
    settings = recipe_settings(f"agents/pretrained/{recipe}")
    _, metadata = read_npz(copies[k])
    trained = metadata["afterstate_config"]
    assert {key: trained[key] for key in settings} == settings
    assert trained["seed"] == k and trained["init_model"] == starts[k]
    assert set(best_responses) <= set(settings["opponent_mix"]) and metadata["episodes"] >= settings["episodes"]


@pytest.mark.parametrize(
    "best_response, panel, start, seed",
    [
        (ROBUST_BEST_RESPONSE, "locm_robust_scorer_panel", ROBUST[0], 0),
        (LEAGUE_BEST_RESPONSE, "locm_league_scorer_panel", LEAGUE[0], 1),
        (LEAGUE3_BEST_RESPONSE, "locm_league3_scorer_panel", LEAGUE3[0], 1),
    ],
)
def test_a_shipped_best_response_is_the_one_its_panels_exploitability_command_trains(best_response, panel, start, seed):
    _, metadata = read_npz(best_response)
    trained = metadata["afterstate_config"]
    assert set(trained["opponent_mix"]) == set(agents.PANELS[panel]) and trained["init_model"] == start
    assert trained["seed"] == seed and metadata["episodes"] == 306000
    command = NAMED_PANELS[panel]["exploitability"]["commands"][-1]
    assert f"--seed {seed}" in command if seed else "--seed" not in command
