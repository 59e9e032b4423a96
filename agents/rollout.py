"""Lock-step self-play that records every decision of a learner, for NFSP and PPO (no TensorFlow).

`play_recorded` plays a batch of games through `agents.arena.play_batch`, on the game's vectorised
engine when it has one (the same games as on states). The learner (a `Recorder` around a
`choose(obs, masks, games, players)` function: one call per step for the whole group of games)
holds every seat, or, in the `opponents` fraction of the games, one seat while a
fixed baseline holds all the others (as the DQN's `opponent_mix`); only the learner's decisions are
recorded. Each game is split into one trajectory per player: `next_index[i]` is the row of the
same player's next decision in the same game (-1 after its last one), and the reward of a
decision is 0 except the last one's, which is the game's return for that player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.arena import lockstep_batch, play_batch
from agents.base import Agent
from agents.learning.seating import seat_agents
from games import Game, State
from games.batch import BatchState

# choose(obs, masks, game indices, players) -> (actions, {name: per-row array})
Choose = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, dict]]


@dataclass
class Batch:
    """The learner's decisions of one batch of games, in the order they were made."""

    obs: np.ndarray  # [N, observation_size] float32
    masks: np.ndarray  # [N, num_actions] bool
    actions: np.ndarray  # [N] int
    games: np.ndarray  # [N] game index
    players: np.ndarray  # [N] seat
    returns: np.ndarray  # [G, num_players] of each game
    extras: dict = field(default_factory=dict)  # what `choose` returned per row

    @property
    def next_index(self) -> np.ndarray:
        return next_decisions(self.games, self.players)

    @property
    def rewards(self) -> np.ndarray:
        """The game's return for a player's last decision, 0 for the others."""
        last = self.next_index < 0
        return np.where(last, self.returns[self.games, self.players], 0.0).astype(np.float32)


def next_decisions(games: np.ndarray, players: np.ndarray) -> np.ndarray:
    """Row of the same (game, player)'s next decision, -1 for its last."""
    out = np.full(len(games), -1, dtype=np.int64)
    later: dict[tuple[int, int], int] = {}
    for i in range(len(games) - 1, -1, -1):
        key = (int(games[i]), int(players[i]))
        out[i] = later.get(key, -1)
        later[key] = i
    return out


def gae(
    rewards: np.ndarray, values: np.ndarray, next_index: np.ndarray, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns) by GAE(lambda) along each trajectory; `next_index[i] > i` links a
    decision to the same player's next one (-1: the last, bootstrapped with 0 after the game)."""
    adv = np.zeros(len(rewards), dtype=np.float64)
    for i in range(len(rewards) - 1, -1, -1):
        j = next_index[i]
        next_value, next_adv = (values[j], adv[j]) if j >= 0 else (0.0, 0.0)
        delta = rewards[i] + gamma * next_value - values[i]
        adv[i] = delta + gamma * lam * next_adv
    return adv.astype(np.float32), (adv + values).astype(np.float32)


class Recorder(Agent):
    """The learner in the arena: calls `choose` once per step for its group of games and keeps
    every decision."""

    spec = "learner"

    def __init__(self, choose: Choose):
        self.choose = choose

    def start(self, states: Sequence[State]) -> None:
        self._game_of = {id(s): g for g, s in enumerate(states)}
        self.chunks: list[tuple] = []

    def act(self, states: Sequence[State]) -> np.ndarray:
        game = states[0].game
        players = np.array([s.current_player for s in states])
        games_ = np.array([self._game_of[id(s)] for s in states])
        obs = game.observations(states, players)
        masks = game.legal_masks(states)
        return self._decide(obs, masks, games_, players)

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        """As `act`, from the batch's arrays (no states on a vectorised engine)."""
        players = batch.current_players()[games]
        return self._decide(batch.observations(games, players), batch.legal_masks(games), games, players)

    def _decide(self, obs: np.ndarray, masks: np.ndarray, games_: np.ndarray, players: np.ndarray) -> np.ndarray:
        actions, extras = self.choose(obs, masks, games_, players)
        self.chunks.append((obs, masks, actions, games_, players, extras))
        return actions


def play_recorded(
    game: Game,
    recorder: Recorder,
    num_games: int,
    rng: np.random.Generator,
    opponents: Sequence[tuple[Agent, float]] = (),
) -> Batch:
    """Play `num_games` in lock-step (chance from `rng`); the learner's decisions as a Batch.
    `opponents`: (agent, fraction) pairs; in that fraction of the games the agent takes every seat
    but one (the learner's seat drawn at random)."""
    chance = np.random.default_rng(rng.integers(2**63))
    states = [game.new_initial_state(chance) for _ in range(num_games)]
    seats = seat_agents(num_games, game.num_players, opponents, rng)
    recorder.start(states)
    batch = lockstep_batch(states)  # the game's vectorised engine if it has one: the same games
    play_batch(batch, seats, [recorder, *(agent for agent, _ in opponents)])
    obs, masks, actions, games_, players, extras = zip(*recorder.chunks)
    return Batch(
        obs=np.concatenate(obs).astype(np.float32, copy=False),
        masks=np.concatenate(masks),
        actions=np.concatenate(actions).astype(np.int64),
        games=np.concatenate(games_),
        players=np.concatenate(players),
        returns=batch.returns(),
        extras={k: np.concatenate([e[k] for e in extras]) for k in extras[0]},
    )
