"""The training run: a Trainer holding the run's state, and `train`, one flat loop over batches:

    self-play (lock-step games, epsilon-greedy numpy network) -> replay (Monte-Carlo targets)
    -> update (a compiled phase of Adam steps) -> evaluate / log -> checkpoint

Everything random flows from the run's seed (one numpy Generator for self-play and sampling;
seeded Keras initialisers; TensorFlow op determinism, one thread), so the same seed and config give
the same run, and a checkpoint (weights, optimizer state, replay, generator state, counters, the
resolved config) resumes it exactly. The library never prints: it reports through `progress` and
`log`, and stops after the current batch when `should_stop()` says so (the caller's signals).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import agents
import games
from agents.dqn import model as qmodel
from agents.dqn.config import DQNConfig, epsilon_at, learning_rate_at
from agents.dqn.runlog import CHECKPOINT, RunLog, check_new_run_dir, check_resumable
from agents.dqn.selfplay import (
    MIRRORS,
    ReplayBuffer,
    SelfPlayRecorder,
    SelfPlayShard,
    play_shard,
    self_play,
    shard_sizes,
)
from agents.learned import LearnedAgent, model_metadata
from agents.training import (
    Clock,
    check_checkpoint_config,
    one_line,
    read_checkpoint,
    refuse_divergence,
    report_progress,
    stop_reason,
)
from games import UserError
from games.config import config_to_dict


def initial_weights(config: DQNConfig, game) -> list[np.ndarray]:
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


class Trainer:
    """The state of one run: network, optimizer, replay, generator, counters. `step()` runs one
    self-play phase and one training phase; `checkpoint_bytes()`/`restore()` save and load all of it."""

    def __init__(self, game_name: str, config: DQNConfig, mapper: Callable | None = None):
        self.config = config
        # mapper(func, [(args), ...]) -> [func(*args), ...] in order: where the self-play shards are played
        self.mapper = mapper or (lambda func, items: [func(*x) for x in items])
        self.game = games.make(game_name, **config.game_config)
        qmodel.init_tensorflow(config.seed, config.tf_threads)
        self.rng = np.random.default_rng(config.seed)
        self.model = qmodel.build_q_network(self.game, config)
        if config.init_model:
            self.model.set_weights(initial_weights(config, self.game))
        self.optimizer = qmodel.build_optimizer(self.model, config.learning_rate)
        self.train_phase = qmodel.make_train_phase(self.model, self.optimizer)
        self.replay = ReplayBuffer(config.replay_size, self.game.observation_size)
        self.network = qmodel.numpy_network(self.model, config)
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
        """One self-play phase then (once the replay is full enough) one training phase."""
        c = self.config
        t0 = time.perf_counter()
        epsilon = self.epsilon
        obs, actions, targets = self.self_play_phase(epsilon)
        self.replay.add(obs, actions, targets)
        if c.mirror_augment:
            self.replay.add(*MIRRORS[self.game.name](obs, actions), targets)
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        trained = self.replay.size >= max(c.min_replay, 1) and c.updates_per_batch > 0
        if trained:
            qmodel.set_learning_rate(self.optimizer, learning_rate_at(c, self.episodes))
            self.last_loss = self.train(c.updates_per_batch)
            self.network = qmodel.numpy_network(self.model, c)
            self.recorder.network = self.network
        t2 = time.perf_counter()
        return {
            "epsilon": epsilon,
            "loss": self.last_loss,
            "trained": trained,
            "decisions": len(obs),
            "selfplay_seconds": t1 - t0,
            "train_seconds": t2 - t1,
            "decisions_per_game": len(obs) / c.games_per_batch,
        }

    def self_play_phase(self, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The phase's games: one lock-step batch here, or `selfplay_shards` shards through the mapper."""
        c = self.config
        if c.selfplay_shards == 1:
            # baseline opponents are made afresh from the run's generator: nothing extra to checkpoint
            opponents = [
                (agents.make(spec, self.game, seed=np.random.default_rng(self.rng.integers(2**63))), fraction)
                for spec, fraction in sorted(c.opponent_mix.items())
            ]
            obs, actions, targets, _ = self_play(
                self.game,
                self.recorder,
                c.games_per_batch,
                epsilon,
                c.gamma,
                self.rng,
                c.random_opening_moves,
                opponents,
            )
            return obs, actions, targets
        seeds = self.rng.integers(2**63, size=c.selfplay_shards)
        shards = [
            SelfPlayShard(
                self.game.name,
                dict(c.game_config),
                self.network.weights,
                self.network.activations,
                size,
                epsilon,
                c.gamma,
                int(seed),
                c.random_opening_moves,
                tuple(sorted(c.opponent_mix.items())),
                os.getpid(),
            )
            for size, seed in zip(shard_sizes(c.games_per_batch, c.selfplay_shards), seeds)
        ]
        played = self.mapper(play_shard, [(shard,) for shard in shards])
        obs = np.concatenate([p[0] for p in played], dtype=np.float32)
        return obs, np.concatenate([p[1] for p in played]), np.concatenate([p[2] for p in played])

    def train(self, num_updates: int) -> float:
        """`num_updates` Adam steps on replay samples; the mean loss."""
        obs, actions, targets = self.replay.sample(self.rng, (num_updates, self.config.batch_size))
        loss = self.train_phase(obs, actions, targets)
        self.updates += num_updates
        return float(loss)

    def greedy_agent(self) -> LearnedAgent:
        return LearnedAgent(self.game, self.network)

    def model_metadata(self) -> dict:
        return model_metadata(
            self.game,
            self.network,
            episodes=self.episodes,
            seed=self.config.seed,
            dqn_config=dataclasses.asdict(self.config),
        )

    # checkpoints: one .npz with weights, optimizer variables, replay and a JSON state -------------
    def checkpoint_bytes(self, extra_state: dict) -> bytes:
        state = {
            "config": {"game": self.game.name, **config_to_dict(self.config)},  # to detect an edited config.json
            "episodes": self.episodes,
            "updates": self.updates,
            "last_loss": self.last_loss,
            "rng": self.rng.bit_generator.state,
            "replay_pos": self.replay.pos,
            "replay_size": self.replay.size,
            **extra_state,
        }
        arrays = {f"weight_{i}": w for i, w in enumerate(qmodel.model_weights(self.model))}
        arrays.update({f"optimizer_{i}": v for i, v in enumerate(qmodel.optimizer_values(self.optimizer))})
        arrays.update(self.replay.arrays())
        buffer = io.BytesIO()
        np.savez(buffer, state=np.array(json.dumps(state)), **arrays)
        return buffer.getvalue()

    def restore(self, state: dict, arrays: dict, where: str = "the checkpoint") -> dict:
        """Continue from a checkpoint read by `read_checkpoint`; returns its state."""
        try:
            self.model.set_weights([arrays[f"weight_{i}"] for i in range(len(self.model.weights))])
            qmodel.set_optimizer_values(
                self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))]
            )
            self.replay.restore(arrays, state["replay_size"], state["replay_pos"])
            self.rng.bit_generator.state = state["rng"]
            self.episodes, self.updates, self.last_loss = state["episodes"], state["updates"], state["last_loss"]
        except Exception as exc:  # a damaged or foreign checkpoint can fail in many ways
            raise UserError(f"cannot resume from {where}: it does not fit this run ({one_line(exc)})") from None
        self.network = qmodel.numpy_network(self.model, self.config)
        self.recorder.network = self.network
        return state


def evaluate_greedy(trainer: Trainer) -> dict:
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


def _metrics_row(trainer: Trainer, info: dict, seconds: float) -> dict:
    c = trainer.config
    return {
        "episodes": trainer.episodes,
        "updates": trainer.updates,
        "seconds": round(seconds, 2),
        "epsilon": info["epsilon"],
        "loss": info["loss"],
        "replay_size": trainer.replay.size,
        "decisions_per_game": info["decisions_per_game"],
        "selfplay_games_per_s": c.games_per_batch / max(info["selfplay_seconds"], 1e-9),
        "train_samples_per_s": (
            c.updates_per_batch * c.batch_size / info["train_seconds"] if info["train_seconds"] > 1e-4 else ""
        ),
    }


def _status_line(trainer: Trainer, last_eval: dict) -> str:
    """'N episodes: eps E loss L | random w0.88 l0.07 ...' for the log."""
    parts = [
        f"{spec} w{last_eval[spec + '_win']:.2f} l{last_eval[spec + '_loss']:.2f}"
        for spec in trainer.config.eval_opponents
        if spec + "_win" in last_eval
    ]
    if "exploitability" in last_eval:
        parts.append("unexploitable" if last_eval["exploitability"] <= 0 else "exploitable")
    return f"{trainer.episodes} episodes: eps {trainer.epsilon:.3f} loss {trainer.last_loss:.4f}" + (
        " | " + " ".join(parts) if parts else ""
    )


def _open_run(
    out: Path, game_name: str, config: DQNConfig, resume: bool, mapper: Callable | None = None
) -> tuple[Trainer, RunLog, dict]:
    """Check the folder (and the checkpoint) before building anything; then build the trainer,
    restore it on resume, and open the run's files. Nothing is written until all checks pass."""
    if resume:
        check_resumable(out)
        state, arrays = read_checkpoint(out / CHECKPOINT)
        check_checkpoint_config(state, game_name, config, out)
    else:
        check_new_run_dir(out)
        state, arrays = {"rows": None, "last_eval": {}, "seconds": 0.0}, None
    trainer = Trainer(game_name, config, mapper)
    from agents.evaluate import make_opponents

    make_opponents(trainer.game, config.eval_opponents, seed=config.seed)  # a bad baseline fails now
    if resume:
        trainer.restore(state, arrays, where=str(out / CHECKPOINT))
    run = RunLog(out, game_name, config)
    run.start(state["rows"])
    return trainer, run, state


def train(
    game_name: str,
    config: DQNConfig,
    out: str | Path,
    episodes: int | None = None,
    minutes: float | None = None,
    resume: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    mapper: Callable | None = None,
) -> dict:
    """Train (or, with `resume`, continue) the run in folder `out` until `episodes` episodes in
    all (default config.episodes), `minutes` of wall clock in this call, or `should_stop()`.
    `mapper(func, items)`: where self-play shards are played (`selfplay_shards` > 1), e.g. worker
    processes; the results do not depend on it.
    Returns a summary (episodes, seconds, why it stopped, last evaluation)."""
    out = Path(out)
    trainer, run, state = _open_run(out, game_name, config, resume, mapper)
    target = episodes if episodes is not None else (None if minutes is not None else config.episodes)
    last_eval, clock = state["last_eval"], Clock(state["seconds"])
    every = config.eval_every
    next_eval = (trainer.episodes // every + 1) * every if every else None
    try:
        if not resume:  # at once: a run killed before its first periodic checkpoint still resumes
            _save_checkpoint(run, trainer, last_eval, clock)
        last_checkpoint = time.perf_counter()
        while True:
            stopped_by = stop_reason(trainer.episodes, target, clock.session(), minutes, should_stop)
            if stopped_by:
                break
            info = trainer.step()  # self-play -> replay -> update
            refuse_divergence(info, trainer.episodes, out)
            row = _metrics_row(trainer, info, clock.total())
            evaluated = next_eval is not None and trainer.episodes >= next_eval
            if evaluated:  # evaluate / log
                last_eval = _evaluate_into(row, trainer, log)
                next_eval += every
            run.add(row, write_csv=evaluated)
            report_progress(progress, trainer.episodes, target, clock.session(), minutes, game_name)
            if time.perf_counter() - last_checkpoint >= config.checkpoint_minutes * 60:  # checkpoint
                _save_checkpoint(run, trainer, last_eval, clock)
                last_checkpoint = time.perf_counter()
        # the end (or a stop request): evaluate the final weights if not just done, save everything
        if run.rows and last_eval.get("episodes") != trainer.episodes and stopped_by != "interrupt":
            last_eval = _evaluate_into(run.rows[-1], trainer, log)
            run.rewrite_last()
        _save_checkpoint(run, trainer, last_eval, clock)
        run.save_model(trainer.model, trainer.network, trainer.model_metadata())
        run.plot(f"{game_name}: MC-return DQN self-play (seed {config.seed})")
    finally:
        run.close()
    return {
        "game": game_name,
        "out": str(out),
        "episodes": trainer.episodes,
        "updates": trainer.updates,
        "seconds": clock.total(),
        "stopped_by": stopped_by,
        "last_eval": last_eval,
    }


def _evaluate_into(row: dict, trainer: Trainer, log: Callable[[str], None] | None) -> dict:
    """Evaluate the greedy agent, add its rates to `row`, log a status line; returns the evaluation."""
    last_eval = {"episodes": trainer.episodes, **evaluate_greedy(trainer)}
    row.update({k: v for k, v in last_eval.items() if k != "episodes"})
    _report(log, _status_line(trainer, last_eval))
    return last_eval


def _save_checkpoint(run: RunLog, trainer: Trainer, last_eval: dict, clock: Clock) -> None:
    run.save_checkpoint(trainer.checkpoint_bytes({"rows": run.rows, "last_eval": last_eval, "seconds": clock.total()}))


def _report(log: Callable[[str], None] | None, line: str) -> None:
    if log is not None:
        log(line)
