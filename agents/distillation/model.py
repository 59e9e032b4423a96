"""The action scorer in Keras: the only module of the learner importing TensorFlow (inside
functions). An MLP on [observation, action features] with one output, built as two first-layer
kernels (the observation's, computed once per decision, and the action features', once per legal
action) so that a minibatch costs one product per decision and per legal action; its weights are
exported as the one MLP that agents.action_scores runs. The update is the cross-entropy between
each decision's softmax of scores over its legal actions and the teacher's target distribution."""

from __future__ import annotations

import os

import numpy as np

from agents.distillation.config import DistillationConfig

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


class ActionScorer:
    """The student's variables and its forward pass: `scores(observations, rows, features)` gives one
    score per legal action (`rows[i]`: the decision of action row i)."""

    def __init__(self, observation_size: int, feature_size: int, config: DistillationConfig):
        import keras
        import tensorflow as tf

        sizes = [*config.hidden_layers, 1]
        init = [keras.initializers.GlorotUniform(seed=config.seed * 1000 + i) for i in range(len(sizes))]
        first = init[0]((observation_size + feature_size, sizes[0])).numpy()
        self.observation_kernel = tf.Variable(first[:observation_size], name="observation_kernel")
        self.feature_kernel = tf.Variable(first[observation_size:], name="feature_kernel")
        self.layers = [(None, tf.Variable(np.zeros(sizes[0], np.float32), name="bias_0"))]
        for i in range(1, len(sizes)):
            kernel = tf.Variable(init[i]((sizes[i - 1], sizes[i])).numpy(), name=f"kernel_{i}")
            self.layers.append((kernel, tf.Variable(np.zeros(sizes[i], np.float32), name=f"bias_{i}")))
        self.activation = keras.activations.get(config.activation)
        self.variables = [
            self.observation_kernel,
            self.feature_kernel,
            *(v for pair in self.layers for v in pair if v is not None),
        ]

    @property
    def trainable_variables(self) -> list:
        return self.variables

    def scores(self, observations, rows, features):
        import tensorflow as tf

        x = tf.gather(observations @ self.observation_kernel, rows) + features @ self.feature_kernel + self.layers[0][1]
        for kernel, bias in self.layers[1:]:
            x = self.activation(x) @ kernel + bias
        return x[:, 0]

    def mlp_weights(self) -> list[np.ndarray]:
        """kernel_0, bias_0, kernel_1, ... of the one MLP on [observation, action features]."""
        out = [
            np.concatenate([self.observation_kernel.numpy(), self.feature_kernel.numpy()]),
            self.layers[0][1].numpy(),
        ]
        for kernel, bias in self.layers[1:]:
            out += [kernel.numpy(), bias.numpy()]
        return out

    def values(self) -> list[np.ndarray]:
        return [v.numpy() for v in self.variables]

    def assign(self, values) -> None:
        for variable, value in zip(self.variables, values, strict=True):
            variable.assign(value)


def make_update(scorer: ActionScorer, optimizer):
    """update(observations [M, n], rows [R], features [R, F], targets [R], decisions M) -> the mean over
    the M decisions of the cross-entropy of the teacher's targets under the softmax of scores within
    each decision (`rows` ascending: each decision's actions are one run)."""
    import tensorflow as tf

    @tf.function(jit_compile=False, reduce_retracing=True)
    def update(observations, rows, features, targets):
        with tf.GradientTape() as tape:
            scores = scorer.scores(observations, rows, features)
            top = tf.math.segment_max(scores, rows)
            shifted = scores - tf.gather(top, rows)
            log_total = tf.math.log(tf.math.segment_sum(tf.exp(shifted), rows))
            log_softmax = shifted - tf.gather(log_total, rows)
            loss = -tf.reduce_sum(targets * log_softmax) / tf.cast(tf.shape(observations)[0], tf.float32)
        grads = tape.gradient(loss, scorer.variables)
        optimizer.apply_gradients(zip(grads, scorer.variables))
        return loss

    return update


def scorer_keras_model(network, config: DistillationConfig, name: str):
    """The exported student `network` as a Keras model on the concatenated [observation, action features]."""
    import keras

    inputs = keras.Input((network.input_size,), name="observation_and_action")
    x = inputs
    for i, units in enumerate(config.hidden_layers):
        x = keras.layers.Dense(units, activation=config.activation, name=f"hidden_{i}")(x)
    model = keras.Model(inputs, keras.layers.Dense(1, name="score")(x), name=name)
    model.set_weights(network.weights)
    return model
