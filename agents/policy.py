"""Policy networks acting in numpy: the masked softmax, sampling from it, and the policy agent.

A policy network is the same numpy MLP as a Q-network (`agents.learned.NumpyNetwork`) whose last
layer gives one logit per action. Illegal actions get logit -inf before the softmax, so their
probability is exactly zero: they can be neither sampled nor taken greedily. NFSP's average policy
and PPO's actor are shipped this way: a `.npz` model file whose metadata carries
`"policy": "sample"` (draw from the policy, the trained behaviour: mixed strategies in Incan Gold
cannot be read and exploited) or `"policy": "greedy"` (the most probable action).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from games import Game, State, UserError
from games.batch import BatchState

POLICY_MODES = ("sample", "greedy")
POLICY_KERAS_PREFIX = "policy_network__"


def masked_logits(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks, logits, -np.inf)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the legal entries; illegal entries are exactly 0 (every row needs one
    legal action)."""
    z = masked_logits(np.asarray(logits, dtype=np.float64), masks)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)  # exp(-inf) == 0.0 exactly
    return e / e.sum(axis=1, keepdims=True)


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn from `probs` (rows of masked_softmax). An entry of probability 0 is
    never drawn: the first index whose running sum exceeds u * total cannot be one."""
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(probs)) * cum[:, -1]
    return (cum > u[:, None]).argmax(axis=1)


def log_probs(probs: np.ndarray, actions: np.ndarray) -> np.ndarray:
    return np.log(probs[np.arange(len(actions)), actions])


class PolicyAgent(Agent):
    """Acts by a policy network: one forward pass per batch, masked softmax, then a draw (`sample`)
    or the most probable action (`greedy`)."""

    def __init__(self, game: Game, network, mode: str = "sample", rng=None, metadata: dict | None = None):
        if network.input_size != game.observation_size or network.output_size != game.num_actions:
            raise UserError(
                f"network has {network.input_size} inputs and {network.output_size} outputs; "
                f"{game.name} needs {game.observation_size} and {game.num_actions}"
            )
        if mode not in POLICY_MODES:
            raise UserError(f"policy mode must be one of {', '.join(POLICY_MODES)}, got {mode!r}")
        self.game = game
        self.network = network
        self.mode = mode
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.metadata = metadata or {}

    def probabilities(self, states: Sequence[State]) -> np.ndarray:
        return masked_softmax(self.network(self.game.observations(states)), self.game.legal_masks(states))

    def act(self, states: Sequence[State]) -> np.ndarray:
        return self._choose(self.probabilities(states))

    def act_batch(self, batch: BatchState, games: np.ndarray) -> np.ndarray:
        return self._choose(masked_softmax(self.network(batch.observations(games)), batch.legal_masks(games)))

    def _choose(self, probs: np.ndarray) -> np.ndarray:
        if self.mode == "greedy":
            return probs.argmax(axis=1)
        return sample_actions(probs, self.rng)
