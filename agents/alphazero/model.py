"""The policy+value network in Keras: the only AlphaZero module importing TensorFlow (inside functions).

One MLP whose last layer has `num_actions + 1` outputs: the policy head's logits and, in the last
column, the value head (tanh applied in the loss and in numpy). One layer for both heads keeps the
saved model a plain chain of layers, so `agents.learned`'s `.npz`/`.keras` files and numpy
forward pass carry it unchanged. With `conv_channels` (games whose observation is board planes),
3 x 3 convolutions over the board come first, then the Dense layers. Loss: cross-entropy of the
masked softmax against the search's visit distribution + squared error of the value against the
final outcome + L2 on the kernels.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

NEG = -1e9
KERAS_NAME_PREFIX = "az_network__"


def build_network(game, config, input_size: int | None = None):
    """`input_size`: the observation's size, or more with input features (agents/alphazero/features.py)."""
    import keras

    inputs = keras.Input((input_size or game.observation_size,), name="observation")
    x = inputs
    if config.conv_channels:
        # the board planes as an image, channels last; `agents.learned` reads the Reshape's shape
        x = keras.layers.Reshape(game.observation_planes, name="planes")(x)
        x = keras.layers.Permute((2, 3, 1), name="channels_last")(x)
        for i, channels in enumerate(config.conv_channels):
            init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + 500 + i)
            x = keras.layers.Conv2D(
                channels, 3, padding="same", activation=config.activation, kernel_initializer=init, name=f"conv_{i}"
            )(x)
        x = keras.layers.Flatten(name="flatten")(x)
    for i, units in enumerate(config.hidden_layers):
        init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + i)
        x = keras.layers.Dense(units, activation=config.activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + len(config.hidden_layers))
    y = keras.layers.Dense(game.num_actions + 1, activation="linear", kernel_initializer=init, name="heads")(x)
    return keras.Model(inputs, y, name=KERAS_NAME_PREFIX + game.name)


def make_train_phase(model, optimizer, num_actions: int, weight_decay: float):
    """train_phase(obs, masks, pis, zs), each stacked [U, batch, ...]: U Adam steps in one call;
    returns the mean (loss, policy_loss, value_loss)."""
    import tensorflow as tf

    kernels = [v for v in model.trainable_variables if "kernel" in v.path]

    def losses(obs, masks, pis, zs):
        out = model(obs, training=True)
        logp = tf.nn.log_softmax(tf.where(masks, out[:, :num_actions], NEG), axis=-1)
        policy_loss = -tf.reduce_mean(tf.reduce_sum(pis * logp, axis=1))
        value_loss = tf.reduce_mean(tf.square(tf.tanh(out[:, num_actions]) - zs))
        l2 = weight_decay * tf.add_n([tf.reduce_sum(tf.square(k)) for k in kernels])
        return policy_loss + value_loss + l2, policy_loss, value_loss

    @tf.function(jit_compile=False, reduce_retracing=True)
    def train_phase(obs, masks, pis, zs):
        total = tf.zeros(3)
        steps = tf.shape(obs)[0]
        for u in tf.range(steps):
            with tf.GradientTape() as tape:
                loss, pl, vl = losses(obs[u], masks[u], pis[u], zs[u])
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += tf.stack([loss, pl, vl])
        return total / tf.cast(steps, tf.float32)

    return train_phase
