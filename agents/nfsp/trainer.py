"""The NFSP learner and its `train` loop (the one loop of agents/learning/loop.py).

Each batch: `games_per_batch` games in lock-step; in every game each seat the learner holds follows
the best response (epsilon-greedy over the Q-network, masked) with probability `anticipatory`
(eta), else the average policy (a draw from its masked softmax), for the whole game. Every decision
becomes a transition of its player's trajectory (reward 0, the game's return after the last one)
in the circular replay; the best response's decisions also go into the reservoir. Then
`updates_per_batch` steps of each network (agents.nfsp.model), the target copied every
`target_update_every` steps. The average policy is the agent that is evaluated and shipped.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

import games
from agents.base import masked_argmax
from agents.learned import NumpyNetwork, model_metadata
from agents.learning.keras_helpers import (
    build_optimizer,
    init_tensorflow,
    model_weights,
    optimizer_values,
    set_optimizer_values,
)
from agents.learning.loop import SELFPLAY_COLUMNS, Mapper, play_in_process, train_learner
from agents.learning.seating import mix_opponents
from agents.learning.shards import play_in_shards
from agents.nfsp.buffers import Reservoir, transition_replay
from agents.nfsp.config import NFSPConfig, epsilon_at
from agents.nfsp.model import build_mlp, make_train_phase
from agents.policy import POLICY_KERAS_PREFIX, PolicyAgent, masked_softmax, sample_actions
from agents.rollout import Batch, Recorder, play_recorded


def self_play(
    game,
    q_net,
    policy_net,
    epsilon: float,
    anticipatory: float,
    opponent_mix: dict[str, float],
    num_games: int,
    rng: np.random.Generator,
) -> Batch:
    """`num_games` in lock-step: in every game each of the learner's seats follows the best response
    (epsilon-greedy over `q_net`, masked) with probability `anticipatory`, else the average policy
    (a draw from `policy_net`'s masked softmax), for the whole game; "br" marks its decisions."""
    follows_br = rng.random((num_games, game.num_players)) < anticipatory

    def choose(obs, masks, games_, players):
        br = follows_br[games_, players]
        actions = sample_actions(masked_softmax(policy_net(obs), masks), rng)
        if br.any():
            greedy = masked_argmax(q_net(obs[br]), masks[br])
            explore = rng.random(len(greedy)) < epsilon
            noise = masked_argmax(rng.random((int(explore.sum()), masks.shape[1])), masks[br][explore])
            greedy[explore] = noise
            actions[br] = greedy
        return actions, {"br": br}

    opponents = mix_opponents(game, opponent_mix, rng)
    return play_recorded(game, Recorder(choose), num_games, rng, opponents)


class NFSPLearner:
    ALGO = "nfsp"
    TITLE = "NFSP self-play"
    LOSS_LABEL = "loss (Q MSE + policy cross-entropy)"
    COLUMNS = [*SELFPLAY_COLUMNS, "q_loss", "sl_loss", "epsilon", "rl_size", "sl_size", "br_fraction"]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: NFSPConfig, mapper: Mapper | None = None):
        """`mapper(func, items)`: where the self-play shards are played (`selfplay_shards` > 1)."""
        self.config = c = config
        self.mapper = mapper or play_in_process
        self.game = g = games.make(game_name, **config.game_config)
        init_tensorflow(c.seed, c.tf_threads)
        self.rng = np.random.default_rng(c.seed)
        size, n_act = g.observation_size, g.num_actions
        self.q_model = build_mlp(size, n_act, c.hidden_layers, c.activation, c.seed, "q_network__" + g.name)
        self.target_model = build_mlp(size, n_act, c.hidden_layers, c.activation, c.seed, "target")
        self.target_model.set_weights(self.q_model.get_weights())
        self.policy_model = build_mlp(
            size, n_act, c.hidden_layers, c.activation, c.seed + 1, POLICY_KERAS_PREFIX + g.name
        )
        self.q_optimizer = build_optimizer(self.q_model, c.rl_learning_rate)
        self.sl_optimizer = build_optimizer(self.policy_model, c.sl_learning_rate)
        self.train_phase = make_train_phase(
            self.q_model, self.target_model, self.policy_model, self.q_optimizer, self.sl_optimizer, c.gamma
        )
        self.replay = transition_replay(c.rl_replay_size, size, n_act)
        self.reservoir = Reservoir(c.sl_reservoir_size, size, n_act)
        for spec in c.opponent_mix:  # a bad spec fails now, not after the first batch
            mix_opponents(g, {spec: 0.0}, np.random.default_rng(0))
        self.episodes, self.updates, self.last_sync = 0, 0, 0
        self.last_loss = float("nan")
        self._refresh_networks()

    def _refresh_networks(self) -> None:
        act = [self.config.activation] * len(self.config.hidden_layers) + ["linear"]
        self.q_net = NumpyNetwork(model_weights(self.q_model), act)
        self.policy_net = NumpyNetwork(model_weights(self.policy_model), act)

    def step(self) -> dict:
        c = self.config
        t0 = time.perf_counter()
        epsilon = epsilon_at(c, self.episodes)
        batch = play_in_shards(
            self.mapper,
            self_play,
            self.game,
            c.game_config,
            (self.q_net, self.policy_net, epsilon, c.anticipatory, c.opponent_mix),
            c.games_per_batch,
            c.selfplay_shards,
            self.rng,
        )
        self._store(batch)
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        info = {"epsilon": epsilon, "rl_size": len(self.replay), "sl_size": len(self.reservoir)}
        info.update(
            decisions=len(batch.actions), selfplay_seconds=t1 - t0, br_fraction=float(batch.extras["br"].mean())
        )
        ready = min(len(self.replay), len(self.reservoir)) >= max(c.min_replay, 1)
        info["trained"] = trained = ready and c.updates_per_batch > 0
        if trained:
            q_loss, sl_loss = self._train(c.updates_per_batch)
            self.last_loss = q_loss + sl_loss
            info.update(q_loss=q_loss, sl_loss=sl_loss)
        info["loss"] = self.last_loss
        return info

    def _store(self, batch) -> None:
        nxt = batch.next_index
        done = nxt < 0
        safe = np.where(done, 0, nxt)
        self.replay.add(
            {
                "obs": batch.obs,
                "actions": batch.actions,
                "rewards": batch.rewards,
                "next_obs": np.where(done[:, None], 0.0, batch.obs[safe]).astype(np.float32),
                "next_masks": np.where(done[:, None], False, batch.masks[safe]),
                "done": done.astype(np.float32),
            }
        )
        br = batch.extras["br"]
        self.reservoir.add({"obs": batch.obs[br], "actions": batch.actions[br], "masks": batch.masks[br]}, self.rng)

    def _train(self, num_updates: int) -> tuple[float, float]:
        shape = (num_updates, self.config.batch_size)
        rl, sl = self.replay.sample(self.rng, shape), self.reservoir.sample(self.rng, shape)
        q_loss, sl_loss = self.train_phase(rl, sl)
        self.updates += num_updates
        if self.updates - self.last_sync >= self.config.target_update_every:
            self.target_model.set_weights(self.q_model.get_weights())
            self.last_sync = self.updates
        self._refresh_networks()
        return float(q_loss), float(sl_loss)

    def agent(self) -> PolicyAgent:
        """The average policy, acting as it will when shipped (own fixed generator)."""
        rng = np.random.default_rng([self.config.seed, 7])
        return PolicyAgent(self.game, self.policy_net, self.config.policy, rng)

    def models(self) -> list:
        meta = dict(episodes=self.episodes, seed=self.config.seed, nfsp_config=dataclasses.asdict(self.config))
        return [
            (
                "model",
                self.policy_model,
                self.policy_net,
                model_metadata(self.game, self.policy_net, policy=self.config.policy, **meta),
            ),
            ("best_response", self.q_model, self.q_net, model_metadata(self.game, self.q_net, **meta)),
        ]

    # checkpoints ---------------------------------------------------------------------------------
    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {"last_sync": self.last_sync, "replay": self.replay.state(), "reservoir": self.reservoir.state()}

    def arrays(self) -> dict:
        out = {}
        for name, obj in (("q", self.q_model), ("target", self.target_model), ("policy", self.policy_model)):
            out.update({f"{name}_w{i}": w for i, w in enumerate(model_weights(obj))})
        for name, opt in (("qopt", self.q_optimizer), ("slopt", self.sl_optimizer)):
            out.update({f"{name}_{i}": v for i, v in enumerate(optimizer_values(opt))})
        return {**out, **self.replay.arrays(), **self.reservoir.arrays()}

    def restore(self, state: dict, arrays: dict) -> None:
        for name, obj in (("q", self.q_model), ("target", self.target_model), ("policy", self.policy_model)):
            obj.set_weights([arrays[f"{name}_w{i}"] for i in range(len(obj.weights))])
        for name, opt in (("qopt", self.q_optimizer), ("slopt", self.sl_optimizer)):
            set_optimizer_values(opt, [arrays[f"{name}_{i}"] for i in range(len(opt.variables))])
        self.replay.restore(arrays, **state["replay"])
        self.reservoir.restore(arrays, **state["reservoir"])
        self.last_sync = state["last_sync"]
        self._refresh_networks()


def train(game_name: str, config: NFSPConfig, out, **kwargs) -> dict:
    """Train an NFSP run in folder `out` (agents.learning.loop.train_learner gives the options)."""
    return train_learner(NFSPLearner, game_name, config, out, **kwargs)
