"""The hyperparameters of an AlphaZero-style run: one dataclass and per-game defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.learning.config import (
    MAX_GAMES_PER_BATCH,
    MAX_REPLAY,
    MAX_SIMULATIONS,
    MAX_STEPS,
    MAX_UNITS,
    LearnerConfig,
    check_learner_config,
    learner_default,
    load_learner_config,
    read_game_defaults,
)
from games.config import need, setting


@dataclass
class AlphaZeroConfig(LearnerConfig):
    """PUCT search guided by one policy+value network, trained on its own self-play searches."""

    conv_channels: list[int] = setting(
        factory=list,
        help="channels of 3x3 convolutions over the board before the hidden layers (games whose observation "
        "is board planes: connect_four); empty: none",
        metavar="N,N,...",
        maximum=MAX_UNITS,
    )
    learning_rate: float = setting(1e-3, "Adam learning rate", metavar="LR")
    weight_decay: float = setting(1e-4, "L2 penalty on the kernels", metavar="C")
    episodes: int = learner_default("episodes", 20_000)
    games_per_batch: int = learner_default(
        "games_per_batch", 64, "self-play games in lock-step (their leaves share one network call)"
    )
    simulations: int = setting(50, "PUCT simulations per self-play move", metavar="N", maximum=MAX_SIMULATIONS)
    c_puct: float = setting(1.5, "exploration constant of PUCT", metavar="C")
    dirichlet_alpha: float = setting(0.5, "Dirichlet noise concentration at the self-play root", metavar="A")
    dirichlet_fraction: float = setting(0.25, "weight of the Dirichlet noise in the root prior", metavar="F")
    temperature_moves: int = setting(
        8, "self-play moves (per game) drawn in proportion to the visits; later ones take the most visited", metavar="N"
    )
    random_opening_moves: int = setting(
        0,
        "self-play games begin with a uniform number 0..N of uniformly random moves (none that ends the game), "
        "not learned from: positions of weaker play, which strong self-play never reaches",
        metavar="N",
    )
    value_target_search: float = setting(
        0.0,
        "weight of the root's search value in each decision's value target (the rest: the game's final "
        "return); 0: the final return only",
        metavar="F",
    )
    init_model: str = setting(
        "",
        "start from this model's weights (fine-tuning): an az .npz/.keras path or run folder with the config's layers",
        metavar="SPEC",
    )
    input_features: str = setting(
        "",
        "features appended to the observation before the network, of those the game declares: threats "
        "(connect_four: each player's cells that would complete four in a row); empty: none",
        metavar="NAME",
    )
    updates_per_batch: int = setting(16, "Adam steps after each self-play batch", metavar="N", maximum=MAX_STEPS)
    batch_size: int = setting(256, "replay samples per Adam step", metavar="N", maximum=MAX_GAMES_PER_BATCH)
    replay_size: int = setting(50_000, "capacity of the replay buffer (decisions)", metavar="N", maximum=MAX_REPLAY)
    min_replay: int = setting(512, "no training before the replay holds this many decisions", metavar="N")
    mirror_augment: bool = setting(False, "also learn from each decision mirrored left-right (connect_four)")
    eval_every: int = learner_default("eval_every", 2_000)
    eval_games: int = learner_default("eval_games", 100)
    eval_simulations: int = setting(
        50, "simulations per move of the evaluated (and shipped) agent", metavar="N", maximum=MAX_SIMULATIONS
    )

    def __post_init__(self):
        check_learner_config(
            self,
            at_least_one=("simulations", "updates_per_batch", "batch_size", "replay_size", "eval_simulations"),
            at_least_zero=("min_replay", "temperature_moves", "random_opening_moves"),
        )
        need(
            all(isinstance(c, int) and c >= 1 for c in self.conv_channels),
            f"conv_channels must be whole numbers >= 1, got {self.conv_channels!r}",
        )
        need(not (self.input_features and self.conv_channels), "input_features and conv_channels don't mix; give one")
        need(self.learning_rate > 0, f"learning_rate must be > 0, got {self.learning_rate}")
        need(self.weight_decay >= 0, f"weight_decay must be >= 0, got {self.weight_decay}")
        need(
            0 <= self.value_target_search <= 1,
            f"value_target_search must be in [0, 1], got {self.value_target_search}",
        )
        need(self.c_puct > 0, f"c_puct must be > 0, got {self.c_puct}")
        need(self.dirichlet_alpha > 0, f"dirichlet_alpha must be > 0, got {self.dirichlet_alpha}")
        need(0 <= self.dirichlet_fraction <= 1, f"dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction}")


#: per-game overrides of the defaults above (game_defaults.toml beside this module)
GAME_DEFAULTS: dict[str, dict[str, Any]] = read_game_defaults(Path(__file__).with_name("game_defaults.toml"))


def load_config(game_name: str, path=None, **overrides) -> AlphaZeroConfig:
    """Per-game defaults < the settings file at `path` < the non-None `overrides`."""
    return load_learner_config(AlphaZeroConfig, GAME_DEFAULTS, game_name, path, overrides, where="AlphaZero config")
