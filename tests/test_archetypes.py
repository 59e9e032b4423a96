"""An archive run's archetypes (evolution.archive.archetypes, `deckopt decks RUN --archetypes K`): tiny
runs of both Gwent games with the heuristic agent."""

from __future__ import annotations

import json
import shutil
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from deckopt.cli import main
from evolution.archive.archetypes import choose_archetypes, normalised
from evolution.runfolder import Run
from evolution.spaces.registry import space_for
from games.errors import UserError

TINY = [
    "--archive", "--generations", "2", "--pool", "6", "--games-per-pair", "2", "--yardstick-games", "2",
    "--playoff-games-per-pair", "2", "--validation-games", "2", "--jobs", "1",
]  # fmt: skip


def evolved(tmp_path_factory, *flags) -> Path:
    run = tmp_path_factory.mktemp("archetypes") / "run"
    assert main(["evolve", *flags, *TINY, "--out", str(run)]) == 0
    return run


@pytest.fixture(scope="module")
def abilities_run(tmp_path_factory) -> Path:
    return evolved(tmp_path_factory, "--game", "gwent_abilities")


@pytest.fixture(scope="module")
def lite_run(tmp_path_factory) -> Path:
    return evolved(tmp_path_factory, "--agent", "heuristic")


def archetypes(run: Path, capsys, *flags) -> dict:
    capsys.readouterr()
    assert main(["decks", str(run), "--archetypes", "3", "--games", "2", "--json", *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    assert json.loads((run / "archetypes.json").read_text()) == out
    return out


def elite(score: float, x: float, y: float) -> dict:
    return {"score": score, "x": x, "y": y, "cards": [round(score * 100)]}


def test_archetypes_are_the_best_elites_at_least_the_distance_apart():
    names, ranges = ("x", "y"), [(0.0, 1.0), (10.0, 20.0)]
    entries = [elite(0.9, 0.1, 11.0), elite(0.8, 0.2, 12.0), elite(0.7, 0.9, 19.0), elite(0.6, 0.5, 15.0)]
    chosen = choose_archetypes(entries, names, ranges, 3, 0.25)
    # 0.8 is 0.14 from 0.9 once y is scaled (0.1, 0.1): skipped; 0.6 is 0.57 from both taken
    assert [e["score"] for e in chosen] == [0.9, 0.7, 0.6]
    assert normalised(entries[2], names, ranges).tolist() == pytest.approx([0.9, 0.9])
    assert [e["score"] for e in choose_archetypes(entries, names, ranges, 2, 0.25)] == [0.9, 0.7]
    assert [e["score"] for e in choose_archetypes(entries, names, ranges, 9, 0.0)] == [0.9, 0.8, 0.7, 0.6]
    assert [e["score"] for e in choose_archetypes(entries, names, ranges, 3, 2.0)] == [0.9]
    with pytest.raises(UserError, match="--archetypes takes a number of archetypes >= 1"):
        choose_archetypes(entries, names, ranges, 0, 0.25)


@pytest.mark.parametrize("which", ["abilities_run", "lite_run"])
def test_archetypes_against_the_yardstick_and_each_other(which, request, capsys):
    run = request.getfixturevalue(which)
    space = space_for(Run(run).config)
    names, ranges = space.descriptor_space()
    yardstick_decks = len(space.references(Run(run).config.settings.yardstick))
    elites = json.loads((run / "archive.json").read_text())["entries"]
    for distance in (0.25, 0.1):
        out = archetypes(run, capsys, "--archetype-distance", str(distance), "--screen-games", "0")
        chosen = out["archetypes"]
        assert 1 <= len(chosen) <= 3 and out["yardstick"] and len(out["yardstick"]) == yardstick_decks
        assert chosen[0]["archive_score"] == max(e["score"] for e in elites)  # the best elite comes first
        points = [normalised(e, names, ranges) for e in chosen]
        assert all(np.linalg.norm(a - b) >= distance for a, b in combinations(points, 2))
        for e in chosen:
            y = e["yardstick"]
            assert y["games"] == yardstick_decks * 2 and y["ci95"][0] <= y["score"] <= y["ci95"][1]
            assert e["above_half"] == (y["ci95"][0] > 0.5) and space.problems(e["cards"]) == []
        score = out["matchups"]["score"]
        assert len(score) == len(chosen) and all(score[i][i] is None for i in range(len(chosen)))
        for i, j in combinations(range(len(chosen)), 2):
            assert score[i][j] + score[j][i] == 1.0
    assert len(chosen) >= 2  # the tiny archive has elites 0.1 apart: a matchup was played
    # screened: every elite plays the yardstick first; the archetypes come best first by that screening
    screened = archetypes(run, capsys, "--archetype-distance", "0", "--screen-games", "4")
    chosen = screened["archetypes"]
    assert screened["screen_games"] == 4 and len(chosen) == min(3, len(elites))
    assert all(e["screen"]["games"] == yardstick_decks * 4 for e in chosen)
    assert [e["screen"]["score"] for e in chosen] == sorted((e["screen"]["score"] for e in chosen), reverse=True)


def test_archetypes_table_and_fresh_seeds(abilities_run, capsys):
    assert main(["decks", str(abilities_run), "--archetypes", "2", "--games", "2"]) == 0
    text = capsys.readouterr().out
    assert "advantage_share  synergy_share  archive  yardstick [95% CI]" in text
    assert "matchups: the row deck's score against the column deck, 2 games per pair" in text
    assert f"wrote {abilities_run / 'archetypes.json'}" in text
    first = archetypes(abilities_run, capsys)
    assert archetypes(abilities_run, capsys) == first  # the same seed plays the same games
    other = archetypes(abilities_run, capsys, "--seed", "5", "--games", "20")
    assert other["seed"] == 5 and other["archetypes"][0]["yardstick"]["games"] == 10 * 20


def test_archetypes_refused_in_one_line(lite_run, tmp_path, capsys):
    capsys.readouterr()
    assert main(["decks", str(lite_run), "--archetypes", "0"]) != 0
    assert "--archetypes takes a number of archetypes >= 1, got 0" in capsys.readouterr().err
    assert main(["decks", str(lite_run), "--archetypes", "2", "--games", "3"]) != 0
    assert "--games must be even" in capsys.readouterr().err
    assert main(["decks", str(lite_run), "--archetypes", "2", "--screen-games", "3"]) != 0
    assert "--screen-games takes an even number of games >= 0, got 3" in capsys.readouterr().err
    plain = tmp_path / "plain"
    shutil.copytree(lite_run, plain)
    (plain / "archive.json").unlink()
    assert main(["decks", str(plain), "--archetypes", "2"]) != 0
    assert "has no archive (evolve it with --archive)" in capsys.readouterr().err
    bare = tmp_path / "bare"
    shutil.copytree(lite_run, bare)
    (bare / "archetypes.json").unlink(missing_ok=True)
    config = json.loads((bare / "config.json").read_text())
    config["gwent"]["yardstick"] = []
    (bare / "config.json").write_text(json.dumps(config))
    assert main(["decks", str(bare), "--archetypes", "2"]) != 0
    err = capsys.readouterr().err
    assert "measured against the run's yardstick, and this gwent_lite run has none" in err
    assert len(err.strip().splitlines()) == 1 and not (bare / "archetypes.json").exists()
