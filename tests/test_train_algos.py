"""`deckopt train GAME --algo nfsp|ppo`: runs, a signal's exit 130 with the resume hint and exact
resume, and bad --algo inputs in one line (exit 2, nothing on disk changed)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import numpy as np
import pytest

from agents.learned import read_npz
from agents.ppo import PPOLearner
from deckopt.cli import main

TINY = {
    "nfsp": {
        "hidden_layers": [16],
        "games_per_batch": 16,
        "updates_per_batch": 2,
        "batch_size": 16,
        "min_replay": 16,
        "rl_replay_size": 1_000,
        "sl_reservoir_size": 500,
        "eval_every": 0,
        "eval_games": 4,
        "eval_opponents": ["random"],
    },
    "ppo": {
        "hidden_layers": [16],
        "games_per_batch": 16,
        "minibatch_size": 32,
        "update_epochs": 1,
        "eval_every": 0,
        "eval_games": 4,
        "eval_opponents": ["random"],
    },
}


def run_cli(argv: list, capsys) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def toml_of(folder: Path, algo: str) -> Path:
    path = folder / f"{algo}.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TINY[algo].items()))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A finished 32-episode tic_tac_toe run of each algorithm, made by `deckopt train --algo`."""
    folder = tmp_path_factory.mktemp("algos")
    out = {}
    for algo in ("nfsp", "ppo"):
        out[algo] = folder / algo
        argv = ["train", "tic_tac_toe", "--algo", algo, "--config", toml_of(folder, algo), "--episodes", "32"]
        assert main([str(a) for a in [*argv, "--seed", "2", "--quiet", "--out", out[algo]]]) == 0
    return out


@pytest.mark.parametrize("algo", ["nfsp", "ppo"])
def test_a_run_writes_the_run_folder_and_its_model_plays(runs, algo, capsys):
    run = runs[algo]
    assert json.loads((run / "config.json").read_text())["algo"] == algo
    for name in ("metrics.csv", "model.keras", "model.npz", "learning_curves.png", "checkpoints/checkpoint.npz"):
        assert (run / name).is_file(), name
    code, out, _ = run_cli(["match", "tic_tac_toe", run, "random", "--games", "20", "--json"], capsys)
    assert code == 0 and json.loads(out)["agents"][0]["spec"] == str(run)


def test_incan_gold_trains_with_each_algorithm_from_the_command_line(tmp_path, capsys):
    for algo in ("nfsp", "ppo"):
        argv = ["train", "incan_gold", "--algo", algo, "--config", toml_of(tmp_path, algo), "--episodes", "16"]
        code, out, _ = run_cli([*argv, "--quiet", "--json", "--out", tmp_path / algo], capsys)
        assert code == 0 and json.loads(out)["algo"] == algo


@pytest.mark.faults
def test_a_signal_exits_130_with_the_algo_in_the_hint_and_the_run_resumes_exactly(tmp_path, runs, capsys, monkeypatch):
    original_step = PPOLearner.step
    calls = []

    def step_with_signal(self):
        calls.append(1)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)
        return original_step(self)

    monkeypatch.setattr(PPOLearner, "step", step_with_signal)
    out = tmp_path / "run"
    argv = ["train", "tic_tac_toe", "--algo", "ppo", "--config", toml_of(tmp_path, "ppo"), "--episodes", "32"]
    code, _, err = run_cli([*argv, "--seed", "2", "--out", out, "--quiet"], capsys)
    monkeypatch.undo()
    assert code == 130 and f"continue with: deckopt train tic_tac_toe --algo ppo --resume {out} --episodes 32" in err
    code, _, _ = run_cli(["train", "tic_tac_toe", "--algo", "ppo", "--resume", out, "--episodes", "32"], capsys)
    assert code == 0
    for a, b in zip(
        read_npz(runs["ppo"] / "model.npz")[0].weights, read_npz(out / "model.npz")[0].weights, strict=True
    ):
        np.testing.assert_array_equal(a, b)


def test_bad_algo_inputs_end_in_one_line_and_change_nothing(tmp_path, runs, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "typo.toml").write_text("anticipatroy = 0.2\n")
    train = ["train", "tic_tac_toe", "--episodes", "16"]
    cases = [
        ([*train, "--algo", "sac"], "invalid choice"),
        ([*train, "--algo"], "expected one argument"),
        ([*train, "--algo", "ppo", "--rl-learning-rate", "0.1"], "--rl-learning-rate: not a setting of --algo ppo"),
        ([*train, "--algo", "nfsp", "--clip-coef", "0.1"], "--clip-coef: not a setting of --algo nfsp"),
        ([*train, "--clip-coef", "0.1"], "not a setting of --algo dqn"),
        ([*train, "--algo", "nfsp", "--anticipatory", "0"], "anticipatory must be in (0, 1]"),
        ([*train, "--algo", "ppo", "--gae-lambda", "2"], "gae_lambda must be in [0, 1]"),
        ([*train, "--algo", "ppo", "--policy", "best"], "invalid choice"),
        ([*train, "--algo", "nfsp", "--config", tmp_path / "typo.toml"], "anticipatroy"),
        ([*train, "--algo", "ppo", "--eval-opponents", "nobody"], "unknown agent spec"),
        ([*train, "--algo", "ppo", "--out", runs["nfsp"]], "already holds a run"),
        ([*train, "--algo", "afterstate", "--jobs", "2"], "--jobs: --algo afterstate plays each self-play batch in"),
        ([*train, "--algo", "afterstate", "--selfplay-shards", "2"], "selfplay_shards 2: --algo afterstate plays"),
        (["train", "tic_tac_toe", "--algo", "nfsp", "--resume", runs["ppo"]], "is a ppo run, not nfsp"),
        (["train", "tic_tac_toe", "--resume", runs["ppo"]], "is a ppo run, not dqn; resume it with --algo ppo"),
        (["train", "incan_gold", "--algo", "ppo", "--resume", runs["ppo"]], "is a tic_tac_toe run"),
        (["train", "tic_tac_toe", "--algo", "ppo", "--resume", runs["ppo"], "--ent-coef", "0.1"], "resumed run keeps"),
    ]
    before, runs_before = files_of(tmp_path), {k: files_of(v) for k, v in runs.items()}
    for argv, expected in cases:
        code, out, err = run_cli(argv, capsys)
        assert code == 2, (argv, code, err)
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
        assert expected in err, (argv, err)
    assert files_of(tmp_path) == before and {k: files_of(v) for k, v in runs.items()} == runs_before
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("players", [2, 4])
def test_the_shipped_durak_agents_resolve_by_number_of_players_and_act_legally(players):
    import agents
    import games
    from agents.arena import play_match

    game = games.make("durak", num_players=players)
    agent = agents.make("pretrained", game, seed=0)
    assert agent.metadata["path"].endswith(f"durak_{players}p.npz")
    result = play_match(game, [agent, agents.make("random", game, seed=1)], 8, seed=3)  # illegal would raise
    assert result.agents[0].games >= 8


def test_no_shipped_durak_agent_for_3_players_is_one_clear_error():
    import agents
    import games
    from games import UserError

    with pytest.raises(UserError, match="no pretrained agent for durak with 3 players"):
        agents.make("pretrained", games.make("durak", num_players=3))


def test_the_shipped_incan_gold_agent_is_a_sampling_policy():
    import agents
    import games
    from agents.policy import PolicyAgent

    agent = agents.make("pretrained", games.make("incan_gold", num_players=3), seed=0)
    assert isinstance(agent, PolicyAgent) and agent.mode == "sample"


def test_train_finds_its_learner_in_the_registry(tmp_path, monkeypatch, capsys):
    """`deckopt train --algo NAME` takes the config class, the settings and the training loop of the
    learner registered as NAME (agents/learners.py), and offers every registered learner."""
    from dataclasses import replace

    from agents.learners import LEARNERS
    from agents.ppo.config import PPOConfig

    seen = {}

    def fake_train(game_name, config, out, **options):
        seen.update(game=game_name, config=config, out=out)
        return {"game": game_name, "stopped_by": "episodes"}

    monkeypatch.setitem(LEARNERS, "ppo", replace(LEARNERS["ppo"], train=fake_train))
    argv = ["train", "tic_tac_toe", "--algo", "ppo", "--episodes", "8", "--out", str(tmp_path / "r"), "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == {"game": "tic_tac_toe", "stopped_by": "episodes"}
    assert seen["game"] == "tic_tac_toe" and type(seen["config"]) is PPOConfig and seen["config"].episodes == 8
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    shown = capsys.readouterr().out
    assert all(f"--algo {name}" in shown for name in LEARNERS if name != "dqn")
