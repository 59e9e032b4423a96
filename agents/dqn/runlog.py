"""The run folder of a DQN training run, and everything written into it.

    runs/<game>-<time>/
        config.json            the resolved DQNConfig (+ "game")
        metrics.csv            one row per self-play batch; evaluation columns where evaluated
        tensorboard/           the same numbers as TensorBoard scalars
        checkpoints/checkpoint.npz   what resumes the run exactly (see trainer.py)
        model.keras, model.npz the network (Keras; numpy weights + metadata for acting)
        learning_curves.png    loss, epsilon and the evaluations

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

from agents.dqn.config import DQNConfig
from agents.learned import NumpyQNetwork, npz_bytes
from games import UserError
from games.config import config_from_dict, config_to_dict, read_settings
from games.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text, check_writable_dir

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
        names = set(os.listdir(out))
        if (out / CHECKPOINT).is_file():
            raise UserError(f"{out} already holds a run; resume it or choose another folder")
        if names and not ("config.json" in names and names <= _UNSTARTED_RUN):
            raise UserError(f"{out} is not empty and holds no training run; choose a new or empty folder")
    _check_writable(out)


def check_resumable(out: Path) -> None:
    out = Path(out)
    if not out.is_dir():
        raise UserError(f"cannot resume: {out} is not a folder" if out.exists() else f"cannot resume: {out} not found")
    if not (out / "config.json").is_file():
        raise UserError(f"cannot resume: {out / 'config.json'} not found (not a training run folder?)")
    if not (out / CHECKPOINT).is_file():
        raise UserError(f"cannot resume: {out / CHECKPOINT} not found")
    _check_writable(out)


def read_run_config(out: Path, game_name: str, cls=DQNConfig, algo: str = "dqn"):
    """The config (a `cls`) of the run in `out` (its config.json, validated like any settings file).
    config.json names its learner in "algo" (absent: a DQN run)."""
    check_resumable(out)
    path = Path(out) / "config.json"
    saved = read_settings(path, "run config")
    saved_game = saved.pop("game", None)
    if saved_game != game_name:
        raise UserError(f"{out} is a {saved_game} run, not {game_name}")
    saved_algo = saved.pop("algo", "dqn")
    if saved_algo != algo:
        raise UserError(f"{out} is a {saved_algo} run, not {algo}; resume it with --algo {saved_algo}")
    return config_from_dict(cls, saved, where=str(path))


def metric_columns(game_name: str, config: DQNConfig) -> list[str]:
    cols = [
        "episodes",
        "updates",
        "seconds",
        "epsilon",
        "loss",
        "replay_size",
        "decisions_per_game",
        "selfplay_games_per_s",
        "train_samples_per_s",
    ]
    for spec in config.eval_opponents:
        cols += [f"{spec}_win", f"{spec}_draw", f"{spec}_loss"]
    if game_name == "tic_tac_toe":
        cols.append("exploitability")
    return cols


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

    def __init__(self, out: Path, game_name: str, config, columns: list[str] | None = None, header=None):
        """`columns` of metrics.csv (default: the DQN's); `header`: extra keys of config.json
        written before the config's (e.g. {"algo": "ppo"})."""
        self.out = Path(out)
        self.game_name = game_name
        self.config = config
        self.columns = metric_columns(game_name, config) if columns is None else list(columns)
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
        from agents.dqn.model import ScalarWriter

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

    def save_model(self, keras_model, network: NumpyQNetwork, metadata: dict, stem: str = "model") -> None:
        """`<stem>.keras` and `<stem>.npz` (numpy weights + metadata)."""
        from agents.dqn.model import save_keras_atomic

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
