"""Input features computed from a game's observation and appended to it before the network
(`input_features`): facts a small network finds hard to learn from the raw board. A game declares
its own (`GameFacts.input_features`; Connect Four's `threats`, games/connect_four.py)."""

from __future__ import annotations

import numpy as np

from games import Game, UserError


def feature_function(name: str, game: Game):
    """(function, size) of the features `name` of `game`; (None, 0) for no features."""
    if not name:
        return None, 0
    known = game.facts.input_features
    if name not in known:
        offered = ", ".join(known) or "none"
        raise UserError(f"input_features: {game.name} has no features {name!r} (its features: {offered})")
    return known[name]


def with_features(obs: np.ndarray, function) -> np.ndarray:
    """Observations [..., D] -> [..., D + F]: the observation, then its features."""
    flat = obs.reshape(-1, obs.shape[-1])
    out = np.concatenate([flat, function(flat)], axis=1)
    return out.reshape(*obs.shape[:-1], out.shape[1])


class FeatureNetwork:
    """A numpy network over [observation, features] that takes the bare observation (and pickles, for
    worker processes): the search and the agents see an ordinary network of the game's observation."""

    def __init__(self, network, name: str, game: Game):
        self.network = network
        self.function, size = feature_function(name, game)
        self.input_size = network.input_size - size
        self.output_size = network.output_size

    @property
    def weights(self):
        return self.network.weights

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return self.network(with_features(np.asarray(obs, np.float32), self.function))
