"""DQN training runs: the run folder, exact resume (after a stop request, after kill -9, before the
first periodic checkpoint), damaged or edited checkpoints, a diverging loss, and learning at all."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import agents.learning.runfolder as runlog
from agents import dqn
from agents.dqn.config import DQNConfig
from agents.learned import read_npz
from agents.learning.runfolder import read_checkpoint, read_run_config
from games import UserError
from games.config import config_from_dict, config_to_dict

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "hidden_layers": [32, 32],
    "games_per_batch": 16,
    "updates_per_batch": 2,
    "batch_size": 32,
    "min_replay": 32,
    "replay_size": 2_000,
    "epsilon_decay_episodes": 64,
    "eval_every": 0,
    "eval_games": 4,
    "eval_opponents": ["random"],
    "checkpoint_minutes": 100.0,
}
TIMING = {"seconds", "selfplay_games_per_s", "train_samples_per_s"}


def tiny(**settings) -> DQNConfig:
    return config_from_dict(DQNConfig, {**TINY, **settings})


def weights_of(run_dir: Path) -> list[np.ndarray]:
    return read_npz(run_dir / "model.npz")[0].weights


def metrics_without_timing(run_dir: Path) -> list[dict]:
    import csv

    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if k not in TIMING} for row in csv.DictReader(f)]


def assert_same_run(a: Path, b: Path) -> None:
    for x, y in zip(weights_of(a), weights_of(b), strict=True):
        np.testing.assert_array_equal(x, y)
    assert metrics_without_timing(a) == metrics_without_timing(b)


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class Killed(BaseException):
    """Stands for kill -9 inside the process: nothing after it runs (no final save)."""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny finished Tic Tac Toe run folder (trained once for the whole file)."""
    out = tmp_path_factory.mktemp("runs") / "ttt"
    dqn.train("tic_tac_toe", tiny(seed=3), out, episodes=64)
    return out


@pytest.fixture(scope="module")
def straight_run(tmp_path_factory):
    """An uninterrupted 96-episode run, the yardstick of the resume tests."""
    out = tmp_path_factory.mktemp("runs") / "straight"
    dqn.train("tic_tac_toe", tiny(seed=11, checkpoint_minutes=0.0), out, episodes=96)
    return out


def test_run_folder_has_every_artefact(tiny_run):
    for name in (
        "config.json",
        "metrics.csv",
        "model.keras",
        "model.npz",
        "learning_curves.png",
        "checkpoints/checkpoint.npz",
    ):
        assert (tiny_run / name).is_file(), name
    assert any((tiny_run / "tensorboard").iterdir())
    config = json.loads((tiny_run / "config.json").read_text())
    assert config["game"] == "tic_tac_toe" and config["seed"] == 3
    lines = (tiny_run / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("episodes,updates") and len(lines) == 1 + 64 // 16
    assert "random_win" in lines[0] and lines[-1].split(",")[lines[0].split(",").index("random_win")] != ""
    state, _ = read_checkpoint(tiny_run / "checkpoints" / "checkpoint.npz")
    assert config.pop("algo") == "dqn"
    assert state["config"] == config and state["episodes"] == 64


def test_progress_and_log_are_reported_not_printed(tmp_path, capsys):
    calls, lines = [], []
    dqn.train(
        "tic_tac_toe",
        tiny(eval_every=32),
        tmp_path / "run",
        episodes=64,
        progress=lambda done, total, what: calls.append((done, total, what)),
        log=lines.append,
    )
    assert [c[0] for c in calls] == [16, 32, 48, 64] and {c[1:] for c in calls} == {(64, "train tic_tac_toe")}
    assert [line.split(" episodes")[0] for line in lines] == ["32", "64"] and "random w" in lines[0]
    assert capsys.readouterr() == ("", "")


@pytest.mark.cross_cpu
def test_resume_after_a_stop_request_equals_the_uninterrupted_run(tmp_path, straight_run):
    config, out = tiny(seed=11, checkpoint_minutes=0.0), tmp_path / "stopped"
    batches = []
    summary = dqn.train(
        "tic_tac_toe", config, out, episodes=96, should_stop=lambda: batches.append(1) or len(batches) > 3
    )
    assert summary["stopped_by"] == "interrupt" and summary["episodes"] == 48
    with pytest.raises(UserError, match="already holds a run"):
        dqn.train("tic_tac_toe", config, out, episodes=96)
    summary = dqn.train("tic_tac_toe", config, out, episodes=96, resume=True)
    assert summary["episodes"] == 96
    assert_same_run(straight_run, out)


def test_a_run_killed_before_its_first_batch_resumes_exactly(tmp_path, straight_run, monkeypatch):
    config, out = tiny(seed=11, checkpoint_minutes=0.0), tmp_path / "killed"

    def die(self):
        raise Killed

    monkeypatch.setattr(dqn.DQNLearner, "step", die)
    with pytest.raises(Killed):
        dqn.train("tic_tac_toe", config, out, episodes=96)
    monkeypatch.undo()
    assert read_checkpoint(out / "checkpoints" / "checkpoint.npz")[0]["episodes"] == 0
    dqn.train("tic_tac_toe", config, out, episodes=96, resume=True)
    assert_same_run(straight_run, out)


@pytest.mark.faults
@pytest.mark.slow
def test_resume_after_kill_9_equals_the_uninterrupted_run(tmp_path, straight_run):
    """A real SIGKILL of `deckopt train` in the middle of a run (a checkpoint after every batch)."""
    config = tiny(seed=11, checkpoint_minutes=0.0)
    (tmp_path / "tiny.json").write_text(json.dumps(config_to_dict(config)))  # every setting: no per-game default
    out = tmp_path / "kill9"
    checkpoint = out / "checkpoints" / "checkpoint.npz"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deckopt",
            "train",
            "tic_tac_toe",
            "--config",
            str(tmp_path / "tiny.json"),
            "--episodes",
            "100000",
            "--quiet",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            if checkpoint.is_file() and read_checkpoint(checkpoint)[0]["episodes"] >= 32:
                break
            time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read().decode()
        proc.kill()
    finally:
        proc.wait()
    killed_at = read_checkpoint(checkpoint)[0]["episodes"]
    assert killed_at >= 32 and not (out / "model.npz").exists()
    saved = read_run_config(out, "tic_tac_toe", dqn.DQNConfig, "dqn")
    assert saved == dataclasses.replace(config, episodes=100_000)  # the run's --episodes is its target
    # a loaded machine may let the child run past 96 episodes before the kill lands: then the
    # yardstick is an uninterrupted run of the same, longer length (the claim is the same)
    episodes = max(96, killed_at + 32)
    if episodes != 96:
        straight_run = tmp_path / "straight_longer"
        dqn.train("tic_tac_toe", config, straight_run, episodes=episodes)
    dqn.train("tic_tac_toe", saved, out, episodes=episodes, resume=True)
    assert_same_run(straight_run, out)


def test_an_edited_config_json_is_named_on_resume_and_nothing_changes(tiny_run, tmp_path):
    run = tmp_path / "edited"
    run.mkdir()
    for name, data in files_of(tiny_run).items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_bytes(data)
    config = json.loads((run / "config.json").read_text())
    config["hidden_layers"] = [64]
    (run / "config.json").write_text(json.dumps(config))
    before = files_of(run)
    with pytest.raises(UserError, match=r"does not match its checkpoint \(hidden_layers \[32, 32\] in the checkpoint"):
        dqn.train(
            "tic_tac_toe", read_run_config(run, "tic_tac_toe", dqn.DQNConfig, "dqn"), run, episodes=128, resume=True
        )
    assert files_of(run) == before


@pytest.mark.parametrize("damage", ["truncated", "empty", "foreign"])
def test_a_damaged_checkpoint_is_refused_in_one_line(tiny_run, tmp_path, damage):
    run = tmp_path / "damaged"
    run.mkdir()
    for name, data in files_of(tiny_run).items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_bytes(data)
    checkpoint = run / "checkpoints" / "checkpoint.npz"
    data = checkpoint.read_bytes()
    if damage == "truncated":
        checkpoint.write_bytes(data[: len(data) // 3])
    elif damage == "empty":
        checkpoint.write_bytes(b"")
    else:  # a model file where the checkpoint should be
        checkpoint.write_bytes((run / "model.npz").read_bytes())
    before = files_of(run)
    with pytest.raises(UserError, match="checkpoint is damaged") as info:
        dqn.train("tic_tac_toe", tiny(seed=3), run, episodes=128, resume=True)
    assert "\n" not in str(info.value) and files_of(run) == before


def test_a_diverging_loss_stops_the_run_and_keeps_the_last_checkpoint(tmp_path, monkeypatch):
    original = dqn.DQNLearner.train

    def train_then_diverge(self, num_updates):
        loss = original(self, num_updates)
        return float("nan") if self.episodes >= 64 else loss

    monkeypatch.setattr(dqn.DQNLearner, "train", train_then_diverge)
    out = tmp_path / "nan"
    with pytest.raises(UserError, match="training diverged: the loss became nan at 64 episodes"):
        dqn.train("tic_tac_toe", tiny(checkpoint_minutes=0.0), out, episodes=128)
    assert read_checkpoint(out / "checkpoints" / "checkpoint.npz")[0]["episodes"] == 48
    assert not (out / "model.npz").exists()


def test_a_new_run_refuses_a_folder_that_holds_something_else(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "model.npz").write_bytes(b"precious")
    with pytest.raises(UserError, match="not empty and holds no training run"):
        dqn.train("tic_tac_toe", tiny(), other, episodes=16)
    assert files_of(other) == {"model.npz": b"precious"}
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for out in (a_file, a_file / "run"):
        with pytest.raises(UserError, match="is a file, not a folder"):
            dqn.train("tic_tac_toe", tiny(), out, episodes=16)
    assert a_file.read_text() == "x"


def test_a_folder_left_before_any_checkpoint_can_take_a_new_run(tmp_path):
    """A run folder from before checkpoints came first (config.json only): nothing to resume, reusable."""
    out = tmp_path / "unstarted"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"game": "tic_tac_toe", **TINY}))
    assert dqn.train("tic_tac_toe", tiny(), out, episodes=16)["episodes"] == 16


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused_before_training(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(UserError, match="not writable"):
            dqn.train("tic_tac_toe", tiny(), locked / "run", episodes=16)
    finally:
        locked.chmod(0o755)


def test_short_training_beats_an_untrained_network_against_random():
    """A small seeded Tic Tac Toe run learns: its greedy agent wins far more often against random."""
    from agents.evaluate import evaluate

    config = tiny(
        seed=0,
        hidden_layers=[64, 64],
        games_per_batch=64,
        updates_per_batch=8,
        batch_size=128,
        min_replay=256,
        replay_size=20_000,
        learning_rate=3e-3,
        epsilon_decay_episodes=1_500,
        epsilon_end=0.1,
    )
    trainer = dqn.DQNLearner("tic_tac_toe", config)
    before = evaluate(trainer.game, trainer.agent(), ["random"], 400, seed=9)["agents"][0]
    while trainer.episodes < 2_500:
        trainer.step()
    after = evaluate(trainer.game, trainer.agent(), ["random"], 400, seed=9)["agents"][0]
    assert after["score"] > before["score"] + 0.15
    assert after["win_rate"] > 0.75 and after["losses"] < 0.1 * 400


def test_init_model_starts_from_its_weights_and_refuses_another_architecture(tiny_run):
    start = dqn.DQNLearner("tic_tac_toe", tiny(seed=9, init_model=str(tiny_run)))
    for got, want in zip(start.network.weights, weights_of(tiny_run)):
        np.testing.assert_array_equal(got, want)
    fresh = dqn.DQNLearner("tic_tac_toe", tiny(seed=9))
    assert not np.array_equal(fresh.network.weights[0], start.network.weights[0])
    with pytest.raises(UserError, match=r"has layers \[32, 32, 9\].*builds \[64, 9\]"):
        dqn.DQNLearner("tic_tac_toe", tiny(hidden_layers=[64], init_model=str(tiny_run)))
    with pytest.raises(UserError, match="model for tic_tac_toe, not connect_four"):
        dqn.DQNLearner("connect_four", tiny(init_model=str(tiny_run)))


def test_an_unwritable_folder_is_refused_before_training(tmp_path, monkeypatch):
    """As above where the tests run as root (who may write anywhere): the check asks the system."""
    monkeypatch.setattr(runlog.os, "access", lambda path, mode: Path(path) != tmp_path)
    with pytest.raises(UserError, match=f"{tmp_path} is not writable"):
        dqn.train("tic_tac_toe", tiny(), tmp_path / "run", episodes=16)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "change, named",
    [({"episodes": -3}, "episodes must be in"), ({"seconds": "soon"}, "seconds must be a number"),
     ({"rows": {"a": 1}}, "rows must be a list")],
)  # fmt: skip
def test_a_checkpoint_state_of_the_wrong_shape_is_refused_in_one_line_naming_the_key(tiny_run, tmp_path, change, named):
    """The training state a checkpoint keeps as JSON is checked against its schema
    (agents.learning.runfolder.CHECKPOINT_STATE) before a resume uses it."""
    import io

    source = tiny_run / "checkpoints" / "checkpoint.npz"
    with np.load(source, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    state = {**json.loads(str(arrays.pop("state")[()])), **change}
    buffer = io.BytesIO()
    np.savez(buffer, state=np.array(json.dumps(state)), **arrays)
    path = tmp_path / "checkpoint.npz"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(UserError, match="checkpoint is damaged") as info:
        read_checkpoint(path)
    assert "\n" not in str(info.value) and named in str(info.value), info.value
