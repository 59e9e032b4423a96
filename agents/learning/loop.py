"""The one training loop of every learner (DQN, NFSP, PPO, AlphaZero) and the `Learner` it drives.

    open the run (check folder and checkpoint, build the learner, restore) -> repeat: one step of
    self-play and updates -> a row of metrics -> evaluate every `eval_every` episodes -> checkpoint
    every `checkpoint_minutes` -> at the end: evaluate, checkpoint, models, plot

The run folder and its files are agents/learning/runfolder.py's. A checkpoint resumes a run
exactly: the learner's `state()` and `arrays()` (weights, optimizer state, buffers), its generator
state and the counters. A non-finite loss stops the run before anything of it is saved. The library
never prints: `progress`, `log` and `should_stop` are the caller's; `mapper(func, items)` is where
every learner plays its self-play shards when its config asks for `selfplay_shards` > 1 (worker
processes with `deckopt train --jobs`; agents/learning/shards.py; the results never depend on it).
"""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from agents.base import Agent
from agents.evaluate import evaluate, exploitability, make_opponents
from agents.learning.runfolder import (
    CHECKPOINT,
    RunLog,
    check_checkpoint_config,
    check_new_run_dir,
    check_resumable,
    read_checkpoint,
)
from agents.stopping import BatchAbandoned  # what a learner's step() raises when stopped inside
from games import Game, UserError
from games.config import config_to_dict
from games.errors import one_line
from games.folder_lock import folder_lock

Mapper = Callable[[Callable, list[tuple]], list]
# the metric columns the loop fills for every learner (after episodes, updates, seconds)
SELFPLAY_COLUMNS = ["loss", "decisions_per_game", "selfplay_games_per_s"]


class Learner(Protocol):
    """What the loop needs of a learner: one module implements it (see tests/test_learning.py)."""

    ALGO: ClassVar[str]  # "dqn", "nfsp", ...: config.json and the checkpoint name it
    TITLE: ClassVar[str]  # of the learning curves
    LOSS_LABEL: ClassVar[str]
    COLUMNS: ClassVar[list[str]]  # metric columns after episodes, updates, seconds (keys of step()'s dict)
    EXPLOITABILITY: ClassVar[bool]  # also evaluate the exact exploitability (Tic Tac Toe only)
    game: Game
    config: Any  # a dataclass with the settings of agents.learning.config.LearnerConfig
    rng: np.random.Generator
    episodes: int
    updates: int
    last_loss: float

    def __init__(self, game_name: str, config, mapper: Mapper | None = None): ...

    def step(self) -> dict:
        """One batch of self-play and training: the COLUMNS' values, "loss", "trained" (whether it
        updated), "decisions" (of the batch) and "selfplay_seconds". A learner whose batches are long may
        read `should_stop` (set by the loop) during it and raise `BatchAbandoned`, its state untouched:
        the run then stops as after the last batch."""

    def status(self) -> str:
        """The learner's part of a log line, e.g. "loss 0.1234"."""

    def state(self) -> dict:
        """What a checkpoint holds besides arrays, generator and counters (JSON)."""

    def arrays(self) -> dict[str, np.ndarray]: ...

    def restore(self, state: dict, arrays: dict) -> None: ...

    def agent(self) -> Agent:
        """The agent that is evaluated and shipped."""

    def models(self) -> list[tuple[str, Any, Any, dict]]:
        """[(stem, Keras model, numpy network, metadata)] to save as <stem>.keras and <stem>.npz."""


def play_in_process(func: Callable, items: list[tuple]) -> list:
    """The mapper that plays everything here, in order."""
    return [func(*item) for item in items]


def columns_of(learner_cls, game: Game, config) -> list[str]:
    cols = ["episodes", "updates", "seconds", *learner_cls.COLUMNS]
    for spec in config.eval_opponents:
        cols += [f"{spec}_win", f"{spec}_draw", f"{spec}_loss"]
    if learner_cls.EXPLOITABILITY and game.facts.exact_exploitability:
        cols.append("exploitability")
    return cols


def checkpoint_bytes(learner: Learner, extra_state: dict) -> bytes:
    state = {
        "config": {"game": learner.game.name, **config_to_dict(learner.config)},  # to detect an edited config.json
        "algo": learner.ALGO,
        "episodes": learner.episodes,
        "updates": learner.updates,
        "last_loss": learner.last_loss,
        "rng": learner.rng.bit_generator.state,
        "learner": learner.state(),
        **extra_state,
    }
    buffer = io.BytesIO()
    np.savez(buffer, state=np.array(json.dumps(state)), **learner.arrays())
    return buffer.getvalue()


def restore(learner: Learner, state: dict, arrays: dict, where: str) -> None:
    """Continue from a checkpoint. One without "algo" is a DQN's, whose learner state sits at its top."""
    try:
        if state.get("algo", "dqn") != learner.ALGO:
            raise ValueError(f"a {state.get('algo', 'dqn')} checkpoint")
        learner.rng.bit_generator.state = state["rng"]
        learner.episodes, learner.updates, learner.last_loss = state["episodes"], state["updates"], state["last_loss"]
        learner.restore(state.get("learner", state), arrays)
    except Exception as exc:  # a damaged or foreign checkpoint can fail in many ways
        raise UserError(f"cannot resume from {where}: it does not fit this run ({one_line(exc)})") from None


def evaluate_agent(learner: Learner) -> dict:
    """Win/draw/loss rates of the learner's agent against each baseline (its own seeds, never the
    training generator), and the exact exploitability where the learner asks for it."""
    c = learner.config
    agent = learner.agent()
    report = evaluate(learner.game, agent, c.eval_opponents, c.eval_games, seed=c.seed)
    row = {}
    for match in report["matches"]:
        res = match["agent"]
        n = max(1, res["wins"] + res["draws"] + res["losses"])
        for key, count in (("win", res["wins"]), ("draw", res["draws"]), ("loss", res["losses"])):
            row[f"{match['vs']}_{key}"] = count / n
    if learner.EXPLOITABILITY and learner.game.facts.exact_exploitability:
        row["exploitability"] = exploitability(learner.game, agent)["exploitability"]
    return row


# --- one call of train_learner: its clock and why it stops -----------------------------------
class TrainingClock:
    """Seconds of this call of `train_learner`, and of the run in all (earlier calls' included: a
    resumed run goes on counting)."""

    def __init__(self, before: float):
        self.before, self.start = before, time.perf_counter()

    def this_call(self) -> float:
        return time.perf_counter() - self.start

    def total(self) -> float:
        return self.before + self.this_call()


def stop_reason(
    done: int, target: int | None, call_seconds: float, minutes: float | None, should_stop: Callable[[], bool] | None
) -> str | None:
    """Why this call stops now ("episodes", "minutes", "interrupt"), or None to go on."""
    if target is not None and done >= target:
        return "episodes"
    if minutes is not None and call_seconds >= minutes * 60:
        return "minutes"
    if should_stop is not None and should_stop():
        return "interrupt"
    return None


def report_progress(
    progress, episodes: int, target: int | None, call_seconds: float, minutes: float | None, game_name: str
) -> None:
    """Episodes of the target, or (with a time budget) seconds of the minutes."""
    if progress is None:
        return
    if target is not None:
        progress(episodes, target, f"train {game_name}")
    else:
        progress(min(int(call_seconds), int(minutes * 60)), int(minutes * 60), f"train {game_name}")


def refuse_divergence(info: dict, episodes: int, out: Path) -> None:
    """A non-finite loss poisons every weight: stop before anything of it is saved."""
    if info["trained"] and not math.isfinite(info["loss"]):
        raise UserError(
            f"training diverged: the loss became {info['loss']} at {episodes} episodes "
            f"(try a smaller learning rate); the last checkpoint in {out} is kept"
        )


# --- the loop ----------------------------------------------------------------------------------
def _open_run(learner_cls, out: Path, game_name: str, config, resume: bool, mapper: Mapper | None):
    """Check the folder and checkpoint before building anything; build, restore, open the files.
    Nothing is written until all checks pass."""
    if resume:
        check_resumable(out)
        state, arrays = read_checkpoint(out / CHECKPOINT)
        check_checkpoint_config(state, game_name, config, out)
    else:
        check_new_run_dir(out)
        state, arrays = {"rows": None, "last_eval": {}, "seconds": 0.0}, None
    learner = learner_cls(game_name, config, mapper)
    make_opponents(learner.game, config.eval_opponents, seed=config.seed)  # a bad baseline fails now
    if resume:
        restore(learner, state, arrays, str(out / CHECKPOINT))
    columns = columns_of(learner_cls, learner.game, config)
    run = RunLog(out, game_name, config, columns=columns, header={"algo": learner_cls.ALGO})
    run.loss_label = learner_cls.LOSS_LABEL
    run.start(state["rows"])
    return learner, run, state


def _row(learner: Learner, info: dict, seconds: float) -> dict:
    games = learner.config.games_per_batch
    row = {
        "episodes": learner.episodes,
        "updates": learner.updates,
        "seconds": round(seconds, 2),
        "decisions_per_game": info["decisions"] / games,
        "selfplay_games_per_s": games / max(info["selfplay_seconds"], 1e-9),
    }
    row.update({k: v for k, v in info.items() if k in learner.COLUMNS or k == "loss"})
    return row


def _status_line(learner: Learner, last_eval: dict) -> str:
    """'N episodes: loss L | random w0.88 l0.07 ...' for the log."""
    parts = [
        f"{spec} w{last_eval[spec + '_win']:.2f} l{last_eval[spec + '_loss']:.2f}"
        for spec in learner.config.eval_opponents
        if spec + "_win" in last_eval
    ]
    if "exploitability" in last_eval:
        parts.append("unexploitable" if last_eval["exploitability"] <= 0 else "exploitable")
    return f"{learner.episodes} episodes: {learner.status()}" + (" | " + " ".join(parts) if parts else "")


def _evaluate_into(row: dict, learner: Learner, log) -> dict:
    """Evaluate the agent, add its rates to `row`, log a status line; returns the evaluation."""
    last_eval = {"episodes": learner.episodes, **evaluate_agent(learner)}
    row.update({k: v for k, v in last_eval.items() if k != "episodes"})
    if log is not None:
        log(_status_line(learner, last_eval))
    return last_eval


def _save_checkpoint(run: RunLog, learner: Learner, last_eval: dict, clock: TrainingClock) -> None:
    run.save_checkpoint(checkpoint_bytes(learner, {"rows": run.rows, "last_eval": last_eval, "seconds": clock.total()}))


def _finish(run: RunLog, learner: Learner, last_eval: dict, clock: TrainingClock, stopped_by: str, log) -> dict:
    """Evaluate the final weights (unless just done or interrupted), save checkpoint, models, plot."""
    if run.rows and last_eval.get("episodes") != learner.episodes and stopped_by != "interrupt":
        last_eval = _evaluate_into(run.rows[-1], learner, log)
        run.rewrite_last()
    _save_checkpoint(run, learner, last_eval, clock)
    for stem, keras_model, network, metadata in learner.models():
        run.save_model(keras_model, network, metadata, stem=stem)
    run.plot(f"{learner.game.name}: {learner.TITLE} (seed {learner.config.seed})")
    return last_eval


def train_learner(
    learner_cls,
    game_name: str,
    config,
    out: str | Path,
    episodes: int | None = None,
    minutes: float | None = None,
    resume: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    mapper: Mapper | None = None,
) -> dict:
    """Train (or, with `resume`, continue) the run in `out` until `episodes` in all (default
    config.episodes), `minutes` of wall clock in this call, or `should_stop()`. A summary. The
    folder's lock is held throughout: a second writer of `out` is refused (games.folder_lock)."""
    (check_resumable if resume else check_new_run_dir)(Path(out))  # refused before the lock makes the folder
    with folder_lock(out, what="run folder", create=not resume):
        return _train_in_locked_folder(
            learner_cls, game_name, config, Path(out), episodes, minutes, resume, progress, log, should_stop, mapper
        )


def _train_in_locked_folder(
    learner_cls, game_name, config, out: Path, episodes, minutes, resume, progress, log, should_stop, mapper
) -> dict:
    learner, run, state = _open_run(learner_cls, out, game_name, config, resume, mapper)
    target = episodes if episodes is not None else (None if minutes is not None else config.episodes)
    last_eval, clock = state["last_eval"], TrainingClock(state["seconds"])
    every = config.eval_every
    next_eval = (learner.episodes // every + 1) * every if every else None
    try:
        if not resume:  # at once: a run killed before its first periodic checkpoint still resumes
            _save_checkpoint(run, learner, last_eval, clock)
        last_checkpoint = time.perf_counter()
        learner.should_stop = should_stop
        while True:
            stopped_by = stop_reason(learner.episodes, target, clock.this_call(), minutes, should_stop)
            if stopped_by:
                break
            try:
                info = learner.step()  # self-play -> buffers -> updates
            except BatchAbandoned:  # stopped inside a long batch: the state is the last batch's
                stopped_by = "interrupt"
                break
            refuse_divergence(info, learner.episodes, out)
            row = _row(learner, info, clock.total())
            evaluated = next_eval is not None and learner.episodes >= next_eval
            if evaluated:
                last_eval = _evaluate_into(row, learner, log)
                next_eval += every
            run.add(row, write_csv=evaluated)
            report_progress(progress, learner.episodes, target, clock.this_call(), minutes, game_name)
            if time.perf_counter() - last_checkpoint >= config.checkpoint_minutes * 60:
                _save_checkpoint(run, learner, last_eval, clock)
                last_checkpoint = time.perf_counter()
        last_eval = _finish(run, learner, last_eval, clock, stopped_by, log)
    finally:
        run.close()
    return {
        "game": game_name,
        "algo": learner_cls.ALGO,
        "out": str(out),
        "episodes": learner.episodes,
        "updates": learner.updates,
        "seconds": clock.total(),
        "stopped_by": stopped_by,
        "last_eval": last_eval,
    }
