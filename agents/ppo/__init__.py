"""Proximal Policy Optimization by lock-step self-play (CleanRL's ppo.py is the model).

1. An actor (logits) and a critic (value), two MLPs in Keras (agents.ppo.model, the only module
   importing TensorFlow), acting through numpy copies of their weights: one forward pass per step
   for every game the learner moves in. Illegal logits are -inf before the softmax, so an illegal
   action has probability exactly 0.
2. Multi-player games: every seat's decisions are a trajectory of that player; rewards are 0 until
   the game's returns at the end; advantages by GAE(lambda) along each trajectory (agents.rollout).
3. Clipped surrogate objective, (clipped) value loss, entropy bonus, global gradient-norm clip,
   advantages normalised per minibatch.
4. The actor is shipped as `model.npz` (a policy model: agents.make samples from it, or takes its
   argmax with `policy = "greedy"`); the critic is saved beside it as `value.npz`.
"""

from __future__ import annotations

from agents.ppo.config import GAME_DEFAULTS, PPOConfig, load_config
from agents.ppo.trainer import PPOLearner, train

__all__ = ["PPOConfig", "GAME_DEFAULTS", "load_config", "PPOLearner", "train"]
