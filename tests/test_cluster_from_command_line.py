"""A run folder never chooses where deckopt connects: on `evolve --resume` and on a sweep resuming its
runs, the backend and the scheduler come from the command line only. A config.json naming a
scheduler at a port where a listener counts connections sees none, and the resumed run says which
cluster it uses."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from deckopt.cli import main

TINY = ["--pool", "4", "--games-per-pair", "2", "--hof-opponents", "1", "--random-opponents", "1"]
TINY += ["--playoff-top", "2", "--playoff-games-per-pair", "2", "--no-validate", "--seed", "5", "--jobs", "1"]
SWEEP = ["sweep", "--game", "gwent_abilities", "--rule", "copy_limit", "--values", "1", "--generations", "2"]
SWEEP += ["--pool", "4", "--games-per-pair", "2", "--jobs", "1", "--hof-size", "2", "--hof-opponents", "2"]
SWEEP += ["--heldout-decks", "2", "--heldout-games", "2"]


class CountingListener:
    """A TCP listener on 127.0.0.1 that accepts and counts every connection (and answers nothing)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.server.close()


@pytest.fixture
def listener():
    counting = CountingListener()
    yield counting
    counting.close()


def point_at(config_file: Path, port: int) -> None:
    """A hostile edit of a run's config.json: the dask backend and a scheduler at `port`."""
    config = json.loads(config_file.read_text())
    config["backend"] = "dask"
    config["scheduler"] = f"tcp://127.0.0.1:{port}"
    config_file.write_text(json.dumps(config))


def test_evolve_resume_never_connects_to_the_scheduler_of_config_json(tmp_path, listener, capsys):
    run = tmp_path / "run"
    assert main(["evolve", *TINY, "--generations", "1", "--out", str(run), "--quiet"]) == 0
    point_at(run / "config.json", listener.port)
    capsys.readouterr()
    assert main(["evolve", "--resume", str(run), "--generations", "2"]) == 0
    assert listener.connections == 0
    err = capsys.readouterr().err
    resumed = [line for line in err.splitlines() if "resuming" in line]
    assert len(resumed) == 1 and "after generation 0 on in-process (1 job)" in resumed[0]
    saved = json.loads((run / "config.json").read_text())
    assert "127.0.0.1" not in json.dumps(saved)  # the run's own record names the cluster it used


def test_evolve_resume_uses_the_scheduler_of_the_command_line(tmp_path, listener, capsys):
    """--scheduler on the command line is the one way to a cluster: that address is reached."""
    pytest.importorskip("distributed")
    run = tmp_path / "run"
    assert main(["evolve", *TINY, "--generations", "1", "--out", str(run), "--quiet"]) == 0
    argv = ["evolve", "--resume", str(run), "--generations", "2", "--scheduler", f"tcp://127.0.0.1:{listener.port}"]
    argv += ["--task-timeout", "5", "--quiet"]
    assert main(argv) == 2
    assert listener.connections >= 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_a_sweep_resuming_a_run_never_connects_to_its_scheduler(tmp_path, listener, capsys):
    out = tmp_path / "sweep"
    assert main([*SWEEP, "--out", str(out), "--quiet"]) == 0
    run = out / "copy_limit=1"
    point_at(run / "config.json", listener.port)
    (run / "sweep_measurement.json").unlink()  # the run is measured again, then resumed without its champion
    assert main([*SWEEP, "--out", str(out), "--quiet"]) == 0
    (run / "sweep_measurement.json").unlink()
    (run / "champion.json").unlink()
    point_at(run / "config.json", listener.port)
    assert main([*SWEEP, "--out", str(out), "--quiet"]) == 0
    assert listener.connections == 0
    assert (run / "sweep_measurement.json").is_file()
