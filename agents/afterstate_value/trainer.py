"""The afterstate-value learner and its `train` loop (the one loop of agents/learning/loop.py).

Each batch:
    self-play: `games_per_batch` games in lock-step; the learner's seats act by the value network
               (agents.afterstate: every legal action's afterstate scored in one forward pass per
               step), a random legal action with chance `epsilon`; for the first `warmup_episodes`
               they act as `warmup_agent` instead. In the `opponent_mix` fraction of the games a
               fixed baseline holds every seat but one.
    record:    the afterstate of each of the learner's actions, seen by the mover, unless the game
               ended there; its target is the game's final return for that player (Monte Carlo,
               no discount: a game ends with +1, 0 or -1), or with `td_lambda` < 1 the
               lambda-return along that player's afterstates (TD(lambda)'s forward view, Sutton and
               Barto 2nd ed. §12.1)
    update:    `update_epochs` shuffled passes of `minibatch_size` afterstates, mean squared error,
               Adam, in one compiled call
The network starts from `init_model`'s weights when one is given (fine-tuning, as a best response
against an afterstate battler does: agents/best_response.py), else from the seed's. It is shipped as
`model.npz` with `"afterstate": true` in its metadata: agents.make plays it as an `AfterstateAgent`.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

import agents
import games
from agents.afterstate import EXTRA_FEATURES, AfterstateAgent, afterstate_features, afterstates
from agents.afterstate_value.config import AfterstateConfig
from agents.afterstate_value.model import build_value_network, make_update
from agents.arena import lockstep_batch, play_batch
from agents.base import Agent
from agents.learned import NumpyNetwork, load_network, model_metadata
from agents.learning.config import learning_rate_at
from agents.learning.keras_helpers import (
    build_optimizer,
    init_tensorflow,
    model_weights,
    optimizer_values,
    set_optimizer_values,
)
from agents.learning.loop import SELFPLAY_COLUMNS, Mapper, play_in_process, train_learner
from agents.learning.seating import mix_opponents, seat_agents
from agents.rollout import next_decisions
from games.batch import BatchState, batch_of
from games.errors import UserError

VALUE_KERAS_PREFIX = "afterstate_value__"


class Recording(Agent):
    """`agent` in the arena, keeping the features of each afterstate it moves to that is not the end
    of its game, with the game and the player."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.features: list[np.ndarray] = []
        self.games: list[np.ndarray] = []
        self.players: list[np.ndarray] = []

    def act(self, states) -> np.ndarray:
        return self.act_batch(batch_of(states), np.arange(len(states)))

    def act_batch(self, batch: BatchState, games_: np.ndarray) -> np.ndarray:
        actions = self.agent.act_batch(batch, games_)
        players = batch.current_players()[games_]
        features, finished, _ = afterstate_features(afterstates(batch, games_, actions), players)
        self.features.append(features[~finished])
        self.games.append(games_[~finished])
        self.players.append(players[~finished])
        return actions


def lambda_returns(values: np.ndarray, finals: np.ndarray, next_index: np.ndarray, lam: float) -> np.ndarray:
    """The lambda-return of each afterstate along its player's afterstates in its game: the final
    return after the last one, else (1 - lam) * the next one's value + lam * the next one's target
    (lam = 1: every target is the final return)."""
    targets = np.empty(len(values), dtype=np.float32)
    for i in range(len(values) - 1, -1, -1):
        j = next_index[i]
        targets[i] = finals[i] if j < 0 else (1 - lam) * values[j] + lam * targets[j]
    return targets


def self_play(
    game, actor: Agent, opponents: list, num_games: int, rng, network, lam: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """(features, targets, decisions) of `num_games` games in lock-step, chance from `rng`; the
    targets are lambda-returns under `network` (with lam = 1, the final returns: no network call)."""
    chance = np.random.default_rng(rng.integers(2**63))
    states = [game.new_initial_state(chance) for _ in range(num_games)]
    seats = seat_agents(num_games, game.num_players, opponents, rng)
    recorder = Recording(actor)
    batch = lockstep_batch(states)
    decisions = play_batch(batch, seats, [recorder, *(agent for agent, _ in opponents)])
    features = np.concatenate(recorder.features)
    games_, players = np.concatenate(recorder.games), np.concatenate(recorder.players)
    finals = batch.returns()[games_, players].astype(np.float32)
    if lam == 1.0 or not len(finals):
        return features, finals, decisions
    values = network(features)[:, 0]
    return features, lambda_returns(values, finals, next_decisions(games_, players), lam), decisions


def initial_weights(config: AfterstateConfig, game) -> list[np.ndarray]:
    """The weights of `config.init_model`, refused in one line unless it is an afterstate network of
    the config's layers and activations."""
    network, metadata = load_network(config.init_model, game)
    wanted = [*config.hidden_layers, 1]
    wanted_activations = [config.activation] * len(config.hidden_layers) + [config.output_activation]
    if not metadata.get("afterstate") or network.layer_sizes != wanted or network.activations != wanted_activations:
        raise UserError(
            f"init_model {metadata['path']} is not an afterstate network of layers {wanted} "
            f"({', '.join(wanted_activations)}); give one trained with this config's hidden_layers and activations"
        )
    return network.weights


class AfterstateLearner:
    ALGO = "afterstate"
    TITLE = "afterstate values, Monte-Carlo or lambda-returns"
    LOSS_LABEL = "value loss (mean squared error)"
    COLUMNS = [*SELFPLAY_COLUMNS, "learning_rate", "mean_target", "afterstates"]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: AfterstateConfig, mapper: Mapper | None = None):
        """`mapper` is accepted for the loop's interface; self-play runs in this process."""
        self.config = c = config
        self.mapper = mapper or play_in_process
        self.game = g = games.make(game_name, **config.game_config)
        init_tensorflow(c.seed, c.tf_threads)
        self.rng = np.random.default_rng(c.seed)
        self.model = build_value_network(g.observation_size + EXTRA_FEATURES, c, VALUE_KERAS_PREFIX + g.name)
        if c.init_model:
            self.model.set_weights(initial_weights(c, g))
        self.optimizer = build_optimizer(self.model, c.learning_rate)
        self.update = make_update(self.model, self.optimizer)
        for spec in [*c.opponent_mix, *([c.warmup_agent] if c.warmup_agent else [])]:  # a bad spec fails now
            agents.make(spec, g, seed=0)
        self.episodes, self.updates = 0, 0
        self.last_loss = float("nan")
        self._refresh_network()

    def _refresh_network(self) -> None:
        c = self.config
        self.net = NumpyNetwork(
            model_weights(self.model), [c.activation] * len(c.hidden_layers) + [c.output_activation]
        )

    def step(self) -> dict:
        c = self.config
        t0 = time.perf_counter()
        if self.episodes < c.warmup_episodes:
            actor = agents.make(c.warmup_agent, self.game, seed=np.random.default_rng(self.rng.integers(2**63)))
        else:
            actor = AfterstateAgent(
                self.game, self.net, epsilon=c.epsilon, rng=np.random.default_rng(self.rng.integers(2**63))
            )
        opponents = mix_opponents(self.game, c.opponent_mix, self.rng)
        features, targets, decisions = self_play(
            self.game, actor, opponents, c.games_per_batch, self.rng, self.net, c.td_lambda
        )
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        learning_rate = learning_rate_at(c, self.episodes)
        self.optimizer.learning_rate.assign(learning_rate)
        self.last_loss = self._train(features, targets)
        self._refresh_network()
        return {
            "loss": self.last_loss,
            "learning_rate": learning_rate,
            "mean_target": float(targets.mean()) if len(targets) else 0.0,
            "afterstates": len(targets),
            "trained": not math.isnan(self.last_loss),
            "decisions": decisions,
            "selfplay_seconds": t1 - t0,
        }

    def _train(self, features: np.ndarray, targets: np.ndarray) -> float:
        """Every epoch a fresh permutation, cut into whole minibatches (fewer afterstates: one)."""
        c = self.config
        n = len(targets)
        if n == 0:
            return float("nan")
        size = min(c.minibatch_size, n)
        per_epoch = n // size
        index = np.concatenate([self.rng.permutation(n)[: per_epoch * size] for _ in range(c.update_epochs)])
        index = index.reshape(-1, size)
        loss = self.update(features[index], targets[index])
        self.updates += len(index)
        return float(loss.numpy())

    def agent(self) -> AfterstateAgent:
        return AfterstateAgent(self.game, self.net, self._metadata())

    def _metadata(self) -> dict:
        meta = dict(episodes=self.episodes, seed=self.config.seed, afterstate_config=dataclasses.asdict(self.config))
        return model_metadata(self.game, self.net, afterstate=True, **meta)

    def models(self) -> list:
        return [("model", self.model, self.net, self._metadata())]

    # checkpoints ---------------------------------------------------------------------------------
    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {}

    def arrays(self) -> dict:
        out = {f"value_w{i}": w for i, w in enumerate(model_weights(self.model))}
        out.update({f"optimizer_{i}": v for i, v in enumerate(optimizer_values(self.optimizer))})
        return out

    def restore(self, state: dict, arrays: dict) -> None:
        self.model.set_weights([arrays[f"value_w{i}"] for i in range(len(self.model.weights))])
        set_optimizer_values(self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))])
        self._refresh_network()


def train(game_name: str, config: AfterstateConfig, out, **kwargs) -> dict:
    """Train an afterstate-value run in folder `out` (agents.learning.loop.train_learner gives the options)."""
    return train_learner(AfterstateLearner, game_name, config, out, **kwargs)
