"""The distillation learner and its `train` loop (the one loop of agents/learning/loop.py).

Each batch:
    play:    `games_per_batch` games in lock-step; the learner's seats act by the student (the best
             scored legal action, agents.action_scores; a random one with chance `epsilon`), or by
             the teacher for the first `teacher_episodes`. In the `opponent_mix` fraction of the
             games a fixed baseline holds every seat but one.
    label:   at each decision of the learner's seats with more than one legal action, the teacher
             values every legal action's afterstate (agents.afterstate: the states the student
             reaches are labelled, as in DAgger); the target is the softmax of those values at
             `temperature`
    update:  `update_epochs` shuffled passes of `minibatch_size` decisions, the cross-entropy of the
             targets under the softmax of the student's scores over each decision's legal actions, Adam
The student is shipped as `model.npz` with `"action_scores": true` in its metadata (one MLP on
[observation, action features]): agents.make plays it as an `ActionScoreAgent`, with no game copy
stepped.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

import agents
import games
from agents.action_scores import ActionScoreAgent, action_feature_size, action_features, action_scores
from agents.afterstate import afterstate_values
from agents.arena import lockstep_batch, play_batch
from agents.base import Agent
from agents.distillation.config import DistillationConfig
from agents.distillation.model import ActionScorer, make_update, scorer_keras_model
from agents.learned import NumpyNetwork, load_network, model_metadata
from agents.learning.config import learning_rate_at
from agents.learning.keras_helpers import build_optimizer, init_tensorflow, optimizer_values, set_optimizer_values
from agents.learning.loop import SELFPLAY_COLUMNS, Mapper, play_in_process, train_learner
from agents.learning.seating import mix_opponents, seat_agents
from agents.scored_choice import best_actions
from games.batch import BatchState, batch_of
from games.errors import UserError

SCORER_KERAS_PREFIX = "action_scorer__"


def softmax_by_decision(values: np.ndarray, rows: np.ndarray, count: int, temperature: float) -> np.ndarray:
    """The softmax of `values / temperature` within each decision (`rows`: the decision of each value)."""
    scaled = values / temperature
    top = np.full(count, -np.inf)
    np.maximum.at(top, rows, scaled)
    weights = np.exp(scaled - top[rows])
    return (weights / np.bincount(rows, weights, minlength=count)[rows]).astype(np.float32)


class Labelling(Agent):
    """`actor` in the arena (None: the teacher itself), keeping for each decision with a choice the
    mover's observation, the legal actions and the teacher's target over them."""

    def __init__(self, actor: Agent | None, teacher: NumpyNetwork, temperature: float):
        self.actor, self.teacher, self.temperature = actor, teacher, temperature
        self.observations: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []

    def act(self, states) -> np.ndarray:
        return self.act_batch(batch_of(states), np.arange(len(states)))

    def act_batch(self, batch: BatchState, games_: np.ndarray) -> np.ndarray:
        rows, actions, values = afterstate_values([self.teacher], np.zeros(len(games_), np.int64), batch, games_)
        counts = np.bincount(rows, minlength=len(games_))
        choice = counts > 1
        keep = choice[rows]
        local = np.cumsum(choice) - 1
        self.observations.append(batch.observations(games_[choice]))
        self.actions.append(actions[keep])
        self.targets.append(softmax_by_decision(values[keep], local[rows[keep]], int(choice.sum()), self.temperature))
        self.counts.append(counts[choice])
        if self.actor is None:
            return best_actions(rows, actions, values, len(games_))
        return self.actor.act_batch(batch, games_)

    def data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(observations [D, n], actions [R], targets [R], counts [D]): decision d's actions are the
        counts[d] rows after those of the decisions before it."""
        return tuple(np.concatenate(x) for x in (self.observations, self.actions, self.targets, self.counts))


class DistillationLearner:
    ALGO = "distill"
    TITLE = "an action scorer distilled from an afterstate battler"
    LOSS_LABEL = "cross-entropy of the teacher's choices"
    COLUMNS = [*SELFPLAY_COLUMNS, "learning_rate", "teacher_agreement", "decisions_labelled"]
    EXPLOITABILITY = False

    def __init__(self, game_name: str, config: DistillationConfig, mapper: Mapper | None = None):
        """`mapper` is accepted for the loop's interface; play runs in this process."""
        self.config = c = config
        self.mapper = mapper or play_in_process
        self.game = g = games.make(game_name, **config.game_config)
        if not c.teacher:
            raise UserError("distillation needs a teacher: an afterstate model (teacher = PATH in the settings)")
        self.teacher, teacher_meta = load_network(c.teacher, g)
        if not teacher_meta.get("afterstate"):
            raise UserError(f"teacher {teacher_meta['path']} is not an afterstate model")
        self.teacher_path = c.teacher  # as given: a shipped model names its teacher relative to the project
        init_tensorflow(c.seed, c.tf_threads)
        self.rng = np.random.default_rng(c.seed)
        self.scorer = ActionScorer(g.observation_size, action_feature_size(g), c)
        self.optimizer = build_optimizer(self.scorer, c.learning_rate)
        self.update = make_update(self.scorer, self.optimizer)
        for spec in c.opponent_mix:  # a bad spec fails now
            agents.make(spec, g, seed=0)
        self.episodes, self.updates = 0, 0
        self.last_loss = float("nan")
        self._refresh_network()

    def _refresh_network(self) -> None:
        c = self.config
        self.net = NumpyNetwork(self.scorer.mlp_weights(), [c.activation] * len(c.hidden_layers) + ["linear"])

    def step(self) -> dict:
        c = self.config
        t0 = time.perf_counter()
        actor_rng = np.random.default_rng(self.rng.integers(2**63))
        teacher_plays = self.episodes < c.teacher_episodes
        actor = None if teacher_plays else ActionScoreAgent(self.game, self.net, epsilon=c.epsilon, rng=actor_rng)
        labelling = Labelling(actor, self.teacher, c.temperature)
        opponents = mix_opponents(self.game, c.opponent_mix, self.rng)
        chance = np.random.default_rng(self.rng.integers(2**63))
        states = [self.game.new_initial_state(chance) for _ in range(c.games_per_batch)]
        seats = seat_agents(c.games_per_batch, self.game.num_players, opponents, self.rng)
        decisions = play_batch(lockstep_batch(states), seats, [labelling, *(agent for agent, _ in opponents)])
        observations, actions, targets, counts = labelling.data()
        self.episodes += c.games_per_batch
        t1 = time.perf_counter()
        agreement = self._agreement(observations, actions, targets, counts)
        learning_rate = learning_rate_at(c, self.episodes)
        self.optimizer.learning_rate.assign(learning_rate)
        self.last_loss = self._train(observations, actions, targets, counts)
        self._refresh_network()
        return {
            "loss": self.last_loss,
            "learning_rate": learning_rate,
            "teacher_agreement": agreement,
            "decisions_labelled": len(counts),
            "trained": not math.isnan(self.last_loss),
            "decisions": decisions,
            "selfplay_seconds": t1 - t0,
        }

    def _rows(self, counts: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(local decision of each row, its index in the batch's rows) of decisions `chosen`."""
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        sizes = counts[chosen]
        local = np.repeat(np.arange(len(chosen)), sizes)
        offsets = np.arange(len(local)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return local, np.repeat(starts[chosen], sizes) + offsets

    def _agreement(self, observations, actions, targets, counts) -> float:
        """How often the student's best-scored action (before this batch's update) is the teacher's best."""
        if not len(counts):
            return float("nan")
        rows = np.repeat(np.arange(len(counts)), counts)
        scores = action_scores(self.net, self.game, observations, rows, actions)
        student = best_actions(rows, actions, scores, len(counts))
        teacher = best_actions(rows, actions, targets.astype(np.float64), len(counts))
        return float(np.mean(student == teacher))

    def _train(self, observations, actions, targets, counts) -> float:
        """Every epoch a fresh permutation of the decisions, cut into whole minibatches (fewer: one)."""
        c = self.config
        n = len(counts)
        if n == 0:
            return float("nan")
        size = min(c.minibatch_size, n)
        per_epoch = n // size
        total = 0.0
        steps = 0
        for _ in range(c.update_epochs):
            order = self.rng.permutation(n)[: per_epoch * size].reshape(-1, size)
            for chosen in order:
                chosen = np.sort(chosen)
                local, index = self._rows(counts, chosen)
                obs = observations[chosen]
                features = action_features(self.game, obs, local, actions[index])
                total += float(self.update(obs, local.astype(np.int32), features, targets[index]))
                steps += 1
        self.updates += steps
        return total / steps

    def agent(self) -> ActionScoreAgent:
        return ActionScoreAgent(self.game, self.net, self._metadata())

    def _metadata(self) -> dict:
        meta = dict(
            episodes=self.episodes,
            seed=self.config.seed,
            teacher=self.teacher_path,
            distillation_config=dataclasses.asdict(self.config),
        )
        return model_metadata(self.game, self.net, action_scores=True, **meta)

    def models(self) -> list:
        keras_model = scorer_keras_model(self.net, self.config, SCORER_KERAS_PREFIX + self.game.name)
        return [("model", keras_model, self.net, self._metadata())]

    # checkpoints ---------------------------------------------------------------------------------
    def status(self) -> str:
        return f"loss {self.last_loss:.4f}"

    def state(self) -> dict:
        return {}

    def arrays(self) -> dict:
        out = {f"scorer_{i}": v for i, v in enumerate(self.scorer.values())}
        out.update({f"optimizer_{i}": v for i, v in enumerate(optimizer_values(self.optimizer))})
        return out

    def restore(self, state: dict, arrays: dict) -> None:
        self.scorer.assign([arrays[f"scorer_{i}"] for i in range(len(self.scorer.variables))])
        set_optimizer_values(self.optimizer, [arrays[f"optimizer_{i}"] for i in range(len(self.optimizer.variables))])
        self._refresh_network()


def train(game_name: str, config: DistillationConfig, out, **kwargs) -> dict:
    """Train a distillation run in folder `out` (agents.learning.loop.train_learner gives the options)."""
    return train_learner(DistillationLearner, game_name, config, out, **kwargs)
