"""Acting by a learned score of each legal action, read from the observation and the action's own
features (`Game.action_feature_index`: for LOCM, the card played, the creature attacking, its
target), with no copy of the game stepped:

    score(s, a) = net([observation of s by its mover, features of a in s])

One network call per batch step scores every legal action of every game: the first layer's product
with the observation is computed once per game, with the action's features once per action, and
the rest of the network runs on the actions (the network is an ordinary MLP whose input is the two
concatenated, so the model file is the usual one). Ties go to the lowest action number. A game with
one legal action takes it unscored.

Such a scorer is trained by distilling an afterstate battler (agents/distillation), whose choices
need a stepped copy of the game per legal action.
"""

from __future__ import annotations

import numpy as np

from agents.scored_choice import ScoredChoiceAgent
from games import Game, UserError


def action_feature_size(game: Game) -> int:
    """The number of features describing an action of `game`; UserError when it declares none."""
    index = getattr(game, "action_feature_index", None)
    if index is None:
        raise UserError(
            f"{game.name} declares no action features (Game.action_feature_index): its actions cannot be scored"
        )
    return index.shape[1]


def action_features(game: Game, observations: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """(len(rows), F) features of action `actions[i]` in the state whose observation is
    `observations[rows[i]]`."""
    n = observations.shape[1]
    extended = np.empty((len(observations), n + 2), dtype=np.float32)
    extended[:, :n], extended[:, n], extended[:, n + 1] = observations, 1.0, 0.0
    flat = rows[:, None] * (n + 2) + game.action_feature_index[actions]
    return np.take(extended.reshape(-1), flat)


def action_scores(network, game: Game, observations: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The score of action `actions[i]` in the state of `observations[rows[i]]`, by `network` (a
    NumpyNetwork whose input is the observation and then the action's features)."""
    return feature_scores(network, observations, rows, action_features(game, observations, rows, actions))


def feature_scores(network, observations: np.ndarray, rows: np.ndarray, features: np.ndarray) -> np.ndarray:
    """`action_scores` of the actions whose features (`action_features`) are `features`, each in the
    state of `observations[rows[i]]`."""
    n = observations.shape[1]
    kernel, bias = network.kernels[0], network.biases[0]
    per_state = observations.astype(np.float32, copy=False) @ kernel[:n]
    per_state += bias
    first = np.take(per_state, rows, axis=0)
    first += features @ kernel[n:]
    return network.after_first_product(first)[:, 0]


class ActionScoreAgent(ScoredChoiceAgent):
    """Takes the legal action `network` scores highest; with `epsilon` > 0 (training's exploration) a
    uniformly random legal action instead with that probability, drawn from `rng`. Scorers asked
    together in an arena step observe each game once and score its actions with their own networks."""

    def check_network(self, game: Game, network) -> None:
        wanted = game.observation_size + action_feature_size(game)
        if network.input_size != wanted or network.output_size != 1:
            raise UserError(
                f"an action scorer of {game.name} takes {wanted} inputs and gives 1 score; this network takes "
                f"{network.input_size} and gives {network.output_size}"
            )

    @classmethod
    def score_legal(cls, networks, owners, batch, games):
        game = batch.game
        masks = batch.legal_masks(games)
        rows, actions = np.nonzero(masks)
        values = np.zeros(len(rows), dtype=np.float64)
        choosing = np.flatnonzero(masks.sum(axis=1) > 1)
        if len(choosing):
            observations = batch.observations(games[choosing])  # one engine call for every network
            place = np.full(len(games), -1)
            place[choosing] = np.arange(len(choosing))
            scored = np.flatnonzero(place[rows] >= 0)
            state = place[rows[scored]]  # each scored action's row of `observations`
            features = action_features(game, observations, state, actions[scored])  # once for every network
            if len(networks) == 1:
                values[scored] = feature_scores(networks[0], observations, state, features)
                return rows, actions, values
            owner = owners[choosing]
            local = np.empty(len(choosing), dtype=np.int64)  # a state's place among its network's states
            for k, network in enumerate(networks):
                states = np.flatnonzero(owner == k)
                if len(states):
                    local[states] = np.arange(len(states))
                    mine = np.flatnonzero(owner[state] == k)
                    values[scored[mine]] = feature_scores(
                        network, observations[states], local[state[mine]], features[mine]
                    )
        return rows, actions, values
