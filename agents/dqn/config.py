"""The hyperparameters of a DQN run: one dataclass, per-game defaults, and the schedules.

`config.json` of a run folder is a `DQNConfig`, resolved. Settings come from the per-game defaults
(`GAME_DEFAULTS`), then a TOML or JSON file, then explicit overrides (`load_config`); every value is
type-checked by `games.config.config_from_dict` and validated in `__post_init__`. The command line
generates its override flags from the fields and their help texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.learned import ACTIVATIONS
from agents.learning.config import (
    MAX_GAMES_PER_BATCH,
    MAX_REPLAY,
    MAX_STEPS,
    LearnerConfig,
    check_learner_config,
    learner_default,
    linear_schedule,
    load_learner_config,
    opponent_mix_setting,
    read_game_defaults,
)
from games.config import need, setting


@dataclass
class DQNConfig(LearnerConfig):
    """Everything that defines a run (network, returns, self-play, exploration, evaluation)."""

    # the network (the ancestor's: 3 x 200 ReLU, tanh output, Adam, MSE on the taken action)
    hidden_layers: list[int] = learner_default("hidden_layers", [200, 200, 200])
    output_activation: str = setting("tanh", "activation of the Q-value layer", choices=ACTIVATIONS)
    learning_rate: float = setting(1e-3, "Adam learning rate (at the start)", metavar="LR")
    # late small steps stop the greedy policy flipping between near-equal moves
    learning_rate_end: float = setting(1e-3, "learning rate at the end of its linear decay", metavar="LR")
    learning_rate_decay_episodes: int = setting(0, "episodes of the learning-rate decay (0: constant)", metavar="N")
    gamma: float = setting(0.95, "discount of the Monte-Carlo returns, in (0, 1]", metavar="G")
    episodes: int = learner_default("episodes", 50_000)
    games_per_batch: int = learner_default("games_per_batch", 128)
    updates_per_batch: int = setting(8, "Adam steps after each self-play phase", metavar="N", maximum=MAX_STEPS)
    batch_size: int = setting(256, "replay samples per Adam step", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    replay_size: int = setting(50_000, "capacity of the replay buffer (decisions)", metavar="N", maximum=MAX_REPLAY)
    min_replay: int = setting(1_000, "no training before the replay holds this many decisions", metavar="N")
    # exploration: linear from start to end over decay episodes, then constant
    epsilon_start: float = setting(1.0, "exploration rate at the start", metavar="E")
    epsilon_end: float = setting(0.05, "exploration rate after its linear decay", metavar="E")
    epsilon_decay_episodes: int = setting(20_000, "episodes of the epsilon decay", metavar="N")
    # without random openings a near-greedy network plays the same few games over and over
    # (Connect Four: 2/3 of a batch identical)
    random_opening_moves: int = setting(0, "each self-play game opens with U{0..N} uniformly random moves", metavar="N")
    opponent_mix: dict[str, float] = opponent_mix_setting("network's")
    # twice the data, and tactics learned near one edge carry over to the other
    mirror_augment: bool = setting(False, "also learn from each decision mirrored left-right (connect_four)")
    eval_every: int = learner_default("eval_every", 5_000)
    init_model: str = setting(
        "",
        "start from this model's weights (fine-tuning): a .npz/.keras path, a run "
        "folder or 'pretrained'; same game and layer sizes",
        metavar="SPEC",
    )

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("batch_size", "replay_size"),
            at_least_zero=(
                "updates_per_batch",
                "min_replay",
                "epsilon_decay_episodes",
                "learning_rate_decay_episodes",
                "random_opening_moves",
            ),
        )
        need(
            0.0 <= self.epsilon_start <= 1.0 and 0.0 <= self.epsilon_end <= 1.0,
            "epsilon_start and epsilon_end must be in [0, 1]",
        )
        need(self.learning_rate > 0 and self.learning_rate_end > 0, "learning_rate and learning_rate_end must be > 0")
        for name in ("activation", "output_activation"):
            need(getattr(self, name) in ACTIVATIONS, f"{name} must be one of {', '.join(ACTIVATIONS)}")


#: per-game overrides of the defaults above (game_defaults.toml beside this module)
GAME_DEFAULTS: dict[str, dict[str, Any]] = read_game_defaults(Path(__file__).with_name("game_defaults.toml"))


def load_config(game_name: str, path=None, **overrides) -> DQNConfig:
    """Per-game defaults, then the settings file at `path` (TOML, or JSON by suffix; top-level keys
    are DQNConfig fields, a [game_config] table holds game options), then the non-None `overrides`."""
    return load_learner_config(DQNConfig, GAME_DEFAULTS, game_name, path, overrides, where="DQN config")


def default_config(game_name: str) -> DQNConfig:
    return load_config(game_name)


def epsilon_at(config: DQNConfig, episodes: int) -> float:
    return linear_schedule(config.epsilon_start, config.epsilon_end, config.epsilon_decay_episodes, episodes)
