"""DQN self-play split into shards (`selfplay_shards`) played by worker processes (`deckopt train --jobs`):
the run depends on the shards, never on the processes; a shard is the lock-step self-play of its own
seed; old checkpoints without the setting still resume; bad combinations are one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import dqn
from agents.dqn.config import DQNConfig
from agents.dqn.selfplay import SelfPlayRecorder, play_phase, self_play
from agents.learned import NumpyNetwork
from agents.learning.runfolder import read_checkpoint, read_run_config
from agents.learning.shards import Shard, play_shard, shard_sizes
from agents.parallel import Mapper
from deckopt.cli import main
from games import UserError
from games.config import config_from_dict
from tests.test_dqn_runs import TINY, assert_same_run

#: the overall limit of every wait for an event (a file, a line, a process's exit): generous, so a
#: loaded machine never fails a test by the clock; the waits end as soon as the event comes
PATIENCE = 600.0


def tiny(**settings) -> DQNConfig:
    return config_from_dict(DQNConfig, {**TINY, **settings})


def test_shard_sizes_cover_the_games_and_differ_by_at_most_one():
    assert shard_sizes(10, 3) == [4, 3, 3]
    assert shard_sizes(16, 4) == [4, 4, 4, 4]
    assert shard_sizes(5, 5) == [1] * 5
    for n, k in [(256, 7), (17, 2), (1000, 9)]:
        sizes = shard_sizes(n, k)
        assert sum(sizes) == n and max(sizes) - min(sizes) <= 1


def test_a_shard_is_the_lock_step_self_play_of_its_seed():
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(84, 16)).astype(np.float32), np.zeros(16, np.float32)]
    weights += [rng.normal(size=(16, 7)).astype(np.float32), np.zeros(7, np.float32)]
    args = (NumpyNetwork(weights, ["relu", "tanh"]), 0.3, 0.9, 0, {})
    got = play_shard(Shard(play_phase, "connect_four", {}, args, 12, 123, 0))
    from games import make

    own = np.random.default_rng(123)
    recorder = SelfPlayRecorder(NumpyNetwork(weights, ["relu", "tanh"]), own)
    want = self_play(make("connect_four"), recorder, 12, 0.3, 0.9, own)
    for x, y in zip((got.obs, got.actions, got.targets, got.returns), want, strict=True):
        np.testing.assert_array_equal(x, y)
    assert len(got.obs) > 12 * 6  # every game was played to its end (at least 7 moves each)


@pytest.fixture(scope="module")
def sharded_in_process(tmp_path_factory):
    out = tmp_path_factory.mktemp("shards") / "jobs1"
    dqn.train("tic_tac_toe", tiny(seed=5, selfplay_shards=3, opponent_mix={"random": 0.25}), out, episodes=64)
    return out


@pytest.mark.cross_cpu
def test_the_run_is_the_same_on_one_or_two_worker_processes(sharded_in_process, tmp_path):
    config = tiny(seed=5, selfplay_shards=3, opponent_mix={"random": 0.25})
    with Mapper(2) as pmap:
        dqn.train("tic_tac_toe", config, tmp_path / "jobs2", episodes=64, mapper=pmap)
    assert_same_run(sharded_in_process, tmp_path / "jobs2")


def test_shards_change_the_games_and_one_shard_is_the_old_single_batch(sharded_in_process, tmp_path):
    dqn.train("tic_tac_toe", tiny(seed=5, opponent_mix={"random": 0.25}), tmp_path / "one", episodes=64)
    dqn.train(
        "tic_tac_toe", tiny(seed=5, selfplay_shards=1, opponent_mix={"random": 0.25}), tmp_path / "one_b", episodes=64
    )
    assert_same_run(tmp_path / "one", tmp_path / "one_b")
    one = read_checkpoint(tmp_path / "one" / "checkpoints" / "checkpoint.npz")[1]
    sharded = read_checkpoint(sharded_in_process / "checkpoints" / "checkpoint.npz")[1]
    replay = next(k for k in one if k.startswith("replay") and one[k].ndim == 2)
    assert not np.array_equal(one[replay], sharded[replay])  # other seeds, other games


def test_a_checkpoint_from_before_the_setting_resumes(tmp_path):
    out = tmp_path / "old"
    dqn.train("tic_tac_toe", tiny(seed=1, checkpoint_minutes=0.0), out, episodes=32)
    # the run folder as an older version wrote it: no selfplay_shards in config.json or the checkpoint
    config = json.loads((out / "config.json").read_text())
    del config["selfplay_shards"]
    (out / "config.json").write_text(json.dumps(config))
    path = out / "checkpoints" / "checkpoint.npz"
    state, arrays = read_checkpoint(path)
    del state["config"]["selfplay_shards"]
    np.savez(path, state=np.array(json.dumps(state)), **arrays)
    config = read_run_config(out, "tic_tac_toe", DQNConfig, "dqn")
    summary = dqn.train("tic_tac_toe", config, out, episodes=48, resume=True)
    assert summary["episodes"] == 48


def test_bad_shard_settings_are_one_line(tmp_path, capsys):
    with pytest.raises(UserError, match="selfplay_shards .* must not exceed games_per_batch"):
        tiny(selfplay_shards=17)
    with pytest.raises(UserError, match="selfplay_shards must be >= 1"):
        tiny(selfplay_shards=0)
    code = main(["train", "tic_tac_toe", "--jobs", "2", "--episodes", "16", "--quiet", "--out", str(tmp_path / "a")])
    assert code == 2 and "--selfplay-shards" in capsys.readouterr().err
    code = main(["train", "connect_four", "--algo", "ppo", "--jobs", "2", "--out", str(tmp_path / "b")])
    assert code == 2 and "--selfplay-shards" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_deckopt_train_jobs_gives_the_run_of_one_process(tmp_path, capsys):
    toml = tmp_path / "tiny.toml"
    toml.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items()))
    common = ["train", "tic_tac_toe", "--config", str(toml), "--selfplay-shards", "2", "--episodes", "32", "--quiet"]
    assert main([*common, "--out", str(tmp_path / "j1")]) == 0
    assert main([*common, "--jobs", "2", "--out", str(tmp_path / "j2")]) == 0
    assert_same_run(tmp_path / "j1", tmp_path / "j2")
    assert json.loads((tmp_path / "j2" / "config.json").read_text())["selfplay_shards"] == 2


def _start_sharded_training(tmp_path):
    """`deckopt train --jobs 2` in its own session (a terminal's Ctrl-C reaches the whole group), with
    the default SIGINT handling; returns (process, run folder, its loky workers once they run)."""
    import signal
    import subprocess
    import sys
    import time

    import psutil

    toml = tmp_path / "tiny.toml"
    toml.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in {**TINY, "games_per_batch": 64}.items()))
    run = tmp_path / "run"
    argv = ["train", "tic_tac_toe", "--config", str(toml), "--selfplay-shards", "2", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "deckopt", *argv, "--episodes", "10000000", "--quiet", "--out", str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + PATIENCE
    try:
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run did not get going"
            children = psutil.Process(proc.pid).children(recursive=True)
            workers = [c for c in children if _is_loky_worker(c)]
            if len(workers) == 2 and (run / "checkpoints" / "checkpoint.npz").is_file():
                return proc, run, children, workers
            time.sleep(0.05)
    except BaseException:
        proc.kill()  # its workers follow their parent
        raise


def _is_loky_worker(process) -> bool:
    import psutil

    try:
        return "popen_loky" in " ".join(process.cmdline())
    except psutil.Error:  # gone (or a zombie) since it was listed: a short-lived helper process
        return False


def _all_gone(processes, within: float = PATIENCE) -> bool:
    import time

    import psutil

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not [p for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]:
            return True
        time.sleep(0.1)
    return False


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.faults
def test_ctrl_c_to_the_whole_group_stops_after_the_phase_and_the_run_resumes(tmp_path):
    import os
    import signal

    proc, run, children, _ = _start_sharded_training(tmp_path)
    os.killpg(proc.pid, signal.SIGINT)  # the workers get it too, and must not break the phase
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 130, err
    notice, line = [line for line in err.splitlines() if line.strip()]  # no traceback from any process
    assert notice.startswith("stopping after this batch")
    assert "interrupted; checkpoint saved" in line and f"--resume {run}" in line and "--jobs 2" in line
    assert _all_gone(children)
    done = read_checkpoint(run / "checkpoints" / "checkpoint.npz")[0]["episodes"]
    assert main(["train", "tic_tac_toe", "--resume", str(run), "--episodes", str(done + 64), "--quiet"]) == 0


@pytest.mark.faults
def test_a_killed_worker_stops_the_training_in_one_line(tmp_path):
    proc, run, children, workers = _start_sharded_training(tmp_path)
    workers[0].kill()
    _, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 1, err
    line = _one_line(err)
    assert "worker process died" in line and f"--resume {run}" in line
    assert _all_gone(children)
    assert (run / "checkpoints" / "checkpoint.npz").is_file()
