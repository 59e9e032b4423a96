"""The evaluators of a search's leaves: what a position is worth to each player.

- rollouts (UCT, agents/search/uct.py): `rollout_returns` plays the leaf out, uniformly at random
  (from a block of uniforms, `Uniforms`) or by the game's heuristic (`heuristic_policy`), and may
  mix in a learned value estimate (`make_value_fn`);
- networks (PUCT, agents/search/puct.py): an `Evaluate` maps states to unnormalised priors and each
  player's value in one call: `network_evaluator` (a policy+value network) or `q_evaluator` (a
  Q-network's softmax and best legal Q).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.base import Agent
from agents.heuristics import make_heuristic
from games import Game, State, UserError

UNIFORMS = 4096  # uniforms drawn per refill; rollouts consume one per move

# states -> (unnormalised priors [B, num_actions] (> 0), values [B, num_players] in [-1, 1])
Evaluate = Callable[[Sequence[State]], tuple[np.ndarray, np.ndarray]]


class Uniforms:
    """Blocks of uniforms from the search generator, consumed one at a time (cheaper than one
    Generator call per rollout move)."""

    __slots__ = ("rng", "buf", "i")

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf = rng.random(UNIFORMS).tolist()
        self.i = 0

    def refill(self) -> None:
        self.buf = self.rng.random(UNIFORMS).tolist()
        self.i = 0


def rollout_returns(s: State, uni: Uniforms, policy, value_fn, lam: float) -> list[float]:
    """Returns per player at the leaf `s` (which is consumed): the rollout result, mixed with
    the value estimate when one is configured."""
    if s.is_terminal():
        return s.returns().tolist()
    v = value_fn(s) if value_fn is not None else None
    if v is not None and lam >= 1.0:
        return v.tolist()
    if policy is None:
        buf, i = uni.buf, uni.i
        while not s.is_terminal():
            legal = s.legal_actions()
            if i >= UNIFORMS:
                uni.refill()
                buf, i = uni.buf, 0
            s.apply_action(legal[int(buf[i] * len(legal))])
            i += 1
        uni.i = i
    else:
        while not s.is_terminal():
            s.apply_action(policy(s))
    z = s.returns()
    if v is None:
        return z.tolist()
    return (lam * v + (1.0 - lam) * z).tolist()


def heuristic_policy(game: Game, rng: np.random.Generator) -> Callable[[State], int]:
    agent = make_heuristic(game, rng)
    choose = getattr(agent, "choose", None)
    if choose is not None:
        return choose
    return lambda s: int(agent.act([s])[0])


def make_value_fn(agent: Agent, spec: str) -> Callable[[State], np.ndarray]:
    """A leaf value estimate from a learned agent (`agent`, made from `spec`): the mover's max legal Q. Two players: the
    other gets the negation (the games are zero-sum). More players: each player's own max Q over
    the mover's legal actions from that player's observation (an approximation: a Q-network only
    scores its own decisions). Clipped to [-1, 1]."""
    q_fn = getattr(agent, "network", None)  # a LearnedAgent's numpy Q-network: obs batch -> Q
    if q_fn is None:
        raise UserError(f"mcts value={spec!r}: that agent has no Q-network to estimate values with")
    n = agent.game.num_players

    def value(s: State) -> np.ndarray:
        mover = s.current_player
        mask = s.legal_mask()
        out = np.empty(n)
        if n == 2:
            q = np.asarray(q_fn(s.observation(mover)[None, :]))[0]
            v = float(np.max(q[mask]))
            out[mover] = v
            out[1 - mover] = -v
        else:
            obs = np.stack([s.observation(p) for p in range(n)])
            q = np.asarray(q_fn(obs))
            out[:] = np.where(mask[None, :], q, -np.inf).max(axis=1)
        return np.clip(out, -1.0, 1.0)

    return value


class network_evaluator:  # noqa: N801 - used as a function; a class so that agents pickle
    """`evaluate` from a numpy network whose last layer is [policy logits..., value]. Two players:
    the mover's observation, the other player's value is the negation (zero-sum games). More
    players: each player's value from that player's own observation of the same world."""

    def __init__(self, game, network):
        self.game, self.network = game, network

    def __call__(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        game, network = self.game, self.network
        a, n, k = game.num_actions, game.num_players, len(states)
        movers = np.array([s.current_player for s in states])
        if n == 2:
            out = network(game.observations(states, movers.tolist())).astype(np.float64)
            logits, v = out[:, :a], np.tanh(out[:, a])
            values = np.empty((k, 2))
            values[np.arange(k), movers] = v
            values[np.arange(k), 1 - movers] = -v
        else:
            rows = [s for s in states for _ in range(n)]
            out = network(game.observations(rows, list(range(n)) * k)).astype(np.float64).reshape(k, n, a + 1)
            logits, values = out[np.arange(k), movers, :a], np.tanh(out[:, :, a])
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        return priors, values


class q_evaluator:  # noqa: N801 - used as a function; a class so that agents pickle
    """`evaluate` from a DQN's Q-network (tanh outputs, one per action): prior = softmax(Q / T) over
    the actions, value = the best legal Q for the mover (the other player: its negation; two-player
    games only). The cheap route: a network trained without search guides the search."""

    def __init__(self, game, network, temperature: float = 0.1):
        if game.num_players != 2:
            raise ValueError("a Q-network guides the search in two-player games only")
        self.game, self.network, self.temperature = game, network, temperature

    def __call__(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        game, k = self.game, len(states)
        movers = np.array([s.current_player for s in states])
        q = self.network(game.observations(states, movers.tolist())).astype(np.float64)
        v = np.where(game.legal_masks(states), q, -np.inf).max(axis=1)
        values = np.empty((k, 2))
        values[np.arange(k), movers] = v
        values[np.arange(k), 1 - movers] = -v
        return np.exp((q - q.max(axis=1, keepdims=True)) / self.temperature), np.clip(values, -1.0, 1.0)
