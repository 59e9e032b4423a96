"""`deckopt evolve --jobs 2` stopped from outside: Ctrl-C, SIGTERM, a killed worker, stopped workers,
kill -9. Each run is a subprocess with a tiny config; each must end with one line on stderr (the
resume hint, no traceback), leave no process behind, and resume to exactly the run that was never
interrupted. The Dask backend, quiet or not, gives the same run as loky."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from deckopt.cli import main

pytestmark = pytest.mark.faults

#: the overall limit of every wait for an event (a file, a line, a process's exit): generous, so a
#: loaded machine (two busy loops beside the suite on 2 cores) never fails a test by the clock; a
#: healthy run meets each event in seconds, and the waits end as soon as it does
PATIENCE = 600.0

# generation maps of about a second (so a signal lands inside one), a small playoff, no validation
ARGS = [
    "--generations",
    "4",
    "--pool",
    "6",
    "--games-per-pair",
    "40",
    "--hof-opponents",
    "2",
    "--random-opponents",
    "2",
    "--playoff-top",
    "2",
    "--playoff-games-per-pair",
    "10",
    "--no-validate",
    "--seed",
    "5",
]


def computed(run: Path) -> dict:
    """What a run computed: every generation file (without timings) and the champion."""
    out = {}
    for f in sorted((run / "generations").glob("gen_*.json")):
        d = json.loads(f.read_text())
        d.pop("seconds")
        out[f.name] = d
    out["champion"] = json.loads((run / "champion.json").read_text())
    return out


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("faults") / "whole"
    assert main(["evolve", *ARGS, "--jobs", "1", "--out", str(run), "--quiet"]) == 0
    return run


@pytest.fixture(scope="module")
def uninterrupted(whole_run) -> dict:
    return computed(whole_run)


def start(run: Path, *extra: str) -> subprocess.Popen:
    """The CLI in its own session (a terminal's Ctrl-C reaches the whole process group), with the
    default SIGINT handling even where the test runner's shell ignores it."""
    return subprocess.Popen(
        [sys.executable, "-m", "deckopt", "evolve", *ARGS, "--jobs", "2", "--out", str(run), "--quiet", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def after_generation(
    proc: subprocess.Popen, run: Path, gen: int = 1, timeout: float = PATIENCE
) -> list[psutil.Process]:
    """Waits until generation `gen` is saved; returns the run's child processes (workers etc.)."""
    deadline = time.monotonic() + timeout
    while not (run / "generations" / f"gen_{gen:04d}.json").is_file():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.02)
    return psutil.Process(proc.pid).children(recursive=True)


def a_live_worker(proc: subprocess.Popen) -> tuple[psutil.Process, list[psutil.Process]]:
    """One of the run's loky workers once one is running (waits for it), and all the run's child
    processes at that moment."""
    deadline = time.monotonic() + PATIENCE
    while True:
        assert proc.poll() is None, proc.communicate()
        children = psutil.Process(proc.pid).children(recursive=True)
        running = [w for w in workers(children) if is_alive(w)]
        if running:
            return running[0], children
        assert time.monotonic() < deadline, "no worker running"
        time.sleep(0.02)


def command_line(p: psutil.Process) -> str:
    """A process's command line; empty once it has exited or is a zombie (a short-lived child may end
    between being listed and being asked)."""
    try:
        return " ".join(p.cmdline())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return ""


def is_alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def workers(children: list[psutil.Process]) -> list[psutil.Process]:
    return [c for c in children if "popen_loky" in command_line(c)]


def assert_all_gone(processes: list[psutil.Process], within: float = PATIENCE) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [p for p in processes if is_alive(p)]
        if not alive:
            return
        time.sleep(0.1)
    raise AssertionError(f"processes left behind: {[(p.pid, command_line(p)[-120:]) for p in alive]}")


def assert_one_line(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


def resume_and_compare(run: Path, uninterrupted: dict) -> None:
    assert main(["evolve", "--resume", str(run), "--jobs", "1", "--quiet"]) == 0
    assert computed(run) == uninterrupted


def test_ctrl_c_stops_cleanly_and_resumes_exactly(tmp_path, uninterrupted):
    run = tmp_path / "run"
    proc = start(run)
    children = after_generation(proc, run)
    assert len(workers(children)) == 2
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the workers get it too
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130
    assert_one_line(err, "interrupted", f"--resume {run}", "are saved")
    assert_all_gone(children)
    resume_and_compare(run, uninterrupted)


def test_sigterm_stops_like_ctrl_c(tmp_path, uninterrupted):
    run = tmp_path / "run"
    proc = start(run)
    children = after_generation(proc, run)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130
    assert_one_line(err, "SIGTERM", f"--resume {run}")
    assert_all_gone(children)
    resume_and_compare(run, uninterrupted)


def test_a_killed_worker_stops_the_run_in_one_line(tmp_path, uninterrupted):
    run = tmp_path / "run"
    proc = start(run)
    after_generation(proc, run)
    worker, children = a_live_worker(proc)
    worker.kill()
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 1, err
    assert_one_line(err, "worker process died", f"--resume {run}")
    assert_all_gone(children)
    resume_and_compare(run, uninterrupted)


def test_stopped_workers_hit_the_task_timeout(tmp_path, uninterrupted):
    """The timeout (15 s) is several times a healthy work unit on a loaded machine (two busy loops
    beside the suite on 2 cores), so only the stopped workers trip it."""
    run = tmp_path / "run"
    proc = start(run, "--task-timeout", "15")
    children = after_generation(proc, run)
    for w in workers(children):
        w.suspend()  # SIGSTOP: alive but never answering
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 1, err
    assert_one_line(err, "longer than 15 s", "task_timeout", f"--resume {run}")
    assert_all_gone(children)  # the stopped workers too
    resume_and_compare(run, uninterrupted)


def test_kill_9_leaves_no_worker_and_resumes_exactly(tmp_path, uninterrupted):
    run = tmp_path / "run"
    proc = start(run)
    children = after_generation(proc, run)
    proc.kill()
    proc.communicate(timeout=PATIENCE)
    assert_all_gone(children)  # the workers notice that their parent is gone
    resume_and_compare(run, uninterrupted)


def test_a_resumed_champion_belongs_to_the_last_generation(tmp_path, whole_run):
    """A finished run extended by a generation and stopped before its new champion was chosen: the
    next resume chooses it again instead of reporting the shorter run's."""
    from evolution.loop import evolve

    run = tmp_path / "run"
    shutil.copytree(whole_run, run)
    old = json.loads((run / "champion.json").read_text())
    evolve(None, run, resume=True, overrides={"generations": 5, "jobs": 1}, finish=False)
    assert json.loads((run / "champion.json").read_text()) == old  # stale: chosen after generation 3
    assert main(["evolve", "--resume", str(run), "--jobs", "1", "--quiet"]) == 0
    assert json.loads((run / "champion.json").read_text())["generation"] == 4 != old["generation"]


def test_a_disk_filling_up_mid_run_ends_in_one_line_and_the_run_resumes(tmp_path, uninterrupted, monkeypatch, capsys):
    """No space left while generation 2 is written: one line with the resume hint (exit 2), the
    generations before it whole, and the resumed run ends where an uninterrupted one does."""
    import errno

    from evolution.runfolder import RunFolder

    write = RunFolder.write_generation

    def full_at_2(self, state, *a, **k):
        if state.generation == 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.generation_file(2)))
        return write(self, state, *a, **k)

    monkeypatch.setattr(RunFolder, "write_generation", full_at_2)
    run = tmp_path / "run"
    assert main(["evolve", *ARGS, "--jobs", "1", "--out", str(run), "--quiet"]) == 2
    assert_one_line(capsys.readouterr().err, "No space left", "generations 0..1 are saved", f"--resume {run}")
    monkeypatch.undo()
    resume_and_compare(run, uninterrupted)


ROOT = Path(__file__).resolve().parents[1]
FLAT, RANDOM_1 = str(ROOT / "decks" / "flat.toml"), str(ROOT / "decks" / "random_1.toml")
# every other command with --jobs, each with more games than it can finish before it is killed
YARDSTICK = str(ROOT / "decks" / "yardstick")
LONG_COMMANDS = {
    "matchups": ["matchups", YARDSTICK, "--games", "2000", "--jobs", "2"],
    "advise": ["advise", FLAT, "--vs", YARDSTICK, "--games", "2000", "--rounds", "1", "--jobs", "2"],
    "study": ["study", "racing", "{tmp}/study", "--deals", "2000", "--random-decks", "50", "--opponents", "20"]
    + ["--jobs", "2"],
    "report": ["report", "{run}", "--matchups", "2000", "--jobs", "2"],
    "decks": ["decks", "{run}", "--validate", "--games", "20000", "--seed", "1", "--jobs", "2"],
    "train": ["train", "gwent_lite", "--episodes", "10000000", "--games-per-batch", "256", "--selfplay-shards", "2"]
    + ["--out", "{tmp}/train", "--jobs", "2"],
    # a short best-response training, then a long evaluation map
    "exploit": ["exploit", "gwent_lite", "random", "--out", "{tmp}/exploit", "--episodes", "64"]
    + ["--random-pairings", "2000", "--deals", "50", "--jobs", "2"],
}


def _start_long(command: str, tmp_path: Path, run: Path, *extra: str) -> subprocess.Popen:
    argv = [a.format(tmp=tmp_path, run=run) for a in LONG_COMMANDS[command]]
    return subprocess.Popen(
        [sys.executable, "-m", "deckopt", *argv, *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's shell leaves it
    )


def _wait_for_workers(proc: subprocess.Popen, timeout: float = PATIENCE) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    while len(workers(children := psutil.Process(proc.pid).children(recursive=True))) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no workers started"
        time.sleep(0.05)
    return children


@pytest.mark.parametrize("command", sorted(LONG_COMMANDS))
def test_kill_9_of_any_command_leaves_no_worker(command, tmp_path, whole_run):
    """kill -9 of the run's process: its loky workers (even one that never got a task) notice and
    exit, whatever the command."""
    proc = _start_long(command, tmp_path, whole_run)
    try:
        children = _wait_for_workers(proc)
        proc.kill()
        proc.wait(timeout=PATIENCE)
        assert_all_gone(children)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("command", ["matchups", "advise", "study", "report", "decks"])
def test_ctrl_c_stops_any_command_in_one_line_and_leaves_no_worker(command, tmp_path, whole_run):
    """A terminal's Ctrl-C (SIGINT to the whole process group) mid-map: exit 130, one line, no worker left."""
    proc = _start_long(command, tmp_path, whole_run)
    try:
        children = _wait_for_workers(proc)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=PATIENCE)
        assert proc.returncode == 130, err
        assert_one_line(err, "interrupted")
        assert_all_gone(children)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("command", ["matchups", "advise", "study"])
def test_stopped_workers_stop_any_command_in_one_line(command, tmp_path):
    """kill -STOP of the workers: the command's task timeout ends it in one line, workers killed."""
    proc = _start_long(command, tmp_path, tmp_path, "--task-timeout", "3")
    try:
        children = _wait_for_workers(proc)
        time.sleep(0.5)  # past the workers' start
        for w in workers(children):
            w.suspend()
        _, err = proc.communicate(timeout=PATIENCE)
        assert proc.returncode == 1, err
        assert_one_line(err, "longer than 3 s")
        assert_all_gone(children)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("fault", ["ctrl-c", "stopped workers"])
def test_exploit_s_evaluation_ends_in_one_line_and_leaves_no_worker(fault, tmp_path):
    """exploit's evaluation map after its training (whose log lines come first, TensorFlow's too):
    Ctrl-C ends it with exit 130, stopped workers with its task timeout (exit 1), each in one last
    line, no traceback, no worker left. Only the stopped workers' case has a short task timeout, which
    stopped workers trip whether or not a loaded machine has finished a work unit by then."""
    proc = _start_long("exploit", tmp_path, tmp_path, *(["--task-timeout", "3"] if fault != "ctrl-c" else []))
    try:
        children = _wait_for_workers(proc)
        time.sleep(0.5)  # past the workers' start
        if fault == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            for w in workers(children):
                w.suspend()
        _, err = proc.communicate(timeout=PATIENCE)
        assert proc.returncode == (130 if fault == "ctrl-c" else 1), err
        assert "Traceback" not in err, err
        last = [line for line in err.splitlines() if line.strip()][-1]
        assert ("interrupted" if fault == "ctrl-c" else "longer than 3 s") in last, err
        assert_all_gone(children)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_z_longer_than_the_task_timeout_is_no_failure(tmp_path):
    """The whole run stopped (Ctrl-Z) for longer than the task timeout, then continued: nothing is
    wrong, so the run finishes."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deckopt",
            "matchups",
            YARDSTICK,
            "--games",
            "600",
            "--jobs",
            "2",
            "--task-timeout",
            "15",  # a worker's start on a loaded machine takes seconds: a margin over it
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        busy = workers(_wait_for_workers(proc))
        while sum(w.cpu_times().user for w in busy) < 3:  # playing, past their start
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGSTOP)
        time.sleep(20)
        os.killpg(proc.pid, signal.SIGCONT)
        _, err = proc.communicate(timeout=PATIENCE)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "progress"])
def test_dask_backend_equals_loky_quiet_or_not(tmp_path, uninterrupted, quiet, capsys):
    pytest.importorskip("distributed")
    run = tmp_path / "dask"
    argv = ["evolve", *ARGS, "--backend", "dask", "--jobs", "2", "--out", str(run)] + (["--quiet"] if quiet else [])
    assert main(argv) == 0
    assert computed(run) == uninterrupted
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("" if quiet else "gen   3:") in err


def test_loky_resource_tracker_warnings_are_filtered_for_the_tracker_process(monkeypatch):
    from agents import parallel

    monkeypatch.setenv("PYTHONWARNINGS", "default::DeprecationWarning")
    parallel._quiet_loky_resource_tracker()
    parallel._quiet_loky_resource_tracker()  # once only
    assert os.environ["PYTHONWARNINGS"] == "default::DeprecationWarning," + parallel._TRACKER_WARNINGS


def _process_group(_) -> int:
    return os.getpgrp()


def test_workers_run_in_their_own_process_group_and_the_run_never_ignores_sigint(monkeypatch):
    """A Ctrl-C to the run's process group (a terminal's) never reaches a worker, which would die of it
    mid-import, and the run keeps its SIGINT handler while workers start and tasks are dispatched, so
    that no Ctrl-C is lost (CI caught two: one sent just after a generation was saved landed in the next
    map's dispatch; one sent as the workers started landed while the run ignored SIGINT to spawn them)."""
    import joblib
    from joblib.externals.loky.backend import fork_exec

    from agents import parallel

    handlers = []
    call = joblib.Parallel.__call__

    def recording(self, iterable):
        handlers.append(signal.getsignal(signal.SIGINT))
        return call(self, iterable)

    monkeypatch.setattr(joblib.Parallel, "__call__", recording)
    parallel.kill_loky_workers()  # the workers of earlier tests: this one starts its own
    parallel._spawn_workers_in_own_process_group()
    spawn = fork_exec.fork_exec  # wrapped, to see the run's handler as each worker starts

    def spawning(*args, **kwargs):
        handlers.append(signal.getsignal(signal.SIGINT))
        return spawn(*args, **kwargs)

    spawning._deckopt = True
    monkeypatch.setattr(fork_exec, "fork_exec", spawning)
    with parallel.Mapper(jobs=2) as mapper:
        for _ in range(2):  # the first map starts the workers, the second reuses them
            groups = mapper(_process_group, [(i,) for i in range(4)])
            assert os.getpgrp() not in groups
    assert len(handlers) >= 3 and signal.SIG_IGN not in handlers
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def test_a_worker_that_dies_between_two_maps_stops_the_next_one_even_if_its_death_is_noticed_late(monkeypatch):
    """joblib replaces a broken loky executor without a word; a map that started before the death was
    noticed (a busy machine) still ends in WorkerFailure instead of carrying on with new workers."""
    from agents import parallel

    with parallel.Mapper(jobs=2) as mapper:
        pids = set(mapper(_pid, [(i,) for i in range(8)]))
        os.kill(next(iter(pids)), signal.SIGKILL)
        deadline = time.monotonic() + PATIENCE
        while not parallel._loky_broken():  # loky's manager thread notices the death
            assert time.monotonic() < deadline
            time.sleep(0.02)
        monkeypatch.setattr(parallel, "_loky_broken", lambda: False)  # as if the map had checked just before
        with pytest.raises(parallel.WorkerFailure, match="a worker process died"):
            mapper(_pid, [(i,) for i in range(8)])


def _pid(_) -> int:
    return os.getpid()
