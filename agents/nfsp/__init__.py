"""Neural Fictitious Self-Play (Heinrich & Silver 2016) with legal masks everywhere.

1. Two networks: a best-response Q-network (with its own circular replay of transitions and a
   target network) and an average-policy network trained by supervised learning (cross-entropy)
   on a reservoir of the best response's own actions (reservoir sampling).
2. Self-play in lock-step (agents.rollout): in each game each seat follows the best response
   (epsilon-greedy, masked argmax) with probability eta (`anticipatory`), else a draw from the
   average policy's masked softmax. Multi-player games: one trajectory per player, reward = the
   game's return after its last decision.
3. The average policy is the agent that is evaluated and shipped (`model.npz`, a policy model:
   agents.make samples from it, or takes its argmax with `policy = "greedy"`); the Q-network is
   saved beside it as `best_response.npz`.

Modules: `config` (NFSPConfig, per-game defaults), `buffers` (circular replay, reservoir; numpy),
`model` (the only one importing TensorFlow, lazily), `trainer` (the learner and `train`).
"""

from __future__ import annotations

from agents.nfsp.buffers import Reservoir, transition_replay
from agents.nfsp.config import GAME_DEFAULTS, NFSPConfig, load_config
from agents.nfsp.trainer import NFSPLearner, train

__all__ = ["NFSPConfig", "GAME_DEFAULTS", "load_config", "Reservoir", "transition_replay", "NFSPLearner", "train"]
