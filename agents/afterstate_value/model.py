"""The value network of afterstates in Keras: the only module of the learner importing TensorFlow
(inside functions). An MLP with one output (tanh by default: a return lies in [-1, 1]) and a compiled
update that runs every minibatch of an epoch in one call, mean squared error against the targets."""

from __future__ import annotations

import os

from agents.afterstate_value.config import AfterstateConfig

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def build_value_network(input_size: int, config: AfterstateConfig, name: str):
    import keras

    inputs = keras.Input((input_size,), name="afterstate")
    x = inputs
    for i, units in enumerate(config.hidden_layers):
        init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + i)
        x = keras.layers.Dense(units, activation=config.activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + len(config.hidden_layers))
    y = keras.layers.Dense(1, activation=config.output_activation, kernel_initializer=init, name="value")(x)
    return keras.Model(inputs, y, name=name)


def make_update(model, optimizer):
    """update(features [steps, mb, n], targets [steps, mb]) -> mean squared error of the steps."""
    import tensorflow as tf

    @tf.function(jit_compile=False, reduce_retracing=True)
    def update(features, targets):
        steps = tf.shape(features)[0]
        total = tf.zeros(())
        for u in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(features[u], training=True)[:, 0] - targets[u]))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += loss
        return total / tf.cast(steps, tf.float32)

    return update
