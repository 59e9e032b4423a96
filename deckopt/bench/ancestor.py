"""The ancestor's way of playing: one game at a time, one eager Keras call per move.

The ancestor project chose every move with `model(obs)` on a single observation (its self-play and
its genetic_algorithm.py alike). The selfplay and evolution benchmarks both time this one
implementation against the project's lock-step numpy play. Keras is imported here, lazily: this
module is a tool on top of the library, which never imports it.
"""

from __future__ import annotations

import numpy as np

ANCESTOR_LAYERS = 3
ANCESTOR_UNITS = 200


def keras_model(game, network=None):
    """(Keras model, description): the numpy Q-network's layers and weights in Keras (so it plays the
    very same moves), or without one the ancestor's architecture (3 x 200 relu, tanh output) with
    seeded random weights."""
    import keras

    inputs = [keras.Input((game.observation_size,))]
    if network is not None:
        layers = [keras.layers.Dense(k.shape[1], activation=a) for k, a in zip(network.kernels, network.activations)]
        model = keras.Sequential(inputs + layers)
        model.set_weights(network.weights)
        return model, "the shipped agent's network in Keras"
    keras.utils.set_random_seed(0)
    hidden = [keras.layers.Dense(ANCESTOR_UNITS, activation="relu") for _ in range(ANCESTOR_LAYERS)]
    model = keras.Sequential(inputs + hidden + [keras.layers.Dense(game.num_actions, activation="tanh")])
    return model, "the ancestor's architecture (3 x 200 relu, tanh) with random weights"


def warm_up(model, state, calls: int = 5) -> None:
    """The first eager calls build things; a timed game should not pay for them."""
    for _ in range(calls):
        model(state.observation(state.current_player)[None])


def play_game(model, state, rng: np.random.Generator | None = None, epsilon: float = 0.0) -> int:
    """Play `state` to its end, one eager Keras call per move (greedy over the legal actions; with
    probability `epsilon` a uniform legal action instead, as the ancestor's self-play did).
    Returns the number of moves."""
    moves = 0
    while not state.is_terminal():
        if epsilon > 0 and rng.random() < epsilon:
            action = int(rng.choice(state.legal_actions()))
        else:
            q = np.asarray(model(state.observation(state.current_player)[None]))[0]
            action = int(np.argmax(np.where(state.legal_mask(), q, -np.inf)))
        state.apply_action(action)
        moves += 1
    return moves
