"""`deckopt evaluator`: a deck game's evaluator panel built and measured in one command, its panel file
an agent spec everywhere, its stages resumed where they stopped; and panel files as agent specs."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents.arena import play_match
from agents.learned import load_network
from agents.panel import AgentPanel, read_panel_file, trust_figures
from deckopt.cli import main
from games.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
GA_MODELS = [ROOT / "agents" / "pretrained" / f"gwent_abilities_{k}.npz" for k in (0, 1)]
FIGURES = """
[exploitability]
score = 0.55
ci95 = [0.53, 0.57]
best_response = "1000 episodes"
where = "somewhere"
commands = ["deckopt exploit ..."]

[agreement]
decks = 3
games_per_deck = 80
spearman = [0.9, 0.95]
spearman_ceiling = [0.97, 0.99]
worst_difference = 0.05
worst_deck = "random_01"
noise_difference = [0.01, 0.02]
commands = ["deckopt study agents ..."]
"""


def cli(*args) -> int:
    return main([str(a) for a in args])


def _panel_file(folder: Path, game: str = "gwent_abilities", figures: str = "") -> Path:
    (folder / "nets").mkdir(parents=True)
    for path in GA_MODELS:
        shutil.copy(path, folder / "nets" / path.name)
    members = ", ".join(f'"nets/{p.name}"' for p in GA_MODELS)
    path = folder / "panel.toml"
    path.write_text(f'game = "{game}"\nmembers = [{members}]\n{figures}', encoding="utf-8")
    return path


def test_a_panel_file_is_an_agent_spec_with_members_beside_it(tmp_path):
    path = _panel_file(tmp_path / "p")
    game = games.make("gwent_abilities")
    panel = agents.make_panel(str(path), game)
    assert isinstance(panel, AgentPanel)
    assert panel.specs == tuple(str(tmp_path / "p" / "nets" / p.name) for p in GA_MODELS)
    assert agents.split_agent_specs(str(path)) == list(panel.specs)
    assert trust_figures(str(path)) is None  # no figures recorded yet
    with pytest.raises(UserError, match="gwent_abilities evaluator panel, not an agent for gwent_lite"):
        agents.make_panel(str(path), games.make("gwent_lite"))


def test_a_panel_files_trust_figures_are_found_as_a_named_panels(tmp_path):
    path = _panel_file(tmp_path / "p", figures=FIGURES)
    trust = trust_figures(str(path))
    assert trust["panel"] == str(path) and trust["game"] == "gwent_abilities"
    assert trust["exploitability"]["score"] == 0.55
    assert trust["agreement"]["worst_deck"] == "random_01"


def test_a_panel_file_that_breaks_its_schema_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('game = "gwent_abilities"\nmembers = []\n', encoding="utf-8")
    with pytest.raises(UserError, match="panel file .*members"):
        read_panel_file(path)


def test_the_recipe_refuses_a_game_it_cannot_train_in_one_line(tmp_path, capsys):
    assert cli("evaluator", "tic_tac_toe", "--out", tmp_path / "x") == 2
    assert "not a deck game whose decks play each other" in capsys.readouterr().err
    assert cli("evaluator", "high_card", "--resume", tmp_path) == 2
    assert "holds no evaluator recipe" in capsys.readouterr().err


def test_exploit_of_a_deck_game_without_reference_decks_asks_for_their_opponents(tmp_path, capsys):
    code = cli(
        "exploit", "high_card", "heuristic", "--decks", ROOT / "examples/high_card/decks", "--out", tmp_path / "b"
    )
    assert code == 2
    assert "ships no reference decks; name the judged decks' opponents with --panel" in capsys.readouterr().err


TINY = ["--episodes", 300, "--games", 40, "--agreement-games", 10, "--generations", 1, "--pool", 4, "--jobs", 2]


def _wait_for(path: Path, proc: subprocess.Popen, limit: float = 600.0) -> None:
    """Wait until `path` exists (the event), failing if `proc` ends first or after a generous `limit`."""
    deadline = time.monotonic() + limit
    while not path.exists():
        assert proc.poll() is None, f"ended with {proc.returncode} before {path} appeared"
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.1)


def test_the_recipe_builds_a_measured_panel_of_a_plugin_game_and_resumes_where_it_stopped(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    # Ctrl-C while the first copies train: each stops at a checkpoint, the recipe says how to continue
    argv = [sys.executable, "-m", "deckopt", "evaluator", "high_card", "--algo", "afterstate", "--out", "ev", *TINY]
    proc = subprocess.Popen([str(a) for a in argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(tmp_path / "ev" / "copies" / "0" / "first" / "config.json", proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert "continue with: deckopt evaluator high_card --resume ev" in err.splitlines()[-1]
    assert "first" not in json.loads(Path("ev/recipe.json").read_text())["stages"]
    assert not Path("ev/copies/2").exists()  # the third copy never started
    assert cli("evaluator", "high_card", "--resume", "ev") == 0
    out = capsys.readouterr().out
    assert "evaluator panel of high_card: ev/panel.toml (3 copies)" in out
    panel = read_panel_file("ev/panel.toml")
    assert panel["game"] == "high_card"
    assert [Path(m) for m in panel["members"]] == [Path(f"ev/copies/{k}/final/model.npz") for k in range(3)]
    assert all(Path(m).is_file() for m in panel["members"])
    e = panel["exploitability"]  # measured by a best response: a score inside its interval
    assert e["ci95"][0] <= e["score"] <= e["ci95"][1] and e["commands"][0].startswith("deckopt exploit high_card")
    a = panel["agreement"]
    assert a["decks"] >= 3 and a["games_per_deck"] > 0 and -1 <= a["spearman"][0] <= a["spearman"][1] <= 1
    strength = panel["recipe"]["strength"]
    assert set(strength) == {f"copy_{k}_{o}" for k in range(3) for o in ("heuristic", "random")} | {"heuristic_random"}
    assert all(row["games"] == 40 and row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] for row in strength.values())
    cost = panel["recipe"]["cost"]
    assert cost["cpu_minutes"] > 0 and set(cost["stages"]) == {
        "first", "explore", "final", "panel", "strength", "agreement", "exploit"
    }  # fmt: skip
    # the panel file is an agent spec; with its figures, a validation shows them
    assert trust_figures("ev/panel.toml")["exploitability"]["score"] == e["score"]
    assert cli("match", "high_card", "ev/panel.toml", "heuristic", "--games", 4) == 0
    # a recipe resumed before its last stage continues there: the finished stages are not run again
    recipe = json.loads(Path("ev/recipe.json").read_text())
    first = recipe["stages"]["first"]
    del recipe["stages"]["exploit"]
    Path("ev/recipe.json").write_text(json.dumps(recipe))
    shutil.rmtree("ev/exploit")
    capsys.readouterr()
    assert cli("evaluator", "high_card", "--resume", "ev") == 0
    again = json.loads(Path("ev/recipe.json").read_text())
    assert again["stages"]["first"] == first and "exploit" in again["stages"]
    assert Path("ev/exploit/exploit.json").is_file()


def test_pretrained_names_the_shipped_panel_where_a_game_declares_one():
    locm = games.make("locm")
    panel = agents.make_panel("pretrained", locm)
    assert isinstance(panel, AgentPanel) and panel.specs == agents.PANELS["locm_league3_scorer_panel"]
    ga = agents.make_panel("pretrained", games.make("gwent_abilities"))
    assert ga.specs == agents.PANELS["gwent_abilities_evaluator"]
    with pytest.raises(UserError, match="no pretrained agent for high_card"):
        agents.make_panel("pretrained", games.make("high_card"))


def test_a_field_drafter_drafts_and_a_learned_battler_battles_in_one_spec():
    locm = games.make("locm")
    panel = agents.make_panel("coac+pretrained", locm, seed=3)
    members = agents.PANELS["locm_league3_scorer_panel"]
    assert panel.specs == tuple(f"coac+{m}" for m in members)
    agent = panel.agents[0]
    coac = agents.make("coac", locm, seed=3)
    battler = agents.make(members[0], locm, seed=3)
    rng = np.random.default_rng(5)
    state = locm.new_initial_state(rng)
    drafts = battles = 0
    while not state.is_terminal():
        [action] = agent.act([state])
        expected = coac if state.phase == "draft" else battler
        assert action == expected.act([state])[0]
        drafts, battles = drafts + (state.phase == "draft"), battles + (state.phase == "battle")
        state.apply_action(action if state.current_player == 0 else coac.act([state])[0])
    assert drafts >= 30 and battles > 0
    result = play_match(locm, [panel, agents.make_panel("greedy", locm)], 6, seed=1)
    assert result.games == 6


def test_a_run_played_by_an_agent_without_trust_figures_says_how_to_build_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = ["evolve", "--game", "high_card", "--generations", 1, "--pool", 4, "--jobs", 1, "--quiet", "--out", "r"]
    assert cli(*args) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "deckopt evolve: high_card's decks are played by 'heuristic', an agent with no trust figures recorded; build a "
        "trusted evaluator with `deckopt evaluator high_card --out runs/high_card_evaluator` and play it with --agent "
        "runs/high_card_evaluator/panel.toml"
    ]
    assert cli(*args[:-1], "r2", "--agent", ROOT / "examples" / "high_card" / "no_such.toml") == 2


#: a scorer's settings at a tiny budget
SCORER = "hidden_layers = [32]\nepisodes = 200\ngames_per_batch = 32\nteacher_episodes = 32\neval_every = 0\n"


def test_a_distilled_recipe_makes_each_copys_action_scorer_the_panel(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("scorer.toml").write_text(SCORER)
    args = ["--copies", 2, "--distill", "scorer.toml", *TINY]
    assert cli("evaluator", "high_card", "--algo", "afterstate", "--out", "ev", *args) == 0
    panel = read_panel_file("ev/panel.toml")
    assert [Path(m) for m in panel["members"]] == [Path(f"ev/copies/{k}/distill/model.npz") for k in range(2)]
    game = games.make("high_card")
    for k, member in enumerate(panel["members"]):
        _, metadata = load_network(member, game)
        assert metadata.get("action_scores") and not metadata.get("afterstate")
        assert Path(metadata["teacher"]) == Path(f"ev/copies/{k}/final/model.npz")
    recipe = json.loads(Path("ev/recipe.json").read_text())
    stages = [name for name in recipe["stages"] if not name.startswith("_")]
    assert stages == ["first", "explore", "final", "distill", "panel", "strength", "agreement", "exploit"]
    assert all("distill" in c for c in recipe["stages"]["agreement"]["commands"])
    # the scorers learn on the final copies' decks and opponents, with the file's own settings
    final, distill = (tomllib.loads(Path(f"ev/{name}.toml").read_text()) for name in ("train_final", "distill"))
    assert distill["game_config"] == final["game_config"] and distill["opponent_mix"] == final["opponent_mix"]
    assert distill["episodes"] == 200 and distill["hidden_layers"] == [32]
    assert panel["exploitability"]["commands"][0].startswith("deckopt exploit high_card ev/panel.toml")


@pytest.mark.parametrize(
    "text, words",
    [
        ("episodes = 0\n", "name a scorer's episodes"),
        ("episodes = 10\nteacher = 'x.npz'\n", "teacher is the recipe's own"),
        ("episodes = [\n", "not valid TOML"),
    ],
)
def test_a_distillation_file_the_recipe_cannot_use_is_refused_before_any_training(tmp_path, capsys, text, words):
    (tmp_path / "scorer.toml").write_text(text)
    assert cli("evaluator", "high_card", "--out", tmp_path / "ev", "--distill", tmp_path / "scorer.toml") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert not (tmp_path / "ev").exists()


def test_a_distilled_recipe_needs_a_game_whose_actions_can_be_scored(tmp_path, capsys):
    (tmp_path / "scorer.toml").write_text(SCORER)
    argv = ["evaluator", "gwent_lite", "--out", tmp_path / "ev", "--distill", tmp_path / "scorer.toml"]
    assert cli(*argv) == 2
    assert "declares no action features" in capsys.readouterr().err
