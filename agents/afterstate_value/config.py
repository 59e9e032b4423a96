"""The settings of an afterstate-value run: one dataclass and its loader (no per-game defaults: a
game's recipe is a settings file, e.g. agents/pretrained/locm_afterstate.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.learned import ACTIVATIONS
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
class AfterstateConfig(LearnerConfig):
    """A value network of afterstates trained on Monte-Carlo or lambda-returns (`td_lambda`) of lock-step self-play."""

    hidden_layers: list[int] = learner_default("hidden_layers", [128, 128])
    output_activation: str = setting("tanh", "activation of the value layer", choices=ACTIVATIONS)
    learning_rate: float = setting(1e-3, "Adam learning rate (at the start)", metavar="LR")
    learning_rate_end: float = setting(1e-3, "learning rate at the end of its linear decay", metavar="LR")
    learning_rate_decay_episodes: int = setting(0, "episodes of the learning-rate decay (0: constant)", metavar="N")
    games_per_batch: int = learner_default("games_per_batch", 128)
    update_epochs: int = setting(2, "passes over each batch's afterstates", metavar="N", maximum=MAX_STEPS)
    minibatch_size: int = setting(256, "afterstates per Adam step", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    td_lambda: float = setting(
        1.0,
        "lambda of the targets: 1 the final return (Monte Carlo), less mixes in later afterstates' values",
        metavar="L",
    )
    epsilon: float = setting(0.05, "chance of a uniformly random legal action in self-play", metavar="E")
    warmup_agent: str = setting(
        "", "agent spec whose play the learner's seats follow (recorded) for the first warmup_episodes", metavar="SPEC"
    )
    warmup_episodes: int = setting(0, "episodes played by warmup_agent in the learner's seats", metavar="N")
    opponent_mix: dict[str, float] = opponent_mix_setting("value network's")
    init_model: str = setting(
        "",
        "start from this afterstate model's weights (fine-tuning): a .npz path or a run folder; same game and "
        "hidden_layers",
        metavar="SPEC",
    )

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("update_epochs", "minibatch_size"),
            at_least_zero=("learning_rate_decay_episodes", "warmup_episodes"),
        )
        need(0.0 <= self.td_lambda <= 1.0, f"td_lambda must be in [0, 1], got {self.td_lambda}")
        need(0.0 <= self.epsilon <= 1.0, f"epsilon must be in [0, 1], got {self.epsilon}")
        need(self.learning_rate > 0 and self.learning_rate_end > 0, "learning_rate and learning_rate_end must be > 0")
        need(
            not self.warmup_episodes or bool(self.warmup_agent),
            "warmup_episodes needs a warmup_agent (an agent spec)",
        )


GAME_DEFAULTS: dict[str, dict[str, Any]] = {}


def load_config(game_name: str, path=None, **overrides) -> AfterstateConfig:
    """Per-game defaults < the settings file at `path` < the non-None `overrides`."""
    return load_learner_config(AfterstateConfig, GAME_DEFAULTS, game_name, path, overrides, where="afterstate config")
