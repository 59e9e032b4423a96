"""`deckopt train` on the command line: a run and its evaluation, Ctrl-C/SIGTERM (exit 130, resume
hint, exact resume), and bad input: one stderr line, exit 2, no traceback, nothing on disk changed."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import numpy as np
import pytest

from agents import dqn
from agents.learned import read_npz
from agents.learning.runfolder import read_checkpoint
from deckopt.cli import main

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


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `deckopt ARGV` in this process (argparse errors included)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def tiny_toml(tmp_path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items()))
    return path


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> Path:
    """A finished 32-episode run made by `deckopt train`."""
    folder = tmp_path_factory.mktemp("cli")
    toml = folder / "tiny.toml"
    toml.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY.items()))
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--config",
                str(toml),
                "--episodes",
                "32",
                "--seed",
                "2",
                "--quiet",
                "--out",
                str(folder / "run"),
            ]
        )
        == 0
    )
    return folder / "run"


def test_cli_train_json_and_eval_of_the_run(tmp_path, tiny_toml, cli_run, capsys):
    code, out, _ = run_cli(
        [
            "train",
            "tic_tac_toe",
            "--config",
            tiny_toml,
            "--episodes",
            "32",
            "--seed",
            "2",
            "--hidden-layers",
            "16",
            "--out",
            tmp_path / "run",
            "--json",
        ],
        capsys,
    )
    summary = json.loads(out)
    assert code == 0 and summary["episodes"] == 32 and summary["stopped_by"] == "episodes"
    assert json.loads((tmp_path / "run" / "config.json").read_text())["hidden_layers"] == [16]  # the flag won

    code, out, _ = run_cli(
        ["eval", "tic_tac_toe", cli_run, "--vs", "random", "--vs", "minimax", "--games", "10", "--json"], capsys
    )
    report = json.loads(out)
    assert code == 0 and [a["spec"] for a in report["agents"]] == [str(cli_run), "random", "minimax"]
    assert sum(report["agents"][0][k] for k in ("wins", "draws", "losses")) == 20


def test_a_plain_resume_keeps_the_runs_episodes_target(tmp_path, cli_run, capsys):
    """--episodes of a new run is its saved target: `--resume` alone continues to it, not to the
    config's default (50 000 for tic_tac_toe)."""
    run = tmp_path / "run"
    shutil.copytree(cli_run, run)
    assert json.loads((run / "config.json").read_text())["episodes"] == 32
    code, out, _ = run_cli(["train", "tic_tac_toe", "--resume", run, "--json"], capsys)
    assert code == 0 and json.loads(out)["episodes"] == 32


@pytest.mark.faults
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_saves_a_checkpoint_exits_130_and_the_run_resumes_exactly(
    tmp_path, tiny_toml, cli_run, capsys, monkeypatch, sig
):
    original_step = dqn.DQNLearner.step
    calls = []

    def step_with_signal(self):
        calls.append(1)
        if len(calls) == 1:
            signal.raise_signal(sig)  # the batch finishes, a checkpoint is saved, the run stops
        return original_step(self)

    monkeypatch.setattr(dqn.DQNLearner, "step", step_with_signal)
    out = tmp_path / "run"
    code, _, err = run_cli(
        ["train", "tic_tac_toe", "--config", tiny_toml, "--episodes", "32", "--seed", "2", "--out", out, "--json"],
        capsys,
    )
    monkeypatch.undo()
    assert code == 130 and f"continue with: deckopt train tic_tac_toe --resume {out} --episodes 32" in err
    assert "Traceback" not in err
    assert read_checkpoint(out / "checkpoints" / "checkpoint.npz")[0]["episodes"] == 16
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers given back

    code, out_text, _ = run_cli(
        ["train", "tic_tac_toe", "--resume", out, "--seed", "2", "--episodes", "32", "--json"], capsys
    )
    assert code == 0 and json.loads(out_text)["episodes"] == 32
    for a, b in zip(read_npz(cli_run / "model.npz")[0].weights, read_npz(out / "model.npz")[0].weights, strict=True):
        np.testing.assert_array_equal(a, b)


def _bad_inputs(tmp: Path, run: Path) -> list[tuple[list, str]]:
    """(arguments, what the one error line must say) for every bad train input made clean."""
    (tmp / "a_file").write_text("not a folder")
    (tmp / "a_dir").mkdir()
    (tmp / "other").mkdir()
    (tmp / "other" / "model.npz").write_bytes(b"somebody's model")
    (tmp / "nan.toml").write_text("learning_rate = nan\n")
    (tmp / "bad.toml").write_text("learning_rate = [\n")
    (tmp / "typo.toml").write_text("learnign_rate = 0.1\n")
    (tmp / "neg.toml").write_text("seed = -1\n")
    edited = tmp / "edited"
    for name, data in files_of(run).items():
        (edited / name).parent.mkdir(parents=True, exist_ok=True)
        (edited / name).write_bytes(data)
    config = json.loads((edited / "config.json").read_text())
    (edited / "config.json").write_text(json.dumps({**config, "hidden_layers": [64]}))
    damaged = tmp / "damaged"
    for name, data in files_of(run).items():
        (damaged / name).parent.mkdir(parents=True, exist_ok=True)
        (damaged / name).write_bytes(data[: len(data) // 2] if name.endswith("checkpoint.npz") else data)
    nan_json = tmp / "nan_json"
    for name, data in files_of(run).items():
        (nan_json / name).parent.mkdir(parents=True, exist_ok=True)
        (nan_json / name).write_bytes(data)
    (nan_json / "config.json").write_text(json.dumps(config).replace('"learning_rate": 0.001', '"learning_rate": NaN'))
    train = ["train", "tic_tac_toe", "--episodes", "16"]
    return [
        (["train", "chess", "--episodes", "10"], "unknown game"),
        ([*train, "--seed", "-1"], "--seed"),
        ([*train, "--seed", "4294967296"], "--seed"),
        ([*train, "--episodes", "0"], "--episodes"),
        ([*train, "--minutes", "1"], "not allowed with argument"),
        ([*train, "--learning-rate", "nan"], "--learning-rate"),
        ([*train, "--out", tmp / "a_file"], "is a file, not a folder"),
        ([*train, "--out", tmp / "a_file" / "run"], "is a file, not a folder"),
        ([*train, "--out", tmp / "other"], "not empty and holds no training run"),
        ([*train, "--out", run], "already holds a run"),
        ([*train, "--config", tmp / "a_dir"], "is a folder, not a file"),
        ([*train, "--config", tmp / "missing.toml"], "not found"),
        ([*train, "--config", tmp / "bad.toml"], "not valid TOML"),
        ([*train, "--config", tmp / "typo.toml"], "learnign_rate"),
        ([*train, "--config", tmp / "nan.toml"], "learning_rate must be a finite number"),
        ([*train, "--config", tmp / "neg.toml"], "seed must be in 0..4294967295"),
        ([*train, "--gamma", "2"], "gamma must be in (0, 1]"),
        ([*train, "--eval-opponents", "nobody"], "unknown agent spec"),
        ([*train, "--init-model", tmp / "missing.npz"], "not found"),
        (["train", "tic_tac_toe", "--resume", tmp / "missing_run"], "not found"),
        (["train", "tic_tac_toe", "--resume", tmp / "other"], "not a training run folder"),
        (["train", "tic_tac_toe", "--resume", tmp / "a_file"], "is not a folder"),
        (["train", "connect_four", "--resume", run], "is a tic_tac_toe run, not connect_four"),
        (["train", "tic_tac_toe", "--resume", run, "--seed", "5"], "trained with seed 2"),
        (["train", "tic_tac_toe", "--resume", run, "--learning-rate", "0.1"], "--learning-rate: a resumed run keeps"),
        (["train", "tic_tac_toe", "--resume", run, "--config", tmp / "typo.toml"], "--config cannot change"),
        (["train", "tic_tac_toe", "--resume", run, "--out", tmp / "a_dir"], "name different folders"),
        (["train", "tic_tac_toe", "--resume", edited], "does not match its checkpoint (hidden_layers"),
        (["train", "tic_tac_toe", "--resume", damaged], "checkpoint is damaged"),
        (["train", "tic_tac_toe", "--resume", nan_json], "learning_rate must be a finite number"),
    ]


def test_bad_train_inputs_end_in_one_line_and_change_nothing(tmp_path, cli_run, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a default run folder would land here
    cases = _bad_inputs(tmp_path, cli_run)
    before = files_of(tmp_path)
    run_before = files_of(cli_run)
    for argv, expected in cases:
        code, out, err = run_cli(argv, capsys)
        assert code == 2, (argv, code, err)
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
        assert expected in err, (argv, err)
    assert files_of(tmp_path) == before and files_of(cli_run) == run_before
    assert not (tmp_path / "runs").exists()


def test_a_diverging_run_ends_in_one_line_and_keeps_its_checkpoint(tmp_path, tiny_toml, capsys, monkeypatch):
    monkeypatch.setattr(dqn.DQNLearner, "train", lambda self, n: float("inf"))
    out = tmp_path / "run"
    code, _, err = run_cli(
        ["train", "tic_tac_toe", "--config", tiny_toml, "--episodes", "64", "--quiet", "--out", out], capsys
    )
    assert code == 2 and err.count("\n") == 1 and "training diverged: the loss became inf at 16 episodes" in err
    assert (out / "checkpoints" / "checkpoint.npz").is_file() and not (out / "model.npz").exists()
