"""Model files of learned agents: round trip .npz == .keras, and every bad file refused in one line
without running code from it (allow_pickle=False, Keras safe mode)."""

from __future__ import annotations

import io
import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

import games
from agents import dqn
from agents.dqn.config import DQNConfig
from agents.learned import (
    NumpyNetwork,
    NumpyQNetwork,
    load_agent,
    model_metadata,
    npz_bytes,
    read_npz,
    single_threaded_blas,
)
from agents.learning.keras_helpers import init_tensorflow
from agents.learning.runfolder import RunLog
from games import UserError
from games.config import config_from_dict

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """An (untrained) Tic Tac Toe model saved the way a run saves it: model.keras + model.npz."""
    out = tmp_path_factory.mktemp("model")
    game = games.make("tic_tac_toe")
    config = config_from_dict(DQNConfig, {"seed": 3, "hidden_layers": [32, 32]})
    init_tensorflow(3)
    model = dqn.build_q_network(game, config)
    network = dqn.numpy_network(model, config)
    RunLog(out, "tic_tac_toe", config, columns=[]).save_model(model, network, model_metadata(game, network, seed=3))
    return out


def states_of(game, count=200, seed=2):
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        s = game.new_initial_state(rng)
        for _ in range(int(rng.integers(0, 7))):
            if not s.is_terminal():
                s.apply_action(int(rng.choice(s.legal_actions())))
        if not s.is_terminal():
            states.append(s)
    return states


def one_line_refusal(spec, game, match: str = "not a readable") -> str:
    with pytest.raises(UserError, match=match) as info:
        load_agent(str(spec), game)
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.cross_cpu
def test_npz_and_keras_give_identical_actions(model_dir, tmp_path):
    game = games.make("tic_tac_toe")
    states = states_of(game)
    from_npz = load_agent(str(model_dir), game)
    keras_only = tmp_path / "alone.keras"  # no .npz beside it: read through Keras
    keras_only.write_bytes((model_dir / "model.keras").read_bytes())
    from_keras = load_agent(str(keras_only), game)
    assert from_npz.metadata["path"].endswith("model.npz")
    np.testing.assert_allclose(from_npz.q_values(states), from_keras.q_values(states), atol=1e-5)
    np.testing.assert_array_equal(from_npz.act(states), from_keras.act(states))
    assert from_npz.metadata["game"] == "tic_tac_toe" and from_npz.metadata["layer_sizes"] == [32, 32, 9]
    clone = pickle.loads(pickle.dumps(from_npz))  # workers get numpy arrays only
    np.testing.assert_array_equal(clone.act(states), from_npz.act(states))


def test_damaged_model_files_are_refused_in_one_line(model_dir, tmp_path):
    ttt = games.make("tic_tac_toe")
    one_line_refusal(tmp_path / "nothing.npz", ttt, match="not found")
    (tmp_path / "empty.npz").write_bytes(b"")  # used to raise EOFError
    one_line_refusal(tmp_path / "empty.npz", ttt)
    (tmp_path / "text.npz").write_bytes(b"this is not a zip archive")
    one_line_refusal(tmp_path / "text.npz", ttt)
    good = (model_dir / "model.npz").read_bytes()
    (tmp_path / "truncated.npz").write_bytes(good[: len(good) // 2])
    one_line_refusal(tmp_path / "truncated.npz", ttt)
    (tmp_path / "corrupt.keras").write_bytes(b"PK\x03\x04 truncated")
    one_line_refusal(tmp_path / "corrupt.keras", ttt)
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as z:
        z.writestr("config.json", "{}")
    one_line_refusal(tmp_path / "empty.keras", ttt)
    (tmp_path / "unfinished").mkdir()
    one_line_refusal(tmp_path / "unfinished", ttt, match="no model.npz")


def test_a_model_for_another_game_or_with_lying_metadata_is_refused(model_dir, tmp_path):
    c4 = games.make("connect_four")
    one_line_refusal(model_dir / "model.npz", c4, match="model for tic_tac_toe, not connect_four")
    keras_only = tmp_path / "ttt.keras"
    keras_only.write_bytes((model_dir / "model.keras").read_bytes())
    one_line_refusal(keras_only, c4, match="tic_tac_toe, not connect_four")
    with np.load(model_dir / "model.npz") as data:
        arrays = {k: data[k] for k in data.files}
    metadata = json.loads(str(arrays["metadata"][()]))
    metadata["observation_size"] = 84  # claims Connect Four's sizes, weights say otherwise
    arrays["metadata"] = np.array(json.dumps(metadata))
    np.savez(tmp_path / "liar.npz", **arrays)
    one_line_refusal(tmp_path / "liar.npz", c4, match="metadata does not match")


class _Boom:
    def __reduce__(self):  # what a hostile pickle does: call something on load
        return (os.system, ("echo pwned > /dev/null",))


def test_a_pickled_object_array_in_an_npz_is_refused_and_never_run(model_dir, tmp_path, monkeypatch):
    with np.load(model_dir / "model.npz") as data:
        arrays = {k: data[k] for k in data.files}
    arrays["kernel_0"] = np.array([_Boom()], dtype=object)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # an object array is stored as a pickle
    (tmp_path / "hostile.npz").write_bytes(buffer.getvalue())
    ran = []
    monkeypatch.setattr(os, "system", lambda cmd: ran.append(cmd))
    message = one_line_refusal(tmp_path / "hostile.npz", games.make("tic_tac_toe"))
    assert "pickled Python objects is never read" in message and ran == []


def test_a_keras_model_with_a_lambda_layer_is_refused(tmp_path):
    import keras

    inputs = keras.Input((18,))
    hidden = keras.layers.Lambda(lambda x: x * 2.0)(inputs)  # serialized Python bytecode
    model = keras.Model(inputs, keras.layers.Dense(9, activation="tanh")(hidden), name="q_network__tic_tac_toe")
    model.save(tmp_path / "lambda.keras")
    message = one_line_refusal(tmp_path / "lambda.keras", games.make("tic_tac_toe"))
    assert "Lambda" in message


@pytest.mark.skipif("OPENBLAS_NUM_THREADS" in os.environ, reason="the environment sets BLAS threads itself")
def test_numpy_networks_run_blas_in_one_thread():
    from threadpoolctl import threadpool_info

    single_threaded_blas()
    # numpy's own BLAS runs the forward passes; scipy (pulled in by ribs and open_spiel) loads a BLAS of
    # its own later, which numpy's matrix products never call
    blas = [p for p in threadpool_info() if p["user_api"] == "blas" and "numpy" in p["filepath"]]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)


def test_the_numpy_network_keeps_its_old_name_for_pickled_agents():
    net = NumpyNetwork([np.ones((2, 3), np.float32), np.zeros(3, np.float32)], ["linear"])
    old = pickle.dumps(net, protocol=0).replace(b"\nNumpyNetwork\n", b"\nNumpyQNetwork\n")
    assert b"NumpyQNetwork" in old and NumpyQNetwork is NumpyNetwork
    np.testing.assert_array_equal(pickle.loads(old)(np.ones((1, 2), np.float32)), [[2.0, 2.0, 2.0]])


@pytest.mark.parametrize(
    "change, named",
    [
        ({"activations": "relu"}, "activations must be a list"),
        ({"planes": [0, 3, 3]}, "planes[0] must be in [1, 1000000]"),
        ({"simulations": -5}, "simulations must be in"),
        ({"afterstate": "yes"}, "afterstate must be true or false"),
        ({"format": "deckopt-q-network-9"}, "format must be one of"),
    ],
)
def test_model_metadata_of_the_wrong_shape_is_refused_in_one_line_naming_the_key(tmp_path, change, named):
    """The metadata a model file keeps as JSON is checked against its schema (agents.learned.MODEL_METADATA)
    before any of it is used."""
    network, metadata = read_npz(ROOT / "agents" / "pretrained" / "tic_tac_toe.npz")
    path = tmp_path / "model.npz"
    path.write_bytes(npz_bytes(network, {**metadata, **change}))
    with pytest.raises(UserError) as exc:
        read_npz(path)
    message = str(exc.value)
    assert "\n" not in message and "is not a readable deckopt model" in message and named in message, message
