"""Learned LOCM battlers in the locm_drafter space (agents.locm_battlers): a model file or a named panel
battles the space's games in lock-step, legal actions to the end, a panel's member by the draw; a matchup
under the panel is the same on one worker or two; a bad battler spec ends in one line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import games
from agents.locm_battlers import battle_actions, battler_members, check_battler
from agents.parallel import Mapper
from deckopt.cli import main
from evolution.config import load_config
from evolution.decks.locm_drafter_settings import DEFAULT_BATTLER
from evolution.designer.tables import validation_table
from evolution.spaces import locm_drafter_games as ld
from evolution.spaces.registry import space_for
from games import UserError
from games.locm import BATTLE, DRAFT, ENDED, PICK
from games.locm_batch import LocmBatch

COPIES = tuple(f"agents/pretrained/locm_{k}.npz" for k in range(3))


def test_the_panel_battles_legal_actions_to_the_end_each_draw_by_its_member():
    offers, shuffles = ld.draft_chance((5, 1), 6)
    batch = LocmBatch.from_chance(games.make("locm"), offers, shuffles)
    every = np.arange(6)
    while (batch.phase == DRAFT).any():
        batch.apply_actions(every, np.full(6, PICK))
    draws = every.copy()
    steps = 0
    while (live := np.flatnonzero(batch.phase == BATTLE)).size:
        actions = battle_actions(("locm_panel",), batch, live, draws[live], None)
        assert batch.legal_masks(live)[np.arange(live.size), actions].all()
        alone = [battle_actions((COPIES[g % 3],), batch, np.array([g]), draws[[g]], None)[0] for g in live]
        assert actions.tolist() == alone  # draw d battled by member d mod 3, whatever else is in the step
        batch.apply_actions(live, actions)
        steps += 1
        assert steps < 2000
    assert (batch.phase == ENDED).all() and np.isin(batch.winner, (0, 1)).all()


@pytest.mark.parametrize("battler", ["agents/pretrained/locm_1.npz", "locm_panel"])
def test_the_space_plays_its_games_against_the_field_under_a_learned_battler(battler):
    s = space(battlers=[battler], field=["coac", "random"], games_per_opponent=4)
    tables = np.stack([s.tables([500] * 160), s.tables(list(range(160)))])
    offers, shuffles = ld.draft_chance((0, 2), 2)
    outcomes = ld.play_drafts(
        ld.Field(("coac", "random"), (battler,)), ld.DraftTask(tables, offers, shuffles, (0, 3), 2)
    )
    assert outcomes.shape == (2, 2, 2, 2) and np.isin(outcomes, (-1, 0, 1)).all()
    assert battler_members(battler) == ((battler,) if battler.endswith(".npz") else COPIES)


def test_a_matchup_under_the_panel_is_the_same_on_one_worker_or_two(capsys):
    # 240 games a pair, two pairs: work units of about 200 games, the panel loaded in each worker by its name
    argv = ["matchups", "--game", "locm_drafter", "coac", "chad", "uji2", "--games", "80", "--agent", "locm_panel"]
    tables = []
    for jobs in ("1", "2"):
        capsys.readouterr()
        assert main([*argv, "--jobs", jobs, "--json"]) == 0
        tables.append(json.loads(capsys.readouterr().out))
    assert tables[0]["agent"] == "locm_panel" and tables[0]["cells"] == tables[1]["cells"]
    assert {c["games"] for c in tables[0]["cells"]} == {80}


def space(**settings):
    return space_for(load_config(game="locm_drafter", **settings))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("rule-based", "unknown battler 'rule-based'"),
        ("nowhere.npz", "battler 'nowhere.npz': model file nowhere.npz not found"),
        ("evaluator", "battler 'evaluator' is the gwent_lite panel"),
        ("agents/pretrained/gwent_lite_evaluator_0.npz", "is a model for gwent_lite, not locm"),
    ],
)
def test_a_bad_battler_is_one_line(spec, words, tmp_path, capsys):
    with pytest.raises(UserError, match="^battlers: .*" + re.escape(words)):
        space(battlers=[spec])
    with pytest.raises(UserError, match=re.escape(words)):
        check_battler(spec)
    for argv in (
        ["matchups", "--game", "locm_drafter", "coac", "chad", "--agent", spec],
        [
            "evolve",
            "--game",
            "locm_drafter",
            "--generations",
            "1",
            "--set",
            f"battlers={spec}",
            "--out",
            str(tmp_path / "run"),
        ],
    ):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err and "Traceback" not in err, err


def test_a_drafter_validated_under_the_default_panel_shows_the_panel_s_trust_figures():
    config = load_config(game="locm_drafter", field=["coac", "random"], validation_games=2)
    s = space_for(config)
    with Mapper(1) as pmap:
        report = s.scorer(config).validate([500] * 160, pmap, seed=3)
    assert report["trust"]["panel"] == DEFAULT_BATTLER and report["trust"]["exploitability"]["score"] > 0
    assert f"trust in {DEFAULT_BATTLER}" in validation_table(report, s)
    config = load_config(game="locm_drafter", field=["coac", "random"], validation_games=2, battlers=["max-attack"])
    with Mapper(1) as pmap:
        report = space_for(config).scorer(config).validate([500] * 160, pmap, seed=3)
    assert report["trust"] is None
