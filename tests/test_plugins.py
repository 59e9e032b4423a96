"""Games from outside the tree: the worked example (examples/high_card, installed by `make install`
as a plug-in with the entry point group `deckopt.games`) through the commands that play it, a game
named by its import path, `deckopt check` on each of our games, and the tutorial (docs/plugins.md),
whose Python runs here and whose quotes of the example are checked against its source."""

from __future__ import annotations

import io
import json
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from high_card import HighCard

import games
from deckopt.cli import build_parser, main
from deckopt.commands import play
from evolution.config import default_agent_spec
from games.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "high_card"
TUTORIAL = ROOT / "docs" / "plugins.md"
TINY_TRAINING = {"hidden_layers": [16], "games_per_batch": 16, "updates_per_batch": 2, "batch_size": 32}
TINY_TRAINING |= {"min_replay": 32, "replay_size": 2000, "epsilon_decay_episodes": 64, "eval_every": 0}


def run_cli(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_example_is_installed_as_a_plugin():
    """`make install` installs examples/high_card; its entry point makes it a game like ours."""
    points = {ep.name: ep.value for ep in entry_points(group="deckopt.games")}
    assert points.get("high_card") == "high_card:HighCard", "pip install -e examples/high_card (make install does)"
    assert "high_card" in games.GAME_NAMES and "high_card" not in GAMES
    assert type(games.make("high_card", hand_size=3)) is HighCard
    assert "-e examples/high_card" in (ROOT / "Makefile").read_text()


def test_deckopt_check_passes_on_the_example(capsys):
    code, out, err = run_cli(["check", "high_card", "--games", "30"], capsys)
    lines = out.splitlines()
    assert code == 0 and not err, out + err
    verdicts = [line for line in lines if line.startswith(("ok", "FAIL", "skip"))]
    assert len(verdicts) == 12 and all(line.startswith(("ok  ", "skip  vectorised engine")) for line in verdicts), out
    assert any(line.startswith("ok    deck space operators: 30 random decks") for line in verdicts)
    assert any(
        line.startswith("ok    facts and rule agents: rule agents heuristic, highest, lowest") for line in verdicts
    )
    assert lines[-1] == "11 checks passed, 1 skipped: vectorised engine"


@pytest.mark.parametrize("name", list(GAMES))
def test_deckopt_check_passes_on_each_of_our_games(name, capsys):
    code, out, _ = run_cli(["check", name, "--games", "20"], capsys)
    assert code == 0, out
    assert not [line for line in out.splitlines() if line.startswith("FAIL")]
    last = {
        "tic_tac_toe": "9 checks passed, 2 skipped: cards conserved, vectorised engine",  # no cards
        "connect_four": "10 checks passed, 1 skipped: cards conserved",
        "incan_gold": "10 checks passed, 1 skipped: vectorised engine",
        "durak": "10 checks passed, 1 skipped: vectorised engine",
        "gwent_lite": "all 12 checks passed",  # and the deck space's operators
        "exploding_kittens": "11 checks passed, 1 skipped: vectorised engine",
        "gwent_abilities": "11 checks passed, 1 skipped: vectorised engine",  # and the deck space's operators
        # the draft's picks add cards; the operators of its two deck spaces (locm_constructed, locm_drafter)
        "locm": "12 checks passed, 1 skipped: cards conserved",
    }
    assert out.splitlines()[-1] == last[name]


def test_a_game_named_by_its_import_path(capsys):
    code, out, _ = run_cli(["match", "high_card:HighCard", "heuristic", "random", "--games", "10", "--json"], capsys)
    assert code == 0 and json.loads(out)["games"] == 10
    assert games.game_class("high_card:HighCard") is HighCard


def test_a_game_loaded_by_its_path_leaves_the_plugin_of_its_name_alone(tmp_path, monkeypatch):
    (tmp_path / "shadow_game.py").write_text("from high_card import HighCard\n\nclass Shadow(HighCard):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    shadow = games.game_class("shadow_game:Shadow")
    assert shadow.name == "high_card" and shadow is not HighCard
    assert games.game_class("high_card") is HighCard  # the installed plug-in keeps its name


@pytest.mark.parametrize(
    "game, needle",
    [
        ("no_such_game", "unknown game 'no_such_game'; choose one of: tic_tac_toe"),
        ("no_such_module_anywhere:Game", "cannot load no_such_module_anywhere:Game"),
        ("high_card:NoSuchClass", "cannot load high_card:NoSuchClass"),
        ("math:pi", "is not a games.Game subclass"),
    ],
)
def test_a_bad_game_is_one_line_and_exit_2(game, needle, capsys):
    code, out, err = run_cli(["check", game], capsys)
    assert code == 2 and not out
    assert err.count("\n") == 1 and needle in err, err


def test_train_eval_and_play_on_the_plugin(tmp_path, capsys):
    config = tmp_path / "tiny.toml"
    config.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY_TRAINING.items()))
    run = tmp_path / "run"
    argv = ["train", "high_card", "--config", config, "--episodes", "32", "--seed", "1", "--quiet", "--out", run]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["game"] == "high_card" and (run / "model.npz").is_file()
    code, out, err = run_cli(["eval", "high_card", run, "--vs", "random", "--games", "10", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)
    args = build_parser().parse_args(["play", "high_card", "--seed", "4"])
    moves = io.StringIO("\n".join(str(a) for a in range(9) for _ in range(5)) + "\n")
    shown = io.StringIO()
    assert play.run(args, prompt_in=moves, out=shown) == 0
    text = shown.getvalue()
    assert "game over" in text and "player 1 plays a card face down" in text


def test_a_plugins_named_bots_are_agent_specs_everywhere(tmp_path, capsys):
    """The rule agents a plug-in declares in its facts (`GameFacts.bots`) play in match, eval and
    tournament by name; a bot of another game is refused in one line naming its game."""
    import agents

    game = games.make("high_card")
    state = game.new_initial_state(0)
    lowest, highest = agents.make("lowest", game, seed=0), agents.make("highest", game, seed=0)
    hand = state.hand(0)
    assert lowest.act([state])[0] == min(hand) - 1 and highest.act([state])[0] == max(hand) - 1
    code, out, err = run_cli(["match", "high_card", "lowest", "highest", "--games", "20", "--json"], capsys)
    assert code == 0, err
    assert [a["spec"] for a in json.loads(out)["agents"]] == ["lowest", "highest"]
    code, out, err = run_cli(["eval", "high_card", "lowest", "--vs", "highest", "--games", "10", "--json"], capsys)
    assert code == 0 and json.loads(out)["matches"][0]["vs"] == "highest", err
    argv = ["tournament", "high_card", "lowest", "highest", "random", "--games", "6", "--out", tmp_path / "t"]
    code, _, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    argv = ["evolve", "--game", "high_card", "--agent", "lowest", "--generations", "1", "--pool", "4"]
    code, _, err = run_cli(argv + ["--games-per-pair", "4", "--out", tmp_path / "e"], capsys)
    assert code == 0 and "with agent 'lowest'" in err, err
    code, out, err = run_cli(["match", "high_card", "aggressive", "random", "--games", "2"], capsys)
    assert code == 2 and err.count("\n") == 1 and "'aggressive' is only for durak, not high_card" in err


def test_a_plugin_game_takes_deck_files(tmp_path, capsys):
    """`--deck FILE` gives a plug-in's decks (its facts' deck_files: games.deckfile's `name` + `cards`)
    to match and eval; an illegal deck is the game's own one-line error."""
    from deckopt.commands._common import make_game

    extremes, even = EXAMPLE / "decks" / "extremes.toml", EXAMPLE / "decks" / "even.toml"
    args = build_parser().parse_args(["match", "high_card", "random", "random", "--games", "2", "--deck", str(even)])
    assert make_game(args).decks == [[5] * 8, [5] * 8]
    argv = ["match", "high_card", "heuristic", "lowest", "--games", "10", "--deck", extremes, "--deck", even]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0 and json.loads(out)["games"] == 10, err
    code, out, err = run_cli(["eval", "high_card", "lowest", "--games", "4", "--deck", even, "--json"], capsys)
    assert code == 0, err
    assert all(m["agent"]["draws"] == 4 for m in json.loads(out)["matches"])  # eight 5s each: every trick ties
    rich = tmp_path / "rich.toml"
    rich.write_text("cards = [9, 9, 9, 9, 9, 9, 9, 9]\n")
    code, out, err = run_cli(["match", "high_card", "random", "random", "--games", "2", "--deck", rich], capsys)
    assert code == 2 and err.count("\n") == 1 and "worth 72, more than 40" in err
    code, out, err = run_cli(["match", "high_card", "random", "random", "--games", "2", "--set", "decks=[[1]]"], capsys)
    assert code == 2 and "give them as --deck FILE" in err


def test_a_plugins_default_agent_or_one_line_asking_for_one():
    assert default_agent_spec(games.make("high_card")) == "heuristic"
    with pytest.raises(games.UserError, match=r"^locm has no default agent; choose one with --agent"):
        default_agent_spec(games.make("locm"))


# --- the tutorial ------------------------------------------------------------------------------
def blocks(language: str) -> list[tuple[str, str]]:
    """The tutorial's fenced blocks of `language`: (the fence's info after the language, code)."""
    found = re.findall(r"^```(\w+)([^\n]*)\n(.*?)^```$", TUTORIAL.read_text(), flags=re.S | re.M)
    return [(info.strip(), code) for lang, info, code in found if lang == language]


def test_the_tutorials_quotes_are_the_examples_source():
    quoted = [(info, code) for lang in ("python", "toml") for info, code in blocks(lang) if info.startswith("title=")]
    assert len(quoted) >= 4
    for info, code in quoted:
        source = (ROOT / info.removeprefix("title=").strip('"')).read_text()
        assert code in source, f"docs/plugins.md quotes {info} as it no longer is:\n{code}"


def test_the_tutorials_commands_parse():
    """Every `deckopt ...` line of the tutorial is a valid command line (parsed, not run) whose game,
    if it names one, is found."""
    lines = [line.split("#")[0].split() for _, code in blocks("sh") for line in code.splitlines()]
    commands = [words[1:] for words in lines if words[:1] == ["deckopt"]]
    assert len(commands) >= 6
    for words in commands:
        args = build_parser().parse_args(words)
        assert getattr(args, "game", None) is None or games.game_class(args.game)  # None: the run's game


def test_deckopt_check_json(capsys):
    code, out, err = run_cli(["check", "high_card", "--games", "10", "--json"], capsys)
    result = json.loads(out)  # exactly one JSON object
    assert code == 0 and not err and result["passed"] and result["game"] == "high_card"
    assert [c["name"] for c in result["checks"]][-1] == "deck space operators"
    statuses = {c["name"]: c["status"] for c in result["checks"]}
    assert statuses.pop("vectorised engine") == "skipped" and set(statuses.values()) == {"passed"}


def test_the_tutorials_python_runs(capsys):
    runnable = [code for info, code in blocks("python") if not info]
    assert runnable
    for code in runnable:
        exec(compile(code, str(TUTORIAL), "exec"), {})
    assert "passed interface" in capsys.readouterr().out
