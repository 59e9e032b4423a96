"""The hyperparameters of an NFSP run: one dataclass and per-game defaults (as agents.dqn.config)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from agents.learning.config import (
    MAX_GAMES_PER_BATCH,
    MAX_REPLAY,
    MAX_STEPS,
    POLICY_GAME_DEFAULTS,
    LearnerConfig,
    check_learner_config,
    linear_schedule,
    load_learner_config,
    opponent_mix_setting,
)
from agents.policy import POLICY_MODES
from games.config import need, setting


@dataclass
class NFSPConfig(LearnerConfig):
    """Neural Fictitious Self-Play (Heinrich & Silver 2016): best response + average policy."""

    rl_learning_rate: float = setting(1e-3, "Adam learning rate of the best-response Q-network", metavar="LR")
    sl_learning_rate: float = setting(1e-3, "Adam learning rate of the average-policy network", metavar="LR")
    gamma: float = setting(1.0, "discount of the Q-learning target, in (0, 1]", metavar="G")
    anticipatory: float = setting(
        0.1, "eta: probability that a player follows the best response for a whole game", metavar="ETA"
    )
    updates_per_batch: int = setting(
        8, "Adam steps of each network after each self-play phase", metavar="N", maximum=MAX_STEPS
    )
    batch_size: int = setting(128, "samples per Adam step (each network)", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    rl_replay_size: int = setting(
        50_000, "capacity of the circular replay of transitions", metavar="N", maximum=MAX_REPLAY
    )
    sl_reservoir_size: int = setting(
        100_000, "capacity of the reservoir of best-response actions", metavar="N", maximum=MAX_REPLAY
    )
    min_replay: int = setting(1_000, "no training before both memories hold this many samples", metavar="N")
    target_update_every: int = setting(200, "Adam steps between copies of the Q-network to its target", metavar="N")
    epsilon_start: float = setting(0.1, "exploration of the best response at the start", metavar="E")
    epsilon_end: float = setting(0.01, "exploration after its linear decay", metavar="E")
    epsilon_decay_episodes: int = setting(50_000, "episodes of the epsilon decay", metavar="N")
    opponent_mix: dict[str, float] = opponent_mix_setting()
    policy: str = setting(
        "sample", "how the shipped average policy acts: sample from it or take its argmax", choices=POLICY_MODES
    )

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("batch_size", "rl_replay_size", "sl_reservoir_size", "target_update_every"),
            at_least_zero=("updates_per_batch", "min_replay", "epsilon_decay_episodes"),
        )
        need(0.0 < self.anticipatory <= 1.0, f"anticipatory must be in (0, 1], got {self.anticipatory}")
        need(
            0.0 <= self.epsilon_start <= 1.0 and 0.0 <= self.epsilon_end <= 1.0,
            "epsilon_start and epsilon_end must be in [0, 1]",
        )
        need(self.rl_learning_rate > 0 and self.sl_learning_rate > 0, "learning rates must be > 0")
        need(self.policy in POLICY_MODES, f"policy must be one of {', '.join(POLICY_MODES)}")


GAME_DEFAULTS: dict[str, dict[str, Any]] = copy.deepcopy(POLICY_GAME_DEFAULTS)


def load_config(game_name: str, path=None, **overrides) -> NFSPConfig:
    """Per-game defaults < the settings file at `path` < the non-None `overrides`."""
    return load_learner_config(NFSPConfig, GAME_DEFAULTS, game_name, path, overrides, where="NFSP config")


def epsilon_at(config: NFSPConfig, episodes: int) -> float:
    return linear_schedule(config.epsilon_start, config.epsilon_end, config.epsilon_decay_episodes, episodes)
