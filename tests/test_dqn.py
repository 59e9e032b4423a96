"""Monte-Carlo-return DQN: targets, masking, numpy == Keras, model files, exact resume, CLI."""
from __future__ import annotations

import json
import signal
import zipfile

import numpy as np
import pytest

import games
from agents import dqn
from agents.learned import LearnedAgent, NumpyQNetwork, load_agent, read_npz
from games import UserError

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


def available_games() -> list[str]:
    out = []
    for name in games.GAME_NAMES:
        try:
            games.make(name)
        except (ImportError, UserError):
            continue
        out.append(name)
    return out


def random_states(game, count: int, rng: np.random.Generator) -> list:
    """Live states after a random number of random moves."""
    states = []
    while len(states) < count:
        s = game.new_initial_state(np.random.default_rng(rng.integers(2**32)))
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        if not s.is_terminal():
            states.append(s)
    return states


def weights_of(run_dir) -> list[np.ndarray]:
    return read_npz(run_dir / "model.npz")[0].weights


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny finished Tic Tac Toe run folder (trained once for the whole file)."""
    out = tmp_path_factory.mktemp("runs") / "ttt"
    dqn.train("tic_tac_toe", dqn.make_config({**TINY, "seed": 3}), out, episodes=64, progress=False)
    return out


# --- Monte-Carlo targets ---------------------------------------------------------------------------
def test_targets_two_players_alternating():
    targets = dqn.episode_targets([0, 1, 0, 1, 0], [1.0, -1.0], gamma=0.9)
    np.testing.assert_allclose(targets, [0.81, -0.9, 0.9, -1.0, 1.0], rtol=1e-6)


def test_targets_three_players_irregular_order_and_gamma():
    # Incan Gold style: players drop out, so decisions are not evenly spread
    players = [0, 1, 2, 0, 2, 2, 1]
    targets = dqn.episode_targets(players, [1.0, -1.0, 0.5], gamma=0.5)
    # player 0: 2 decisions -> 0.5, 1; player 1: 2 -> -0.5, -1; player 2 (return 0.5): 3 -> 0.125, 0.25, 0.5
    expected = [0.5, -0.5, 0.5 * 0.25, 1.0, 0.5 * 0.5, 0.5, -1.0]
    np.testing.assert_allclose(targets, expected, rtol=1e-6)


def test_targets_gamma_one_is_the_return_everywhere():
    targets = dqn.episode_targets([2, 0, 1, 2, 0, 1], [0.0, 1.0, -1.0], gamma=1.0)
    np.testing.assert_allclose(targets, [-1, 0, 1, -1, 0, 1])


def test_self_play_targets_match_each_games_returns():
    game = games.make("tic_tac_toe")
    rng = np.random.default_rng(0)
    net = NumpyQNetwork([rng.normal(size=(18, 8)), np.zeros(8), rng.normal(size=(8, 9)), np.zeros(9)], ["relu", "tanh"])
    recorder = dqn.SelfPlayRecorder(net, rng)
    obs, actions, targets, returns = dqn.self_play(game, recorder, 20, 0.3, 0.9, rng)
    assert len(obs) == len(actions) == len(targets) == sum(len(d) for d in recorder.decisions)
    for g, decisions in enumerate(recorder.decisions):
        last = {}
        for player, row in decisions:
            last[player] = row
        for player, row in last.items():  # each player's last decision gets its return
            assert targets[row] == pytest.approx(returns[g][player])
    # the observation rows are what the mover saw: own pieces never overlap the opponent's
    assert not np.any(obs[:, :9] * obs[:, 9:])


def test_opponent_mix_and_random_openings_record_only_the_networks_decisions():
    import agents

    game = games.make("tic_tac_toe")
    rng = np.random.default_rng(4)
    net = NumpyQNetwork([rng.normal(size=(18, 8)), np.zeros(8), rng.normal(size=(8, 9)), np.zeros(9)], ["relu", "tanh"])
    recorder = dqn.SelfPlayRecorder(net, rng)
    heuristic = agents.make("heuristic", game, seed=0)
    obs, actions, targets, returns = dqn.self_play(game, recorder, 40, 0.0, 1.0, rng, random_opening_moves=3, opponents=[(heuristic, 0.5)])
    seats_seen = [{p for p, _ in d} for d in recorder.decisions]
    assert all(len(s) == 1 for s in seats_seen[:20])  # the heuristic held the other seat
    assert all(s == {0, 1} for s in seats_seen[20:])  # pure self-play
    assert {next(iter(s)) for s in seats_seen[:20]} == {0, 1}  # the network's seat varies
    assert len(obs) == sum(len(d) for d in recorder.decisions)
    # with epsilon 0 only the openings are random: greedy play from identical openings repeats
    assert 1 < len({tuple(actions[[r for _, r in d]]) for d in recorder.decisions[20:]}) <= 20


def test_connect_four_mirror_is_the_mirrored_game():
    game = games.make("connect_four")
    rng = np.random.default_rng(6)
    a, b = game.new_initial_state(), game.new_initial_state()
    obs_a, obs_b, moves = [], [], []
    while not a.is_terminal():
        move = int(rng.choice(a.legal_actions()))
        obs_a.append(a.observation(a.current_player))
        obs_b.append(b.observation(b.current_player))
        moves.append(move)
        a.apply_action(move)
        b.apply_action(6 - move)
    mirrored_obs, mirrored_moves = dqn.MIRRORS["connect_four"](np.stack(obs_a), np.array(moves))
    np.testing.assert_array_equal(mirrored_obs, np.stack(obs_b))
    np.testing.assert_array_equal(mirrored_moves, 6 - np.array(moves))
    with pytest.raises(UserError, match="mirror"):
        dqn.Trainer("tic_tac_toe", dqn.make_config({**TINY, "mirror_augment": True}))


# --- config ------------------------------------------------------------------------------------------
def test_config_file_unknown_key_and_bad_type_are_user_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("learning_rate = 0.01\nlearnign_rate = 0.1\n")
    with pytest.raises(UserError, match="learnign_rate"):
        dqn.load_config("tic_tac_toe", bad)
    bad.write_text('batch_size = "big"\n')
    with pytest.raises(UserError, match="batch_size"):
        dqn.load_config("tic_tac_toe", bad)
    good = tmp_path / "good.toml"
    good.write_text("learning_rate = 1\nhidden_layers = [64, 64]\n[game_config]\n")
    config = dqn.load_config("tic_tac_toe", good, seed=7)
    assert config.learning_rate == 1.0 and config.hidden_layers == [64, 64] and config.seed == 7
    assert config.eval_opponents == ["random", "heuristic", "minimax"]  # the per-game default stays


# --- masking ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", available_games())
def test_untrained_agents_never_choose_illegal_actions(game_name):
    game = games.make(game_name)
    rng = np.random.default_rng(1)
    sizes = [game.observation_size, 16, game.num_actions]
    weights = []
    for a, b in zip(sizes, sizes[1:]):
        weights += [rng.normal(scale=3.0, size=(a, b)), rng.normal(size=b)]
    net = NumpyQNetwork(weights, ["relu", "tanh"])
    states = random_states(game, 300, rng)
    masks = np.stack([s.legal_mask() for s in states])
    for agent in (LearnedAgent(game, net), dqn.SelfPlayRecorder(net, rng)):
        if isinstance(agent, dqn.SelfPlayRecorder):
            agent.start(states, epsilon=0.5)
        actions = agent.act(states)
        assert masks[np.arange(len(states)), actions].all()


# --- networks and model files ------------------------------------------------------------------------
def test_numpy_forward_equals_keras_forward():
    game = games.make("tic_tac_toe")
    config = dqn.make_config({"seed": 5, "hidden_layers": [40, 30]})
    dqn.init_tensorflow(5)
    model = dqn.build_q_network(game, config)
    obs = np.random.default_rng(0).random((64, game.observation_size)).astype(np.float32)
    np.testing.assert_allclose(dqn.numpy_network(model, config)(obs), model(obs).numpy(), atol=1e-5)


def test_save_load_round_trip_gives_identical_actions(tiny_run, tmp_path):
    game = games.make("tic_tac_toe")
    states = random_states(game, 200, np.random.default_rng(2))
    from_npz = load_agent(str(tiny_run), game)
    # the .keras alone (no .npz beside it) is read through Keras
    keras_only = tmp_path / "alone.keras"
    keras_only.write_bytes((tiny_run / "model.keras").read_bytes())
    from_keras = load_agent(str(keras_only), game)
    assert from_npz.metadata["path"].endswith("model.npz")
    np.testing.assert_allclose(from_npz.q_values(states), from_keras.q_values(states), atol=1e-5)
    np.testing.assert_array_equal(from_npz.act(states), from_keras.act(states))
    assert from_npz.metadata["game"] == "tic_tac_toe" and from_npz.metadata["layer_sizes"] == [32, 32, 9]
    # picklable and light: workers get numpy arrays only
    import pickle

    clone = pickle.loads(pickle.dumps(from_npz))
    np.testing.assert_array_equal(clone.act(states), from_npz.act(states))


def test_bad_model_files_are_refused_clearly(tiny_run, tmp_path):
    ttt, c4 = games.make("tic_tac_toe"), games.make("connect_four")
    with pytest.raises(UserError, match="not found"):
        load_agent(str(tmp_path / "nothing.npz"), ttt)
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"this is not a zip archive")
    with pytest.raises(UserError, match="not a readable deckopt model"):
        load_agent(str(corrupt), ttt)
    corrupt_keras = tmp_path / "corrupt.keras"
    corrupt_keras.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(UserError, match="not a readable"):
        load_agent(str(corrupt_keras), ttt)
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as z:
        z.writestr("config.json", "{}")
    with pytest.raises(UserError, match="not a readable"):
        load_agent(str(tmp_path / "empty.keras"), ttt)
    with pytest.raises(UserError, match="model for tic_tac_toe, not connect_four"):
        load_agent(str(tiny_run / "model.npz"), c4)
    keras_only = tmp_path / "ttt.keras"
    keras_only.write_bytes((tiny_run / "model.keras").read_bytes())
    with pytest.raises(UserError, match="tic_tac_toe, not connect_four"):
        load_agent(str(keras_only), c4)
    (tmp_path / "unfinished").mkdir()
    with pytest.raises(UserError, match="no model.npz"):
        load_agent(str(tmp_path / "unfinished"), ttt)


def test_init_model_starts_from_its_weights_and_refuses_another_architecture(tiny_run):
    start = dqn.Trainer("tic_tac_toe", dqn.make_config({**TINY, "seed": 9, "init_model": str(tiny_run)}))
    for got, want in zip(start.network.weights, weights_of(tiny_run)):
        np.testing.assert_array_equal(got, want)
    fresh = dqn.Trainer("tic_tac_toe", dqn.make_config({**TINY, "seed": 9}))
    assert not np.array_equal(fresh.network.weights[0], start.network.weights[0])
    with pytest.raises(UserError, match=r"has layers \[32, 32, 9\].*builds \[64, 9\]"):
        dqn.Trainer("tic_tac_toe", dqn.make_config({**TINY, "hidden_layers": [64], "init_model": str(tiny_run)}))
    with pytest.raises(UserError, match="model for tic_tac_toe, not connect_four"):
        dqn.Trainer("connect_four", dqn.make_config({**TINY, "init_model": str(tiny_run)}))


# --- runs ------------------------------------------------------------------------------------------
def test_run_folder_has_every_artefact(tiny_run):
    for name in ("config.json", "metrics.csv", "model.keras", "model.npz", "learning_curves.png", "checkpoints/checkpoint.npz"):
        assert (tiny_run / name).is_file(), name
    assert any((tiny_run / "tensorboard").iterdir())
    config = json.loads((tiny_run / "config.json").read_text())
    assert config["game"] == "tic_tac_toe" and config["seed"] == 3
    lines = (tiny_run / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("episodes,updates") and len(lines) == 1 + 64 // 16
    assert "random_win" in lines[0] and lines[-1].split(",")[lines[0].split(",").index("random_win")] != ""


def test_resume_after_interrupt_equals_uninterrupted_run(tmp_path, monkeypatch):
    config = dqn.make_config({**TINY, "seed": 11})
    dqn.train("tic_tac_toe", config, tmp_path / "straight", episodes=96, progress=False)

    # Ctrl-C during the 3rd batch: the batch finishes, a checkpoint is saved, the run stops
    original_step = dqn.Trainer.step
    calls = []

    def step_with_ctrl_c(self):
        calls.append(1)
        if len(calls) == 3:
            signal.raise_signal(signal.SIGINT)
        return original_step(self)

    monkeypatch.setattr(dqn.Trainer, "step", step_with_ctrl_c)
    summary = dqn.train("tic_tac_toe", config, tmp_path / "interrupted", episodes=96, progress=False)
    monkeypatch.setattr(dqn.Trainer, "step", original_step)
    assert summary["stopped_by"] == "interrupt" and summary["episodes"] == 48
    with pytest.raises(UserError, match="already holds a run"):
        dqn.train("tic_tac_toe", config, tmp_path / "interrupted", episodes=96, progress=False)
    summary = dqn.train("tic_tac_toe", config, tmp_path / "interrupted", episodes=96, resume=True, progress=False)
    assert summary["episodes"] == 96

    for a, b in zip(weights_of(tmp_path / "straight"), weights_of(tmp_path / "interrupted")):
        np.testing.assert_array_equal(a, b)
    # the metrics of the resumed run continue the first part's rows
    straight = (tmp_path / "straight" / "metrics.csv").read_text().splitlines()
    resumed = (tmp_path / "interrupted" / "metrics.csv").read_text().splitlines()
    assert [r.split(",")[:2] for r in straight] == [r.split(",")[:2] for r in resumed]


def test_short_training_beats_an_untrained_network_against_random():
    """A small seeded Tic Tac Toe run learns: its greedy agent wins far more often against random."""
    from agents.evaluate import evaluate

    config = dqn.make_config({
        "seed": 0, "hidden_layers": [64, 64], "games_per_batch": 64, "updates_per_batch": 8,
        "batch_size": 128, "min_replay": 256, "replay_size": 20_000, "learning_rate": 3e-3,
        "epsilon_decay_episodes": 1_500, "epsilon_end": 0.1,
    })
    trainer = dqn.Trainer("tic_tac_toe", config)
    before = evaluate(trainer.game, trainer.greedy_agent(), ["random"], 400, seed=9)["agents"][0]
    while trainer.episodes < 2_500:
        trainer.step()
    after = evaluate(trainer.game, trainer.greedy_agent(), ["random"], 400, seed=9)["agents"][0]
    assert after["score"] > before["score"] + 0.15
    assert after["win_rate"] > 0.75 and after["losses"] < 0.1 * 400


# --- command line ----------------------------------------------------------------------------------
def test_cli_train_and_eval(tmp_path, capsys):
    from deckopt.cli import main

    toml = tmp_path / "tiny.toml"
    toml.write_text("\n".join(f"{k} = {json.dumps(v)}" for k, v in TINY.items()) + "\n")
    out = tmp_path / "cli_run"
    assert main(["train", "tic_tac_toe", "--config", str(toml), "--episodes", "32", "--seed", "2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["episodes"] == 32 and (out / "model.npz").is_file()

    assert main(["eval", "tic_tac_toe", str(out), "--vs", "random", "--vs", "minimax", "--games", "10", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [a["spec"] for a in report["agents"]] == [str(out), "random", "minimax"]
    for entry in report["agents"]:
        assert {"spec", "wins", "draws", "losses", "win_rate", "ci95"} <= set(entry)
    assert report["agents"][0]["wins"] + report["agents"][0]["draws"] + report["agents"][0]["losses"] == 20
    assert set(report["exploitability"]) == {"as_player_0", "as_player_1", "exploitability"}

    assert main(["eval", "tic_tac_toe", str(out), "--vs", "random", "--games", "4"]) == 0
    assert "exploitability" in capsys.readouterr().out

    # user errors: one line, exit 2
    assert main(["train", "tic_tac_toe", "--resume", str(out), "--seed", "5"]) == 2
    assert main(["train", "chess", "--episodes", "10"]) == 2
    assert main(["eval", "connect_four", str(out), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "seed" in err and "unknown game" in err and "tic_tac_toe, not connect_four" in err
