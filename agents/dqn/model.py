"""The Q-network in Keras: the only module of the DQN that imports TensorFlow (inside functions).

An MLP (observation -> hidden layers -> one value per action, tanh) and a compiled training phase
that minimises the squared error of the taken action's value only (Adam, the weights as numpy and
the run's TensorFlow files: agents/learning/keras_helpers.py).
"""

from __future__ import annotations

from agents.learned import KERAS_NAME_PREFIX, NumpyNetwork
from agents.learning.keras_helpers import model_weights


def build_q_network(game, config):
    """The Keras MLP: observation -> hidden layers -> one value per action (seeded initialisers)."""
    import keras

    inputs = keras.Input((game.observation_size,), name="observation")
    x = inputs
    for i, units in enumerate(config.hidden_layers):
        init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + i)
        x = keras.layers.Dense(units, activation=config.activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + len(config.hidden_layers))
    q = keras.layers.Dense(
        game.num_actions, activation=config.output_activation, kernel_initializer=init, name="q_values"
    )(x)
    return keras.Model(inputs, q, name=KERAS_NAME_PREFIX + game.name)


def numpy_network(model, config) -> NumpyNetwork:
    activations = [config.activation] * len(config.hidden_layers) + [config.output_activation]
    return NumpyNetwork(model_weights(model), activations)


def make_train_step(model, optimizer):
    """A compiled step: MSE between the taken action's Q-value and its Monte-Carlo target."""
    import tensorflow as tf

    @tf.function(jit_compile=False)
    def train_step(obs, actions, targets):
        with tf.GradientTape() as tape:
            q = model(obs, training=True)
            q_taken = tf.gather(q, actions, batch_dims=1)
            loss = tf.reduce_mean(tf.square(targets - q_taken))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


def make_train_phase(model, optimizer):
    """A compiled phase of U steps: inputs stacked as [U, batch, ...], one call for all of them
    (so Python and the numpy->tensor copy are paid once per phase, not once per step)."""
    import tensorflow as tf

    @tf.function(jit_compile=False)
    def train_phase(obs, actions, targets):
        total = tf.constant(0.0)
        num_steps = tf.shape(obs)[0]
        for u in tf.range(num_steps):
            with tf.GradientTape() as tape:
                q = model(obs[u], training=True)
                q_taken = tf.gather(q, actions[u], batch_dims=1)
                loss = tf.reduce_mean(tf.square(targets[u] - q_taken))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += loss
        return total / tf.cast(num_steps, tf.float32)

    return train_phase
