"""One run per folder (games/folder_lock.py): every command that writes a folder holds its lock; a
second writer is refused in one line naming the holder's pid; the lock of a killed process is taken
over; concurrent `evolve --out SAME` leave exactly one run, equal to a run made alone."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from deckopt.cli import main
from games.errors import UserError
from games.folder_lock import LOCK_NAME, folder_lock

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--generations", "2", "--pool", "4", "--games-per-pair", "2", "--hof-opponents", "1"]
TINY += ["--random-opponents", "1", "--playoff-top", "2", "--playoff-games-per-pair", "2", "--no-validate"]
TINY += ["--seed", "5", "--jobs", "1", "--quiet"]
HOLD = (
    "import sys; from games.folder_lock import folder_lock\n"
    "with folder_lock(sys.argv[1]):\n"
    "    print('held', flush=True); sys.stdin.read()\n"
)


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Holder:
    """Another process holding the lock of `folder` until it is closed (or killed)."""

    def __init__(self, folder: Path):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout.readline().strip() == "held"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


@pytest.fixture
def holder():
    holders = []

    def hold(folder: Path) -> Holder:
        holders.append(Holder(folder))
        return holders[-1]

    yield hold
    for h in holders:
        h.close()


@pytest.fixture(scope="module")
def evolution_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("lock") / "run"
    assert main(["evolve", *TINY, "--out", str(run)]) == 0
    return run


def _writers(folder: Path, run: Path) -> dict[str, list[str]]:
    decks = [str(ROOT / "decks" / "flat.toml"), str(ROOT / "decks" / "random_1.toml")]
    return {
        "evolve": ["evolve", *TINY, "--out", str(folder)],
        "evolve --resume": ["evolve", "--resume", str(run), "--generations", "3", "--quiet"],
        "train": ["train", "tic_tac_toe", "--episodes", "64", "--out", str(folder), "--quiet"],
        "sweep": ["sweep", "--rule", "min_cards", "--values", "20", *TINY, "--out", str(folder)],
        "exploit": ["exploit", "tic_tac_toe", "random", "--episodes", "64", "--out", str(folder)],
        "study": ["study", "agents", str(folder), "--game", "gwent_lite", "--agent", "random", "--games", "2"],
        "tournament": ["tournament", "tic_tac_toe", "random", "heuristic", "--games", "2", "--out", str(folder)],
        "matchups": ["matchups", *decks, "--games", "2", "--out", str(folder)],
        "report": ["report", str(run)],
        "train-pruning": [
            "train-pruning",
            "--arms",
            "uniform",
            "--simulations",
            "10",
            "--epochs",
            "1",
            "--out",
            str(folder),
        ],
        "decks --archetypes": ["decks", str(run), "--archetypes", "2", "--games", "2"],
    }


@pytest.mark.parametrize("command", list(_writers(Path("x"), Path("y"))))
def test_a_second_writer_is_refused_in_one_line_naming_the_holder(command, tmp_path, evolution_run, holder, capsys):
    folder = tmp_path / "out"
    argv = _writers(folder, evolution_run)[command]
    locked = evolution_run if command in ("evolve --resume", "report", "decks --archetypes") else folder
    before = {p: p.read_bytes() for p in locked.rglob("*") if p.is_file() and p.name != LOCK_NAME}
    held = holder(locked)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"is being written by another deckopt process (pid {held.proc.pid})" in err
    assert {p: p.read_bytes() for p in locked.rglob("*") if p.is_file() and p.name != LOCK_NAME} == before


def test_reading_a_run_being_written_takes_no_lock(evolution_run, holder, capsys):
    holder(evolution_run)
    assert main(["decks", str(evolution_run)]) == 0
    assert "gen" in capsys.readouterr().out


def test_the_lock_of_a_killed_process_is_taken_over(tmp_path, holder, capsys):
    folder = tmp_path / "out"
    held = holder(folder)
    os.kill(held.proc.pid, signal.SIGKILL)
    held.proc.wait(timeout=10)
    assert (folder / LOCK_NAME).read_text().strip() == str(held.proc.pid)  # left behind by the dead holder
    assert main(["evolve", *TINY, "--out", str(folder)]) == 0
    assert (folder / "champion.json").is_file() and not (folder / LOCK_NAME).exists()


def test_a_refused_run_leaves_no_folder_and_a_finished_one_no_lock_file(tmp_path, evolution_run, capsys):
    missing = tmp_path / "new" / "run"
    assert main(["evolve", *TINY, "--validation-panel", str(tmp_path / "nowhere"), "--validate", "--out", str(missing)])
    assert not (tmp_path / "new").exists()
    assert not (evolution_run / LOCK_NAME).exists()


def test_the_lock_is_reentrant_in_one_process_and_exclusive_across_processes(tmp_path):
    folder = tmp_path / "out"
    with folder_lock(folder), folder_lock(folder):
        assert (folder / LOCK_NAME).read_text().strip() == str(os.getpid())
        probe = subprocess.run(
            [sys.executable, "-c", HOLD, str(folder)], input="", capture_output=True, text=True, timeout=60
        )
        assert probe.returncode == 1 and f"(pid {os.getpid()})" in probe.stderr
    assert not folder.exists()  # made by the lock, empty: removed with it
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="is a file, not a folder"):
        with folder_lock(tmp_path / "file"):
            pass


@pytest.mark.slow
def test_concurrent_writers_leave_exactly_one_run_equal_to_a_run_made_alone():
    """Five writers, once (about 20 s on 2 cores); scripts/concurrent_writers.py runs ten, 20 times."""
    lines = []
    failed = _load_script("concurrent_writers").run_repeats(repeats=1, writers=5, log=lines.append)
    assert failed == 0, lines


def _plant(kind: str, lock: Path, victim: Path) -> None:
    if kind == "link":
        lock.symlink_to(victim)
    elif kind == "dangling link":
        lock.symlink_to(victim.with_name("made-by-the-lock.txt"))
    elif kind == "hard link":
        os.link(victim, lock)
    else:
        os.mkfifo(lock)


@pytest.mark.parametrize("kind", ["link", "dangling link", "hard link", "fifo"])
@pytest.mark.parametrize("command", ["report", "evolve --out"])
def test_a_lock_file_that_is_not_a_plain_file_is_refused_in_one_line_and_its_target_untouched(
    kind, command, tmp_path, evolution_run, capsys
):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = evolution_run if command == "report" else tmp_path / "out"
    folder.mkdir(exist_ok=True)
    lock = folder / LOCK_NAME
    _plant(kind, lock, victim)
    argv = ["report", str(folder)] if command == "report" else ["evolve", *TINY, "--out", str(folder)]
    capsys.readouterr()
    try:
        assert main(argv) == 2
    finally:
        lock.unlink()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"its lock file {LOCK_NAME} is" in err, err
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "made-by-the-lock.txt").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"victim.txt", "out"}


def test_a_folder_inside_one_another_process_writes_is_refused_in_one_line(tmp_path, evolution_run, holder, capsys):
    outer = tmp_path / "sweep"
    shutil.copytree(evolution_run, outer / "sub")
    before = {p: p.read_bytes() for p in outer.rglob("*") if p.is_file() and p.name != LOCK_NAME}
    held = holder(outer)
    capsys.readouterr()
    assert main(["evolve", "--resume", str(outer / "sub"), "--generations", "3", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"which is being written by another deckopt process (pid {held.proc.pid})" in err
    assert {p: p.read_bytes() for p in outer.rglob("*") if p.is_file() and p.name != LOCK_NAME} == before
    held.close()
    with folder_lock(outer), folder_lock(outer / "sub"):  # the same process: a command writing its own sub-folder
        pass
