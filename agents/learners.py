"""The learners by name, registered like games (`deckopt train GAME --algo NAME`): each one's config
dataclass (its settings, and the flags `deckopt train` generates from them), its settings loader
(per-game defaults < a file < overrides) and its training loop (agents/learning/loop.py).

    learner = LEARNERS["ppo"]
    config = learner.load_config("connect_four", None, seed=0)
    summary = learner.train("connect_four", config, "runs/c4")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.afterstate_value.config import AfterstateConfig
from agents.afterstate_value.config import load_config as load_afterstate_config
from agents.afterstate_value.trainer import train as train_afterstate
from agents.alphazero.config import AlphaZeroConfig
from agents.alphazero.config import load_config as load_alphazero_config
from agents.alphazero.trainer import train as train_alphazero
from agents.distillation.config import DistillationConfig
from agents.distillation.config import load_config as load_distillation_config
from agents.distillation.trainer import train as train_distillation
from agents.dqn.config import DQNConfig
from agents.dqn.config import load_config as load_dqn_config
from agents.dqn.trainer import train as train_dqn
from agents.nfsp.config import NFSPConfig
from agents.nfsp.config import load_config as load_nfsp_config
from agents.nfsp.trainer import train as train_nfsp
from agents.ppo.config import PPOConfig
from agents.ppo.config import load_config as load_ppo_config
from agents.ppo.trainer import train as train_ppo
from games import UserError


@dataclass(frozen=True)
class Learner:
    name: str  # the --algo value; "algo" in a run's config.json
    title: str  # how help texts name it
    config_class: type  # the settings dataclass
    load_config: Callable[..., Any]  # (game_name, path=None, **overrides) -> config_class instance
    train: Callable[..., dict]  # (game_name, config, out, **options) -> summary (agents/learning/loop.py)
    #: whether it plays its self-play in `selfplay_shards` shards through the loop's mapper (worker
    #: processes); one that does not plays each batch in the training's own process
    plays_shards: bool = True


LEARNERS = {
    learner.name: learner
    for learner in (
        Learner("dqn", "DQN", DQNConfig, load_dqn_config, train_dqn),
        Learner("nfsp", "NFSP", NFSPConfig, load_nfsp_config, train_nfsp),
        Learner("ppo", "PPO", PPOConfig, load_ppo_config, train_ppo),
        Learner("alphazero", "AlphaZero", AlphaZeroConfig, load_alphazero_config, train_alphazero),
        Learner(
            "afterstate",
            "afterstate values",
            AfterstateConfig,
            load_afterstate_config,
            train_afterstate,
            plays_shards=False,
        ),
        Learner(
            "distill",
            "an action scorer distilled from an afterstate battler",
            DistillationConfig,
            load_distillation_config,
            train_distillation,
            plays_shards=False,
        ),
    )
}
#: the learner of `deckopt train` without --algo, and of a run whose config.json names none
DEFAULT_LEARNER = "dqn"


def learner(name: str) -> Learner:
    """The learner registered as `name`; UserError in one line otherwise."""
    try:
        return LEARNERS[name]
    except KeyError:
        raise UserError(f"unknown learner {name!r}; choose one of: {', '.join(LEARNERS)}") from None
