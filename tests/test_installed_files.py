"""Named agents, panels and default decks come from the installation (games/fileio.py
`resolve_path`): a current folder holding its own `agents/pretrained/` or `decks/` changes nothing
unless its copies are named as such (`./agents/...`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents.panel import load_named_panels
from deckopt.cli import main
from games.fileio import INSTALL_ROOT, resolve_path

PRETRAINED = INSTALL_ROOT / "agents" / "pretrained"
MATCH = ["match", "gwent_lite", "AGENT", "heuristic", "--games", "12", "--seed", "3"]


def _match(agent: str, capsys) -> str:
    """The match's table, its wall-clock time left out."""
    capsys.readouterr()
    assert main([agent if a == "AGENT" else a for a in MATCH]) == 0
    return re.sub(r", [0-9.]+ s$", "", capsys.readouterr().out, flags=re.MULTILINE)


def _opponent_row(out: str) -> list[str]:
    return next(line.split() for line in out.splitlines() if line.startswith("heuristic"))


@pytest.fixture
def impostor(tmp_path, monkeypatch) -> Path:
    """A current folder whose agents/pretrained/ holds other networks under the evaluator panel's
    names, and whose decks/yardstick holds other decks."""
    own = tmp_path / "agents" / "pretrained"
    own.mkdir(parents=True)
    for i in range(3):
        shutil.copy(PRETRAINED / f"gwent_lite_pool_{i}.npz", own / f"gwent_lite_evaluator_{i}.npz")
    shutil.copytree(INSTALL_ROOT / "decks" / "ancestor", tmp_path / "decks" / "yardstick")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_named_panel_plays_the_installed_networks_whatever_the_current_folder_holds(impostor, capsys):
    played_here = _match("evaluator", capsys)
    shutil.rmtree(impostor / "agents")
    assert _match("evaluator", capsys) == played_here
    # the folder's own copies, named as such, are what they are: other networks
    shutil.copy(PRETRAINED / "gwent_lite_pool_0.npz", impostor / "own.npz")
    assert _opponent_row(_match("./own.npz", capsys)) == _opponent_row(
        _match(str(PRETRAINED / "gwent_lite_pool_0.npz"), capsys)
    )
    assert _opponent_row(_match("./own.npz", capsys)) != _opponent_row(played_here)


def test_shipped_paths_resolve_to_the_installation_and_own_copies_only_by_path(impostor):
    assert resolve_path("decks/yardstick") == INSTALL_ROOT / "decks" / "yardstick"
    assert resolve_path("agents/pretrained/gwent_lite_evaluator_0.npz") == PRETRAINED / "gwent_lite_evaluator_0.npz"
    assert resolve_path("./decks/yardstick").resolve() == impostor / "decks" / "yardstick"
    assert resolve_path("decks/mine") == Path("decks/mine")  # not shipped: as given
    (impostor / "runs").mkdir()
    assert resolve_path("runs") == Path("runs")  # not a shipped folder: the current folder's first


def _installation_with_panels_file(tmp_path: Path, panels_text: str) -> Path:
    """A copy of the installed packages (without their networks) whose named panels' file holds
    `panels_text`."""
    copy = tmp_path / "install"
    skip = shutil.ignore_patterns("*.npz", "*.keras", "__pycache__")
    for package in ("games", "agents", "evolution", "deckopt"):
        shutil.copytree(INSTALL_ROOT / package, copy / package, ignore=skip)
    (copy / "agents" / "pretrained" / "panels.toml").write_text(panels_text)
    return copy


@pytest.mark.parametrize(
    "damage",
    ["[evaluator\ngame = 1\n", '[evaluator]\ngame = "gwent_lite"\n', "\udcff"],
    ids=["not TOML", "no members", "not UTF-8"],
)
def test_a_damaged_named_panels_file_ends_a_command_using_a_panel_in_one_line_and_help_still_works(tmp_path, damage):
    copy = _installation_with_panels_file(tmp_path, "")
    (copy / "agents" / "pretrained" / "panels.toml").write_bytes(damage.encode("utf-8", "surrogateescape"))

    def deckopt(*args):
        return subprocess.run(
            [sys.executable, "-m", "deckopt", *args],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(copy)},
            capture_output=True,
            text=True,
            timeout=300,
        )

    shown = deckopt("--help")
    assert shown.returncode == 0 and "usage: deckopt" in shown.stdout and not shown.stderr
    match_help = deckopt("match", "--help")
    assert match_help.returncode == 0 and "agents/pretrained/panels.toml" in " ".join(match_help.stdout.split())
    used = deckopt("match", "gwent_lite", "evaluator", "heuristic", "--games", "2")
    assert used.returncode == 2 and "Traceback" not in used.stderr and len(used.stderr.splitlines()) == 1
    assert str(copy / "agents" / "pretrained" / "panels.toml") in used.stderr and "reinstall" in used.stderr
    # any agent spec is looked up among the named panels first: the damage is told in one line
    plain = deckopt("match", "tic_tac_toe", "random", "random", "--games", "2")
    assert plain.returncode == 2 and len(plain.stderr.splitlines()) == 1 and "Traceback" not in plain.stderr


def test_the_installed_named_panels_file_fits_its_schema():
    assert {"evaluator", "locm_league3_scorer_panel"} <= set(load_named_panels(PRETRAINED / "panels.toml"))
