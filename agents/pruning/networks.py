"""The two pruning networks at play time: numpy forward passes and their `.npz` files.

    nets = load("uniform")                       # agents/pretrained/pruning_uniform.npz
    nets.keep(iterations=[200, 300], arms=20)    # Safety Network: arms to keep (rounded, 1..arms)
    nets.probability(remaining=[100], arms=[5])  # Probability Network: chance of finding the best

Each network is an MLP (2 inputs -> ReLU hidden layers -> 1 output) on inputs scaled by
(iterations / ITER_SCALE, arms / ARM_SCALE); inputs are clamped to the training range first, so a
budget beyond it reads the networks at the range's edge instead of extrapolating. Predictions are
memoised by input, since the schedule asks the same questions at every move.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from games import UserError
from games.fileio import atomic_write_bytes
from games.npz import MODEL_LIMITS, read_npz_arrays

ITER_SCALE = 1000.0
ARM_SCALE = 50.0
PRETRAINED = Path(__file__).resolve().parent.parent / "pretrained"
NAMES = ("uniform", "bimodal")


@dataclass
class MLP:
    weights: list[np.ndarray]
    biases: list[np.ndarray]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float64)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < last:
                h = np.maximum(h, 0.0)
        return h[:, 0]


@dataclass
class PruningNetworks:
    safety_net: MLP
    probability_net: MLP
    max_iterations: int = 1500  # training range of the iteration inputs
    max_arms: int = 50
    meta: dict = field(default_factory=dict)
    _keep: dict = field(default_factory=dict, repr=False)
    _prob: dict = field(default_factory=dict, repr=False)

    def _inputs(self, iterations, arms) -> np.ndarray:
        it = np.clip(np.asarray(iterations, dtype=np.float64), 0, self.max_iterations)
        ar = np.clip(np.asarray(arms, dtype=np.float64), 1, self.max_arms)
        it, ar = np.broadcast_arrays(it, ar)
        return np.stack([it.ravel() / ITER_SCALE, ar.ravel() / ARM_SCALE], axis=1)

    def keep(self, iterations, arms: int) -> np.ndarray:
        """Safety Network: how many of `arms` root actions to keep after `iterations` simulations."""
        key = int(arms)
        row = self._keep.get(key)
        if row is None:  # one forward pass for every iteration count of the training range
            row = self._keep[key] = self.safety_net(self._inputs(np.arange(self.max_iterations + 1), key))
        it = np.clip(np.asarray(iterations, dtype=np.int64), 0, self.max_iterations)
        return np.clip(np.rint(row[it]), 1, key).astype(np.int64)

    def probability(self, remaining, arms) -> np.ndarray:
        """Probability Network: chance that UCT finds the best of `arms` with `remaining` simulations."""
        remaining, arms = np.broadcast_arrays(np.asarray(remaining, dtype=np.int64), np.asarray(arms, dtype=np.int64))
        out = np.empty(remaining.shape)
        for k in np.unique(arms):
            row = self._prob.get(int(k))
            if row is None:
                grid = self._inputs(np.arange(self.max_iterations + 1), int(k))
                row = self._prob[int(k)] = np.clip(self.probability_net(grid), 0.0, 1.0)
            sel = arms == k
            out[sel] = row[np.clip(remaining[sel], 0, self.max_iterations)]
        return out


def save(path, nets: PruningNetworks) -> None:
    arrays = {"max_iterations": np.array(nets.max_iterations), "max_arms": np.array(nets.max_arms)}
    for name, mlp in (("safety", nets.safety_net), ("probability", nets.probability_net)):
        for i, (w, b) in enumerate(zip(mlp.weights, mlp.biases)):
            arrays[f"{name}_w{i}"] = w.astype(np.float32)
            arrays[f"{name}_b{i}"] = b.astype(np.float32)
    for key, value in nets.meta.items():
        arrays[f"meta_{key}"] = np.asarray(value)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def load(name_or_path) -> PruningNetworks:
    """`uniform` / `bimodal` (the shipped networks) or a path to a `.npz` written by `save`."""
    text = str(name_or_path)
    path = PRETRAINED / f"pruning_{text}.npz" if text in NAMES else Path(text)
    if not path.is_file():
        raise UserError(f"pruning networks {text!r}: no such file {path} (make them: deckopt train-pruning)")
    try:
        z = read_npz_arrays(path, MODEL_LIMITS)
        mlps = []
        for name in ("safety", "probability"):
            n = sum(1 for k in z if k.startswith(f"{name}_w"))
            if n == 0:
                raise KeyError(name)
            ws = [z[f"{name}_w{i}"].astype(np.float64) for i in range(n)]
            bs = [z[f"{name}_b{i}"].astype(np.float64) for i in range(n)]
            mlps.append(MLP(ws, bs))
        meta = {k[5:]: z[k].tolist() for k in z if k.startswith("meta_")}
        return PruningNetworks(mlps[0], mlps[1], int(z["max_iterations"]), int(z["max_arms"]), meta)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise UserError(f"pruning networks {text!r}: not a pruning-networks file ({exc})") from None
