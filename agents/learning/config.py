"""What every learner's config shares (agents/learning imports no learner): the base dataclass,
loading it (per-game defaults < settings file < overrides), the shared checks and the linear
schedules."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.learned import ACTIVATIONS
from games import game_class
from games.config import check_maximums, config_from_dict, need, read_settings, setting

MAX_SEED = 2**32 - 1  # numpy's seeds
# bounds of the learners' sizes (`setting(maximum=...)`): far beyond any useful run, well below what
# exhausts a machine's memory or runs for days; stated in each flag's help
MAX_TF_THREADS = 256
MAX_UNITS = 4096  # units of a hidden layer, channels of a convolution (at most games.config.MAX_ITEMS layers)
MAX_GAMES_PER_BATCH = 65_536  # games in lock-step, samples of an Adam step, self-play shards
MAX_REPLAY = 2_000_000  # decisions a replay buffer or reservoir holds (preallocated)
MAX_STEPS = 10_000  # Adam steps or epochs after each batch
MAX_SIMULATIONS = 100_000  # PUCT simulations per move: a self-play batch must end for Ctrl-C to save
MAX_EVAL_GAMES = 1_000_000


# --- configs -----------------------------------------------------------------------------------
@dataclass
class LearnerConfig:
    """The settings every learner's config dataclass has (it subclasses this one, adds its own and
    gives some of these other defaults with `learner_default`)."""

    hidden_layers: list[int] = setting(
        factory=lambda: [128, 128],
        help="units of each hidden layer (of each of the learner's networks)",
        metavar="N,N,...",
        maximum=MAX_UNITS,
    )
    activation: str = setting("relu", "activation of the hidden layers", choices=ACTIVATIONS)
    episodes: int = setting(100_000, "episodes of a run when no other budget is given", flag=False)
    games_per_batch: int = setting(
        64, "self-play games played in lock-step per batch", metavar="N", maximum=MAX_GAMES_PER_BATCH
    )
    eval_every: int = setting(
        10_000, "evaluate against the baselines every N episodes (0: only at the end)", metavar="N"
    )
    seed: int = setting(0, "seed of the whole run: initial weights, self-play, sampling", metavar="S")
    game_config: dict = setting(
        factory=dict, help="keyword arguments of games.make (a [game_config] table)", flag=False
    )
    eval_games: int = setting(200, "evaluation games per baseline, seats rotated", metavar="N", maximum=MAX_EVAL_GAMES)
    eval_opponents: list[str] = setting(
        factory=lambda: ["random", "heuristic"], help="baselines of the evaluation (agent specs)", metavar="SPEC,..."
    )
    checkpoint_minutes: float = setting(5.0, "minutes between checkpoints", metavar="M")
    tf_threads: int = setting(
        1, "intra-op threads of TensorFlow (the machine is shared)", metavar="N", maximum=MAX_TF_THREADS
    )
    # a shard is a lock-step batch of its own, seeded from the run's generator: how the games are
    # split fixes the results, which worker process plays a shard does not (agents/learning/shards.py)
    selfplay_shards: int = setting(
        1,
        "split each self-play batch into N lock-step shards of games with seeds of their own, played by "
        "`deckopt train --jobs` worker processes (results depend on N, never on --jobs); 1: one batch",
        metavar="N",
        maximum=MAX_GAMES_PER_BATCH,
    )


def learner_default(name: str, value: Any, help: str | None = None) -> Any:
    """The `LearnerConfig` setting `name` with a learner's own default (and help text, if given)."""
    metadata = dict(LearnerConfig.__dataclass_fields__[name].metadata)
    if help is not None:
        metadata["help"] = help
    if isinstance(value, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(value), metadata=metadata)
    return dataclasses.field(default=value, metadata=metadata)


def opponent_mix_setting(whose: str = "learner's"):
    """The `opponent_mix` setting: {agent spec: fraction of the self-play games}."""
    return setting(
        factory=dict,
        flag=False,
        help="fraction of the self-play games in which a fixed baseline takes every seat but one, e.g. "
        f"{{heuristic = 0.3}}; only the {whose} decisions are learned from",
    )


def load_learner_config(cls, game_defaults: dict, game_name: str, path=None, overrides: dict | None = None, where=""):
    """A learner's config: per-game defaults < the settings file at `path` (TOML, or JSON by suffix;
    a [game_config] table holds game options) < the non-None `overrides`."""
    game_class(game_name)  # UserError naming the games for an unknown one
    values = dict(game_defaults.get(game_name, {}))
    if path is not None:
        values.update(read_settings(path, "config file"))
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return config_from_dict(cls, values, where=where)


def read_game_defaults(path) -> dict[str, dict]:
    """A learner's per-game defaults: a TOML file with one table a game, its keys the learner config's
    fields (a `game_config` table holds game options)."""
    return read_settings(path, "per-game defaults")


#: per-game defaults of the policy learners (NFSP and PPO alike; each module keeps its own copy to change)
POLICY_GAME_DEFAULTS: dict[str, dict] = read_game_defaults(Path(__file__).with_name("policy_game_defaults.toml"))


def check_learner_config(config, at_least_one: Iterable[str] = (), at_least_zero: Iterable[str] = ()) -> None:
    """The checks every learner's config shares (seed, layers, activation, checkpoints and, where the
    config has them, gamma and the opponent mix), then `name >= 1` / `name >= 0` for the names given."""
    need(0 <= config.seed <= MAX_SEED, f"seed must be in 0..{MAX_SEED}, got {config.seed}")
    need(
        bool(config.hidden_layers) and all(u > 0 for u in config.hidden_layers),
        f"hidden_layers must be a list of positive whole numbers, got {config.hidden_layers}",
    )
    for name in ("episodes", "games_per_batch", "eval_games", "tf_threads", "selfplay_shards", *at_least_one):
        need(getattr(config, name) >= 1, f"{name} must be >= 1, got {getattr(config, name)}")
    need(
        config.selfplay_shards <= config.games_per_batch,
        f"selfplay_shards ({config.selfplay_shards}) must not exceed games_per_batch ({config.games_per_batch})",
    )
    check_maximums(config)
    for name in ("eval_every", *at_least_zero):
        need(getattr(config, name) >= 0, f"{name} must be >= 0, got {getattr(config, name)}")
    need(config.checkpoint_minutes >= 0, f"checkpoint_minutes must be >= 0, got {config.checkpoint_minutes}")
    need(config.activation in ACTIVATIONS, f"activation must be one of {', '.join(ACTIVATIONS)}")
    if hasattr(config, "gamma"):
        need(0.0 < config.gamma <= 1.0, f"gamma must be in (0, 1], got {config.gamma}")
    mix = getattr(config, "opponent_mix", None)
    if mix is not None:
        need(
            all(v >= 0 for v in mix.values()) and sum(mix.values()) <= 1,
            f"opponent_mix must map agent specs to fractions >= 0 summing to <= 1, got {mix}",
        )


def linear_schedule(start: float, end: float, decay_episodes: int, episodes: int) -> float:
    """`start` moving linearly to `end` over `decay_episodes` (0: `end` at once), then `end`."""
    frac = 1.0 if decay_episodes == 0 else min(1.0, episodes / decay_episodes)
    return start + frac * (end - start)


def learning_rate_at(config, episodes: int) -> float:
    """The learning rate of a config with `learning_rate`, `learning_rate_end` and
    `learning_rate_decay_episodes` after `episodes`: constant without a decay (0), else decaying
    linearly (`linear_schedule`)."""
    c = config
    if c.learning_rate_decay_episodes == 0:
        return c.learning_rate
    return linear_schedule(c.learning_rate, c.learning_rate_end, c.learning_rate_decay_episodes, episodes)
