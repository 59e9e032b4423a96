"""Input features computed from a game's observation and appended to it before the network
(`input_features`): facts a small network finds hard to learn from the raw board.

`threats` (connect_four): for each player, the empty cells that would complete four in a row for
that player (a line of four cells holding three of the player's stones and no other stone). Which
rows those cells are on decides most endgames (odd and even threats), and a value head misjudges
exactly such positions. The features are a function of the observation alone, so a mirrored
observation gives mirrored features, and the replay keeps raw observations.
"""

from __future__ import annotations

import numpy as np

from games import UserError

ROWS, COLS = 6, 7


def _connect_four_lines() -> np.ndarray:
    """[69, 42] float32: row i marks the four cells (row * 7 + column) of the i-th line of four."""
    lines = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in cells):
                    row = np.zeros(ROWS * COLS, np.float32)
                    row[[rr * COLS + cc for rr, cc in cells]] = 1.0
                    lines.append(row)
    return np.array(lines)


_LINES = _connect_four_lines()


def connect_four_threats(obs: np.ndarray) -> np.ndarray:
    """[k, 84] observations (own stones, other stones) -> [k, 84] threat cells (own, other)."""
    own, other = obs[:, : ROWS * COLS], obs[:, ROWS * COLS :]
    empty = 1.0 - own - other
    own_count, other_count = own @ _LINES.T, other @ _LINES.T
    own_lines = ((own_count == 3) & (other_count == 0)).astype(np.float32)
    other_lines = ((other_count == 3) & (own_count == 0)).astype(np.float32)
    return np.concatenate([(own_lines @ _LINES > 0) * empty, (other_lines @ _LINES > 0) * empty], axis=1).astype(
        np.float32
    )


# name -> game -> (function of [k, observation_size] observations, number of features it returns)
FEATURES = {"threats": {"connect_four": (connect_four_threats, 2 * ROWS * COLS)}}


def feature_function(name: str, game_name: str):
    """(function, size) of the features `name` for `game_name`; (None, 0) for no features."""
    if not name:
        return None, 0
    if name not in FEATURES:
        raise UserError(f"unknown input_features {name!r}; known: {', '.join(FEATURES)}")
    if game_name not in FEATURES[name]:
        raise UserError(f"input_features {name!r} exist for {', '.join(FEATURES[name])} only, not {game_name}")
    return FEATURES[name][game_name]


def with_features(obs: np.ndarray, function) -> np.ndarray:
    """Observations [..., D] -> [..., D + F]: the observation, then its features."""
    flat = obs.reshape(-1, obs.shape[-1])
    out = np.concatenate([flat, function(flat)], axis=1)
    return out.reshape(*obs.shape[:-1], out.shape[1])


class FeatureNetwork:
    """A numpy network over [observation, features] that takes the bare observation (and pickles, for
    worker processes): the search and the agents see an ordinary network of the game's observation."""

    def __init__(self, network, name: str, game_name: str):
        self.network = network
        self.function, size = feature_function(name, game_name)
        self.input_size = network.input_size - size
        self.output_size = network.output_size

    @property
    def weights(self):
        return self.network.weights

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return self.network(with_features(np.asarray(obs, np.float32), self.function))
