"""DQN with Monte-Carlo returns, trained by self-play (the ancestor's algorithm, repaired).

1. One Q-network (an MLP with a tanh output per action) plays every seat. Self-play runs
   `games_per_batch` games in lock-step through `agents.arena.play_states`; the acting agent is
   epsilon-greedy over a NUMPY copy of the weights (one forward pass per step of the whole batch)
   and never picks an illegal action: both the greedy and the random choice are masked.
   Three options fight the sameness of near-greedy self-play (per-game defaults, measured in
   docs/results/training-dqn.md): `random_opening_moves`, `opponent_mix` (fixed baselines hold
   every seat but one in a fraction of the games) and `mirror_augment`. With `selfplay_shards` > 1
   the phase is split into lock-step shards with seeds of their own, which the trainer's `mapper`
   (`deckopt train --jobs`) may play in worker processes: the same games wherever they are played.
2. Each finished game is split into one trajectory per player. The target of a player's k-th of K
   decisions is `gamma**(K-1-k) * r_player`, with `r = state.returns()`: no bootstrapping, so no
   target network, and it works for 3+ players where the zero-sum negamax target does not.
3. The (observation, action, target) triples go into a numpy ring-buffer replay; then
   `updates_per_batch` Adam steps of `batch_size` samples minimise the squared error of the taken
   action's value only, inside one compiled `tf.function`.
4. Every `eval_every` episodes the greedy agent plays fixed baselines with seats rotated.

Modules: `config` (DQNConfig, per-game defaults, schedules), `selfplay` (recorder, targets,
mirrors, the replay's columns; no TensorFlow), `model` (the only one importing TensorFlow, lazily), `trainer`
(DQNLearner and `train`, the loop of agents/learning/loop.py).
"""

from __future__ import annotations

from agents.dqn.config import GAME_DEFAULTS, DQNConfig, default_config, epsilon_at, load_config
from agents.dqn.model import build_q_network, make_train_phase, make_train_step, numpy_network
from agents.dqn.selfplay import SelfPlayRecorder, episode_targets, self_play, target_replay
from agents.dqn.trainer import DQNLearner, initial_weights, train
from agents.learning.config import learning_rate_at

__all__ = [
    "DQNConfig",
    "GAME_DEFAULTS",
    "default_config",
    "load_config",
    "epsilon_at",
    "learning_rate_at",
    "episode_targets",
    "SelfPlayRecorder",
    "self_play",
    "target_replay",
    "build_q_network",
    "numpy_network",
    "make_train_step",
    "make_train_phase",
    "DQNLearner",
    "train",
    "initial_weights",
]
