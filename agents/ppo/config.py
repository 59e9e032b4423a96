"""The hyperparameters of a PPO run: one dataclass and per-game defaults (CleanRL's ppo.py names)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from agents.learning.config import (
    MAX_GAMES_PER_BATCH,
    MAX_STEPS,
    POLICY_GAME_DEFAULTS,
    LearnerConfig,
    check_learner_config,
    learner_default,
    load_learner_config,
    opponent_mix_setting,
)
from agents.policy import POLICY_MODES
from games.config import need, setting


@dataclass
class PPOConfig(LearnerConfig):
    """Proximal Policy Optimization (clipped objective, GAE) by lock-step self-play."""

    activation: str = learner_default("activation", "tanh")
    learning_rate: float = setting(2.5e-4, "Adam learning rate (at the start)", metavar="LR")
    learning_rate_end: float = setting(2.5e-4, "learning rate at the end of its linear decay", metavar="LR")
    learning_rate_decay_episodes: int = setting(0, "episodes of the learning-rate decay (0: constant)", metavar="N")
    gamma: float = setting(1.0, "discount, in (0, 1]", metavar="G")
    gae_lambda: float = setting(0.95, "lambda of the generalized advantage estimate, in [0, 1]", metavar="L")
    games_per_batch: int = learner_default("games_per_batch", 128, "games played in lock-step per rollout")
    update_epochs: int = setting(4, "passes over each rollout", metavar="N", maximum=MAX_STEPS)
    minibatch_size: int = setting(256, "decisions per Adam step", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    clip_coef: float = setting(0.2, "clip range of the probability ratio (and of the value)", metavar="C")
    clip_vloss: bool = setting(True, "clip the value loss as CleanRL does")
    norm_adv: bool = setting(True, "normalise the advantages of each minibatch")
    ent_coef: float = setting(0.01, "weight of the entropy bonus", metavar="C")
    vf_coef: float = setting(0.5, "weight of the value loss", metavar="C")
    max_grad_norm: float = setting(0.5, "clip the global gradient norm to this", metavar="N")
    opponent_mix: dict[str, float] = opponent_mix_setting()
    policy: str = setting(
        "sample", "how the shipped policy acts: sample from it or take its argmax", choices=POLICY_MODES
    )

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("update_epochs", "minibatch_size"),
            at_least_zero=("learning_rate_decay_episodes",),
        )
        need(0.0 <= self.gae_lambda <= 1.0, f"gae_lambda must be in [0, 1], got {self.gae_lambda}")
        need(self.learning_rate > 0 and self.learning_rate_end > 0, "learning_rate and learning_rate_end must be > 0")
        need(self.clip_coef > 0 and self.max_grad_norm > 0, "clip_coef and max_grad_norm must be > 0")
        need(self.ent_coef >= 0 and self.vf_coef >= 0, "ent_coef and vf_coef must be >= 0")
        need(self.policy in POLICY_MODES, f"policy must be one of {', '.join(POLICY_MODES)}")


GAME_DEFAULTS: dict[str, dict[str, Any]] = copy.deepcopy(POLICY_GAME_DEFAULTS)


def load_config(game_name: str, path=None, **overrides) -> PPOConfig:
    """Per-game defaults < the settings file at `path` < the non-None `overrides`."""
    return load_learner_config(PPOConfig, GAME_DEFAULTS, game_name, path, overrides, where="PPO config")
