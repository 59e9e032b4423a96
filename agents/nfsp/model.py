"""NFSP's networks in Keras: the only NFSP module importing TensorFlow (inside functions).

`build_mlp` (also PPO's) is an MLP observation -> hidden layers -> one output per action (or one
value), with seeded initialisers. The compiled training phase runs U steps of both networks:
- the best response: squared error of Q(s, a) against r + gamma * max over the legal a' of
  Q_target(s', a') (0 after the last decision);
- the average policy: cross-entropy of the best response's action under the masked softmax of its
  logits (illegal logits -> -inf, so they take no probability).
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

NEG = -1e9  # "minus infinity" inside the losses (keeps 0 * NEG finite)


def build_mlp(input_size: int, output_size: int, hidden_layers, activation: str, seed: int, name: str, out="linear"):
    """Dense layers with GlorotUniform initialisers seeded from `seed` (layer i: seed * 1000 + i)."""
    import keras

    inputs = keras.Input((input_size,), name="observation")
    x = inputs
    for i, units in enumerate(hidden_layers):
        init = keras.initializers.GlorotUniform(seed=seed * 1000 + i)
        x = keras.layers.Dense(units, activation=activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.GlorotUniform(seed=seed * 1000 + len(hidden_layers))
    y = keras.layers.Dense(output_size, activation=out, kernel_initializer=init, name="output")(x)
    return keras.Model(inputs, y, name=name)


def masked_cross_entropy(logits, masks, actions):
    """Mean -log softmax(logits masked)[action] (tensors)."""
    import tensorflow as tf

    z = tf.where(masks, logits, NEG)
    logp = tf.nn.log_softmax(z, axis=-1)
    return -tf.reduce_mean(tf.gather(logp, actions, batch_dims=1))


def make_train_phase(q_model, target_model, policy_model, q_optimizer, sl_optimizer, gamma: float):
    """One compiled call for U steps; inputs stacked [U, batch, ...]; returns (mean Q loss, mean SL loss)."""
    import tensorflow as tf

    @tf.function(jit_compile=False, reduce_retracing=True)
    def train_phase(rl, sl):
        q_total, sl_total = tf.constant(0.0), tf.constant(0.0)
        num_steps = tf.shape(rl["obs"])[0]
        for u in tf.range(num_steps):
            q_next = target_model(rl["next_obs"][u], training=False)
            best_next = tf.reduce_max(tf.where(rl["next_masks"][u], q_next, NEG), axis=1)
            target = rl["rewards"][u] + gamma * (1.0 - rl["done"][u]) * best_next
            with tf.GradientTape() as tape:
                q = tf.gather(q_model(rl["obs"][u], training=True), rl["actions"][u], batch_dims=1)
                q_loss = tf.reduce_mean(tf.square(tf.stop_gradient(target) - q))
            grads = tape.gradient(q_loss, q_model.trainable_variables)
            q_optimizer.apply_gradients(zip(grads, q_model.trainable_variables))
            with tf.GradientTape() as tape:
                logits = policy_model(sl["obs"][u], training=True)
                sl_loss = masked_cross_entropy(logits, sl["masks"][u], sl["actions"][u])
            grads = tape.gradient(sl_loss, policy_model.trainable_variables)
            sl_optimizer.apply_gradients(zip(grads, policy_model.trainable_variables))
            q_total += q_loss
            sl_total += sl_loss
        steps = tf.cast(num_steps, tf.float32)
        return q_total / steps, sl_total / steps

    return train_phase
