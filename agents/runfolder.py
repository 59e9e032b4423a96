"""The training loop and run folder shared by the policy learners (agents.nfsp, agents.ppo).

The same contract as `deckopt train`'s DQN (agents/dqn/runlog.py's RunLog and folder checks,
agents/training.py's loop plumbing and checkpoint reader): config.json (with "algo"), metrics.csv and
TensorBoard scalars, checkpoints/checkpoint.npz written at once and every `checkpoint_minutes`
(exact resume: weights, optimizer state, buffers, generator state, counters), model.keras +
model.npz (the agent that is shipped and evaluated), learning_curves.png. A non-finite loss stops
the run before anything of it is saved. The library never prints: `progress`, `log` and
`should_stop` are the caller's.

A learner is a class with `ALGO`, `COLUMNS` (its own metric columns), `__init__(game_name, config)`,
`game`, `config`, `episodes`, `updates`, `last_loss`, `step() -> dict` (one batch of self-play and
training: metric values, "loss", "trained", "decisions", "selfplay_seconds"), `state()` and
`arrays()` (what a checkpoint holds besides the generator), `restore(state, arrays)`, `agent()` (the
agent evaluated and shipped) and `models()` ([(stem, keras model, numpy network, metadata)]). A
learner whose batches are long may read `should_stop` (set by the loop) during `step()` and raise
`BatchAbandoned`, its state untouched: the run then stops as after the last batch.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.dqn.runlog import CHECKPOINT, RunLog, check_new_run_dir, check_resumable
from agents.training import (
    BatchAbandoned,
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

BASE_COLUMNS = ["episodes", "updates", "seconds", "loss", "decisions_per_game", "selfplay_games_per_s"]


def columns_of(learner_cls, config) -> list[str]:
    cols = BASE_COLUMNS + list(learner_cls.COLUMNS)
    for spec in config.eval_opponents:
        cols += [f"{spec}_win", f"{spec}_draw", f"{spec}_loss"]
    return cols


def checkpoint_bytes(learner, extra_state: dict) -> bytes:
    state = {
        "config": {"game": learner.game.name, **config_to_dict(learner.config)},
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


def restore(learner, state: dict, arrays: dict, where: str) -> None:
    try:
        if state.get("algo") != learner.ALGO:
            raise ValueError(f"a {state.get('algo')} checkpoint")
        learner.rng.bit_generator.state = state["rng"]
        learner.episodes, learner.updates, learner.last_loss = state["episodes"], state["updates"], state["last_loss"]
        learner.restore(state["learner"], arrays)
    except Exception as exc:  # a damaged or foreign checkpoint can fail in many ways
        raise UserError(f"cannot resume from {where}: it does not fit this run ({one_line(exc)})") from None


def evaluate_agent(learner) -> dict:
    """Win/draw/loss rates of the learner's agent against each baseline (its own seeds)."""
    from agents.evaluate import evaluate

    c = learner.config
    report = evaluate(learner.game, learner.agent(), c.eval_opponents, c.eval_games, seed=c.seed)
    row = {}
    for match in report["matches"]:
        res = match["agent"]
        n = max(1, res["wins"] + res["draws"] + res["losses"])
        for key, count in (("win", res["wins"]), ("draw", res["draws"]), ("loss", res["losses"])):
            row[f"{match['vs']}_{key}"] = count / n
    return row


def _open_run(learner_cls, out: Path, game_name: str, config, resume: bool):
    """Check the folder and checkpoint before building anything; build, restore, open the files."""
    if resume:
        check_resumable(out)
        state, arrays = read_checkpoint(out / CHECKPOINT)
        check_checkpoint_config(state, game_name, config, out)
    else:
        check_new_run_dir(out)
        state, arrays = {"rows": None, "last_eval": {}, "seconds": 0.0}, None
    learner = learner_cls(game_name, config)
    from agents.evaluate import make_opponents

    make_opponents(learner.game, config.eval_opponents, seed=config.seed)  # a bad baseline fails now
    if resume:
        restore(learner, state, arrays, str(out / CHECKPOINT))
    run = RunLog(out, game_name, config, columns=columns_of(learner_cls, config), header={"algo": learner_cls.ALGO})
    run.loss_label = learner_cls.LOSS_LABEL
    run.start(state["rows"])
    return learner, run, state


def _row(learner, info: dict, seconds: float) -> dict:
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


def _status_line(learner, last_eval: dict) -> str:
    parts = [
        f"{spec} w{last_eval[spec + '_win']:.2f} l{last_eval[spec + '_loss']:.2f}"
        for spec in learner.config.eval_opponents
        if spec + "_win" in last_eval
    ]
    return f"{learner.episodes} episodes: loss {learner.last_loss:.4f}" + (" | " + " ".join(parts) if parts else "")


def _evaluate_into(row: dict, learner, log) -> dict:
    last_eval = {"episodes": learner.episodes, **evaluate_agent(learner)}
    row.update({k: v for k, v in last_eval.items() if k != "episodes"})
    if log is not None:
        log(_status_line(learner, last_eval))
    return last_eval


def _save_checkpoint(run: RunLog, learner, last_eval: dict, clock: Clock) -> None:
    run.save_checkpoint(checkpoint_bytes(learner, {"rows": run.rows, "last_eval": last_eval, "seconds": clock.total()}))


def _finish(run: RunLog, learner, last_eval: dict, clock: Clock, stopped_by: str, log) -> dict:
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
) -> dict:
    """Train (or, with `resume`, continue) the run in `out` until `episodes` in all (default
    config.episodes), `minutes` of wall clock in this call, or `should_stop()`. A summary."""
    out = Path(out)
    learner, run, state = _open_run(learner_cls, out, game_name, config, resume)
    target = episodes if episodes is not None else (None if minutes is not None else config.episodes)
    last_eval, clock = state["last_eval"], Clock(state["seconds"])
    every = config.eval_every
    next_eval = (learner.episodes // every + 1) * every if every else None
    try:
        if not resume:  # at once: a run killed before its first periodic checkpoint still resumes
            _save_checkpoint(run, learner, last_eval, clock)
        last_checkpoint = time.perf_counter()
        learner.should_stop = should_stop
        while True:
            stopped_by = stop_reason(learner.episodes, target, clock.session(), minutes, should_stop)
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
            report_progress(progress, learner.episodes, target, clock.session(), minutes, game_name)
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
