"""What every learner's training shares (dqn, nfsp, ppo, alphazero): loading and checking its
config dataclass, the linear schedules, and the plumbing of the training loop (the session clock,
why a session stops, progress, the divergence check, reading a checkpoint and checking it against
the run's config). No TensorFlow here; each learner keeps only what is its own.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.learned import ACTIVATIONS
from games import GAME_NAMES, UserError
from games.config import check_maximums, config_from_dict, config_to_dict, need, read_settings, setting
from games.fileio import check_npz_sizes

MAX_SEED = 2**32 - 1  # numpy's seeds
# bounds of the learners' sizes (`setting(maximum=...)`): far beyond any useful run, well below what
# exhausts a machine's memory or runs for days; stated in each flag's help
MAX_TF_THREADS = 256
MAX_UNITS = 4096  # units of a hidden layer, channels of a convolution (at most games.config.MAX_ITEMS layers)
MAX_GAMES_PER_BATCH = 65_536  # games in lock-step, samples of an Adam step, self-play shards
MAX_REPLAY = 2_000_000  # decisions a replay buffer or reservoir holds (preallocated)
MAX_STEPS = 10_000  # Adam steps or epochs after each batch
MAX_SIMULATIONS = 100_000  # PUCT simulations per move: a self-play batch must end for Ctrl-C to save
MAX_EVAL_GAMES = 1_000_000


# --- configs -----------------------------------------------------------------------------------
@dataclass
class LearnerConfig:
    """The settings every learner's config dataclass has (it subclasses this one and adds its own)."""

    seed: int = setting(0, "seed of the whole run: initial weights, self-play, sampling", metavar="S")
    game_config: dict = setting(
        factory=dict, help="keyword arguments of games.make (a [game_config] table)", flag=False
    )
    eval_games: int = setting(200, "evaluation games per baseline, seats rotated", metavar="N", maximum=MAX_EVAL_GAMES)
    eval_opponents: list[str] = setting(
        factory=lambda: ["random", "heuristic"], help="baselines of the evaluation (agent specs)", metavar="SPEC,..."
    )
    checkpoint_minutes: float = setting(5.0, "minutes between checkpoints", metavar="M")
    tf_threads: int = setting(
        1, "intra-op threads of TensorFlow (the machine is shared)", metavar="N", maximum=MAX_TF_THREADS
    )


def load_learner_config(cls, game_defaults: dict, game_name: str, path=None, overrides: dict | None = None, where=""):
    """A learner's config: per-game defaults < the settings file at `path` (TOML, or JSON by suffix;
    a [game_config] table holds game options) < the non-None `overrides`."""
    need(game_name in GAME_NAMES, f"unknown game {game_name!r}; choose one of: {', '.join(GAME_NAMES)}")
    values = dict(game_defaults.get(game_name, {}))
    if path is not None:
        values.update(read_settings(path, "config file"))
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return config_from_dict(cls, values, where=where)


# Per-game defaults of the policy learners (NFSP and PPO alike; each module keeps its own copy to change).
POLICY_GAME_DEFAULTS: dict[str, dict] = {
    "tic_tac_toe": {"episodes": 50_000, "eval_opponents": ["random", "heuristic", "minimax"]},
    "incan_gold": {"game_config": {"num_players": 3}, "episodes": 200_000, "eval_every": 20_000},
    "durak": {
        "game_config": {"num_players": 2},
        "hidden_layers": [256, 256],
        "episodes": 200_000,
        "eval_every": 20_000,
        "eval_opponents": ["random", "heuristic"],
    },
}


def check_learner_config(config, at_least_one: Iterable[str] = (), at_least_zero: Iterable[str] = ()) -> None:
    """The checks every learner's config shares (seed, layers, activation, checkpoints and, where the
    config has them, gamma and the opponent mix), then `name >= 1` / `name >= 0` for the names given."""
    need(0 <= config.seed <= MAX_SEED, f"seed must be in 0..{MAX_SEED}, got {config.seed}")
    need(
        bool(config.hidden_layers) and all(u > 0 for u in config.hidden_layers),
        f"hidden_layers must be a list of positive whole numbers, got {config.hidden_layers}",
    )
    for name in ("episodes", "games_per_batch", "eval_games", "tf_threads", *at_least_one):
        need(getattr(config, name) >= 1, f"{name} must be >= 1, got {getattr(config, name)}")
    check_maximums(config)
    for name in ("eval_every", *at_least_zero):
        need(getattr(config, name) >= 0, f"{name} must be >= 0, got {getattr(config, name)}")
    need(config.checkpoint_minutes >= 0, f"checkpoint_minutes must be >= 0, got {config.checkpoint_minutes}")
    need(config.activation in ACTIVATIONS, f"activation must be one of {', '.join(ACTIVATIONS)}")
    if hasattr(config, "gamma"):
        need(0.0 < config.gamma <= 1.0, f"gamma must be in (0, 1], got {config.gamma}")
    mix = getattr(config, "opponent_mix", None)
    if mix is not None:
        need(
            all(v >= 0 for v in mix.values()) and sum(mix.values()) <= 1,
            f"opponent_mix must map agent specs to fractions >= 0 summing to <= 1, got {mix}",
        )


def linear_schedule(start: float, end: float, decay_episodes: int, episodes: int) -> float:
    """`start` moving linearly to `end` over `decay_episodes` (0: `end` at once), then `end`."""
    frac = 1.0 if decay_episodes == 0 else min(1.0, episodes / decay_episodes)
    return start + frac * (end - start)


# --- the training loop's plumbing --------------------------------------------------------------
class BatchAbandoned(Exception):
    """A learner's `step()` stopped by its `should_stop` before the batch was done (a batch that can
    run for minutes: AlphaZero's searches); the learner's state, generator included, is as before it."""


def one_line(exc: BaseException, limit: int = 200) -> str:
    """An exception as one short line (Keras messages span several)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Clock:
    """Seconds of this session, and of the run in all (those of earlier sessions included)."""

    def __init__(self, before: float):
        self.before, self.start = before, time.perf_counter()

    def session(self) -> float:
        return time.perf_counter() - self.start

    def total(self) -> float:
        return self.before + self.session()


def stop_reason(
    done: int, target: int | None, session_seconds: float, minutes: float | None, should_stop: Callable[[], bool] | None
) -> str | None:
    """Why the session stops now ("episodes", "minutes", "interrupt"), or None to go on."""
    if target is not None and done >= target:
        return "episodes"
    if minutes is not None and session_seconds >= minutes * 60:
        return "minutes"
    if should_stop is not None and should_stop():
        return "interrupt"
    return None


def report_progress(
    progress, episodes: int, target: int | None, session_seconds: float, minutes: float | None, game_name: str
) -> None:
    """Episodes of the target, or (with a time budget) seconds of the minutes."""
    if progress is None:
        return
    if target is not None:
        progress(episodes, target, f"train {game_name}")
    else:
        progress(min(int(session_seconds), int(minutes * 60)), int(minutes * 60), f"train {game_name}")


def refuse_divergence(info: dict, episodes: int, out: Path) -> None:
    """A non-finite loss poisons every weight: stop before anything of it is saved."""
    if info["trained"] and not math.isfinite(info["loss"]):
        raise UserError(
            f"training diverged: the loss became {info['loss']} at {episodes} episodes "
            f"(try a smaller learning rate); the last checkpoint in {out} is kept"
        )


def read_checkpoint(path: Path) -> tuple[dict, dict]:
    """(state, arrays) of a checkpoint file; UserError in one line if it cannot be read."""
    try:
        check_npz_sizes(path)
        with np.load(path, allow_pickle=False) as data:
            state = json.loads(str(data["state"][()]))
            arrays = {name: data[name] for name in data.files if name != "state"}
        if not isinstance(state, dict) or not {"rows", "last_eval", "seconds"} <= set(state):
            raise ValueError("no training state in it")
        for key in ("episodes", "updates"):  # counts a resume continues from
            value = state.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{key} {value!r}")
        if not (isinstance(state["seconds"], (int, float)) and 0 <= state["seconds"] < math.inf):
            raise ValueError(f"seconds {state['seconds']!r}")
    except Exception as exc:  # truncated, corrupt, or not a checkpoint at all
        raise UserError(f"cannot resume from {path}: the checkpoint is damaged ({one_line(exc)})") from None
    return state, arrays


def check_checkpoint_config(state: dict, game_name: str, config, run: Path) -> None:
    """UserError naming the settings in which the run's config.json differs from its checkpoint."""
    saved = state.get("config")
    if saved is None:  # a checkpoint from before they carried their config: restore checks the shapes
        return
    now = {"game": game_name, **config_to_dict(config)}
    # a setting added since the checkpoint was written: the run had its default
    defaults = config_to_dict(type(config)())
    differ = sorted(k for k in set(saved) | set(now) if saved.get(k, defaults.get(k)) != now.get(k))
    if differ:
        details = "; ".join(f"{k} {saved.get(k)!r} in the checkpoint, {now.get(k)!r} now" for k in differ[:3])
        raise UserError(
            f"{run / 'config.json'} does not match its checkpoint ({details}); restore it to resume, or start a new run"
        )
