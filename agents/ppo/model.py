"""PPO's actor and critic in Keras: the only PPO module importing TensorFlow (inside functions).

Two MLPs as in CleanRL's ppo.py (orthogonal initialisers, gain sqrt 2 for hidden layers, 0.01 for
the logits, 1 for the value), one Adam over both, and a compiled update that runs every minibatch
of every epoch in one call: the clipped surrogate objective, the (clipped) value loss, the entropy
bonus and the global gradient-norm clip. The policy is the masked softmax of the logits: illegal
logits become NEG (exp underflows to exactly 0), so they take no probability and no gradient.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

NEG = -1e9


def build_mlp(input_size: int, output_size: int, config, seed: int, gain: float, name: str):
    import keras

    inputs = keras.Input((input_size,), name="observation")
    x = inputs
    for i, units in enumerate(config.hidden_layers):
        init = keras.initializers.Orthogonal(gain=math.sqrt(2), seed=seed * 1000 + i)
        x = keras.layers.Dense(units, activation=config.activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.Orthogonal(gain=gain, seed=seed * 1000 + len(config.hidden_layers))
    y = keras.layers.Dense(output_size, activation="linear", kernel_initializer=init, name="output")(x)
    return keras.Model(inputs, y, name=name)


def masked_log_softmax(logits, masks):
    import tensorflow as tf

    return tf.nn.log_softmax(tf.where(masks, logits, NEG), axis=-1)


def make_update(actor, critic, optimizer, config):
    """update(data) with data[k] stacked [steps, minibatch, ...]; returns the mean metrics."""
    import tensorflow as tf

    c = config
    variables = actor.trainable_variables + critic.trainable_variables

    def losses(mb):
        logp_all = masked_log_softmax(actor(mb["obs"], training=True), mb["masks"])
        new_logp = tf.gather(logp_all, mb["actions"], batch_dims=1)
        probs = tf.exp(logp_all)
        entropy = -tf.reduce_mean(tf.reduce_sum(tf.where(mb["masks"], probs * logp_all, 0.0), axis=1))
        log_ratio = new_logp - mb["logp"]
        ratio = tf.exp(log_ratio)
        adv = mb["advantages"]
        if c.norm_adv:
            mean, var = tf.nn.moments(adv, axes=[0])
            adv = (adv - mean) / (tf.sqrt(var) + 1e-8)
        pg_loss = tf.reduce_mean(
            tf.maximum(-adv * ratio, -adv * tf.clip_by_value(ratio, 1 - c.clip_coef, 1 + c.clip_coef))
        )
        value = critic(mb["obs"], training=True)[:, 0]
        v_loss = tf.square(value - mb["returns"])
        if c.clip_vloss:
            clipped = mb["values"] + tf.clip_by_value(value - mb["values"], -c.clip_coef, c.clip_coef)
            v_loss = tf.maximum(v_loss, tf.square(clipped - mb["returns"]))
        v_loss = 0.5 * tf.reduce_mean(v_loss)
        loss = pg_loss - c.ent_coef * entropy + c.vf_coef * v_loss
        approx_kl = tf.reduce_mean((ratio - 1) - log_ratio)
        clipfrac = tf.reduce_mean(tf.cast(tf.abs(ratio - 1) > c.clip_coef, tf.float32))
        return loss, tf.stack([loss, pg_loss, v_loss, entropy, approx_kl, clipfrac])

    @tf.function(jit_compile=False, reduce_retracing=True)
    def update(data):
        steps = tf.shape(data["obs"])[0]
        total = tf.zeros(6)
        for u in tf.range(steps):
            mb = {k: v[u] for k, v in data.items()}
            with tf.GradientTape() as tape:
                loss, metrics = losses(mb)
            grads = tape.gradient(loss, variables)
            grads, _ = tf.clip_by_global_norm(grads, c.max_grad_norm)
            optimizer.apply_gradients(zip(grads, variables))
            total += metrics
        return total / tf.cast(steps, tf.float32)

    return update


def build_optimizer(actor, critic, learning_rate: float):
    import keras

    optimizer = keras.optimizers.Adam(learning_rate=learning_rate, epsilon=1e-5)
    optimizer.build(actor.trainable_variables + critic.trainable_variables)
    return optimizer
