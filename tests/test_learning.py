"""A new learner is one module implementing agents.learning.loop.Learner: a tiny tabular one (no
TensorFlow) trains through the one loop, writes the run folder, resumes exactly after a stop, and is
refused a checkpoint of another learner."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass

import numpy as np
import pytest

import games
from agents.afterstate_value.config import AfterstateConfig
from agents.afterstate_value.trainer import AfterstateLearner
from agents.alphazero.trainer import AlphaZeroLearner
from agents.base import Agent
from agents.distillation.config import DistillationConfig
from agents.dqn import DQNLearner
from agents.dqn.config import DQNConfig
from agents.learning.config import LearnerConfig, learning_rate_at
from agents.learning.loop import SELFPLAY_COLUMNS, Learner, train_learner
from agents.learning.runfolder import read_checkpoint
from agents.learning.seating import seat_agents
from agents.nfsp import NFSPLearner
from agents.ppo import PPOLearner
from agents.ppo.config import PPOConfig
from games import UserError
from games.config import config_from_dict, setting


@dataclass
class TinyConfig(LearnerConfig):
    episodes: int = setting(32, "episodes of a run", flag=False)
    games_per_batch: int = setting(8, "games per step", metavar="N")
    eval_every: int = setting(16, "evaluate every N episodes", metavar="N")


class PreferenceAgent(Agent):
    """The legal action of highest preference."""

    deterministic = True

    def __init__(self, preference: np.ndarray):
        self.preference = preference

    def act(self, states):
        masks = np.array([s.legal_mask() for s in states])
        return np.where(masks, self.preference, -np.inf).argmax(axis=1)


class TinyLearner:
    """Plays random games; an action's preference is the mean return of the players who chose it."""

    ALGO = "tiny"
    TITLE = "tiny tabular learner"
    LOSS_LABEL = "loss"
    COLUMNS = ["loss", "decisions_per_game", "selfplay_games_per_s", "best_action"]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: TinyConfig, mapper=None):
        self.game, self.config = games.make(game_name, **config.game_config), config
        self.rng = np.random.default_rng(config.seed)
        self.total = np.zeros(self.game.num_actions)
        self.count = np.zeros(self.game.num_actions)
        self.episodes, self.updates, self.last_loss = 0, 0, float("nan")

    def step(self) -> dict:
        decisions = 0
        for _ in range(self.config.games_per_batch):
            state, chosen = self.game.new_initial_state(self.rng), []
            while not state.is_terminal():
                action = int(self.rng.choice(state.legal_actions()))
                chosen.append((state.current_player, action))
                state.apply_action(action)
            for player, action in chosen:
                self.total[action] += state.returns()[player]
                self.count[action] += 1
            decisions += len(chosen)
        self.episodes += self.config.games_per_batch
        self.updates += 1
        self.last_loss = float(np.abs(self.preference()).mean())
        info = {"loss": self.last_loss, "trained": True, "decisions": decisions, "selfplay_seconds": 0.01}
        return info | {"best_action": int(self.preference().argmax())}

    def preference(self) -> np.ndarray:
        return self.total / np.maximum(self.count, 1)

    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {}

    def arrays(self) -> dict:
        return {"total": self.total, "count": self.count}

    def restore(self, state: dict, arrays: dict) -> None:
        self.total, self.count = arrays["total"].copy(), arrays["count"].copy()

    def agent(self) -> Agent:
        return PreferenceAgent(self.preference())

    def models(self) -> list:
        return []


def tiny(**settings) -> TinyConfig:
    return config_from_dict(TinyConfig, {"eval_games": 4, "eval_opponents": ["random"], **settings})


def test_a_tiny_learner_trains_through_the_loop(tmp_path):
    lines = []
    summary = train_learner(TinyLearner, "tic_tac_toe", tiny(), tmp_path / "run", log=lines.append)
    assert summary["episodes"] == 32 and summary["algo"] == "tiny" and summary["stopped_by"] == "episodes"
    assert json.loads((tmp_path / "run" / "config.json").read_text())["algo"] == "tiny"
    rows = list(csv.DictReader((tmp_path / "run" / "metrics.csv").open()))
    assert [r["episodes"] for r in rows] == ["8", "16", "24", "32"]
    assert rows[1]["random_win"] != "" and rows[0]["random_win"] == "" and rows[0]["best_action"] != ""
    assert len(lines) == 2 and lines[0].startswith("16 episodes: loss ")


def test_a_stopped_tiny_run_resumes_to_the_same_state(tmp_path):
    train_learner(TinyLearner, "tic_tac_toe", tiny(), tmp_path / "straight")
    calls = iter(range(100))
    stopped = train_learner(TinyLearner, "tic_tac_toe", tiny(), tmp_path / "run", should_stop=lambda: next(calls) >= 2)
    assert stopped["stopped_by"] == "interrupt" and stopped["episodes"] == 16
    assert train_learner(TinyLearner, "tic_tac_toe", tiny(), tmp_path / "run", resume=True)["episodes"] == 32
    (_, straight), (_, resumed) = (
        read_checkpoint(tmp_path / r / "checkpoints" / "checkpoint.npz") for r in ("straight", "run")
    )
    assert straight.keys() == resumed.keys() and all(np.array_equal(straight[k], resumed[k]) for k in straight)


def test_a_checkpoint_of_another_learner_is_refused(tmp_path):
    train_learner(TinyLearner, "tic_tac_toe", tiny(), tmp_path / "run", episodes=8)

    class OtherLearner(TinyLearner):
        ALGO = "other"

    with pytest.raises(UserError, match="a tiny checkpoint"):
        train_learner(OtherLearner, "tic_tac_toe", tiny(), tmp_path / "run", resume=True)


def test_seats_give_each_opponent_its_fraction_and_the_learner_one_seat_there():
    seats = seat_agents(20, 3, [("a", 0.25), ("b", 0.5)], np.random.default_rng(0))
    assert [sorted(set(s)) for s in seats] == [[0, 1]] * 5 + [[0, 2]] * 10 + [[0]] * 5
    assert all(s.count(0) == 1 for s in seats[:15]) and seats[15:] == [[0, 0, 0]] * 5


def test_the_connect_four_mirror_maps_a_position_to_the_mirrored_one():
    game, rng = games.make("connect_four"), np.random.default_rng(1)
    a, b = game.new_initial_state(rng), game.new_initial_state(rng)
    for move in (0, 1, 1, 5, 6, 3):
        a.apply_action(move)
        b.apply_action(6 - move)
    mirror = game.facts.mirror
    np.testing.assert_array_equal(mirror.observations(a.observation(0)[None]), b.observation(0)[None])
    np.testing.assert_array_equal(mirror.per_action(np.arange(7)[None]), [[6, 5, 4, 3, 2, 1, 0]])
    np.testing.assert_array_equal(mirror.actions(np.array([0, 2])), [6, 4])


@pytest.mark.parametrize(
    "learner", [DQNLearner, NFSPLearner, PPOLearner, AlphaZeroLearner, AfterstateLearner, TinyLearner]
)
def test_every_learner_has_what_the_loop_needs(learner):
    members = [name for name in dir(Learner) if not name.startswith("_") or name == "__init__"]
    assert {"ALGO", "COLUMNS", "step", "restore", "models"} <= set(members) | set(Learner.__annotations__)
    for name in set(members) | {n for n in Learner.__annotations__ if n.isupper()}:
        assert hasattr(learner, name), name
    assert set(SELFPLAY_COLUMNS) <= set(learner.COLUMNS)


@pytest.mark.parametrize("config_class", [DQNConfig, PPOConfig, AfterstateConfig, DistillationConfig])
def test_every_learner_reads_its_learning_rate_settings_alike(config_class):
    """One schedule for every learner (agents.learning.config.learning_rate_at): constant at
    `learning_rate` without a decay, as the setting documents, else linear to `learning_rate_end`."""
    constant = config_class(learning_rate=1e-3, learning_rate_end=1e-4, learning_rate_decay_episodes=0)
    assert learning_rate_at(constant, 0) == learning_rate_at(constant, 10**6) == 1e-3
    decaying = config_class(learning_rate=1e-3, learning_rate_end=1e-4, learning_rate_decay_episodes=1000)
    assert learning_rate_at(decaying, 500) == pytest.approx(5.5e-4)
    assert learning_rate_at(decaying, 5000) == pytest.approx(1e-4)
