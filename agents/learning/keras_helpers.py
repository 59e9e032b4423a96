"""The TensorFlow side every learner shares (the only module of agents/learning importing it,
inside functions): seeding and determinism, Adam and its state for checkpoints, the weights as
numpy, the atomic `.keras` file and the TensorBoard scalars of a run.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np

from agents.tensorflow_import import import_tensorflow


def init_tensorflow(seed: int, threads: int = 1) -> None:
    """Seed TensorFlow/Keras and make its ops deterministic (call before building models; it makes
    the process's first TensorFlow import, without TensorFlow's C++ start-up lines)."""
    tf = import_tensorflow()
    import keras

    try:  # only possible before TensorFlow's runtime starts; later calls keep the first setting
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(threads)
    except RuntimeError:
        pass
    tf.config.experimental.enable_op_determinism()
    keras.utils.set_random_seed(seed)


def build_optimizer(model, learning_rate: float):
    """Adam with its variables built (so a checkpoint can restore them before the first step)."""
    import keras

    optimizer = keras.optimizers.Adam(learning_rate=learning_rate)
    optimizer.build(model.trainable_variables)
    return optimizer


def model_weights(model) -> list[np.ndarray]:
    """kernel_0, bias_0, kernel_1, ... as numpy (variable.numpy(): get_weights() warns under numpy 2)."""
    return [v.numpy() for v in model.weights]


def optimizer_values(optimizer) -> list[np.ndarray]:
    return [v.numpy() for v in optimizer.variables]


def set_optimizer_values(optimizer, values) -> None:
    if len(values) != len(optimizer.variables):
        raise ValueError(f"{len(values)} optimizer arrays for {len(optimizer.variables)} variables")
    for var, value in zip(optimizer.variables, values):
        var.assign(value)


def set_learning_rate(optimizer, learning_rate: float) -> None:
    optimizer.learning_rate.assign(learning_rate)


def save_keras_atomic(model, path: Path) -> None:
    """model.save to a new temporary file in the same folder (made by mkstemp: never a link already
    there), then os.replace."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp.keras")
    os.close(fd)
    tmp = Path(name)
    try:
        model.save(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


class ScalarWriter:
    """TensorBoard scalars of a run through tf.summary.write (needs no `tensorboard` package)."""

    def __init__(self, folder: Path):
        import tensorflow as tf

        self._writer = tf.summary.create_file_writer(str(folder))

    def write(self, row: dict, step: int) -> None:
        """Every finite number of `row` but `episodes`, at `step`."""
        import tensorflow as tf
        from tensorflow.core.framework import summary_pb2

        plugin = summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
        metadata = summary_pb2.SummaryMetadata(plugin_data=plugin)
        with self._writer.as_default():
            for name, value in row.items():
                if name != "episodes" and value not in ("", None) and math.isfinite(float(value)):
                    tf.summary.write(name, tf.constant(float(value), tf.float32), step=step, metadata=metadata)

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()
