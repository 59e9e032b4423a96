"""The pruning networks in Keras: the only module of agents/pruning that imports TensorFlow/Keras.

Both are the paper's MLPs on (iterations, arms) scaled as agents/pruning/networks.py scales them:
ReLU hidden layers of 200-300-100 (Safety Network, regression of the arms to keep) and 300-500-200
(Probability Network, regression of the chance of finding the best arm), Adam on the mean squared
error. `train` returns the numpy copy used at play time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from agents.learning.keras_helpers import init_tensorflow
from agents.pruning.networks import ARM_SCALE, ITER_SCALE, MLP

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

SAFETY_LAYERS = (200, 300, 100)
PROBABILITY_LAYERS = (300, 500, 200)


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 300
    batch_size: int = 64
    learning_rate: float = 1e-3
    seed: int = 0


def scale_inputs(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.stack([x[:, 0] / ITER_SCALE, x[:, 1] / ARM_SCALE], axis=1)


def train(x: np.ndarray, y: np.ndarray, layers, config: TrainConfig) -> tuple[MLP, float]:
    """Fit an MLP (inputs scaled) to y; returns its numpy copy and the final training MSE."""
    import keras
    import tensorflow as tf

    init_tensorflow(config.seed)
    inputs = keras.Input((2,))
    h = inputs
    for i, units in enumerate(layers):
        init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + i)
        h = keras.layers.Dense(units, activation="relu", kernel_initializer=init)(h)
    out = keras.layers.Dense(1, kernel_initializer=keras.initializers.GlorotUniform(seed=config.seed * 1000 + 99))(h)
    model = keras.Model(inputs, out)
    model.compile(optimizer=keras.optimizers.Adam(config.learning_rate), loss="mse")
    xs = scale_inputs(x).astype(np.float32)
    ys = np.asarray(y, dtype=np.float32)[:, None]
    data = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(len(xs), seed=config.seed).batch(config.batch_size)
    history = model.fit(data, epochs=config.epochs, verbose=0)
    dense = [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    weights = [np.asarray(layer.kernel, dtype=np.float64) for layer in dense]
    biases = [np.asarray(layer.bias, dtype=np.float64) for layer in dense]
    return MLP(weights, biases), float(history.history["loss"][-1])
