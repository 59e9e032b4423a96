"""Acting by a learned afterstate value: for every legal action, the state it leads to is scored by a
value network from the mover's view, and the action of the best-scored afterstate is taken (Sutton
and Barto, *Reinforcement Learning: An Introduction*, 2nd ed., §6.8 "afterstates"; Tesauro's
TD-Gammon acts so).

    V(s, p) = net([observation of s by p, 1 if p is to move in s else 0])   in [-1, 1]

A finished afterstate is worth its return for `p` instead of the network's value. The features are
the game's observation (for LOCM: what the cards are, board, hands' card features, health, mana,
runes, deck sizes) with whose turn it is appended, so an action that ends the turn is scored on the
state the opponent then moves in. One forward pass of each network scores every afterstate of its
games of a batch step; the afterstates of all the agents asked together (`AfterstateAgent.act_together`)
are stepped and observed in one go, on the vectorised engine's copies (`take`) where it has one, else
on cloned states. Ties go to the lowest action number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.scored_choice import ScoredChoiceAgent
from games.base import TERMINAL
from games.batch import BatchState

# (rows of features) -> (rows, 1) values: a NumpyNetwork
ValueNetwork = Callable[[np.ndarray], np.ndarray]
#: features of an afterstate beyond the game's observation (whose turn it is)
EXTRA_FEATURES = 1
CHUNK = 16384  # afterstates stepped and scored at a time


def afterstate_features(copies: BatchState, players: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, finished, returns) of every game of `copies` seen by `players[k]`: the observation
    and whether that player is to move; whether the game is over, and its return for the player."""
    k = np.arange(copies.size)
    movers = copies.current_players()
    finished = movers == TERMINAL
    obs = copies.observations(k, players)
    features = np.concatenate([obs, (movers == players)[:, None].astype(np.float32)], axis=1)
    return features.astype(np.float32, copy=False), finished, copies.returns()[k, players]


def afterstates(batch: BatchState, games: np.ndarray, actions: np.ndarray) -> BatchState:
    """A batch of copies of games `games[i]` after `actions[i]`."""
    copies = batch.take(games)
    copies.apply_actions(np.arange(copies.size), actions)
    return copies


def afterstate_values(
    networks: Sequence[ValueNetwork], owners: np.ndarray, batch: BatchState, games: np.ndarray, chunk: int = CHUNK
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, actions, values): every legal action of every game `games[rows[i]]` and the value of
    its afterstate for the player to move there by `networks[owners[rows[i]]]`: every afterstate
    stepped and seen once whatever network scores it. A game with one legal action gets it with
    value 0, unscored (nothing to choose); a finished afterstate its return, no network call."""
    players = batch.current_players()[games]
    masks = batch.legal_masks(games)
    rows, actions = np.nonzero(masks)
    values = np.zeros(len(rows), dtype=np.float64)
    scored = np.flatnonzero(masks.sum(axis=1)[rows] > 1)
    for start in range(0, len(scored), chunk):
        part = scored[start : start + chunk]
        copies = afterstates(batch, games[rows[part]], actions[part])
        features, finished, returns = afterstate_features(copies, players[rows[part]])
        values[part[finished]] = returns[finished]
        owner = owners[rows[part]]
        for k, network in enumerate(networks):
            mine = np.flatnonzero((owner == k) & ~finished)
            if len(mine):
                values[part[mine]] = np.asarray(network(features[mine]), dtype=np.float64)[:, 0]
    return rows, actions, values


class AfterstateAgent(ScoredChoiceAgent):
    """Takes the action whose afterstate `network` values most; with `epsilon` > 0 (training's
    exploration) a uniformly random legal action instead with that probability, drawn from `rng`.
    Afterstate agents asked together in an arena step (`act_together`: a panel's copies, two sides
    of one match) step and see each afterstate once, each scoring its own games' afterstates."""

    @classmethod
    def score_legal(cls, networks, owners, batch, games):
        return afterstate_values(networks, owners, batch, games)
