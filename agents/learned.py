"""Greedy agents from trained Q-networks, acting in numpy.

A trained model is an MLP: a list of (kernel, bias) pairs with one activation per layer (an
AlphaZero model may begin with 3 x 3 convolutions over the board; its metadata then carries the
observation's `planes`). Acting
needs nothing but numpy: `LearnedAgent.act` stacks the observations of the whole batch, runs ONE
forward pass and takes the masked argmax, so an illegal action is impossible. The agent pickles as
a few arrays, so deck-evolution worker processes use it without importing TensorFlow.

Model files (written by agents.dqn):
- `model.npz`: the weights `kernel_0, bias_0, kernel_1, ...` and `metadata`, a JSON string with
  the game name and config, observation_size, num_actions, layer sizes and activations;
- `model.keras`: the same network as a Keras 3 model (named `q_network__<game>`), for TensorFlow
  tools and for resuming work in Keras.
`load_agent` prefers the `.npz` (no TensorFlow) and reads the `.keras` only when it is alone.

Policy models (NFSP's average policy, PPO's actor; see agents.policy) are the same files: the MLP
gives one logit per action and the metadata says `"policy": "sample"` or `"greedy"`; their `.keras`
model is named `policy_network__<game>`. `load_agent` returns a `PolicyAgent` for them, which draws
its actions from the masked softmax with the generator `agents.make` gives it (so a seeded match is
reproducible), or takes the most probable action.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.action_scores import ActionScoreAgent, action_feature_size
from agents.afterstate import EXTRA_FEATURES, AfterstateAgent
from agents.base import Agent, masked_argmax
from agents.policy import POLICY_KERAS_PREFIX, PolicyAgent
from agents.tensorflow_import import import_tensorflow
from games import Game, State, UserError
from games.batch import BatchState
from games.fileio import resolve_path
from games.npz import MODEL_LIMITS, check_archive, read_npz_arrays
from games.schema import ANYTHING, MAX_NAME, Bool, Int, List, Map, Num, Record, Str, json_member

MODEL_FORMAT = "deckopt-q-network-1"
#: the metadata of a `.npz` model file: the keys its readers use (agents.make, the AlphaZero agent,
#: best responses), each checked before it is used; others are kept as they are
MODEL_METADATA = Record(
    {"format": Str(choices=[MODEL_FORMAT]), "activations": List(Str(most=40), least=1, most=256)},
    optional={
        "game": Str(most=MAX_NAME, null=True),
        "game_config": Map(ANYTHING, most=1000),
        "observation_size": Int(1, 10**8),
        "num_actions": Int(1, 10**8),
        "layer_sizes": List(Int(0, 10**8), most=257),
        "planes": List(Int(1, 10**6), least=1, most=8),
        "afterstate": Bool(),
        "action_scores": Bool(),
        "alphazero": Bool(),
        "value": Bool(),
        "policy": Str(most=40),
        "input_features": Str(most=MAX_NAME),
        "teacher": Str(),
        "simulations": Int(1, 10**7),
        "c_puct": Num(0, 1e6),
        "episodes": Int(0),
        "seed": Int(),
    },
)
KERAS_NAME_PREFIX = "q_network__"
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"

_ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0, out=x),
    "tanh": lambda x: np.tanh(x, out=x),
    "linear": lambda x: x,
    "sigmoid": lambda x: np.divide(1.0, 1.0 + np.exp(-x), out=x),
}
ACTIVATIONS = tuple(_ACTIVATIONS)


_blas_limits = None  # threadpoolctl's limiter, kept for the life of the process


def single_threaded_blas() -> None:
    """Limit numpy's BLAS to one thread, once per process, unless OPENBLAS_NUM_THREADS is set.

    The forward passes here are small matrices (a batch of <= 512 x a few hundred units): with
    threaded BLAS on a shared 2-core machine they ran 4x slower alone and 40x slower next to
    TensorFlow's threads (spin-waiting workers), measured."""
    global _blas_limits
    if _blas_limits is not None or "OPENBLAS_NUM_THREADS" in os.environ:
        return
    from threadpoolctl import threadpool_limits

    _blas_limits = threadpool_limits(limits=1, user_api="blas")


class NumpyNetwork:
    """A network's forward pass in float32 numpy: `out = net(obs)` for a (batch, observation_size)
    array (Q-values, policy logits, or AlphaZero's logits and value: whatever the weights compute).

    With `planes` = (C, H, W) (an observation made of C board planes of H x W, plane-major), the
    first layers may be 3 x 3 convolutions ('same' padding, stride 1; kernels [3, 3, in, out] as
    Keras stores them): the observation is read as an H x W board of C channels, and the last
    convolution's output is flattened row by row, channels last (Keras' Flatten) for the Dense
    layers after it.

    The network holds read-only float32 copies of its weights; `key` names them (two networks of
    equal layers and weights have equal keys), so agents can share one forward pass."""

    def __init__(self, weights: Sequence[np.ndarray], activations: Sequence[str], planes: Sequence[int] | None = None):
        single_threaded_blas()
        weights = [np.array(w, dtype=np.float32) for w in weights]  # a copy of its own, read-only
        for w in weights:
            w.flags.writeable = False
        if len(weights) != 2 * len(activations) or not activations:
            raise ValueError(f"{len(weights)} weight arrays for {len(activations)} layers")
        for a in activations:
            if a not in _ACTIVATIONS:
                raise ValueError(f"unknown activation {a!r}; known: {', '.join(ACTIVATIONS)}")
        self.kernels = weights[0::2]
        self.biases = weights[1::2]
        self.planes = tuple(int(p) for p in planes) if planes is not None else None
        self.convs = 0  # the leading layers that are convolutions
        while self.convs < len(self.kernels) and self.kernels[self.convs].ndim == 4:
            self.convs += 1
        bad = "weight shapes do not chain: " + ", ".join(str(w.shape) for w in weights)
        if self.convs and (self.planes is None or len(self.planes) != 3):
            raise ValueError("convolution kernels need the observation's planes (C, H, W)")
        fan_in = None  # what the next Dense layer must take (None: the first layer takes any input)
        if self.convs:
            channels = self.planes[0]
            for k, b in zip(self.kernels[: self.convs], self.biases):
                if k.shape[:3] != (3, 3, channels) or b.shape != (k.shape[3],):
                    raise ValueError(bad)
                channels = k.shape[3]
            fan_in = self.planes[1] * self.planes[2] * channels
        for k, b in zip(self.kernels[self.convs :], self.biases[self.convs :]):
            if k.ndim != 2 or b.shape != (k.shape[1],) or (fan_in is not None and k.shape[0] != fan_in):
                raise ValueError(bad)
            fan_in = k.shape[1]
        self.activations = list(activations)
        digest = hashlib.blake2b(repr((self.activations, self.planes)).encode(), digest_size=16)
        for w in weights:
            digest.update(repr(w.shape).encode())
            digest.update(w.tobytes())
        #: equal for two networks of the same layers and weights (a model file loaded twice)
        self.key = digest.hexdigest()

    @property
    def input_size(self) -> int:
        return int(np.prod(self.planes)) if self.convs else self.kernels[0].shape[0]

    @property
    def output_size(self) -> int:
        return self.kernels[-1].shape[-1]

    @property
    def layer_sizes(self) -> list[int]:
        return [k.shape[-1] for k in self.kernels]

    @property
    def weights(self) -> list[np.ndarray]:
        return [w for pair in zip(self.kernels, self.biases) for w in pair]

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float32)
        layers = zip(self.kernels, self.biases, self.activations)
        if self.convs:
            c, h, w = self.planes
            board = x.reshape(len(x), c, h, w).transpose(0, 2, 3, 1)
            for _ in range(self.convs):
                kernel, bias, activation = next(layers)
                board = _ACTIVATIONS[activation](_conv3x3(board, kernel) + bias)
            x = board.reshape(len(x), -1)
        for kernel, bias, activation in layers:
            x = x @ kernel
            x += bias
            x = _ACTIVATIONS[activation](x)
        return x

    def after_first_product(self, first: np.ndarray) -> np.ndarray:
        """The output from the first Dense layer's affine part (`input @ kernel_0 + bias_0`), for a
        caller that computes that product in pieces (agents/action_scores.py)."""
        if self.convs:
            raise ValueError("a network beginning with convolutions has no first Dense product")
        x = _ACTIVATIONS[self.activations[0]](np.asarray(first, dtype=np.float32))
        for kernel, bias, activation in zip(self.kernels[1:], self.biases[1:], self.activations[1:]):
            x = x @ kernel
            x += bias
            x = _ACTIVATIONS[activation](x)
        return x


NumpyQNetwork = NumpyNetwork  # the name that pickled agents may refer to


def _conv3x3(board: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """A 3 x 3 'same' convolution (Keras' cross-correlation) of [B, H, W, C] boards: the nine
    shifted boards side by side, one matrix product."""
    b, h, w, c = board.shape
    padded = np.zeros((b, h + 2, w + 2, c), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = board
    cols = np.empty((b, h, w, 3, 3, c), dtype=np.float32)
    for dy in range(3):
        for dx in range(3):
            cols[:, :, :, dy, dx] = padded[:, dy : dy + h, dx : dx + w]
    return (cols.reshape(b * h * w, 9 * c) @ kernel.reshape(9 * c, -1)).reshape(b, h, w, -1)


class LearnedAgent(Agent):
    """Greedy with respect to a Q-network: one forward pass per batch, masked argmax."""

    deterministic = True

    def __init__(self, game: Game, network: NumpyNetwork, metadata: dict | None = None):
        if network.input_size != game.observation_size or network.output_size != game.num_actions:
            raise UserError(
                f"network has {network.input_size} inputs and {network.output_size} outputs; "
                f"{game.name} needs {game.observation_size} and {game.num_actions}"
            )
        self.game = game
        self.network = network
        self.metadata = metadata or {}

    def q_values(self, states: Sequence[State]) -> np.ndarray:
        return self.network(self.game.observations(states))

    def act(self, states: Sequence[State]) -> np.ndarray:
        masks = self.game.legal_masks(states)
        return masked_argmax(self.q_values(states), masks)

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        return masked_argmax(self.network(batch.observations(games)), batch.legal_masks(games))


# --- model files --------------------------------------------------------------------------------
def game_config_dict(game: Game) -> dict:
    """The game's config as plain JSON values (dataclasses become dicts, tuples lists)."""
    config = getattr(game, "config", None)
    raw = dataclasses.asdict(config) if dataclasses.is_dataclass(config) else {}
    return json.loads(
        json.dumps(raw, default=lambda o: dataclasses.asdict(o) if dataclasses.is_dataclass(o) else str(o))
    )


def model_metadata(game: Game, network: NumpyNetwork, **extra) -> dict:
    return {
        "format": MODEL_FORMAT,
        "game": game.name,
        "game_config": game_config_dict(game),
        "observation_size": network.input_size,
        "num_actions": network.output_size,
        "layer_sizes": network.layer_sizes,
        "activations": network.activations,
        **({"planes": list(network.planes)} if network.convs else {}),
        **extra,
    }


def npz_bytes(network: NumpyNetwork, metadata: dict) -> bytes:
    """The `.npz` model file as bytes (callers write it atomically)."""
    import io

    arrays = {}
    for i, (k, b) in enumerate(zip(network.kernels, network.biases)):
        arrays[f"kernel_{i}"] = k
        arrays[f"bias_{i}"] = b
    buffer = io.BytesIO()
    np.savez(buffer, metadata=np.array(json.dumps(metadata)), **arrays)
    return buffer.getvalue()


def _reason(exc: BaseException, limit: int = 200) -> str:
    """An exception as one short line (Keras messages span several)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_finite(weights) -> None:
    """ValueError if a weight is NaN or infinite: such a network picks the same move whatever happens."""
    for w in weights:
        if not np.all(np.isfinite(w)):
            raise ValueError("its weights are not all finite numbers (NaN or infinity)")


def _check_model_file(path: Path) -> None:
    """UserError naming why `path` is no model file to read: missing, or not a regular file."""
    if not path.exists():
        raise UserError(f"model file {path} not found")
    if not path.is_file():
        raise UserError(f"model file {path} is not a regular file (a folder, a FIFO, a device or a socket); not read")


def read_npz(path: str | Path) -> tuple[NumpyNetwork, dict]:
    """The network and metadata of a `.npz` model file; UserError if it is not one. Runs no code
    from the file: object arrays (pickles) are refused."""
    path = Path(path)
    _check_model_file(path)
    try:
        data = read_npz_arrays(path, MODEL_LIMITS)
        if "metadata" not in data and "state" in data:
            raise ValueError("it is a training checkpoint: give its run folder, or the run's model.npz")
        metadata = json_member(data, "metadata", MODEL_METADATA)
        n = len(metadata["activations"])
        weights = [data[f"{kind}_{i}"] for i in range(n) for kind in ("kernel", "bias")]
        if any(w.dtype.kind != "f" for w in weights):
            raise ValueError(f"weights of type {sorted({str(w.dtype) for w in weights})}, not floating-point numbers")
        _check_finite(weights)
        network = NumpyNetwork(weights, metadata["activations"], metadata.get("planes"))
        if (metadata.get("observation_size"), metadata.get("num_actions")) != (network.input_size, network.output_size):
            raise ValueError("its metadata does not match its weights")
    except Exception as exc:  # empty, truncated, hostile or foreign files fail in many ways inside numpy
        raise UserError(f"{path} is not a readable deckopt model ({_reason(exc)})") from None
    return network, metadata


def read_keras(path: str | Path) -> tuple[NumpyNetwork, dict]:
    """The network of a `.keras` model file (imports Keras; slow, so only without an .npz). Runs no
    code from the file: Keras' safe mode refuses Lambda layers and other serialized Python."""
    path = Path(path)
    _check_model_file(path)
    if not zipfile.is_zipfile(path):
        raise UserError(f"{path} is not a readable Keras model (not a .keras archive)")
    try:
        check_archive(path, MODEL_LIMITS)  # its real inflated size, before Keras reads it
        import_tensorflow()  # without TensorFlow's C++ start-up lines
        import keras

        model = keras.saving.load_model(path, compile=False, safe_mode=True)
        dense = [layer for layer in model.layers if layer.weights]
        activations = [layer.get_config()["activation"] for layer in dense]
        # a network with convolutions reshapes its observation into board planes first
        planes = next((layer.target_shape for layer in model.layers if isinstance(layer, keras.layers.Reshape)), None)
        network = NumpyNetwork([v.numpy() for v in model.weights], activations, planes)
        _check_finite(network.kernels + network.biases)
    except Exception as exc:  # a corrupt or foreign archive can fail in many ways inside Keras
        raise UserError(f"{path} is not a readable deckopt model ({_reason(exc)})") from None

    game_name, policy = None, None
    for prefix in (KERAS_NAME_PREFIX, POLICY_KERAS_PREFIX):
        if model.name.startswith(prefix):
            game_name = model.name[len(prefix) :]
            policy = "sample" if prefix == POLICY_KERAS_PREFIX else None
    metadata = {
        "format": MODEL_FORMAT,
        "game": game_name,
        "observation_size": network.input_size,
        "num_actions": network.output_size,
        "layer_sizes": network.layer_sizes,
        "activations": network.activations,
        **({"planes": list(network.planes)} if network.convs else {}),
        **({"policy": policy} if policy else {}),
    }
    return network, metadata


def check_model_fits(metadata: dict, game: Game, where: str) -> None:
    """UserError unless the model was trained for `game` (name and sizes)."""
    trained_for = metadata.get("game")
    if trained_for is not None and trained_for != game.name:
        raise UserError(f"{where} is a model for {trained_for}, not {game.name}")
    # an afterstate value network reads an observation with EXTRA_FEATURES more and gives one value
    # an action scorer reads the observation and an action's features and gives one score
    afterstate, scorer = bool(metadata.get("afterstate")), bool(metadata.get("action_scores"))
    inputs = game.observation_size + (EXTRA_FEATURES if afterstate else 0)
    if scorer:
        inputs += action_feature_size(game)
    outputs = 1 if afterstate or scorer else game.num_actions
    if metadata["observation_size"] != inputs or metadata["num_actions"] != outputs:
        raise UserError(
            f"{where} expects {metadata['observation_size']} inputs and {metadata['num_actions']} "
            f"outputs, but this {game.name} needs {inputs} and {outputs} "
            f"(trained with game config {metadata.get('game_config', '?')}, now {game_config_dict(game)})"
        )


def resolve_model_path(spec: str, game: Game) -> Path:
    """The model file a spec names: `pretrained`, a run folder, or a .npz/.keras path. A `.keras`
    path with a sibling `.npz` of the same stem resolves to the `.npz` (no TensorFlow needed)."""
    if spec == "pretrained":
        return _pretrained_path(game)
    path = resolve_path(spec)  # `agents/pretrained/...`: the installation's, from any folder
    if path.is_dir():
        for name in ("model.npz", "model.keras"):
            if (path / name).is_file():
                return path / name
        raise UserError(f"run folder {path} has no model.npz or model.keras (has its training finished?)")
    if path.suffix == ".keras" and path.with_suffix(".npz").is_file():
        return path.with_suffix(".npz")
    if path.suffix not in (".npz", ".keras"):
        raise UserError(f"{spec}: not a model (.npz or .keras) or a run folder")
    _check_model_file(path)
    return path


def _pretrained_path(game: Game) -> Path:
    """`pretrained/<game>_<n>p.npz` (a model for this number of players, where the observation
    depends on it, e.g. Durak), else `pretrained/<game>.npz` (.keras when there is no .npz)."""
    n = getattr(getattr(game, "config", None), "num_players", None)
    stems = ([f"{game.name}_{n}p"] if n is not None else []) + [game.name]
    for stem in stems:
        for suffix in (".npz", ".keras"):
            if (PRETRAINED_DIR / (stem + suffix)).is_file():
                return PRETRAINED_DIR / (stem + suffix)
    players = f" with {n} players" if n is not None else ""
    raise UserError(
        f"no pretrained agent for {game.name}{players} (expected {PRETRAINED_DIR / stems[0]}.npz); "
        "train one with `deckopt train`"
    )


def load_network(spec: str, game: Game) -> tuple[NumpyNetwork, dict]:
    path = resolve_model_path(spec, game)
    network, metadata = read_npz(path) if path.suffix == ".npz" else read_keras(path)
    check_model_fits(metadata, game, str(path))
    metadata["path"] = str(path)
    return network, metadata


def load_agent(spec: str, game: Game, rng: np.random.Generator | None = None) -> Agent:
    """The agent of a model spec (`pretrained`, run folder, .npz or .keras path): greedy for a
    Q-network, a `PolicyAgent` (sampling with `rng`, or greedy) for a policy network."""
    path = resolve_model_path(str(spec), game)
    if path.suffix == ".npz" and read_npz(path)[1].get("alphazero"):
        raise UserError(f"{spec} is an AlphaZero model: play it with its search as az:{spec}")
    network, metadata = load_network(str(spec), game)
    if "policy" in metadata:
        return PolicyAgent(game, network, metadata["policy"], rng, metadata)
    if metadata.get("afterstate"):
        return AfterstateAgent(game, network, metadata)
    if metadata.get("action_scores"):
        return ActionScoreAgent(game, network, metadata)
    return LearnedAgent(game, network, metadata)
