"""Run files that are not plain files of their folder (games/fileio.py `open_for_reading`): a FIFO, a
device, a link leading out of the run folder, and files above the cap of their kind. Each ends in
one line (exit 2) before a byte is read: no command waits on a FIFO or a terminal, no file outside
the folder is read as the folder's, and no oversized logbook or JSON file is parsed."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deckopt.cli import main
from evolution.runfolder import MAX_LOGBOOK_BYTES, RunFolder
from games.errors import UserError
from games.fileio import open_for_reading, read_file_bytes
from games.schema import MAX_FILE_BYTES

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "tests" / "fixtures" / "evolve" / "gwent_racing"
#: the overall limit for a command that must end at once: generous, so a loaded machine never fails it
EXIT_LIMIT = 300


@pytest.fixture
def run(tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(RUN, folder)
    return folder


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as f:  # no disk used, and never read
        f.truncate(size)


def _one_line(argv: list[str], capsys) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def _run_beside_an_open_stdin(argv: list[str]) -> tuple[int, str]:
    """The exit code and stderr of `deckopt ARGV` in a child whose stdin is a pipe held open until it
    ends: a command that read its stdin or a FIFO would wait until the overall limit fails the test."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "deckopt", *argv], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        proc.wait(timeout=EXIT_LIMIT)
    finally:
        proc.kill()
        proc.stdin.close()
    return proc.returncode, proc.stderr.read()


def test_only_regular_files_of_their_folder_are_opened(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "inner.json").write_text("{}")
    (folder / "link_in.json").symlink_to(folder / "inner.json")
    (folder / "link_out.json").symlink_to(outside)
    (folder / "to_device.json").symlink_to("/dev/zero")
    os.mkfifo(folder / "fifo.json")
    assert read_file_bytes(folder / "link_in.json", "run file", 10, inside=folder) == b"{}"
    assert read_file_bytes(folder / "link_out.json", "run file", 10) == b"{}"  # no folder named: a path given
    with pytest.raises(UserError, match="is a link leading out of its folder"):
        read_file_bytes(folder / "link_out.json", "run file", 10, inside=folder)
    for name in ("to_device.json", "fifo.json"):
        with pytest.raises(UserError, match="is not a regular file"):
            open_for_reading(folder / name, "run file", 10)
    with pytest.raises(UserError, match="is a folder, not a file"):
        open_for_reading(folder, "run file", 10)
    with pytest.raises(UserError, match="not found"):
        open_for_reading(folder / "missing.json", "run file", 10)
    with pytest.raises(UserError, match=r"is too large \(11 bytes; at most 10\)"):
        (folder / "big.json").write_bytes(b"x" * 11)
        open_for_reading(folder / "big.json", "run file", 10)


@pytest.mark.parametrize("config", ["/dev/stdin", "fifo"])
def test_a_study_naming_a_terminal_or_a_fifo_as_its_config_ends_in_one_line(config, tmp_path):
    study = tmp_path / "study"
    assert main(["exploit", "tic_tac_toe", "random", "--episodes", "64", "--out", str(study)]) == 0
    if config == "fifo":
        config = str(study / "shipped.fifo")
        os.mkfifo(config)
    settings = json.loads((study / "study.json").read_text())
    (study / "study.json").write_text(json.dumps({**settings, "config": config}))
    argv = ["exploit", "tic_tac_toe", "random", "--resume", str(study), "--episodes", "256"]
    code, err = _run_beside_an_open_stdin(argv)
    assert code == 2 and err.count("\n") == 1, err
    assert f"config file '{config}' is not a regular file" in err


def test_a_fifo_in_a_run_folder_ends_in_one_line(run):
    for name in ("logbook.csv", "best_decks.json", "generations/gen_0001.json"):
        (run / name).unlink()
        os.mkfifo(run / name)
    with pytest.raises(UserError, match="logbook .* is not a regular file"):
        RunFolder(run).read_logbook()
    with pytest.raises(UserError, match="is not a regular file"):
        RunFolder(run).read_json(run / "best_decks.json")
    code, err = _run_beside_an_open_stdin(["decks", str(run), "--generation", "1"])
    assert code == 2 and err.count("\n") == 1, err  # a FIFO is no generation file: one line, no wait


def test_a_run_file_linked_out_of_its_folder_is_not_read(run, tmp_path, capsys):
    outside = tmp_path / "elsewhere.json"
    shutil.copy(run / "config.json", outside)
    (run / "config.json").unlink()
    (run / "config.json").symlink_to(outside)
    err = _one_line(["decks", str(run)], capsys)
    assert "is a link leading out of its folder" in err


def test_a_logbook_above_its_cap_is_refused_before_it_is_read(run):
    _sparse(run / "logbook.csv", MAX_LOGBOOK_BYTES + 1)
    with pytest.raises(UserError, match="logbook .* is too large"):
        RunFolder(run).read_logbook()


def test_a_damaged_logbook_ends_in_one_line(run):
    (run / "logbook.csv").write_text("gen,best\n1,not-a-number\n")
    with pytest.raises(UserError, match="logbook .* is damaged"):
        RunFolder(run).read_logbook()


@pytest.mark.parametrize("name", ["config.json", "generations/gen_0001.json"])
def test_a_json_run_file_above_its_cap_is_refused_before_it_is_read(name, run, capsys):
    _sparse(run / name, MAX_FILE_BYTES + 1)
    assert "is too large" in _one_line(["decks", str(run), "--generation", "1"], capsys)


def test_a_matchups_file_above_its_cap_is_refused_before_it_is_read(run, capsys):
    _sparse(run / "matchups.json", MAX_FILE_BYTES + 1)
    assert "matchups file" in _one_line(["report", str(run), "--matchups", "2"], capsys)


def test_a_report_draws_again_a_plot_that_is_a_fifo_or_a_link_out_of_its_folder(run, tmp_path):
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(b"\x89PNG not the run's own plot " * 64)
    os.mkfifo(run / "fitness.png")
    (run / "best_deck_powers.png").symlink_to(outside)
    (run / "matchups.png").symlink_to(outside)
    code, err = _run_beside_an_open_stdin(["report", str(run)])  # a plot read from the FIFO would wait
    assert code == 0, err
    html = (run / "report.html").read_text()
    assert base64.b64encode(outside.read_bytes()).decode() not in html
    assert html.count("data:image/png;base64,") >= 2  # both plots drawn again from the run's data
