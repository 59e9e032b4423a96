"""Drafter files (agents/heuristics/locm_drafter_file.py): written and read back, a file of a field
drafter's scores picks as that drafter does (state and batch forms), the shipped files of chad and
coac (decks/locm/drafters) are the script's and pick as those drafters do, the spec `PATH.toml+BATTLER`
in the commands that take a LOCM agent, and one UserError line for every bad file."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
import games
from agents.heuristics.locm_drafter_file import read_drafter, write_drafter
from agents.heuristics.locm_field import (
    DRAFTERS,
    DRAFTERS_BATCH,
    FEW_CREATURES,
    IS_CREATURE,
    SCORES,
    FieldAgent,
    own_picks,
)
from deckopt.cli import main
from games import UserError
from games.locm import PICK
from games.locm_batch import LocmBatch

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "decks" / "locm" / "drafters"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_a_written_file_reads_back_the_same_scores(tmp_path):
    one = [round(x * 0.5, 1) for x in range(160)]
    write_drafter(tmp_path / "one.toml", 'say "hi"', one, comment="two lines\nof comment")
    drafter = read_drafter(tmp_path / "one.toml")
    assert drafter.name == 'say "hi"'
    assert drafter.scores.shape == (2, 161)
    assert drafter.scores[0, 1:].tolist() == one and drafter.scores[1, 1:].tolist() == one
    seats = [list(range(160)), list(range(160, 0, -1))]
    write_drafter(tmp_path / "seats.toml", "seats", seats)
    drafter = read_drafter(tmp_path / "seats.toml")
    assert drafter.scores[0, 1:].tolist() == seats[0] and drafter.scores[1, 1:].tolist() == seats[1]


def test_the_name_defaults_to_the_files(tmp_path):
    (tmp_path / "plain.toml").write_text("scores = [" + ", ".join(["1"] * 160) + "]\n")
    assert read_drafter(tmp_path / "plain.toml").name == "plain"


@pytest.mark.parametrize(("name", "scores"), [("closet-ai", SCORES["closet_ai"]), ("chad", SCORES["chad"])])
def test_a_file_of_a_field_drafters_scores_picks_as_that_drafter(tmp_path, name, scores):
    write_drafter(tmp_path / "d.toml", name, scores)
    game = games.make("locm")
    agent = agents.make(str(tmp_path / "d.toml"), game, seed=0)
    batch = LocmBatch.deal(game, np.random.default_rng(5), 30)
    every = np.arange(30)
    rng = np.random.default_rng(0)
    for turn in range(60):
        expected = DRAFTERS_BATCH[name](batch, every, rng)
        assert agent.act_batch(batch, every).tolist() == expected.tolist(), turn
        assert [agent.choose(batch.state(g)) for g in range(30)] == [
            DRAFTERS[name](batch.state(g), rng) for g in range(30)
        ]
        batch.apply_actions(every, PICK + (turn * 5 + every) % 3)  # other picks, so later turns vary


def test_the_shipped_field_drafter_files_are_the_scripts(tmp_path):
    written = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "locm_field_drafter_files.py"), str(tmp_path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert written.stdout.count("wrote") == 2
    for name in ("chad.toml", "coac.toml"):
        assert (tmp_path / name).read_text() == (SHIPPED / name).read_text(), name


def test_chad_toml_and_coac_toml_pick_as_chad_and_coac():
    game = games.make("locm")
    files = {name: agents.make(str(SHIPPED / f"{name}.toml"), game, seed=0) for name in ("chad", "coac")}
    batch = LocmBatch.deal(game, np.random.default_rng(7), 200)
    every, rng = np.arange(200), np.random.default_rng(0)
    few = 0
    for turn in range(60):
        for name, agent in files.items():
            assert agent.act_batch(batch, every).tolist() == DRAFTERS_BATCH[name](batch, every, rng).tolist(), turn
        picks, held = own_picks(batch, every)
        count = held.sum(axis=1)
        few += int(((count > 0) & ((IS_CREATURE[picks] & held).sum(axis=1) < FEW_CREATURES * count)).sum())
        batch.apply_actions(every, PICK + (turn * 5 + every) % 3)  # other picks, so that seats run short of creatures
    assert few > 0  # coac's picks for a seat short of creatures are among those compared


def test_the_spec_names_the_battler_and_defaults_to_max_attack(tmp_path):
    write_drafter(tmp_path / "d.toml", "d", list(range(160)))
    game = games.make("locm")
    alone = agents.make(str(tmp_path / "d.toml"), game)
    greedy = agents.make(f"{tmp_path / 'd.toml'}+greedy", game)
    assert isinstance(alone, FieldAgent) and (alone.drafter, alone.battler) == ("d", "max-attack")
    assert greedy.battler == "greedy"
    with pytest.raises(UserError, match="unknown battler 'nope'"):
        agents.make(f"{tmp_path / 'd.toml'}+nope", game)
    with pytest.raises(UserError, match="not found"):
        agents.make(str(tmp_path / "missing.toml"), game)


def test_match_eval_and_tournament_take_a_drafter_file(tmp_path):
    write_drafter(tmp_path / "closet.toml", "closet", SCORES["closet_ai"])
    spec = str(tmp_path / "closet.toml")
    code, out, _ = run("match", "locm", spec, "closet-ai", "--games", "40", "--json")
    assert code == 0 and '"wins": 20' in out  # the same drafter on both seats of mirrored deals
    code, out, _ = run("eval", "locm", spec + "+greedy", "--games", "10", "--vs", "coac")
    assert code == 0 and "coac" in out
    code, out, _ = run("tournament", "locm", spec, "coac", "--games", "10", "--out", str(tmp_path / "t"))
    assert code == 0 and spec in out


BAD = {
    "short.toml": ("scores = [1, 2, 3]\n", "'scores' has 3 entries"),
    "words.toml": ("scores = [" + ", ".join(["1"] * 159) + ', "x"]\n', "entry 160 (card 160) is 'x', not a finite"),
    "bool.toml": ("scores = [true" + ", 1" * 159 + "]\n", "entry 1 (card 1) is True"),
    "nan.toml": ("scores = [nan" + ", 1" * 159 + "]\n", "entry 1 (card 1) is nan"),
    "three.toml": ("scores = [[1], [2], [3]]\n", "has 3 lists"),
    "seat.toml": ("scores = [[" + ", ".join(["1"] * 160) + "], [1, 2]]\n", "seat 1's scores has 2 entries"),
    "none.toml": ('name = "x"\n', "has no 'scores' list"),
    "table.toml": ("scores = 3\n", "'scores' must be a list"),
    "extra.toml": ("score = [1]\n", "unknown key 'score'"),
    "broken.toml": ("scores = [1, \n", "drafter file"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_drafter_file_is_one_user_error_line(tmp_path, name):
    text, message = BAD[name]
    (tmp_path / name).write_text(text)
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        read_drafter(tmp_path / name)
    assert "\n" not in str(info.value)
    code, out, err = run("match", "locm", str(tmp_path / name), "coac", "--games", "2")
    assert code != 0 and "Traceback" not in err and err.strip().count("\n") == 0 and name in err
