"""The settings of a distillation run: one dataclass and its loader (a game's recipe is a settings
file, e.g. agents/pretrained/locm_scorer.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.learning.config import (
    MAX_GAMES_PER_BATCH,
    MAX_STEPS,
    LearnerConfig,
    check_learner_config,
    learner_default,
    load_learner_config,
    opponent_mix_setting,
)
from games.config import need, setting


@dataclass
class DistillationConfig(LearnerConfig):
    """An action scorer trained to choose as an afterstate battler (`teacher`) does, on the states of its own play."""

    teacher: str = setting("", "the afterstate model distilled: a .npz path or a run folder", metavar="SPEC")
    hidden_layers: list[int] = learner_default("hidden_layers", [128, 128])
    learning_rate: float = setting(1e-3, "Adam learning rate (at the start)", metavar="LR")
    learning_rate_end: float = setting(1e-3, "learning rate at the end of its linear decay", metavar="LR")
    learning_rate_decay_episodes: int = setting(0, "episodes of the learning-rate decay (0: constant)", metavar="N")
    games_per_batch: int = learner_default("games_per_batch", 256)
    update_epochs: int = setting(2, "passes over each batch's decisions", metavar="N", maximum=MAX_STEPS)
    minibatch_size: int = setting(256, "decisions per Adam step", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    temperature: float = setting(
        0.02,
        "a decision's target: the softmax of the teacher's afterstate values over its legal actions"
        " at this temperature",
        metavar="T",
    )
    epsilon: float = setting(0.03, "chance of a uniformly random legal action in the student's play", metavar="E")
    teacher_episodes: int = setting(
        0,
        "episodes in which the teacher plays the learner's seats (its decisions recorded), before the student does",
        metavar="N",
    )
    opponent_mix: dict[str, float] = opponent_mix_setting("student's")

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("update_epochs", "minibatch_size"),
            at_least_zero=("learning_rate_decay_episodes", "teacher_episodes"),
        )
        need(self.temperature > 0, f"temperature must be > 0, got {self.temperature}")
        need(0.0 <= self.epsilon <= 1.0, f"epsilon must be in [0, 1], got {self.epsilon}")
        need(self.learning_rate > 0 and self.learning_rate_end > 0, "learning_rate and learning_rate_end must be > 0")


GAME_DEFAULTS: dict[str, dict[str, Any]] = {}


def load_config(game_name: str, path=None, **overrides) -> DistillationConfig:
    """Per-game defaults < the settings file at `path` < the non-None `overrides`."""
    return load_learner_config(
        DistillationConfig, GAME_DEFAULTS, game_name, path, overrides, where="distillation config"
    )
