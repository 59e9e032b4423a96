"""Self-play data for the DQN: lock-step games, Monte-Carlo targets, the replay's columns.

No TensorFlow here: the acting network is a numpy copy of the weights (`NumpyNetwork`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.arena import lockstep_batch, play_batch
from agents.base import Agent, masked_argmax
from agents.learned import NumpyNetwork
from agents.learning.replay import ReplayBuffer
from agents.learning.seating import mix_opponents, seat_agents
from games import Game, State
from games.batch import BatchState


def episode_targets(players: Sequence[int], returns: Sequence[float], gamma: float) -> np.ndarray:
    """Targets of one episode's decisions, in order: `players[i]` made decision i. A player's k-th
    of K decisions gets `gamma**(K-1-k) * returns[player]` (its last decision gets the return)."""
    targets = np.empty(len(players), dtype=np.float32)
    later = {}  # player -> how many of its decisions come after this one (K-1-k)
    for i in range(len(players) - 1, -1, -1):
        p = players[i]
        k = later.get(p, 0)
        targets[i] = returns[p] * gamma**k
        later[p] = k + 1
    return targets


class SelfPlayRecorder(Agent):
    """Epsilon-greedy over a numpy Q-network for every seat, remembering every decision. The first
    `opening[g]` decisions of game g are uniformly random (see `random_opening_moves`).

    It decides on a batch (`act_batch`: observations and masks of a vectorised engine, no states)
    or on states (`act`); both record the same rows and draw the same random numbers."""

    spec = "self-play"

    def __init__(self, network: NumpyNetwork, rng: np.random.Generator):
        self.network = network
        self.rng = rng
        self.epsilon = 1.0

    def start(self, states: Sequence[State], epsilon: float, random_opening_moves: int = 0) -> None:
        """A new set of games: `states[g]` is game g (`act` finds the game of a state by identity;
        `act_batch` gets the game indices)."""
        self.epsilon = epsilon
        self._game_of = {id(s): g for g, s in enumerate(states)}
        self.opening = (
            self.rng.integers(0, random_opening_moves + 1, size=len(states)) if random_opening_moves else None
        )
        self.num_games = len(states)
        self.num_decisions = np.zeros(len(states), dtype=np.int64)  # per game so far (for the openings)
        self.obs_chunks: list[np.ndarray] = []
        self.action_chunks: list[np.ndarray] = []
        self.game_chunks: list[np.ndarray] = []  # which game made each row
        self.player_chunks: list[np.ndarray] = []  # which seat made each row
        self.num_rows = 0

    def act(self, states: Sequence[State]) -> np.ndarray:
        players = np.array([s.current_player for s in states], dtype=np.int64)
        games_ = np.array([self._game_of[id(s)] for s in states], dtype=np.int64)
        game = states[0].game
        return self._decide(game.observations(states, players.tolist()), game.legal_masks(states), games_, players)

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        players = batch.current_players()[games]
        return self._decide(batch.observations(games, players), batch.legal_masks(games), games, players)

    def _decide(self, obs: np.ndarray, masks: np.ndarray, games_: np.ndarray, players: np.ndarray) -> np.ndarray:
        actions = masked_argmax(self.network(obs), masks)
        explore = self.rng.random(len(obs)) < self.epsilon
        if self.opening is not None:
            explore |= self.num_decisions[games_] < self.opening[games_]
            self.num_decisions[games_] += 1  # a game moves at most once per call
        count = np.count_nonzero(explore)
        if count:  # uniform over the legal actions: argmax of masked noise
            actions[explore] = masked_argmax(self.rng.random((count, masks.shape[1])), masks[explore])
        self.obs_chunks.append(obs)
        self.action_chunks.append(actions)
        self.game_chunks.append(games_)
        self.player_chunks.append(players)
        self.num_rows += len(obs)
        return actions

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(observations, actions, games, players) of every decision so far, in order."""
        if not self.obs_chunks:
            return np.zeros((0, self.network.input_size), np.float32), *(np.zeros(0, np.int64) for _ in range(3))
        chunks = (self.obs_chunks, self.action_chunks, self.game_chunks, self.player_chunks)
        return tuple(np.concatenate(c) for c in chunks)

    @property
    def decisions(self) -> list[list[tuple[int, int]]]:
        """Per game, its decisions in order as (player, row)."""
        out: list[list[tuple[int, int]]] = [[] for _ in range(self.num_games)]
        _, _, games_, players = self.rows()
        for row, (g, p) in enumerate(zip(games_.tolist(), players.tolist())):
            out[g].append((p, row))
        return out


def decision_targets(games_: np.ndarray, players: np.ndarray, returns: np.ndarray, gamma: float) -> np.ndarray:
    """`episode_targets` of every game at once: row i (a decision of `players[i]` in game
    `games_[i]`, rows in the order they were made) gets `gamma**k * returns[game, player]`, k being
    how many decisions of the same player in the same game come after it."""
    n = len(games_)
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    key = games_ * returns.shape[1] + players
    order = np.argsort(key, kind="stable")  # each (game, player)'s rows together, in play order
    sorted_key = key[order]
    group_end = np.flatnonzero(np.r_[sorted_key[1:] != sorted_key[:-1], True])  # last row of each group
    ends = np.repeat(group_end, np.diff(np.r_[-1, group_end]))
    later = np.empty(n, dtype=np.int64)
    later[order] = ends - np.arange(n)
    powers = np.array([gamma**k for k in range(int(later.max()) + 1)])  # as episode_targets computes them
    return (returns[games_, players] * powers[later]).astype(np.float32)


def self_play(
    game: Game,
    recorder: SelfPlayRecorder,
    num_games: int,
    epsilon: float,
    gamma: float,
    rng: np.random.Generator,
    random_opening_moves: int = 0,
    opponents: Sequence[tuple[Agent, float]] = (),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play `num_games` in lock-step; (observations, actions, targets, returns of each game).
    `opponents`: (agent, fraction) pairs; in that fraction of the games the agent takes every seat
    but one (the network's seat drawn at random); the network plays every seat of the others.
    The games run on the game's vectorised engine when it has one (the same games as on states)."""
    # one chance generator for the whole batch: lock-step order is deterministic, and making a
    # Generator per game cost more than a Tic Tac Toe game
    chance = np.random.default_rng(rng.integers(2**63))
    states = [game.new_initial_state(chance) for _ in range(num_games)]
    seats = seat_agents(num_games, game.num_players, opponents, rng)
    recorder.start(states, epsilon, random_opening_moves)
    batch = lockstep_batch(states)
    play_batch(batch, seats, [recorder, *(agent for agent, _ in opponents)])
    obs, actions, games_, players = recorder.rows()
    all_returns = batch.returns()
    return obs, actions, decision_targets(games_, players, all_returns, gamma), all_returns


@dataclass
class TargetBatch:
    """The decisions of one self-play phase (or shard) in the order they were made, with their
    Monte-Carlo targets; `returns` one row per game."""

    obs: np.ndarray
    actions: np.ndarray
    targets: np.ndarray
    games: np.ndarray  # the game of each decision
    returns: np.ndarray


def play_phase(
    game: Game,
    network: NumpyNetwork,
    epsilon: float,
    gamma: float,
    random_opening_moves: int,
    opponent_mix: dict[str, float],
    num_games: int,
    rng: np.random.Generator,
) -> TargetBatch:
    """`self_play` of `num_games` by `network`, the baselines of `opponent_mix` made afresh from `rng`
    (nothing extra to checkpoint); a phase, or a shard of one (agents/learning/shards.py)."""
    opponents = mix_opponents(game, opponent_mix, rng)
    recorder = SelfPlayRecorder(network, rng)
    obs, actions, targets, returns = self_play(
        game, recorder, num_games, epsilon, gamma, rng, random_opening_moves, opponents
    )
    return TargetBatch(obs, actions, targets, recorder.rows()[2], returns)


def target_replay(capacity: int, observation_size: int) -> ReplayBuffer:
    """The replay of (observation, action, Monte-Carlo target) rows."""
    columns = {"obs": ((observation_size,), np.float32), "actions": ((), np.int32), "targets": ((), np.float32)}
    return ReplayBuffer(capacity, columns)
