"""The AlphaZero-style learner and its `train` loop (the one loop of agents/learning/loop.py).

Each batch:
    self-play: `games_per_batch` games in lock-step; every move a PUCT search of `simulations`
               simulations in each unfinished game (the leaves of all the games in one network
               call), Dirichlet noise at the roots; the first `temperature_moves` moves of a game
               are drawn in proportion to the visits, later ones take the most visited action
    targets:   policy = the root's visit distribution (legal actions only, sums to 1);
               value = the game's final return for the player who moved (any number of players),
               mixed with the root's search value for that player by `value_target_search`
    update:    `updates_per_batch` Adam steps on minibatches drawn from the replay
Forced moves (one legal action) are played without a search and not learned from.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

import games
from agents.alphazero.agent import AlphaZeroAgent, load_network
from agents.alphazero.config import AlphaZeroConfig
from agents.alphazero.features import FeatureNetwork, feature_function, with_features
from agents.alphazero.model import build_network, make_train_phase
from agents.learned import NumpyNetwork, model_metadata
from agents.learning.keras_helpers import (
    build_optimizer,
    init_tensorflow,
    model_weights,
    optimizer_values,
    set_optimizer_values,
)
from agents.learning.loop import SELFPLAY_COLUMNS, Mapper, play_in_process, train_learner
from agents.learning.replay import ReplayBuffer
from agents.learning.shards import play_in_shards
from agents.search.evaluators import network_evaluator
from agents.search.puct import search_roots
from agents.stopping import BatchAbandoned
from games import UserError

METRICS = ["loss", "policy_loss", "value_loss"]


def search_replay(capacity: int, observation_size: int, num_actions: int) -> ReplayBuffer:
    """The replay of (observation, legal mask, visit distribution, outcome) rows."""
    columns = {
        "obs": ((observation_size,), np.float32),
        "masks": ((num_actions,), bool),
        "pis": ((num_actions,), np.float32),
        "zs": ((), np.float32),
    }
    return ReplayBuffer(capacity, columns)


@dataclasses.dataclass
class SelfPlayBatch:
    """One row per searched decision; `returns` one row per game."""

    obs: np.ndarray  # float32 [D, observation_size], the mover's view
    masks: np.ndarray  # bool [D, num_actions]
    pis: np.ndarray  # float32 [D, num_actions], the root's visit distribution
    zs: np.ndarray  # float32 [D], the value target: the game's final return for the mover (mixed with
    # the root's search value by value_target_search)
    games: np.ndarray  # [D] game index
    movers: np.ndarray  # [D] the player who decided
    returns: np.ndarray  # [games, num_players]


def random_opening(state, max_moves: int, rng: np.random.Generator):
    """`state` after 0..max_moves (uniform) uniformly random moves, stopped before a move that would
    end the game (the search must have a decision to learn from)."""
    for _ in range(int(rng.integers(0, max_moves + 1))):
        legal = state.legal_actions()
        nxt = state.clone()
        nxt.apply_action(int(legal[int(rng.integers(0, len(legal)))]))
        if nxt.is_terminal():
            break
        state = nxt
    return state


def self_play(
    game, evaluate, config: AlphaZeroConfig, rng: np.random.Generator, should_stop=None, num_games: int | None = None
) -> SelfPlayBatch:
    """`num_games` games (default `games_per_batch`) in lock-step, every searched decision recorded
    (after a random opening of up to `random_opening_moves` moves, which is not). `should_stop()`,
    asked before each move and during its searches, abandons the batch (BatchAbandoned)."""
    c = config
    num_games = c.games_per_batch if num_games is None else num_games
    states = [game.new_initial_state(np.random.default_rng(int(rng.integers(2**63)))) for _ in range(num_games)]
    if c.random_opening_moves:  # drawn only when asked for, so that earlier runs reproduce
        states = [random_opening(s, c.random_opening_moves, rng) for s in states]
    moves = np.zeros(len(states), dtype=int)
    obs_rows, masks, pis, games_, movers, root_values = [], [], [], [], [], []
    while True:
        live = [g for g, s in enumerate(states) if not s.is_terminal()]
        if not live:
            break
        if should_stop is not None and should_stop():
            raise BatchAbandoned
        search = []
        for g in live:
            legal = states[g].legal_actions()
            if len(legal) == 1:
                states[g].apply_action(legal[0])
            else:
                search.append(g)
        if not search:
            continue
        rngs = [np.random.default_rng(int(rng.integers(2**63))) for _ in search]
        roots = [states[g] for g in search]
        obs_rows.append(game.observations(roots))
        nodes = search_roots(
            roots,
            evaluate,
            c.simulations,
            c.c_puct,
            rngs,
            c.dirichlet_alpha,
            c.dirichlet_fraction,
            should_stop=should_stop,
        )
        for g, s, node in zip(search, roots, nodes):
            n = node.visits()
            pi = n / n.sum()
            root_values.append(node.mean_value())
            masks.append(s.legal_mask())
            pis.append(pi)
            games_.append(g)
            movers.append(s.current_player)
            a = int(rng.choice(len(pi), p=pi)) if moves[g] < c.temperature_moves else int(n.argmax())
            s.apply_action(a)
            moves[g] += 1
    returns = np.stack([s.returns() for s in states])
    games_, movers = np.array(games_, dtype=np.int64), np.array(movers, dtype=np.int64)
    zs = returns[games_, movers]
    if c.value_target_search:
        zs = (1 - c.value_target_search) * zs + c.value_target_search * np.array(root_values)
    a = game.num_actions
    return SelfPlayBatch(
        obs=np.concatenate(obs_rows).astype(np.float32)
        if obs_rows
        else np.zeros((0, game.observation_size), np.float32),
        masks=np.array(masks, dtype=bool).reshape(-1, a),
        pis=np.array(pis, dtype=np.float32).reshape(-1, a),
        zs=zs.astype(np.float32),
        games=games_,
        movers=movers,
        returns=returns,
    )


def initial_weights(spec: str, game, wanted: list[np.ndarray], input_features: str = "") -> list[np.ndarray]:
    """The weights of the az model `spec` (fine-tuning), refused unless they have the shapes of the
    config's network (`wanted`). A model without input features starts a network with them as it
    was: the features' input weights begin at zero."""
    network, metadata, is_q = load_network(spec, game)
    weights = list(network.weights)
    own = metadata.get("input_features", "")
    extra = wanted[0].shape[0] - weights[0].shape[0]  # the features' inputs (conv_channels can't have them)
    if not is_q and not own and input_features and extra > 0 and weights[0].ndim == 2:
        weights[0] = np.concatenate([weights[0], np.zeros((extra, weights[0].shape[1]), weights[0].dtype)])
        own = input_features
    if is_q or own != input_features or [w.shape for w in weights] != [tuple(w.shape) for w in wanted]:
        raise UserError(
            f"init_model {spec} is not an az network of this config's layers "
            "(hidden_layers, conv_channels, input_features); give those of the model"
        )
    return weights


class AlphaZeroLearner:
    ALGO = "alphazero"
    TITLE = "AlphaZero-style self-play"
    LOSS_LABEL = "loss (policy CE + value MSE + L2)"
    COLUMNS = [*SELFPLAY_COLUMNS, "policy_loss", "value_loss", "replay_size", "simulations_per_s"]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: AlphaZeroConfig, mapper: Mapper | None = None):
        """`mapper(func, items)`: where the self-play shards are played (`selfplay_shards` > 1)."""
        self.config = c = config
        self.mapper = mapper or play_in_process
        self.game = g = games.make(game_name, **config.game_config)
        if c.conv_channels and g.observation_planes is None:
            raise UserError(f"conv_channels: the observation of {g.name} is not board planes; leave it empty")
        init_tensorflow(c.seed, c.tf_threads)
        self.rng = np.random.default_rng(c.seed)
        self.should_stop = None  # set by the training loop: a batch of long searches can be abandoned
        self.features, feature_size = feature_function(c.input_features, g)
        self.model = build_network(g, c, g.observation_size + feature_size)
        if c.init_model:
            wanted = model_weights(self.model)
            self.model.set_weights(initial_weights(c.init_model, g, wanted, c.input_features))
        self.optimizer = build_optimizer(self.model, c.learning_rate)
        self.train_phase = make_train_phase(self.model, self.optimizer, g.num_actions, c.weight_decay)
        self.replay = search_replay(c.replay_size, g.observation_size, g.num_actions)
        self.mirror = g.facts.mirror if c.mirror_augment else None
        self.episodes, self.updates = 0, 0
        self.last_loss = float("nan")
        self._refresh_network()

    def _refresh_network(self) -> None:
        c = self.config
        act = [c.activation] * (len(c.conv_channels) + len(c.hidden_layers)) + ["linear"]
        planes = self.game.observation_planes if c.conv_channels else None
        self.network = NumpyNetwork(model_weights(self.model), act, planes)  # saved as it is
        self.acting = FeatureNetwork(self.network, c.input_features, self.game) if self.features else self.network
        self.evaluate = network_evaluator(self.game, self.acting)

    def step(self) -> dict:
        c = self.config
        t0 = time.perf_counter()
        before = self.rng.bit_generator.state
        try:
            b = play_in_shards(
                self.mapper,
                self_play,
                self.game,
                c.game_config,
                (self.evaluate, c),
                c.games_per_batch,
                c.selfplay_shards,
                self.rng,
                should_stop=self.should_stop,
            )
        except BatchAbandoned:
            self.rng.bit_generator.state = before  # as if the batch had never started: resume stays exact
            raise
        decisions = len(b.zs)
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        self.replay.add({"obs": b.obs, "masks": b.masks, "pis": b.pis, "zs": b.zs})
        if self.mirror is not None and decisions:
            m = self.mirror
            self.replay.add(
                {"obs": m.observations(b.obs), "masks": m.per_action(b.masks), "pis": m.per_action(b.pis), "zs": b.zs}
            )
        info = {
            "trained": False,
            "decisions": decisions,
            "selfplay_seconds": t1 - t0,
            "replay_size": self.replay.size,
            "simulations_per_s": decisions * c.simulations / max(t1 - t0, 1e-9),
        }
        if self.replay.size >= max(c.min_replay, 1):
            shape = (c.updates_per_batch, min(c.batch_size, self.replay.size))
            rows = self.replay.sample(self.rng, shape)
            obs, masks, pis, zs = rows["obs"], rows["masks"], rows["pis"], rows["zs"]
            if self.features is not None:
                obs = with_features(obs, self.features)
            metrics = self.train_phase(obs, masks, pis, zs)
            self.updates += c.updates_per_batch
            info.update(dict(zip(METRICS, (float(m) for m in metrics.numpy()))), trained=True)
            self.last_loss = info["loss"]
            self._refresh_network()
        return info

    def agent(self) -> AlphaZeroAgent:
        """The shipped agent: no noise, the most visited action (its own fixed generator)."""
        c = self.config
        return AlphaZeroAgent(self.game, self.acting, np.random.default_rng([c.seed, 7]), c.eval_simulations, c.c_puct)

    def models(self) -> list:
        c = self.config
        meta = model_metadata(
            self.game,
            self.network,
            alphazero=True,
            simulations=c.eval_simulations,
            c_puct=c.c_puct,
            episodes=self.episodes,
            seed=c.seed,
            **({"input_features": c.input_features} if c.input_features else {}),
            alphazero_config=dataclasses.asdict(c),
        )
        return [("model", self.model, self.network, meta)]

    # checkpoints ---------------------------------------------------------------------------------
    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {"replay_size": self.replay.size, "replay_pos": self.replay.pos}

    def arrays(self) -> dict:
        out = {f"w{i}": w for i, w in enumerate(model_weights(self.model))}
        out.update({f"optimizer_{i}": v for i, v in enumerate(optimizer_values(self.optimizer))})
        out.update(self.replay.arrays())
        return out

    def restore(self, state: dict, arrays: dict) -> None:
        self.model.set_weights([arrays[f"w{i}"] for i in range(len(self.model.weights))])
        set_optimizer_values(self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))])
        self.replay.restore(arrays, state["replay_size"], state["replay_pos"])
        self._refresh_network()


def train(game_name: str, config: AlphaZeroConfig, out, **kwargs) -> dict:
    """Train an AlphaZero-style run in folder `out` (agents.learning.loop.train_learner gives the options)."""
    return train_learner(AlphaZeroLearner, game_name, config, out, **kwargs)
