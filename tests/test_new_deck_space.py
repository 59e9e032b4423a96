"""A new deck game is one deck space: High Card's (examples/high_card, installed by `make install`,
its space registered in the entry point group `deckopt.spaces`) runs the whole evolution loop (a new
run and a resumed one, the run folder, the champion, the HTML report) with nothing of deckopt changed;
a game without a deck space is refused in one line."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import entry_points

import pytest
from high_card.space import HighCardSpace

from deckopt.cli import main
from evolution.config import load_config
from evolution.loop import evolve
from evolution.spaces.registry import space_class, space_names
from games.errors import UserError

TINY = dict(game="high_card", agent="random", generations=2, pool=4, survivors=2, offspring_per_survivor=1)
TINY |= dict(hof_size=2, games_per_pair=4, jobs=1, plot_every=1, validate=False, yardstick=[])


def test_the_plugin_space_is_found_by_its_game_name():
    points = {ep.name: ep.value for ep in entry_points(group="deckopt.spaces")}
    assert points.get("high_card") == "high_card.space:HighCardSpace", "pip install -e examples/high_card"
    assert "high_card" in space_names() and space_class("high_card") is HighCardSpace


def test_the_loop_evolves_high_card_decks(tmp_path):
    summary = evolve(load_config(**TINY), tmp_path / "run", log=None)
    run = tmp_path / "run"
    assert json.loads((run / "config.json").read_text())["game"] == "high_card"
    space = HighCardSpace()
    for gen in range(2):
        decks = json.loads((run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]
        assert len(decks) == 4 and all(space.problems(d["cards"]) == [] and d["games"] == 4 for d in decks)
    assert space.problems(summary["champion"]["cards"]) == []
    assert tomllib.loads((run / "champion.toml").read_text())["deck"] == summary["champion"]["cards"]
    assert (run / "report.html").is_file() and (run / "fitness.png").is_file()
    # resumed to a third generation, it continues the same run
    evolve(None, run, resume=True, overrides={"generations": 3}, log=None)
    assert (run / "generations" / "gen_0002.json").is_file()


def test_evolve_decks_and_report_from_the_command_line(tmp_path, capsys):
    run = tmp_path / "run"
    argv = ["evolve", "--game", "high_card", "--agent", "random", "--generations", "2", "--pool", "4"]
    assert main(argv + ["--games-per-pair", "4", "--jobs", "1", "--archive", "--out", str(run)]) == 0
    assert "champion: " in capsys.readouterr().out
    assert main(["decks", str(run), "--json"]) == 0
    best = [g["best"]["cards"] for g in json.loads(capsys.readouterr().out)["generations"]]
    assert len(best) == 2 and all(HighCardSpace().problems(cards) == [] for cards in best)
    assert main(["decks", str(run), "--archive"]) == 0 and "games" in capsys.readouterr().out
    assert main(["report", str(run)]) == 0 and (run / "report.html").is_file()
    # no reference decks: validation is refused in one line
    assert main(["decks", str(run), "--validate"]) == 2
    assert capsys.readouterr().err.strip().endswith("its deck space has no reference decks")


@pytest.mark.parametrize("game", ["tic_tac_toe", "high_card:HighCard", "no_such_game"])
def test_a_game_without_a_deck_space_is_refused_in_one_line(game):
    with pytest.raises(UserError, match=f"game '{game}' has no deck space; decks evolve in: gwent_lite, .*high_card"):
        load_config(game=game)


def test_a_plugin_settings_table_is_refused_in_one_line(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text('game = "high_card"\n[high_card]\ngames_per_pair = 4\n')
    with pytest.raises(UserError, match="high_card") as refused:
        load_config(settings)
    assert "\n" not in str(refused.value)
