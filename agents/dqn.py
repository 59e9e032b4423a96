"""DQN with Monte-Carlo returns, trained by self-play (the ancestor's algorithm, repaired).

The algorithm, top to bottom (`train` below follows this order):
1. One Q-network (an MLP with a tanh output per action) plays every seat. Self-play runs
   `games_per_batch` games in lock-step through `agents.arena.play_states`; the acting agent is
   epsilon-greedy over a NUMPY copy of the weights (one forward pass per step of the whole batch)
   and never picks an illegal action: both the greedy and the random choice are masked.
   Three options fight the sameness of near-greedy self-play (per-game defaults, measured in
   agents/pretrained/README.md): `random_opening_moves` (each game opens with a few random
   moves), `opponent_mix` (in a fraction of the games fixed baselines hold every seat but one;
   only the network's decisions are learned from) and `mirror_augment` (each decision is also
   stored mirrored, for games with a left-right symmetry).
2. Each finished game is split into one trajectory per player. The target of a player's k-th of K
   decisions is `gamma**(K-1-k) * r_player`, with `r = state.returns()` (the ancestor's G_t):
   no bootstrapping, so no target network, and it works for 3+ players where the zero-sum
   negamax target does not.
3. The (observation, action, target) triples go into a numpy ring-buffer replay; then
   `updates_per_batch` Adam steps of `batch_size` samples minimise the squared error of the taken
   action's value only. The steps of one phase run inside one compiled `tf.function`.
4. The numpy copy of the weights is refreshed; epsilon follows a linear schedule in episodes.
5. Every `eval_every` episodes the greedy agent plays fixed baselines (random, heuristic, minimax
   for Tic Tac Toe) with seats rotated; the win rates and their CIs go to metrics.csv and
   TensorBoard. For Tic Tac Toe the exact exploitability is logged too.

Everything random flows from the run's seed (one numpy Generator for self-play and sampling;
seeded Keras initialisers; TensorFlow op determinism, one thread), so the same seed and config
give the same run, and a checkpoint (weights, optimizer state, replay, generator state, counters)
resumes it exactly. TensorFlow is imported only inside the functions that train or save.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import signal
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import agents
import games
from agents.arena import play_states
from agents.base import Agent, masked_argmax
from agents.learned import KERAS_NAME_PREFIX, LearnedAgent, NumpyQNetwork, model_metadata, npz_bytes
from games import Game, State, UserError
from games.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text

# TensorFlow's C++ start-up chatter (CPU features, absl) hides the progress bar; errors still show
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


# --- hyperparameters ------------------------------------------------------------------------------
@dataclass
class DQNConfig:
    """Everything that defines a run; `config.json` of a run folder is this, resolved."""

    seed: int = 0
    game_config: dict = field(default_factory=dict)  # keyword arguments of games.make
    # network (the ancestor's: 3 x 200 ReLU, tanh output, Adam, MSE on the taken action)
    hidden_layers: list = field(default_factory=lambda: [200, 200, 200])
    activation: str = "relu"
    output_activation: str = "tanh"
    learning_rate: float = 1e-3
    # linear decay of the learning rate to learning_rate_end over decay episodes (0 = constant);
    # late small steps stop the greedy policy flipping between near-equal moves
    learning_rate_end: float = 1e-3
    learning_rate_decay_episodes: int = 0
    # returns
    gamma: float = 0.95
    # self-play and training phases
    episodes: int = 50_000  # when neither --episodes nor --minutes is given
    games_per_batch: int = 128  # games played in lock-step per self-play phase
    updates_per_batch: int = 8  # Adam steps after each self-play phase
    batch_size: int = 256
    replay_size: int = 50_000
    min_replay: int = 1_000  # no training before the replay holds this many samples
    # exploration: linear from start to end over decay episodes, then constant
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    epsilon_decay_episodes: int = 20_000
    # each self-play game opens with U{0..N} uniformly random moves: without them a near-greedy
    # network plays the same few games over and over (Connect Four: 2/3 of a batch identical)
    random_opening_moves: int = 0
    # fraction of the self-play games in which a fixed baseline (a spec: "heuristic", "random")
    # takes every seat but one, e.g. {"heuristic": 0.3}; the rest is pure self-play. Only the
    # network's own decisions are learned from. Empty = pure self-play.
    opponent_mix: dict = field(default_factory=dict)
    # also learn from each decision mirrored left-right (games in MIRRORS only): twice the data,
    # and tactics learned near one edge carry over to the other
    mirror_augment: bool = False
    # evaluation against fixed baselines
    eval_every: int = 5_000  # episodes; 0 = only at the end
    eval_games: int = 200  # per opponent, seats rotated
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    # bookkeeping
    checkpoint_minutes: float = 5.0
    tf_threads: int = 1  # intra-op threads of TensorFlow (the machine is shared)
    # start from this model's weights (a spec as for agents.make: .npz/.keras path, run folder,
    # "pretrained") instead of seeded random ones: fine-tuning. Same game and layer sizes.
    init_model: str = ""


# Per-game overrides of the defaults above (measured choices; see agents/pretrained/README.md).
GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "tic_tac_toe": {
        # unexploitable after 50-60k episodes for seeds 0-2; a large replay, a high final epsilon
        # (coverage of the opponent's deviations) and a decaying learning rate keep it there
        "episodes": 80_000,
        "replay_size": 200_000,
        "epsilon_end": 0.15,
        "epsilon_decay_episodes": 30_000,
        "learning_rate_end": 1e-4,
        "learning_rate_decay_episodes": 60_000,
        "eval_every": 10_000,
        "eval_opponents": ["random", "heuristic", "minimax"],
    },
    "connect_four": {
        # pure self-play reached ~97% against random and swung between 0% and 100% against the
        # heuristic as second player. Random openings, games against the heuristic and random
        # (their odd positions are where one-move tactics get missed), mirrored decisions,
        # gamma 0.85 (sharper tactics) and a long learning-rate decay fixed most of it.
        "episodes": 1_200_000,
        "gamma": 0.85,
        "games_per_batch": 256,
        "updates_per_batch": 32,
        "batch_size": 512,
        "replay_size": 300_000,
        "epsilon_end": 0.03,
        "epsilon_decay_episodes": 100_000,
        "random_opening_moves": 6,
        "opponent_mix": {"heuristic": 0.2, "random": 0.4},
        "mirror_augment": True,
        "learning_rate_end": 3e-5,
        "learning_rate_decay_episodes": 1_000_000,
        "eval_every": 100_000,
        "eval_games": 1_000,
    },
    "incan_gold": {
        "game_config": {"num_players": 3},
        "episodes": 200_000,
        "replay_size": 200_000,
        "epsilon_decay_episodes": 50_000,
        "eval_every": 20_000,
        "gamma": 1.0,
    },
    "gwent_lite": {
        "episodes": 200_000,
        "replay_size": 200_000,
        "epsilon_decay_episodes": 50_000,
        "eval_every": 20_000,
        "gamma": 1.0,
    },
}


def default_config(game_name: str) -> DQNConfig:
    return make_config({**GAME_DEFAULTS.get(game_name, {})})


def make_config(values: dict) -> DQNConfig:
    """A DQNConfig from plain values, each checked against its field's type (UserError if not)."""
    fields = {f.name: f for f in dataclasses.fields(DQNConfig)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise UserError(f"unknown DQN config key(s): {', '.join(unknown)}; known: {', '.join(fields)}")
    defaults = DQNConfig()
    checked = {}
    for name, value in values.items():
        expected = type(getattr(defaults, name))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise UserError(f"DQN config {name} must be {expected.__name__}, got {value!r}")
        checked[name] = value
    config = DQNConfig(**checked)
    _validate(config)
    return config


def _validate(c: DQNConfig) -> None:
    problems = []
    if not c.hidden_layers or not all(isinstance(u, int) and u > 0 for u in c.hidden_layers):
        problems.append(f"hidden_layers must be a list of positive whole numbers, got {c.hidden_layers}")
    for name in ("games_per_batch", "batch_size", "replay_size", "eval_games", "episodes", "tf_threads"):
        if getattr(c, name) < 1:
            problems.append(f"{name} must be >= 1")
    for name in ("updates_per_batch", "min_replay", "eval_every", "epsilon_decay_episodes", "learning_rate_decay_episodes", "random_opening_moves"):
        if getattr(c, name) < 0:
            problems.append(f"{name} must be >= 0")
    mix = c.opponent_mix
    if not all(isinstance(v, (int, float)) and v >= 0 for v in mix.values()) or sum(mix.values()) > 1:
        problems.append(f"opponent_mix must map agent specs to fractions >= 0 summing to <= 1, got {mix}")
    if not 0.0 < c.gamma <= 1.0:
        problems.append(f"gamma must be in (0, 1], got {c.gamma}")
    if not (0.0 <= c.epsilon_end <= 1.0 and 0.0 <= c.epsilon_start <= 1.0):
        problems.append("epsilon_start and epsilon_end must be in [0, 1]")
    if c.learning_rate <= 0 or c.learning_rate_end <= 0:
        problems.append("learning_rate and learning_rate_end must be > 0")
    from agents.learned import ACTIVATIONS

    for name in ("activation", "output_activation"):
        if getattr(c, name) not in ACTIVATIONS:
            problems.append(f"{name} must be one of {', '.join(ACTIVATIONS)}")
    if problems:
        raise UserError("DQN config: " + "; ".join(problems))


def load_config(game_name: str, path: str | os.PathLike | None = None, **overrides) -> DQNConfig:
    """Per-game defaults, then the TOML file (top-level keys are DQNConfig fields; a [game_config]
    table holds game options), then the non-None `overrides`."""
    values = dict(GAME_DEFAULTS.get(game_name, {}))
    if path is not None:
        try:
            with open(path, "rb") as f:
                values.update(tomllib.load(f))
        except FileNotFoundError:
            raise UserError(f"config file {path} not found") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UserError(f"config file {path} is not valid TOML: {exc}") from None
    values.update({k: v for k, v in overrides.items() if v is not None})
    return make_config(values)


def _linear(start: float, end: float, decay_episodes: int, episodes: int) -> float:
    frac = 1.0 if decay_episodes == 0 else min(1.0, episodes / decay_episodes)
    return start + frac * (end - start)


def epsilon_at(config: DQNConfig, episodes: int) -> float:
    return _linear(config.epsilon_start, config.epsilon_end, config.epsilon_decay_episodes, episodes)


def learning_rate_at(config: DQNConfig, episodes: int) -> float:
    if config.learning_rate_decay_episodes == 0:
        return config.learning_rate
    return _linear(config.learning_rate, config.learning_rate_end, config.learning_rate_decay_episodes, episodes)


# --- Monte-Carlo targets ------------------------------------------------------------------------
def episode_targets(players: Sequence[int], returns: Sequence[float], gamma: float) -> np.ndarray:
    """Targets of one episode's decisions, in order: `players[i]` made decision i. A player's k-th
    of K decisions gets `gamma**(K-1-k) * returns[player]` (its last decision gets the return)."""
    targets = np.empty(len(players), dtype=np.float32)
    later = {}  # player -> how many of its decisions come after this one (K-1-k)
    for i in range(len(players) - 1, -1, -1):
        p = players[i]
        k = later.get(p, 0)
        targets[i] = returns[p] * gamma**k
        later[p] = k + 1
    return targets


# --- self-play ------------------------------------------------------------------------------------
class SelfPlayRecorder(Agent):
    """Epsilon-greedy over a numpy Q-network for every seat, remembering every decision. The first
    `opening[g]` decisions of game g are uniformly random (see `random_opening_moves`)."""

    spec = "self-play"

    def __init__(self, network: NumpyQNetwork, rng: np.random.Generator):
        self.network = network
        self.rng = rng
        self.epsilon = 1.0

    def start(self, states: Sequence[State], epsilon: float, random_opening_moves: int = 0) -> None:
        self.epsilon = epsilon
        self._game_of = {id(s): g for g, s in enumerate(states)}
        self.opening = self.rng.integers(0, random_opening_moves + 1, size=len(states)) if random_opening_moves else None
        self.decisions: list[list[tuple[int, int]]] = [[] for _ in states]  # per game: (player, row)
        self.obs_chunks: list[np.ndarray] = []
        self.action_chunks: list[np.ndarray] = []
        self.num_rows = 0

    def act(self, states: Sequence[State]) -> np.ndarray:
        players = [s.current_player for s in states]
        games_ = [self._game_of[id(s)] for s in states]
        game = states[0].game
        obs = game.observations(states, players)
        masks = game.legal_masks(states)
        actions = masked_argmax(self.network(obs), masks)
        explore = self.rng.random(len(states)) < self.epsilon
        if self.opening is not None:
            explore |= np.array([len(self.decisions[g]) < self.opening[g] for g in games_])
        if explore.any():  # uniform over the legal actions: argmax of masked noise
            actions[explore] = masked_argmax(self.rng.random((int(explore.sum()), masks.shape[1])), masks[explore])
        for i, (g, p) in enumerate(zip(games_, players)):
            self.decisions[g].append((p, self.num_rows + i))
        self.obs_chunks.append(obs)
        self.action_chunks.append(actions)
        self.num_rows += len(states)
        return actions


def self_play(
    game: Game,
    recorder: SelfPlayRecorder,
    num_games: int,
    epsilon: float,
    gamma: float,
    rng: np.random.Generator,
    random_opening_moves: int = 0,
    opponents: Sequence[tuple[Agent, float]] = (),
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play `num_games` in lock-step; (observations, actions, targets, returns of each game).
    `opponents`: (agent, fraction) pairs; in that fraction of the games the agent takes every seat
    but one (the network's seat drawn at random); the network plays every seat of the others."""
    # one chance generator for the whole batch: lock-step order is deterministic, and making a
    # Generator per game cost more than a Tic Tac Toe game
    chance = np.random.default_rng(rng.integers(2**63))
    states = [game.new_initial_state(chance) for _ in range(num_games)]
    n = game.num_players
    seat_agents = [[0] * n for _ in range(num_games)]
    first = 0
    for k, (_, fraction) in enumerate(opponents):
        count = int(round(fraction * num_games))
        for g in range(first, min(num_games, first + count)):
            seat_agents[g] = [1 + k] * n
            seat_agents[g][int(rng.integers(n))] = 0
        first += count
    recorder.start(states, epsilon, random_opening_moves)
    play_states(states, seat_agents, [recorder, *(agent for agent, _ in opponents)])
    obs = np.concatenate(recorder.obs_chunks)
    actions = np.concatenate(recorder.action_chunks)
    targets = np.empty(len(obs), dtype=np.float32)
    all_returns = np.empty((num_games, n))
    for g, s in enumerate(states):
        all_returns[g] = s.returns()
        if recorder.decisions[g]:
            players, rows = zip(*recorder.decisions[g])
            targets[list(rows)] = episode_targets(players, all_returns[g].tolist(), gamma)
    return obs, actions, targets, all_returns


def _mirror_connect_four(obs: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left-right mirror: the observation is two 6 x 7 planes (RULES.md); column c becomes 6 - c."""
    return obs.reshape(-1, 2, 6, 7)[:, :, :, ::-1].reshape(len(obs), -1), 6 - actions


# game name -> (observations, actions) -> the same decisions mirrored (same targets)
MIRRORS = {"connect_four": _mirror_connect_four}


class ReplayBuffer:
    """Fixed-size ring buffer of (observation, action, target), numpy arrays."""

    def __init__(self, capacity: int, observation_size: int):
        self.obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.actions = np.zeros(capacity, dtype=np.int32)
        self.targets = np.zeros(capacity, dtype=np.float32)
        self.capacity = capacity
        self.pos = 0  # next row to write
        self.size = 0

    def add(self, obs: np.ndarray, actions: np.ndarray, targets: np.ndarray) -> None:
        n = len(obs)
        if n > self.capacity:  # keep the newest
            obs, actions, targets = obs[-self.capacity :], actions[-self.capacity :], targets[-self.capacity :]
            n = self.capacity
        rows = (self.pos + np.arange(n)) % self.capacity
        self.obs[rows] = obs
        self.actions[rows] = actions
        self.targets[rows] = targets
        self.pos = int((self.pos + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]):
        rows = rng.integers(0, self.size, size=shape)
        return self.obs[rows], self.actions[rows], self.targets[rows]


# --- the network and its compiled train step ------------------------------------------------------
def init_tensorflow(seed: int, threads: int = 1) -> None:
    """Seed TensorFlow/Keras and make its ops deterministic (call before building models)."""
    import keras
    import tensorflow as tf

    try:  # only possible before TensorFlow's runtime starts; later calls keep the first setting
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(threads)
    except RuntimeError:
        pass
    tf.config.experimental.enable_op_determinism()
    keras.utils.set_random_seed(seed)


def build_q_network(game: Game, config: DQNConfig):
    """The Keras MLP: observation -> hidden ReLU layers -> tanh value per action."""
    import keras

    inputs = keras.Input((game.observation_size,), name="observation")
    x = inputs
    for i, units in enumerate(config.hidden_layers):
        init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + i)
        x = keras.layers.Dense(units, activation=config.activation, kernel_initializer=init, name=f"hidden_{i}")(x)
    init = keras.initializers.GlorotUniform(seed=config.seed * 1000 + len(config.hidden_layers))
    q = keras.layers.Dense(game.num_actions, activation=config.output_activation, kernel_initializer=init, name="q_values")(x)
    return keras.Model(inputs, q, name=KERAS_NAME_PREFIX + game.name)


def model_weights(model) -> list[np.ndarray]:
    """kernel_0, bias_0, kernel_1, ... as numpy (variable.numpy(): get_weights() warns under numpy 2)."""
    return [v.numpy() for v in model.weights]


def numpy_network(model, config: DQNConfig) -> NumpyQNetwork:
    activations = [config.activation] * len(config.hidden_layers) + [config.output_activation]
    return NumpyQNetwork(model_weights(model), activations)


def initial_weights(config: DQNConfig, game: Game) -> list[np.ndarray]:
    """The weights of `config.init_model`, refused unless the architecture is the config's."""
    from agents.learned import load_network

    network, metadata = load_network(config.init_model, game)
    wanted = list(config.hidden_layers) + [game.num_actions]
    wanted_activations = [config.activation] * len(config.hidden_layers) + [config.output_activation]
    if network.layer_sizes != wanted or network.activations != wanted_activations:
        raise UserError(
            f"init_model {metadata['path']} has layers {network.layer_sizes} ({', '.join(network.activations)}), "
            f"but this config builds {wanted} ({', '.join(wanted_activations)})"
        )
    return network.weights


def make_train_step(model, optimizer):
    """A compiled step: MSE between the taken action's Q-value and its Monte-Carlo target."""
    import tensorflow as tf

    @tf.function(jit_compile=False)
    def train_step(obs, actions, targets):
        with tf.GradientTape() as tape:
            q = model(obs, training=True)
            q_taken = tf.gather(q, actions, batch_dims=1)
            loss = tf.reduce_mean(tf.square(targets - q_taken))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return train_step


def make_train_phase(model, optimizer):
    """A compiled phase of U steps: inputs stacked as [U, batch, ...], one call for all of them
    (so Python and the numpy->tensor copy are paid once per phase, not once per step)."""
    import tensorflow as tf

    @tf.function(jit_compile=False)
    def train_phase(obs, actions, targets):
        total = tf.constant(0.0)
        num_steps = tf.shape(obs)[0]
        for u in tf.range(num_steps):
            with tf.GradientTape() as tape:
                q = model(obs[u], training=True)
                q_taken = tf.gather(q, actions[u], batch_dims=1)
                loss = tf.reduce_mean(tf.square(targets[u] - q_taken))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            total += loss
        return total / tf.cast(num_steps, tf.float32)

    return train_phase


# --- a training run --------------------------------------------------------------------------------
class Trainer:
    """The state of one run: network, optimizer, replay, generator, counters. `step()` runs one
    self-play phase and one training phase; `checkpoint_bytes()`/`restore()` save and load all of it."""

    def __init__(self, game_name: str, config: DQNConfig):
        import keras

        self.config = config
        self.game = games.make(game_name, **config.game_config)
        init_tensorflow(config.seed, config.tf_threads)
        self.rng = np.random.default_rng(config.seed)
        self.model = build_q_network(self.game, config)
        if config.init_model:
            self.model.set_weights(initial_weights(config, self.game))
        self.optimizer = keras.optimizers.Adam(learning_rate=config.learning_rate)
        self.optimizer.build(self.model.trainable_variables)
        self.train_phase = make_train_phase(self.model, self.optimizer)
        self.replay = ReplayBuffer(config.replay_size, self.game.observation_size)
        self.network = numpy_network(self.model, config)
        self.recorder = SelfPlayRecorder(self.network, self.rng)
        if config.mirror_augment and self.game.name not in MIRRORS:
            raise UserError(f"mirror_augment: no mirror known for {self.game.name} (only {', '.join(MIRRORS)})")
        for spec in config.opponent_mix:  # a bad spec fails now, not after the first batch
            agents.make(spec, self.game, seed=0)
        self.episodes = 0
        self.updates = 0
        self.last_loss = float("nan")

    @property
    def epsilon(self) -> float:
        return epsilon_at(self.config, self.episodes)

    def step(self) -> dict:
        """One self-play phase then one training phase; returns this step's numbers."""
        c = self.config
        t0 = time.perf_counter()
        epsilon = self.epsilon
        # baseline opponents are made afresh from the run's generator: nothing extra to checkpoint
        opponents = [
            (agents.make(spec, self.game, seed=np.random.default_rng(self.rng.integers(2**63))), fraction)
            for spec, fraction in sorted(c.opponent_mix.items())
        ]
        obs, actions, targets, returns = self_play(
            self.game, self.recorder, c.games_per_batch, epsilon, c.gamma, self.rng, c.random_opening_moves, opponents
        )
        self.replay.add(obs, actions, targets)
        if c.mirror_augment:
            self.replay.add(*MIRRORS[self.game.name](obs, actions), targets)
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        if self.replay.size >= max(c.min_replay, 1) and c.updates_per_batch > 0:
            self.optimizer.learning_rate.assign(learning_rate_at(c, self.episodes))
            self.last_loss = self.train(c.updates_per_batch)
            self.network = numpy_network(self.model, c)
            self.recorder.network = self.network
        t2 = time.perf_counter()
        return {
            "epsilon": epsilon,
            "loss": self.last_loss,
            "decisions": len(obs),
            "selfplay_seconds": t1 - t0,
            "train_seconds": t2 - t1,
            "decisions_per_game": len(obs) / c.games_per_batch,
        }

    def train(self, num_updates: int) -> float:
        """`num_updates` Adam steps on replay samples; the mean loss."""
        obs, actions, targets = self.replay.sample(self.rng, (num_updates, self.config.batch_size))
        loss = self.train_phase(obs, actions, targets)
        self.updates += num_updates
        return float(loss)

    def greedy_agent(self) -> LearnedAgent:
        return LearnedAgent(self.game, self.network)

    # checkpoints: one .npz with weights, optimizer variables, replay and a JSON state -------------
    def checkpoint_bytes(self, extra_state: dict) -> bytes:
        state = {
            "episodes": self.episodes,
            "updates": self.updates,
            "last_loss": self.last_loss,
            "rng": self.rng.bit_generator.state,
            "replay_pos": self.replay.pos,
            "replay_size": self.replay.size,
            **extra_state,
        }
        arrays = {f"weight_{i}": w for i, w in enumerate(model_weights(self.model))}
        arrays.update({f"optimizer_{i}": v.numpy() for i, v in enumerate(self.optimizer.variables)})
        n = self.replay.size
        arrays.update(replay_obs=self.replay.obs[:n], replay_actions=self.replay.actions[:n], replay_targets=self.replay.targets[:n])
        buffer = io.BytesIO()
        np.savez(buffer, state=np.array(json.dumps(state)), **arrays)
        return buffer.getvalue()

    def restore(self, path: Path) -> dict:
        try:
            data = np.load(path, allow_pickle=False)
            state = json.loads(str(data["state"][()]))
            weights = [data[f"weight_{i}"] for i in range(len(self.model.weights))]
            opt_values = [data[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))]
            replay = data["replay_obs"], data["replay_actions"], data["replay_targets"]
        except Exception as exc:
            raise UserError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from None
        self.model.set_weights(weights)
        for var, value in zip(self.optimizer.variables, opt_values):
            var.assign(value)
        n = state["replay_size"]
        self.replay.obs[:n], self.replay.actions[:n], self.replay.targets[:n] = replay
        self.replay.size, self.replay.pos = n, state["replay_pos"]
        self.rng.bit_generator.state = state["rng"]
        self.episodes, self.updates, self.last_loss = state["episodes"], state["updates"], state["last_loss"]
        self.network = numpy_network(self.model, self.config)
        self.recorder.network = self.network
        return state


def evaluate_during_training(trainer: Trainer) -> dict:
    """Win/draw/loss rates of the greedy agent against each fixed baseline (and, for Tic Tac Toe,
    the exact exploitability). Uses its own seeds, never the training generator."""
    from agents.evaluate import evaluate, exploitability

    c = trainer.config
    agent = trainer.greedy_agent()
    report = evaluate(trainer.game, agent, c.eval_opponents, c.eval_games, seed=c.seed)
    row = {}
    for match in report["matches"]:
        res = match["agent"]
        n = max(1, res["wins"] + res["draws"] + res["losses"])
        row[f"{match['vs']}_win"] = res["wins"] / n
        row[f"{match['vs']}_draw"] = res["draws"] / n
        row[f"{match['vs']}_loss"] = res["losses"] / n
    if trainer.game.name == "tic_tac_toe":
        row["exploitability"] = exploitability(trainer.game, agent)["exploitability"]
    return row


def metric_columns(game: Game, config: DQNConfig) -> list[str]:
    cols = ["episodes", "updates", "seconds", "epsilon", "loss", "replay_size", "decisions_per_game", "selfplay_games_per_s", "train_samples_per_s"]
    for spec in config.eval_opponents:
        cols += [f"{spec}_win", f"{spec}_draw", f"{spec}_loss"]
    if game.name == "tic_tac_toe":
        cols.append("exploitability")
    return cols


class _StopRequest:
    """First Ctrl-C (or SIGTERM): finish the current batch, checkpoint, stop. Second: abort."""

    def __init__(self):
        self.requested = False
        self._previous = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: no handlers, Ctrl-C aborts as usual
                pass
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping after this batch (saving a checkpoint); Ctrl-C again to abort", file=sys.stderr)

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        return False


def _write_scalars(writer, row: dict, step: int) -> None:
    """TensorBoard scalars through tf.summary.write (needs no `tensorboard` package to write)."""
    import tensorflow as tf
    from tensorflow.core.framework import summary_pb2

    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))
    with writer.as_default():
        for name, value in row.items():
            if name != "episodes" and value not in ("", None) and math.isfinite(float(value)):
                tf.summary.write(name, tf.constant(float(value), tf.float32), step=step, metadata=metadata)


def _csv_text(columns: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


def plot_learning_curves(path: Path, rows: list[dict], columns: list[str], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    episodes = np.array([r["episodes"] for r in rows], dtype=float)
    fig, (ax_loss, ax_eval) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    loss = np.array([r.get("loss", np.nan) for r in rows], dtype=float)
    ax_loss.plot(episodes, loss, lw=0.8, label="loss (MSE)")
    ax_loss.plot(episodes, [r.get("epsilon", np.nan) for r in rows], lw=0.8, label="epsilon")
    ax_loss.set_ylabel("loss / epsilon")
    ax_loss.legend()
    for i, col in enumerate(c for c in columns if c.endswith("_win") or c == "exploitability"):
        spec = col[: -len("_win")] if col.endswith("_win") else None
        for key, style, label in ((col, "-", f"{spec} win rate" if spec else "exploitable (1) or not (0)"), (f"{spec}_loss", "--", f"{spec} loss rate")):
            pts = [(r["episodes"], r[key]) for r in rows if r.get(key, "") != ""]
            if pts and (spec or key == col):
                x, y = zip(*pts)
                ax_eval.plot(x, y, style, color=f"C{i}", marker="o", ms=3, label=label)
    ax_eval.set_xlabel("episodes")
    ax_eval.set_ylabel("greedy agent vs baselines")
    ax_eval.set_ylim(-0.05, 1.05)
    ax_eval.grid(alpha=0.3)
    if ax_eval.get_legend_handles_labels()[0]:
        ax_eval.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())


def save_keras_atomic(model, path: Path) -> None:
    """model.save to a temporary name in the same folder, then os.replace."""
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}.keras")
    try:
        model.save(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def save_model(trainer: Trainer, out: Path, stem: str = "model") -> None:
    """`<stem>.keras` and `<stem>.npz` (numpy weights + metadata) in `out`."""
    save_keras_atomic(trainer.model, out / f"{stem}.keras")
    metadata = model_metadata(
        trainer.game, trainer.network, episodes=trainer.episodes, seed=trainer.config.seed, dqn_config=dataclasses.asdict(trainer.config)
    )
    atomic_write_bytes(out / f"{stem}.npz", npz_bytes(trainer.network, metadata))


def train(
    game_name: str,
    config: DQNConfig,
    out: str | os.PathLike,
    episodes: int | None = None,
    minutes: float | None = None,
    resume: bool = False,
    progress: bool = True,
) -> dict:
    """Train (or, with `resume`, continue) the run in folder `out` until `episodes` episodes in
    all (default config.episodes) or `minutes` of wall clock in this call, or Ctrl-C. Returns a
    summary (episodes, seconds, last evaluation, paths)."""
    out = Path(out)
    checkpoint_path = out / "checkpoints" / "checkpoint.npz"
    if resume:
        if not (out / "config.json").is_file():
            raise UserError(f"cannot resume: {out}/config.json not found (not a training run folder?)")
        if not checkpoint_path.is_file():
            raise UserError(f"cannot resume: {checkpoint_path} not found")
    elif (out / "config.json").exists():
        raise UserError(f"{out} already holds a run; use --resume {out} or another --out")
    target = episodes if episodes is not None else (None if minutes is not None else config.episodes)

    trainer = Trainer(game_name, config)
    columns = metric_columns(trainer.game, config)
    rows: list[dict] = []
    last_eval: dict = {}
    elapsed_before = 0.0
    if resume:
        state = trainer.restore(checkpoint_path)
        rows, last_eval, elapsed_before = state["rows"], state["last_eval"], state["seconds"]
    else:
        atomic_write_json(out / "config.json", {"game": game_name, **dataclasses.asdict(config)})
    # validate the baselines before spending time on training
    from agents.evaluate import make_opponents

    make_opponents(trainer.game, config.eval_opponents, seed=config.seed)

    import tensorflow as tf

    writer = tf.summary.create_file_writer(str(out / "tensorboard"))
    start = time.perf_counter()
    last_checkpoint = start
    next_eval = (trainer.episodes // config.eval_every + 1) * config.eval_every if config.eval_every else None

    def seconds() -> float:
        return elapsed_before + time.perf_counter() - start

    def save_checkpoint() -> None:
        state = {"rows": rows, "last_eval": last_eval, "seconds": seconds()}
        atomic_write_bytes(checkpoint_path, trainer.checkpoint_bytes(state))
        atomic_write_text(out / "metrics.csv", _csv_text(columns, rows))
        writer.flush()

    def run_eval(row: dict) -> None:
        nonlocal last_eval
        last_eval = {"episodes": trainer.episodes, **evaluate_during_training(trainer)}
        row.update({k: v for k, v in last_eval.items() if k != "episodes"})
        atomic_write_text(out / "metrics.csv", _csv_text(columns, rows if rows and row is rows[-1] else rows + [row]))

    def eval_summary() -> str:
        parts = [f"{spec} w{last_eval[spec + '_win']:.2f} l{last_eval[spec + '_loss']:.2f}" for spec in config.eval_opponents if spec + "_win" in last_eval]
        if "exploitability" in last_eval:
            parts.append("unexploitable" if last_eval["exploitability"] <= 0 else "exploitable")
        return " | " + " ".join(parts) if parts else ""

    from tqdm import tqdm

    bar = tqdm(
        total=target, initial=trainer.episodes, unit="ep", desc=f"train {game_name}", file=sys.stderr,
        disable=not progress, dynamic_ncols=True, smoothing=0.1,
        mininterval=0.5 if sys.stderr.isatty() else 30.0,  # a log file gets a line every 30 s
    )
    stopped_by = "episodes"
    with _StopRequest() as stop:
        while True:
            if target is not None and trainer.episodes >= target:
                break
            if minutes is not None and time.perf_counter() - start >= minutes * 60:
                stopped_by = "minutes"
                break
            if stop.requested:
                stopped_by = "interrupt"
                break
            info = trainer.step()
            row = {
                "episodes": trainer.episodes,
                "updates": trainer.updates,
                "seconds": round(seconds(), 2),
                "epsilon": info["epsilon"],
                "loss": info["loss"],
                "replay_size": trainer.replay.size,
                "decisions_per_game": info["decisions_per_game"],
                "selfplay_games_per_s": config.games_per_batch / max(info["selfplay_seconds"], 1e-9),
                "train_samples_per_s": (
                    config.updates_per_batch * config.batch_size / info["train_seconds"] if info["train_seconds"] > 1e-4 else ""
                ),
            }
            if next_eval is not None and trainer.episodes >= next_eval:
                run_eval(row)
                next_eval += config.eval_every
            rows.append(row)
            _write_scalars(writer, row, trainer.episodes)
            bar.update(config.games_per_batch)
            bar.set_postfix_str(f"eps {info['epsilon']:.3f} loss {info['loss']:.4f}{eval_summary()}", refresh=False)
            if time.perf_counter() - last_checkpoint >= config.checkpoint_minutes * 60:
                save_checkpoint()
                last_checkpoint = time.perf_counter()
        bar.close()
        # the end (or a stop request): evaluate the final weights if not just done, save everything
        if rows and last_eval.get("episodes") != trainer.episodes and stopped_by != "interrupt":
            run_eval(rows[-1])
            _write_scalars(writer, rows[-1], trainer.episodes)
        save_checkpoint()
        save_model(trainer, out)
        if rows:
            plot_learning_curves(out / "learning_curves.png", rows, columns, f"{game_name}: MC-return DQN self-play (seed {config.seed})")
    writer.close()
    return {
        "game": game_name,
        "out": str(out),
        "episodes": trainer.episodes,
        "updates": trainer.updates,
        "seconds": seconds(),
        "stopped_by": stopped_by,
        "last_eval": last_eval,
    }


def run_training(
    game_name: str,
    config_file: str | None = None,
    episodes: int | None = None,
    minutes: float | None = None,
    seed: int | None = None,
    out: str | None = None,
    resume: str | None = None,
    progress: bool = True,
) -> dict:
    """What `deckopt train` does: resolve the config (defaults < --config < --seed), pick the run
    folder (default runs/<game>-<timestamp>), check a resume is consistent, and train."""
    if game_name not in games.GAME_NAMES:
        raise UserError(f"unknown game {game_name!r}; choose one of: {', '.join(games.GAME_NAMES)}")
    if episodes is not None and episodes < 1:
        raise UserError("--episodes must be >= 1")
    if minutes is not None and not minutes > 0:
        raise UserError("--minutes must be > 0")
    if resume is not None:
        if config_file is not None:
            raise UserError("--config cannot change a run being resumed (its config.json is used)")
        if out is not None and Path(out).resolve() != Path(resume).resolve():
            raise UserError("--out and --resume name different folders; a resumed run writes to its own folder")
        config_path = Path(resume) / "config.json"
        try:
            saved = json.loads(config_path.read_text())
        except FileNotFoundError:
            raise UserError(f"cannot resume: {config_path} not found (not a training run folder?)") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot resume: {config_path} is not valid JSON ({exc})") from None
        saved_game = saved.pop("game", None)
        if saved_game != game_name:
            raise UserError(f"{resume} is a {saved_game} run, not {game_name}")
        config = make_config(saved)
        if seed is not None and seed != config.seed:
            raise UserError(f"{resume} was trained with seed {config.seed}; --seed {seed} would not resume it")
        out_dir = Path(resume)
    else:
        config = load_config(game_name, config_file, seed=seed)
        out_dir = Path(out) if out is not None else Path("runs") / f"{game_name}-{time.strftime('%Y%m%d-%H%M%S')}"
    return train(game_name, config, out_dir, episodes=episodes, minutes=minutes, resume=resume is not None, progress=progress)
