"""The DQN learner: self-play -> replay (Monte-Carlo targets) -> update, one step at a time, for
the loop of agents/learning/loop.py (`train`).

    self-play (lock-step games, epsilon-greedy numpy network; shards through the loop's mapper)
    -> replay (Monte-Carlo targets) -> update (a compiled phase of Adam steps)

Everything random flows from the run's seed (one numpy Generator for self-play and sampling;
seeded Keras initialisers; TensorFlow op determinism, one thread), so the same seed and config give
the same run, and a checkpoint (weights, optimizer state, replay, generator state, counters, the
resolved config) resumes it exactly.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

import agents
import games
from agents.dqn.config import DQNConfig, epsilon_at
from agents.dqn.model import build_q_network, make_train_phase, numpy_network
from agents.dqn.selfplay import play_phase, target_replay
from agents.learned import LearnedAgent, load_network, model_metadata
from agents.learning.config import learning_rate_at
from agents.learning.keras_helpers import (
    build_optimizer,
    init_tensorflow,
    model_weights,
    optimizer_values,
    set_learning_rate,
    set_optimizer_values,
)
from agents.learning.loop import Mapper, play_in_process, train_learner
from agents.learning.shards import play_in_shards
from games import UserError


def initial_weights(config: DQNConfig, game) -> list[np.ndarray]:
    """The weights of `config.init_model`, refused unless the architecture is the config's."""
    network, metadata = load_network(config.init_model, game)
    wanted = list(config.hidden_layers) + [game.num_actions]
    wanted_activations = [config.activation] * len(config.hidden_layers) + [config.output_activation]
    if network.layer_sizes != wanted or network.activations != wanted_activations:
        raise UserError(
            f"init_model {metadata['path']} has layers {network.layer_sizes} ({', '.join(network.activations)}), "
            f"but this config builds {wanted} ({', '.join(wanted_activations)})"
        )
    return network.weights


class DQNLearner:
    """The state of one run: network, optimizer, replay, generator, counters (a
    agents.learning.loop.Learner). `step()` runs one self-play phase and one training phase."""

    ALGO = "dqn"
    TITLE = "MC-return DQN self-play"
    LOSS_LABEL = "loss (MSE)"
    COLUMNS = [
        "epsilon",
        "loss",
        "replay_size",
        "decisions_per_game",
        "selfplay_games_per_s",
        "train_samples_per_s",
    ]
    EXPLOITABILITY = True

    def __init__(self, game_name: str, config: DQNConfig, mapper: Mapper | None = None):
        self.config = config
        # mapper(func, [(args), ...]) -> [func(*args), ...] in order: where the self-play shards are played
        self.mapper = mapper or play_in_process
        self.game = games.make(game_name, **config.game_config)
        init_tensorflow(config.seed, config.tf_threads)
        self.rng = np.random.default_rng(config.seed)
        self.model = build_q_network(self.game, config)
        if config.init_model:
            self.model.set_weights(initial_weights(config, self.game))
        self.optimizer = build_optimizer(self.model, config.learning_rate)
        self.train_phase = make_train_phase(self.model, self.optimizer)
        self.replay = target_replay(config.replay_size, self.game.observation_size)
        self.network = numpy_network(self.model, config)
        if config.mirror_augment and self.game.facts.mirror is None:
            raise UserError(f"mirror_augment: {self.game.name} declares no mirror (GameFacts.mirror)")
        for spec in config.opponent_mix:  # a bad spec fails now, not after the first batch
            agents.make(spec, self.game, seed=0)
        self.episodes = 0
        self.updates = 0
        self.last_loss = float("nan")

    @property
    def epsilon(self) -> float:
        return epsilon_at(self.config, self.episodes)

    def step(self) -> dict:
        """One self-play phase then (once the replay is full enough) one training phase."""
        c = self.config
        t0 = time.perf_counter()
        epsilon = self.epsilon
        obs, actions, targets = self.self_play_phase(epsilon)
        self.replay.add({"obs": obs, "actions": actions, "targets": targets})
        if c.mirror_augment:
            mirror = self.game.facts.mirror
            self.replay.add({"obs": mirror.observations(obs), "actions": mirror.actions(actions), "targets": targets})
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        trained = self.replay.size >= max(c.min_replay, 1) and c.updates_per_batch > 0
        if trained:
            set_learning_rate(self.optimizer, learning_rate_at(c, self.episodes))
            self.last_loss = self.train(c.updates_per_batch)
            self.network = numpy_network(self.model, c)
        train_seconds = time.perf_counter() - t1
        return {
            "epsilon": epsilon,
            "loss": self.last_loss,
            "trained": trained,
            "decisions": len(obs),
            "selfplay_seconds": t1 - t0,
            "replay_size": self.replay.size,
            "train_samples_per_s": (c.updates_per_batch * c.batch_size / train_seconds if train_seconds > 1e-4 else ""),
        }

    def self_play_phase(self, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The phase's (observations, actions, targets): one lock-step batch here, or `selfplay_shards`
        shards through the mapper."""
        c = self.config
        args = (self.network, epsilon, c.gamma, c.random_opening_moves, c.opponent_mix)
        batch = play_in_shards(
            self.mapper, play_phase, self.game, c.game_config, args, c.games_per_batch, c.selfplay_shards, self.rng
        )
        return batch.obs, batch.actions, batch.targets

    def train(self, num_updates: int) -> float:
        """`num_updates` Adam steps on replay samples; the mean loss."""
        rows = self.replay.sample(self.rng, (num_updates, self.config.batch_size))
        loss = self.train_phase(rows["obs"], rows["actions"], rows["targets"])
        self.updates += num_updates
        return float(loss)

    def status(self) -> str:
        return f"eps {self.epsilon:.3f} loss {self.last_loss:.4f}"

    def agent(self) -> LearnedAgent:
        """The greedy agent, evaluated and shipped."""
        return LearnedAgent(self.game, self.network)

    def models(self) -> list:
        metadata = model_metadata(
            self.game,
            self.network,
            episodes=self.episodes,
            seed=self.config.seed,
            dqn_config=dataclasses.asdict(self.config),
        )
        return [("model", self.model, self.network, metadata)]

    # checkpoints: weights, optimizer variables and replay as arrays; the replay's place as state
    def state(self) -> dict:
        return {"replay_pos": self.replay.pos, "replay_size": self.replay.size}

    def arrays(self) -> dict[str, np.ndarray]:
        arrays = {f"weight_{i}": w for i, w in enumerate(model_weights(self.model))}
        arrays.update({f"optimizer_{i}": v for i, v in enumerate(optimizer_values(self.optimizer))})
        arrays.update(self.replay.arrays())
        return arrays

    def restore(self, state: dict, arrays: dict) -> None:
        self.model.set_weights([arrays[f"weight_{i}"] for i in range(len(self.model.weights))])
        set_optimizer_values(self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))])
        self.replay.restore(arrays, state["replay_size"], state["replay_pos"])
        self.network = numpy_network(self.model, self.config)


def train(game_name: str, config: DQNConfig, out: str | Path, **options) -> dict:
    """Train a DQN run in folder `out` (agents.learning.loop.train_learner gives the options;
    its `mapper` plays the self-play shards when `selfplay_shards` > 1)."""
    return train_learner(DQNLearner, game_name, config, out, **options)
