"""The PPO learner and its `train` loop (the one loop of agents/learning/loop.py).

Each batch (CleanRL's ppo.py, with games instead of vectorised environments):
    rollout: `games_per_batch` games in lock-step; one call of the numpy actor and critic per step
             for all the games the learner moves in; actions drawn from the masked softmax
    GAE:     per player trajectory (reward 0, the game's return after its last decision)
    update:  `update_epochs` shuffled passes of `minibatch_size` decisions, in one compiled call
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

import games
from agents.learned import NumpyNetwork, model_metadata
from agents.learning.config import learning_rate_at
from agents.learning.keras_helpers import init_tensorflow, model_weights, optimizer_values, set_optimizer_values
from agents.learning.loop import SELFPLAY_COLUMNS, Mapper, play_in_process, train_learner
from agents.learning.seating import mix_opponents
from agents.learning.shards import play_in_shards
from agents.policy import POLICY_KERAS_PREFIX, PolicyAgent, log_probs, masked_softmax, sample_actions
from agents.ppo.config import PPOConfig
from agents.ppo.model import build_mlp, build_optimizer, make_update
from agents.rollout import Batch, Recorder, gae, play_recorded

METRICS = ["loss", "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac"]


def self_play(game, actor_net, critic_net, opponent_mix: dict[str, float], num_games: int, rng) -> Batch:
    """`num_games` in lock-step, the learner's actions drawn from `actor_net`'s masked softmax; each
    decision's log-probability ("logp") and `critic_net`'s value ("values") beside it."""

    def choose(obs, masks, games_, players):
        probs = masked_softmax(actor_net(obs), masks)
        actions = sample_actions(probs, rng)
        return actions, {"logp": log_probs(probs, actions).astype(np.float32), "values": critic_net(obs)[:, 0]}

    opponents = mix_opponents(game, opponent_mix, rng)
    return play_recorded(game, Recorder(choose), num_games, rng, opponents)


class PPOLearner:
    ALGO = "ppo"
    TITLE = "PPO self-play"
    LOSS_LABEL = "loss (policy + value - entropy)"
    COLUMNS = [
        *SELFPLAY_COLUMNS,
        "pg_loss",
        "v_loss",
        "entropy",
        "approx_kl",
        "clipfrac",
        "learning_rate",
        "mean_value",
    ]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: PPOConfig, mapper: Mapper | None = None):
        """`mapper(func, items)`: where the rollout's shards are played (`selfplay_shards` > 1)."""
        self.config = c = config
        self.mapper = mapper or play_in_process
        self.game = g = games.make(game_name, **config.game_config)
        init_tensorflow(c.seed, c.tf_threads)
        self.rng = np.random.default_rng(c.seed)
        size = g.observation_size
        self.actor = build_mlp(size, g.num_actions, c, c.seed, 0.01, POLICY_KERAS_PREFIX + g.name)
        self.critic = build_mlp(size, 1, c, c.seed + 1, 1.0, "value_network__" + g.name)
        self.optimizer = build_optimizer(self.actor, self.critic, c.learning_rate)
        self.update = make_update(self.actor, self.critic, self.optimizer, c)
        for spec in c.opponent_mix:  # a bad spec fails now, not after the first batch
            mix_opponents(g, {spec: 0.0}, np.random.default_rng(0))
        self.episodes, self.updates = 0, 0
        self.last_loss = float("nan")
        self._refresh_networks()

    def _refresh_networks(self) -> None:
        act = [self.config.activation] * len(self.config.hidden_layers) + ["linear"]
        self.actor_net = NumpyNetwork(model_weights(self.actor), act)
        self.critic_net = NumpyNetwork(model_weights(self.critic), act)

    def step(self) -> dict:
        c = self.config
        t0 = time.perf_counter()
        args = (self.actor_net, self.critic_net, c.opponent_mix)
        batch = play_in_shards(
            self.mapper, self_play, self.game, c.game_config, args, c.games_per_batch, c.selfplay_shards, self.rng
        )
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        values = batch.extras["values"]
        advantages, returns = gae(batch.rewards, values, batch.next_index, c.gamma, c.gae_lambda)
        data = {
            "obs": batch.obs,
            "masks": batch.masks,
            "actions": batch.actions.astype(np.int32),
            "logp": batch.extras["logp"],
            "advantages": advantages,
            "returns": returns,
            "values": values.astype(np.float32),
        }
        learning_rate = learning_rate_at(c, self.episodes)
        self.optimizer.learning_rate.assign(learning_rate)
        metrics = dict(zip(METRICS, self._train(data)))
        self.last_loss = metrics["loss"]
        self._refresh_networks()
        return {
            **metrics,
            "learning_rate": learning_rate,
            "mean_value": float(values.mean()),
            "trained": True,
            "decisions": len(batch.actions),
            "selfplay_seconds": t1 - t0,
        }

    def _train(self, data: dict) -> list[float]:
        """Every epoch a fresh permutation, cut into whole minibatches (a short rollout: one)."""
        c = self.config
        n = len(data["actions"])
        size = min(c.minibatch_size, n)
        per_epoch = n // size
        index = np.concatenate([self.rng.permutation(n)[: per_epoch * size] for _ in range(c.update_epochs)])
        index = index.reshape(-1, size)
        metrics = self.update({k: v[index] for k, v in data.items()})
        self.updates += len(index)
        return [float(m) for m in metrics.numpy()]

    def agent(self) -> PolicyAgent:
        """The policy, acting as it will when shipped (own fixed generator)."""
        return PolicyAgent(self.game, self.actor_net, self.config.policy, np.random.default_rng([self.config.seed, 7]))

    def models(self) -> list:
        meta = dict(episodes=self.episodes, seed=self.config.seed, ppo_config=dataclasses.asdict(self.config))
        policy_meta = model_metadata(self.game, self.actor_net, policy=self.config.policy, **meta)
        return [
            ("model", self.actor, self.actor_net, policy_meta),
            (
                "value",
                self.critic,
                self.critic_net,
                {**model_metadata(self.game, self.critic_net, **meta), "value": True},
            ),
        ]

    # checkpoints ---------------------------------------------------------------------------------
    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {}

    def arrays(self) -> dict:
        out = {}
        for name, obj in (("actor", self.actor), ("critic", self.critic)):
            out.update({f"{name}_w{i}": w for i, w in enumerate(model_weights(obj))})
        out.update({f"optimizer_{i}": v for i, v in enumerate(optimizer_values(self.optimizer))})
        return out

    def restore(self, state: dict, arrays: dict) -> None:
        for name, obj in (("actor", self.actor), ("critic", self.critic)):
            obj.set_weights([arrays[f"{name}_w{i}"] for i in range(len(obj.weights))])
        set_optimizer_values(self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))])
        self._refresh_networks()


def train(game_name: str, config: PPOConfig, out, **kwargs) -> dict:
    """Train a PPO run in folder `out` (agents.learning.loop.train_learner gives the options)."""
    return train_learner(PPOLearner, game_name, config, out, **kwargs)
