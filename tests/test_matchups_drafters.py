"""`deckopt matchups --game locm_drafter`: drafters (drafter files, the field's drafters by name, the
champion and best drafters of a locm_drafter run) play each other on fresh seeded drafts, both seats,
under a named battler: a round robin's cells and their transposes add up to 1, a file of a field
drafter's own scores breaks even with it on every draft, the table is the same on one worker or two,
the ranking describes each drafter, a run's battler is the default, and bad inputs end in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.heuristics.locm_drafter_file import write_drafter
from agents.heuristics.locm_field import CLOSET_AI_SCORE
from deckopt.cli import main
from evolution.config import load_config
from evolution.decks.locm_drafter_settings import DRAFTERS
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from evolution.spaces import locm_drafter_games as ld
from evolution.spaces.registry import space_for

TINY = dict(game="locm_drafter", generations=2, pool=4, selection="mu+lambda", mu=2, hof_size=2, playoff_top=2)
TINY |= dict(jobs=1, plot_every=1, validate=False, per_seat=True, battlers=["greedy"], field=["coac"])
TINY |= dict(games_per_opponent=2, playoff_games_per_opponent=2)


@pytest.fixture(scope="module")
def closet_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("drafters") / "closet-copy.toml"
    write_drafter(path, "closet-copy", CLOSET_AI_SCORE[1:].tolist())
    return path


@pytest.fixture(scope="module")
def drafter_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("drafter_run") / "run"
    evolve(load_config(**TINY), run, log=None)  # one worker: jobs=1
    return run


def matchups(capsys, *argv):
    capsys.readouterr()
    assert main(["matchups", "--game", "locm_drafter", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def cells(table) -> dict:
    return {(c["deck"], c["opponent"]): c for c in table["cells"]}


def test_a_round_robin_of_three_drafters_is_mirrored_and_the_same_on_one_worker_or_two(closet_file, capsys):
    argv = ["max-attack", "closet-ai", str(closet_file), "--games", "20", "--agent", "max-attack"]
    one = matchups(capsys, *argv, "--jobs", "1")
    assert [d["name"] for d in one["decks"]] == ["max-attack", "closet-ai", "closet-copy"]
    c = cells(one)
    assert len(c) == 6 and all(x["games"] == 20 for x in c.values())
    for (a, b), x in c.items():
        assert x["score"] + c[(b, a)]["score"] == 1.0 and x["wins"] == c[(b, a)]["losses"]
    # a file of closet-ai's own scores drafts as closet-ai: each draft's two games split, so exactly 0.5
    assert c[("closet-copy", "closet-ai")]["score"] == 0.5 and c[("closet-copy", "closet-ai")]["wins"] == 10
    assert len({x["score"] for x in c.values()}) > 2  # real games, not a constant
    assert matchups(capsys, *argv, "--jobs", "2")["cells"] == one["cells"]
    assert matchups(capsys, *argv, "--jobs", "1", "--seed", "1")["cells"] != one["cells"]


def test_drafters_and_battlers_that_draw_at_random_play_the_same_games_on_one_worker_or_two(capsys):
    # 300 games: two work units of about 200, each with its own seed key for random, uji2 and the battler
    argv = ["random", "uji2", "coac", "--games", "100", "--agent", "random"]
    one = matchups(capsys, *argv, "--jobs", "1")
    assert matchups(capsys, *argv, "--jobs", "2")["cells"] == one["cells"]


def test_the_ranking_names_the_battler_and_describes_each_drafter(closet_file, tmp_path, capsys):
    out = tmp_path / "m"
    capsys.readouterr()
    argv = ["matchups", "--game", "locm_drafter", "coac", str(closet_file), "--field", "random", "uji2"]
    assert main(argv + ["--games", "4", "--agent", "greedy", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "battler greedy, 4 games per pair, seed 0"
    coac = next(line for line in text.splitlines() if line.split()[1:2] == ["coac"])
    assert "picks most " in coac and "mean cost " in coac and "creatures " in coac  # what it picks, its decks
    copy = next(line for line in text.splitlines() if "closet-copy" in line)
    best = ld.genome_tables(CLOSET_AI_SCORE[1:])[0, 1:].argmax() + 1
    assert f"top {best} " in copy
    assert sorted(p.name for p in out.iterdir()) == ["matchups.csv", "matchups.json", "matchups.png"]
    assert json.loads((out / "matchups.json").read_text())["agent"] == "greedy"


def test_a_drafter_run_stands_for_its_champion_and_best_drafters_under_its_battler(drafter_run, capsys):
    table = matchups(capsys, str(drafter_run), "chad", "--games", "2")
    champion = json.loads((drafter_run / "champion.json").read_text())["cards"]
    names = [d["name"] for d in table["decks"]]
    assert names[0] == "run/champion" and names[-1] == "chad" and len(names) >= 3
    assert table["decks"][0]["cards"] == champion and len(champion) == 320  # one list of scores per seat
    best = {tuple(b["best"]["cards"]) for b in RunFolder(drafter_run).read_best_decks()}
    assert {tuple(d["cards"]) for d in table["decks"][1:-1]} <= best
    assert table["agent"] == "greedy"  # the run's battler
    assert matchups(capsys, str(drafter_run), "chad", "--games", "2", "--agent", "random")["agent"] == "random"


def test_matchups_of_a_drafter_run_take_the_game_from_the_run(drafter_run, capsys):
    capsys.readouterr()
    assert main(["matchups", str(drafter_run), "chad", "--games", "2", "--json"]) == 0  # no --game
    table = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in table["decks"]][:: len(table["decks"]) - 1] == ["run/champion", "chad"]
    assert table["agent"] == "greedy"  # the run's battler


def test_a_field_drafter_is_described_by_the_decks_it_drafts():
    space = space_for(load_config(game="locm_drafter"))
    coac = (DRAFTERS.index("coac"),)
    row = space.row(coac)
    assert len(row["top"]) == ld.TOP_CARDS and 0 < row["creatures"] < 1 and 0 < row["mean cost"] < 7
    assert sum(row["curve"].values()) == pytest.approx(30, abs=0.05)  # rounded to 2 places
    rates = ld.pick_rates(space.decks(coac), ld.descriptor_offers())
    assert np.nanmax(rates) <= 1 and np.nansum(rates) > 0
    assert space.reference_problems(coac) == [] and space.problems(coac)  # a matchup's drafter, never evolved


def refused(capsys, argv, *words):
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_bad_drafters_are_one_line(drafter_run, tmp_path, capsys):
    drafters = ["matchups", "--game", "locm_drafter"]
    refused(capsys, drafters + ["decks/locm/field/coac/1.toml", "coac"], "is a deck file, not a drafter file")
    refused(capsys, drafters + ["coacc", "coac"], "drafter 'coacc' not found", "uji1")
    refused(capsys, drafters + ["decks/locm/field", "coac"], "holds no drafter files")
    refused(capsys, drafters + ["coac", "chad", "--agent", "coac"], "unknown battler 'coac'")
    gwent = tmp_path / "gwent_run"
    gwent.mkdir()
    (gwent / "config.json").write_text(json.dumps({"seed": 0}))
    refused(capsys, drafters + [str(gwent), "coac"], "is a gwent_lite run, not locm_drafter")
    refused(capsys, ["matchups", "--game", "locm_constructed", str(drafter_run), "coac"], "a locm_drafter run")
    refused(capsys, ["advise", "--game", "locm_drafter", "coac", "--vs", "chad"], "no card pool", "gwent_abilities")
    # a drafter run has no validation decks for `report --matchups`: the line names the command that plays it
    refused(capsys, ["report", str(drafter_run), "--matchups", "4"], "has none", "deckopt matchups --game locm_drafter")
