"""The scripts under scripts/ that produce documented figures, run with tiny sizes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_durak_bouts_counts_the_bouts_of_random_games(capsys):
    script = _load("durak_bouts")
    counts = script.bouts_of_random_games(3, 20, seed=0)
    assert len(counts) == 20 and all(1 <= c <= 300 for c in counts)
    assert counts == script.bouts_of_random_games(3, 20, seed=0)  # seeded
    script.main(["--games", "5", "--players", "2", "4"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["players", "games", "mean"] and [r.split()[0] for r in lines[1:]] == ["2", "4"]


def test_the_command_line_reference_has_every_command():
    from deckopt.cli import build_parser

    script = _load("cli_reference")
    text = script.reference_markdown()
    for command in ("play", "match", "eval", "train", "evolve", "decks", "report", "train-pruning"):
        assert f"## `deckopt {command}`" in text
    assert text.count("## `deckopt ") == len(build_parser()._subparsers._group_actions[0].choices)
    assert script.on_page_markdown(f"x {script.MARKER} y", None, None, None).startswith("x ```text")


def test_match_timing_plays_one_game_at_a_time_and_times_each_agent():
    script = _load("match_timing")
    out = script.play("tic_tac_toe", "minimax", "random", 4, seed=0)
    r = out["record"]
    assert r.games == 4 and r.losses == 0  # minimax never loses, from either seat
    assert all(s >= 0 for s in out["seconds_per_move"])
    again = script.play("tic_tac_toe", "random", "random", 6, seed=3)["record"]
    assert again == script.play("tic_tac_toe", "random", "random", 6, seed=3)["record"]  # seeded
