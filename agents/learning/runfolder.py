"""The run folder of a training run, and everything written into it (every learner's).

    runs/<game>-<time>/
        config.json            the resolved config (+ "game" and "algo"; no "algo": a DQN run)
        metrics.csv            one row per self-play batch; evaluation columns where evaluated
        tensorboard/           the same numbers as TensorBoard scalars
        checkpoints/checkpoint.npz   what resumes the run exactly (agents/learning/loop.py)
        model.keras, model.npz the network that is shipped (Keras; numpy weights + metadata)
        learning_curves.png    the loss (and epsilon) and the evaluations

Every file is written atomically (temp file + rename). Folders are checked before any training:
a new run refuses a folder that holds anything but an unstarted run; a resumed run needs its
config.json and checkpoint. A file-system error ends in one line (UserError), not a traceback.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import time
from pathlib import Path

import numpy as np

from agents.learned import NumpyNetwork, npz_bytes
from agents.learning.keras_helpers import ScalarWriter, save_keras_atomic
from games import UserError
from games.config import config_from_dict, config_to_dict, read_settings
from games.errors import one_line, with_article
from games.fileio import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    check_writable_dir,
)
from games.folder_lock import folder_entries
from games.npz import CHECKPOINT_LIMITS, read_npz_arrays
from games.schema import ANYTHING, Int, List, Map, Num, Record, Str, check, json_member

CHECKPOINT = Path("checkpoints") / "checkpoint.npz"
# what a run folder holds before its first checkpoint: such a folder may be started afresh
_UNSTARTED_RUN = {"config.json", "checkpoints", "tensorboard", "metrics.csv"}


def default_run_dir(game_name: str) -> Path:
    return Path("runs") / f"{game_name}-{time.strftime('%Y%m%d-%H%M%S')}"


def _check_writable(folder: Path) -> None:
    """UserError unless `folder` exists as a writable folder or can be made (nothing is left behind)."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise UserError(f"run folder {folder}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UserError(f"run folder {folder}: {probe} is not writable")
    check_writable_dir(folder, "run folder")  # and has room: a full disk takes an empty file but no checkpoint


def check_new_run_dir(out: Path) -> None:
    """UserError unless `out` can take a new run: absent, empty, or a run stopped before its first
    checkpoint (nothing in it can be resumed). Anything else is refused, never overwritten."""
    out = Path(out)
    if out.is_dir():
        names = set(folder_entries(out))
        if (out / CHECKPOINT).is_file():
            raise UserError(f"{out} already holds a run; resume it or choose another folder")
        if names and not ("config.json" in names and names <= _UNSTARTED_RUN):
            raise UserError(f"{out} is not empty and holds no training run; choose a new or empty folder")
    _check_writable(out)


def check_resumable(out: Path) -> None:
    out = Path(out)
    if not out.is_dir():
        raise UserError(f"cannot resume: {out} is not a folder" if out.exists() else f"cannot resume: {out} not found")
    if (out / "checkpoints" / "checkpoint.json").is_file() or (out / "generations").is_dir():
        raise UserError(f"cannot resume: {out} is an evolution run folder (deckopt evolve), not a training run")
    if not (out / "config.json").is_file():
        raise UserError(f"cannot resume: {out / 'config.json'} not found (not a training run folder?)")
    if not (out / CHECKPOINT).is_file():
        raise UserError(f"cannot resume: {out / CHECKPOINT} not found")
    _check_writable(out)


#: what config.json of a training run holds beside its learner's settings
TRAINING_CONFIG_HEADER = Record({"game": Str(200)}, optional={"algo": Str(40)})  # algo: a learner of agents/learners.py


def read_run_config(out: Path, game_name: str, cls, algo: str):
    """The config (a `cls`) of the run in `out` (its config.json, validated like any settings file).
    config.json names its learner in "algo" (absent: a DQN run)."""
    check_resumable(out)
    return read_training_config(Path(out) / "config.json", game_name, cls, algo)


def read_training_config(path: Path, game_name: str, cls, algo: str):
    """The config (a `cls`) in the config.json at `path` of a `game_name` run of learner `algo`;
    UserError in one line if it is damaged or of another game or learner."""
    saved = read_settings(path, "run config", inside=path.parent)
    check(TRAINING_CONFIG_HEADER, saved, f"run config {str(path)!r}")
    out = path.parent
    saved_game = saved.pop("game")
    if saved_game != game_name:
        raise UserError(f"{out} is {with_article(str(saved_game))} run, not {game_name}")
    saved_algo = saved.pop("algo", "dqn")
    if saved_algo != algo:
        raise UserError(f"{out} is {with_article(saved_algo)} run, not {algo}; resume it with --algo {saved_algo}")
    return config_from_dict(cls, saved, where=str(path))


def csv_text(columns: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return out.getvalue()


@contextlib.contextmanager
def _writing(path: Path):
    """A file-system error while writing `path` as one line."""
    try:
        yield
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


class RunLog:
    """The files of one run: config, metrics rows (CSV + TensorBoard), checkpoint, model, plot."""

    def __init__(self, out: Path, game_name: str, config, columns: list[str], header=None):
        """`columns` of metrics.csv; `header`: extra keys of config.json written before the
        config's (e.g. {"algo": "ppo"})."""
        self.out = Path(out)
        self.game_name = game_name
        self.config = config
        self.columns = list(columns)
        self.header = dict(header or {})
        self.loss_label = "loss (MSE)"  # of the plot's upper panel
        self.rows: list[dict] = []
        self.checkpoint_path = self.out / CHECKPOINT
        self._scalars = None

    def start(self, rows: list[dict] | None = None) -> None:
        """Open the run: a new one writes config.json; a resumed one continues its `rows`."""
        if rows is None:
            with _writing(self.out / "config.json"):
                atomic_write_json(
                    self.out / "config.json", {"game": self.game_name, **self.header, **config_to_dict(self.config)}
                )
        else:
            self.rows = list(rows)
        with _writing(self.out / "tensorboard"):
            self._scalars = ScalarWriter(self.out / "tensorboard")

    def add(self, row: dict, write_csv: bool = False) -> None:
        """A batch's row: into the rows and TensorBoard (and metrics.csv at once if `write_csv`)."""
        self.rows.append(row)
        self._scalars.write(row, row["episodes"])
        if write_csv:
            self.write_metrics()

    def rewrite_last(self) -> None:
        """The last row again, after it gained evaluation columns."""
        self._scalars.write(self.rows[-1], self.rows[-1]["episodes"])
        self.write_metrics()

    def write_metrics(self) -> None:
        with _writing(self.out / "metrics.csv"):
            atomic_write_text(self.out / "metrics.csv", csv_text(self.columns, self.rows))

    def save_checkpoint(self, data: bytes) -> None:
        with _writing(self.checkpoint_path):
            atomic_write_bytes(self.checkpoint_path, data)
        self.write_metrics()
        self._scalars.flush()

    def save_model(self, keras_model, network: NumpyNetwork, metadata: dict, stem: str = "model") -> None:
        """`<stem>.keras` and `<stem>.npz` (numpy weights + metadata)."""
        with _writing(self.out / f"{stem}.keras"):
            save_keras_atomic(keras_model, self.out / f"{stem}.keras")
            atomic_write_bytes(self.out / f"{stem}.npz", npz_bytes(network, metadata))

    def plot(self, title: str) -> None:
        if self.rows:
            with _writing(self.out / "learning_curves.png"):
                plot_learning_curves(self.out / "learning_curves.png", self.rows, self.columns, title, self.loss_label)

    def close(self) -> None:
        if self._scalars is not None:
            self._scalars.close()
            self._scalars = None


def plot_learning_curves(
    path: Path, rows: list[dict], columns: list[str], title: str, loss_label: str = "loss (MSE)"
) -> None:
    """Loss and epsilon per batch above, the evaluations' win (and loss) rates below."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 7))
    FigureCanvasAgg(fig)
    ax_loss, ax_eval = fig.subplots(2, 1, sharex=True)
    episodes = np.array([r["episodes"] for r in rows], dtype=float)
    ax_loss.plot(episodes, np.array([r.get("loss", np.nan) for r in rows], dtype=float), lw=0.8, label=loss_label)
    if "epsilon" in columns:
        ax_loss.plot(episodes, [r.get("epsilon", np.nan) for r in rows], lw=0.8, label="epsilon")
    ax_loss.set_ylabel("loss / epsilon" if "epsilon" in columns else "loss")
    ax_loss.legend()
    _plot_evaluations(ax_eval, rows, columns)
    fig.suptitle(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    atomic_write_bytes(path, buffer.getvalue())


def _plot_evaluations(ax, rows: list[dict], columns: list[str]) -> None:
    for i, col in enumerate(c for c in columns if c.endswith("_win") or c == "exploitability"):
        spec = col[: -len("_win")] if col.endswith("_win") else None
        lines = [(col, "-", f"{spec} win rate" if spec else "exploitable (1) or not (0)")]
        if spec:
            lines.append((f"{spec}_loss", "--", f"{spec} loss rate"))
        for key, style, label in lines:
            points = [(r["episodes"], r[key]) for r in rows if r.get(key, "") != ""]
            if points:
                x, y = zip(*points)
                ax.plot(x, y, style, color=f"C{i}", marker="o", ms=3, label=label)
    ax.set_xlabel("episodes")
    ax.set_ylabel("greedy agent vs baselines")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)


#: the training state a checkpoint keeps as JSON (its "state" array): the keys every learner's resume
#: reads; a learner's own (replay positions, generators) are checked as it restores them
CHECKPOINT_STATE = Record(
    {"rows": List(Map(ANYTHING, most=1000)), "last_eval": Map(ANYTHING, most=1000), "seconds": Num(0, 1e12)},
    optional={
        "episodes": Int(0),  # the counts a resume continues from
        "updates": Int(0),
        "algo": Str(most=40),
        "config": Map(ANYTHING, most=1000),
        "learner": Map(ANYTHING),
        "last_loss": Num(null=True, nan=True),
        "rng": Map(ANYTHING, most=100),
    },
)


def read_checkpoint(path: Path) -> tuple[dict, dict]:
    """(state, arrays) of a checkpoint file; UserError in one line if it cannot be read."""
    try:
        arrays = read_npz_arrays(path, CHECKPOINT_LIMITS)
        state = json_member(arrays, "state", CHECKPOINT_STATE)
        del arrays["state"]
    except Exception as exc:  # truncated, corrupt, or not a checkpoint at all
        raise UserError(f"cannot resume from {path}: the checkpoint is damaged ({one_line(exc)})") from None
    return state, arrays


def trained_episodes(out: Path) -> int:
    """The episodes the training run in folder `out` has trained (0 before its first checkpoint)."""
    path = Path(out) / CHECKPOINT
    if not path.is_file():
        return 0
    state, _ = read_checkpoint(path)
    return state.get("episodes", 0)


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
