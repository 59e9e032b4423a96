"""A new deck game is one deck space: High Card's (examples/high_card, installed by `make install`,
its space registered in the entry point group `deckopt.spaces`) runs the whole evolution loop (a new
run and a resumed one, the run folder, the champion, the HTML report) with nothing of deckopt changed;
a game without a deck space is refused in one line."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from importlib.metadata import entry_points

import numpy as np
import pytest
from high_card.space import HighCardSpace

from deckopt.cli import main
from evolution.config import load_config
from evolution.loop import evolve
from evolution.runfolder import RunFolder
from evolution.spaces.registry import space_class, space_names
from games.errors import UserError

TINY = dict(game="high_card", agent="random", generations=2, pool=4, survivors=2, offspring_per_survivor=1)
TINY |= dict(hof_size=2, games_per_pair=4, jobs=1, plot_every=1, validate=False, yardstick=[])


def space_of_run(**settings) -> HighCardSpace:
    return HighCardSpace(load_config(game="high_card", **settings))


def test_the_plugin_space_is_found_by_its_game_name():
    points = {ep.name: ep.value for ep in entry_points(group="deckopt.spaces")}
    assert points.get("high_card") == "high_card.space:HighCardSpace", "pip install -e examples/high_card"
    assert "high_card" in space_names() and space_class("high_card") is HighCardSpace


def test_the_loop_evolves_high_card_decks(tmp_path):
    summary = evolve(load_config(**TINY), tmp_path / "run", log=None)
    run = tmp_path / "run"
    assert json.loads((run / "config.json").read_text())["game"] == "high_card"
    space = space_of_run()
    for gen in range(2):
        decks = json.loads((run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]
        assert len(decks) == 4 and all(space.problems(d["cards"]) == [] and d["games"] >= 12 for d in decks)
    assert space.problems(summary["champion"]["cards"]) == []
    assert tomllib.loads((run / "champion.toml").read_text())["cards"] == summary["champion"]["cards"]
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
    assert len(best) == 2 and all(space_of_run().problems(cards) == [] for cards in best)
    assert main(["decks", str(run), "--archive"]) == 0 and "games" in capsys.readouterr().out
    assert main(["report", str(run)]) == 0 and (run / "report.html").is_file()
    # no reference decks: validation is refused in one line
    assert main(["decks", str(run), "--validate"]) == 2
    assert capsys.readouterr().err.strip().endswith("the run has no reference decks; name them with --panel")


@pytest.mark.parametrize("game", ["tic_tac_toe", "high_card:HighCard", "no_such_game"])
def test_a_game_without_a_deck_space_is_refused_in_one_line(game):
    with pytest.raises(UserError, match=f"game '{game}' has no deck space; decks evolve in: gwent_lite, .*high_card"):
        load_config(game=game)


def test_a_plugin_settings_table_is_read_and_an_unknown_setting_refused_in_one_line(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_text('game = "high_card"\n[high_card]\ngames_per_pair = 4\n[high_card.rules]\nbudget = 30\n')
    config = load_config(settings)
    assert (config.settings.games_per_pair, config.settings.rules.budget) == (4, 30)
    assert config.to_dict()["high_card"]["rules"] == {"copy_limit": 8, "budget": 30}
    settings.write_text('game = "high_card"\n[high_card]\ngames_per_pear = 4\n')
    with pytest.raises(UserError, match="high_card.*games_per_pear") as refused:
        load_config(settings)
    assert "\n" not in str(refused.value)


def test_set_by_name_reaches_a_plugins_settings_and_game_options_only_where_a_game_has_them(capsys):
    """`--set NAME=VALUE`: a setting of the run or of the game's table by its name (a plug-in's too), else
    a game option (`game_config`) of a game whose settings have one; a name of neither is one line."""
    config = load_config(game="high_card", named_settings={"games_per_pair": 6, "generations": 3})
    assert (config.settings.games_per_pair, config.generations) == (6, 3)
    kittens = load_config(game="exploding_kittens", named_settings={"open_hands": False, "games_per_deck": 10})
    assert (kittens.settings.game_config["open_hands"], kittens.settings.games_per_deck) == (False, 10)
    with pytest.raises(UserError, match="max_value: not a setting of a run of high_card, whose runs take no game"):
        load_config(game="high_card", named_settings={"max_value": 9})
    argv = ["evolve", "--game", "high_card", "--agent", "heuristic", "--set", "max_value=9"]
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.fixture(scope="module")
def high_card_run(tmp_path_factory):
    """A finished two-generation High Card run (its champion and the best deck of each generation)."""
    run = tmp_path_factory.mktemp("hc") / "run"
    evolve(load_config(**(TINY | dict(pool=6, survivors=3))), run, log=None)
    return run


def test_matchups_plays_a_round_robin_of_high_card_decks(high_card_run, tmp_path, capsys):
    space = space_of_run()
    deck = tmp_path / "low.toml"
    space.save([1, 1, 1, 1, 2, 2, 3, 3], deck, "low", "all low")
    argv = ["matchups", "--game", "high_card", str(high_card_run), str(deck), "--agent", "heuristic"]
    assert main(argv + ["--games", "4", "--jobs", "1", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    best = RunFolder(high_card_run).read_best_decks()
    champion = json.loads((high_card_run / "champion.json").read_text())["cards"]
    names = [d["name"] for d in table["decks"]]
    assert names[0] == "run/champion" and names[-1] == "low" and len(names) >= 3
    assert table["decks"][0]["cards"] == champion and table["decks"][-1]["cards"] == [1, 1, 1, 1, 2, 2, 3, 3]
    assert {tuple(d["cards"]) for d in table["decks"][:-1]} == {tuple(champion)} | {
        tuple(b["best"]["cards"]) for b in best
    }
    cells = {(c["deck"], c["opponent"]): c for c in table["cells"]}
    assert len(cells) == len(names) * (len(names) - 1)
    for (a, b), c in cells.items():
        assert c["games"] == 4 and c["score"] + cells[(b, a)]["score"] == pytest.approx(1.0)
    # the all-low deck loses every game to a legal deck worth 40 played by the highest card
    assert all(cells[("low", n)]["score"] < 0.5 for n in names[:-1])


def test_advise_lists_legal_single_card_changes_of_a_high_card_deck(high_card_run, capsys):
    argv = ["advise", "--game", "high_card", str(high_card_run / "champion.toml"), "--vs", str(high_card_run)]
    argv += ["--agent", "heuristic", "--games", "8", "--rounds", "2", "--contribution-games", "0", "--jobs", "1"]
    assert main(argv + ["--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    deck = json.loads((high_card_run / "champion.json").read_text())["cards"]
    space = space_of_run()
    assert advice["deck"] == deck and advice["field_decks"] >= 1 and advice["candidates"]
    for c in advice["candidates"]:
        assert space.problems(c["cards"]) == [] and c["cards"] != deck
        removed = sum((Counter(deck) - Counter(c["cards"])).values())
        assert removed == 1 and c["change"].startswith("swap a ")  # 8 cards: a change swaps one value
    # without reference decks the field must be named
    assert main(["advise", "--game", "high_card", str(high_card_run / "champion.toml"), "--agent", "random"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--vs" in err and "\n" not in err


def test_study_agents_on_high_card_scores_against_random_legal_decks(high_card_run, tmp_path, capsys):
    argv = ["study", "agents", str(tmp_path / "study"), "--game", "high_card", "--agent", "random"]
    argv += ["--agent", "heuristic", "--games", "4", "--spread", "4", "--opponents", "3", "--jobs", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "opponents: 3 random legal decks (the game has no yardstick)" in out
    assert "random ~ heuristic: Spearman spread " in out and "strong" not in out
    res = json.loads((tmp_path / "study" / "agents.json").read_text())
    assert res["opponents"]["decks"] == 3 and all(
        space_of_run().problems(d) == [] for d in res["opponents"]["random_legal_decks"]
    )
    assert res["sets"] == {"spread": [f"random_{i:02d}" for i in range(1, 5)]} and res["games_per_deck"] == 12
    # --decks (here a run's champion file) makes the strong set; --yardstick names the opponents
    folder = tmp_path / "decks"
    folder.mkdir()
    for i, cards in enumerate([[1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 5, 5, 5, 5, 5, 5]]):
        space_of_run().save(cards, folder / f"d{i}.toml", f"d{i}", "")
    assert main(argv + ["--decks", str(high_card_run / "champion.toml"), "--yardstick", str(folder)]) == 0
    out = capsys.readouterr().out
    res = json.loads((tmp_path / "study" / "agents.json").read_text())
    assert res["opponents"] == {"yardstick": [str(folder)], "decks": 2} and res["games_per_deck"] == 8
    assert "opponents:" not in out and "Spearman spread" in out and "strong" in out


def test_study_racing_on_high_card_plays_its_decks(high_card_run, tmp_path, capsys):
    out = tmp_path / "racing"
    argv = ["study", "racing", str(out), "--source", str(high_card_run), "--agent", "random", "--random-decks", "6"]
    argv += ["--kept", "3", "--opponents", "2", "--deals", "4", "--fixed-games", "4,8", "--z", "1"]
    assert main(argv + ["--replicates", "2", "--jobs", "1"]) == 0
    assert "decks x 2 opponents x 4 deals of ground truth" in capsys.readouterr().out
    res = json.loads((out / "racing.json").read_text())
    fixed = [r for r in res["rows"] if r["method"] == "fixed"]
    assert [r["games_per_deck"] for r in fixed] == [4.0, 8.0]
    assert all(0 <= r["accuracy"] <= 1 and r["regret"] >= 0 and r["accuracy_se"] >= 0 for r in fixed)
    saved = np.load(out / "truth.npz")  # the decks as JSON text: no pickle needed to read them back
    decks, opponents = (json.loads(str(saved[k][()])) for k in ("decks", "opponents"))
    evolved = []
    for d in json.loads((high_card_run / "generations" / "gen_0001.json").read_text())["decks"]:
        evolved += [d["cards"]] if d["cards"] not in evolved else []
    assert decks[: len(evolved)] == evolved and len(decks) == len(evolved) + 6 and len(opponents) == 2
    assert all(space_of_run().problems(d) == [] for d in decks + opponents)
    store = saved["store"]
    assert store.shape == (len(decks), 2, 4) and set(np.unique(store)) <= {0, 0.25, 0.5, 0.75, 1}
    assert res["truth"] == pytest.approx(store.mean(axis=(1, 2)).tolist()) and len(set(res["truth"])) > 1
    assert json.loads(str(saved["settings"][()]))["game"] == "high_card"
    # another game than the run's, and a game whose decks do not play each other: one line each
    assert main(["study", "racing", str(tmp_path / "g"), "--source", str(high_card_run), "--game", "gwent_lite"]) == 2
    assert "a high_card run, not a gwent_lite one" in capsys.readouterr().err
    assert main(["study", "racing", str(tmp_path / "k"), "--game", "exploding_kittens"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'exploding_kittens'" in err and "do not play each other" in err and "\n" not in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("cards = [1, 2]", "2 cards, not 8"),
        ("cards = [5, 5, 5, 5, 5, 5, 5, 9]", "worth 44, more than 40"),
        ("deck = [1, 2, 3, 4, 5, 6, 7, 8]", "has no 'cards' list"),
        ("cards = ", "not valid TOML"),
    ],
)
def test_a_bad_high_card_deck_file_is_one_line(text, needle, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    assert main(["matchups", "--game", "high_card", str(bad), str(bad), "--agent", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"constraints": {"forbidden": [9]}}, "constraints: not a setting of a run of high_card"),
        ({"panel": ["decks/flat.toml"]}, "panel decks do not apply to high_card"),
        ({"opponents": ["population", "panel"]}, "panel decks do not apply to high_card"),
    ],
)
def test_a_plugin_space_refuses_the_settings_of_our_games(settings, words):
    with pytest.raises(UserError, match=words):
        load_config(game="high_card", **settings)


def test_the_run_agent_defaults_to_the_games_own_default_agent(capsys):
    defaults = {game: load_config(game=game).agent for game in ("high_card", "gwent_lite", "exploding_kittens")}
    assert defaults == {"high_card": "heuristic", "gwent_lite": "evaluator", "exploding_kittens": "pretrained"}
    assert load_config(game="high_card", agent="random").agent == "random"
    with pytest.raises(SystemExit):
        main(["evolve", "--help"])
    agent_help = capsys.readouterr().out.split("--agent SPEC")[-1].split("--fitness")[0]
    assert "default agent its facts" in " ".join(agent_help.split()) and "Gwent" not in agent_help


def test_the_plugin_path_from_its_installed_entry_points(tmp_path, capsys):
    """High Card, installed as a plug-in, through every command of the plug-in path: its checks, a
    match with its deck files, an evolution under its own deck rules on both worker processes, the
    decks table with fitness and CI columns, a report without another game's words, a sweep of one
    of its deck rules and the advisor."""
    assert main(["check", "high_card", "--games", "20"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.endswith(" checks passed, 1 skipped: vectorised engine"), last  # it has no batch engine
    run = tmp_path / "run"
    argv = ["evolve", "--game", "high_card", "--agent", "heuristic", "--generations", "2", "--pool", "6"]
    assert main([*argv, "--games-per-pair", "4", "--jobs", "2", "--set", "rules.copy_limit=2", "--out", str(run)]) == 0
    assert "on loky (2 processes)" in capsys.readouterr().err
    assert json.loads((run / "config.json").read_text())["high_card"]["rules"] == {"copy_limit": 2, "budget": 40}
    space = space_of_run(rules={"copy_limit": 2})
    for gen in range(2):
        decks = json.loads((run / "generations" / f"gen_{gen:04d}.json").read_text())["decks"]
        assert all(space.problems(d["cards"]) == [] and max(Counter(d["cards"]).values()) <= 2 for d in decks)
    champion = run / "champion.toml"
    assert main(["match", "high_card", "heuristic", "random", "--games", "4", "--deck", str(champion)]) == 0
    assert "heuristic" in capsys.readouterr().out
    assert main(["decks", str(run)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "run run (high_card, objective win)"
    assert table[1].split() == ["gen", "deck", "worth", "cards", "fitness", "[95%", "CI]", "games"]
    assert main(["report", str(run)]) == 0
    page = (run / "report.html").read_text()
    for gwent_word in ("total power", "cards per power", "card powers", "yardstick"):
        assert gwent_word not in page.lower(), gwent_word
    sweep = tmp_path / "sweep"
    argv = ["sweep", "--game", "high_card", "--agent", "heuristic", "--rule", "copy_limit", "--values", "1,2"]
    assert (
        main([*argv, "--generations", "1", "--pool", "4", "--games-per-pair", "2", "--jobs", "1", "--out", str(sweep)])
        == 0
    )
    rows = json.loads((sweep / "sweep.json").read_text())["rows"]
    assert [r["value"] for r in rows] == [1, 2] and Counter(rows[0]["champion"]).most_common(1)[0][1] == 1
    capsys.readouterr()
    argv = ["advise", "--game", "high_card", str(champion), "--vs", str(run), "--agent", "heuristic"]
    assert main([*argv, "--games", "4", "--rounds", "1", "--contribution-games", "0", "--jobs", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"]


def test_a_plugin_space_plays_its_games_through_the_runs_worker_pool(tmp_path):
    """Every game of a generation goes through the map the run is given (the worker processes of
    --jobs): none is played beside it in the parent process."""
    mapped = []

    def pmap(func, items, on_result=None, scatter=()):
        items = list(items)
        mapped.append(sum(task.games for _, task in items))
        results = [func(*item) for item in items]
        for i, r in enumerate(results):
            if on_result is not None:
                on_result(i, r)
        return results

    summary = evolve(load_config(**TINY), tmp_path / "run", log=None, pmap=pmap, finish=False)
    played = sum(
        json.loads((tmp_path / "run" / "generations" / f"gen_{g:04d}.json").read_text())["games"] for g in range(2)
    )
    assert summary["generations"] == 2 and sum(mapped) == played > 0
