"""Agents that score every legal action of their games and take the best: the afterstate battler
(agents/afterstate.py) and the action scorer (agents/action_scores.py). Agents of one such class asked
together in an arena step (`act_together`: a panel's copies, two sides of one match) share the work
their class can share (stepping afterstates, observing states), each scoring its own games' actions
with its own network; agents whose networks have the same weights (`NumpyNetwork.key`: a panel's
copy on both sides of a match) score their games in one call. Ties go to the lowest action number; a game with one legal
action takes it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from games import Game, State
from games.batch import BatchState, batch_of


def best_actions(rows: np.ndarray, actions: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """For each of `count` games, its action of the highest value (the lowest action on ties). Rows in
    ascending order with each game's actions ascending (as `np.nonzero` of legal masks gives them)
    take one pass; other orders a sort."""
    out = np.zeros(count, dtype=np.int64)
    if not len(rows):
        return out
    if (rows[1:] < rows[:-1]).any() or ((rows[1:] == rows[:-1]) & (actions[1:] <= actions[:-1])).any():
        order = np.lexsort((actions, -values, rows))
        first = np.ones(len(order), dtype=bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        out[rows[order][first]] = actions[order][first]
        return out
    starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
    top = np.maximum.reduceat(values, starts)
    best = np.flatnonzero(values == np.repeat(top, np.diff(np.append(starts, len(rows)))))
    games = rows[best]
    first = np.concatenate([[True], games[1:] != games[:-1]])  # the lowest best action of each game
    out[games[first]] = actions[best[first]]
    return out


class ScoredChoiceAgent(Agent):
    """Takes the legal action its `network` scores highest (`score_legal` says how); with `epsilon` > 0
    (training's exploration) a uniformly random legal action instead with that probability, drawn
    from `rng`."""

    def __init__(
        self,
        game: Game,
        network,
        metadata: dict | None = None,
        epsilon: float = 0.0,
        rng: np.random.Generator | None = None,
    ):
        self.check_network(game, network)
        self.game = game
        self.network = network
        self.metadata = metadata or {}
        self.epsilon = epsilon
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.deterministic = epsilon == 0.0

    def check_network(self, game: Game, network) -> None:
        """Raise UserError when `network` cannot score `game`'s actions (here: no check)."""

    @classmethod
    def score_legal(
        cls, networks: Sequence, owners: np.ndarray, batch: BatchState, games: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, actions, scores): every legal action of every game `games[rows[i]]` (rows ascending)
        and its score by `networks[owners[rows[i]]]`."""
        raise NotImplementedError

    def act(self, states: Sequence[State]) -> np.ndarray:
        return self.act_batch(batch_of(states), np.arange(len(states)))

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        return self.act_together([self], batch, [games])[0]

    @classmethod
    def act_together(
        cls, agents: Sequence[ScoredChoiceAgent], batch: BatchState, games: Sequence[np.ndarray]
    ) -> list[np.ndarray]:
        games = [np.asarray(g, dtype=np.int64) for g in games]
        sizes = [len(g) for g in games]
        everyone = np.concatenate(games) if games else np.zeros(0, dtype=np.int64)
        # agents of one network (a panel's copy on both sides of a match) score their games together
        place: dict[str, int] = {}
        own = [place.setdefault(a.network.key, len(place)) for a in agents]
        networks = [agents[own.index(k)].network for k in range(len(place))]
        owners = np.repeat(np.asarray(own, dtype=np.int64), sizes)
        rows, actions, values = cls.score_legal(networks, owners, batch, everyone)
        chosen = best_actions(rows, actions, values, len(everyone))
        bounds = np.cumsum([0, *sizes])
        cuts = np.searchsorted(rows, bounds)  # rows ascend: each agent's rows are one run
        return [
            agent._explore(chosen[lo:hi], rows[a:b] - lo, actions[a:b])
            for agent, lo, hi, a, b in zip(agents, bounds[:-1], bounds[1:], cuts[:-1], cuts[1:], strict=True)
        ]

    def _explore(self, chosen: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """`chosen`, each replaced with probability `epsilon` by a uniform one of its game's legal
        `actions` (`rows`: the game of each)."""
        if self.epsilon > 0:
            explore = self.rng.random(len(chosen)) < self.epsilon
            if explore.any():
                counts = np.bincount(rows, minlength=len(chosen))
                starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
                pick = starts + (self.rng.random(len(chosen)) * counts).astype(np.int64)
                chosen = np.where(explore, actions[np.minimum(pick, len(actions) - 1)], chosen)
        return chosen
