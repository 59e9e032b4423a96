"""`deckopt bench selfplay`: how fast the DQN's self-play and training loop are.

1. Connect Four self-play games/s, the project's way (lock-step games on the vectorised engine
   games/connect_four_batch.py, one numpy forward pass of the whole batch per step, epsilon-greedy
   with legal masks, recording the targets: exactly the training's self-play phase, which
   `agents.dqn.self_play` runs) against the ancestor's way (`bench.ancestor`: one game at a time,
   one eager Keras call per move), same untrained 3 x 200 network, same engine, interleaved in the
   same run: "selfplay_vs_ancestor" (one process, 256 games in lock-step: the Connect Four config's
   phase) and "sharded_selfplay_vs_ancestor" (the training's phase of 4 096 games split into
   `selfplay_shards` = 2 lock-step shards played by 2 worker processes, as
   `deckopt train connect_four --games-per-batch 4096 --selfplay-shards 2 --jobs 2` plays it).
2. Train-step samples/s of the training loop (replay sampling in numpy + the compiled phase of
   `updates_per_batch` steps) against a bare `tf.function` step of the same network and batch size
   called on tensors already in memory: "train_loop_vs_bare_step".
Each figure is the median of interleaved repeats (the machine is shared and noisy).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents import dqn
from agents.parallel import Mapper
from deckopt.bench import ancestor
from deckopt.bench.timing import interleaved, ratio_of_rates

GAME = "connect_four"
LOCKSTEP_GAMES = 256
SHARDED_GAMES = 4096  # larger shards amortise the per-step Python and each map's process round trip
SHARDS = JOBS = 2
REPEATS = 5
TRAIN_PHASES_PER_REPEAT = 4
EPSILON = 0.1  # the ancestor's constant epsilon


# --- the one place this bench reaches into agents.dqn (update here when its internals move) --------
class DQNHarness:
    """A fresh DQN trainer of `game_name` and the few of its parts the bench times."""

    def __init__(self, game_name: str, overrides: dict | None = None):

        self._dqn = dqn
        settings = {"seed": 0, "replay_size": 50_000, **(overrides or {})}
        self._settings = settings
        self.trainer = dqn.DQNLearner(game_name, dqn.load_config(game_name, **settings))
        self.game, self.model = self.trainer.game, self.trainer.model
        self.batch_size = self.trainer.config.batch_size
        self.updates = self.trainer.config.updates_per_batch
        self.rng = np.random.default_rng(0)
        self._recorder = dqn.SelfPlayRecorder(self.trainer.network, self.rng)
        batch_class = type(self.game).batch_class  # what self_play plays on (games/batch.py)
        self.engine = batch_class.__name__ if batch_class else "StateBatch"

    def self_play(self, num_games: int, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The training's self-play phase: (observations, actions, targets) of `num_games` games."""
        obs, actions, targets, _ = self._dqn.self_play(
            self.game, self._recorder, num_games, epsilon, self.trainer.config.gamma, self.rng
        )
        return obs, actions, targets

    def sharded_phase(self, num_games: int, shards: int, mapper) -> Callable[[float], int]:
        """The training's self-play phase of `num_games` games in `shards` shards through `mapper` (worker
        processes), with the same network and no opponents or openings, as `self_play` above;
        returns `phase(epsilon) -> decisions`."""
        settings = {**self._settings, "games_per_batch": num_games, "selfplay_shards": shards}
        settings.update(opponent_mix={}, random_opening_moves=0)
        trainer = self._dqn.DQNLearner(self.game.name, self._dqn.load_config(self.game.name, **settings), mapper)
        trainer.network = self.trainer.network

        def phase(epsilon: float) -> int:
            return len(trainer.self_play_phase(epsilon)[0])

        return phase

    def fill_replay(self, min_size: int) -> None:
        while self.trainer.replay.size < min_size:
            obs, actions, targets = self.self_play(LOCKSTEP_GAMES, 1.0)
            self.trainer.replay.add({"obs": obs, "actions": actions, "targets": targets})

    def train_phase(self) -> None:
        """One phase of the training loop: replay sampling + `updates` compiled steps."""
        self.trainer.train(self.updates)

    def bare_step(self) -> Callable[[], object]:
        """A bare compiled train step on one replay batch already held as tensors; returns the loss."""
        import tensorflow as tf

        step = self._dqn.make_train_step(self.model, self.trainer.optimizer)
        rows = self.trainer.replay.sample(self.rng, (self.batch_size,))
        batch = [tf.constant(rows[name]) for name in ("obs", "actions", "targets")]
        return lambda: step(*batch)


# --- end of agents.dqn internals -------------------------------------------------------------------


def selfplay_works(dqn: DQNHarness, lockstep_games: int, moves: list[float], sharded=None) -> dict:
    """The project's lock-step self-play (in this process; and, given `sharded` = (games, phase), the
    sharded phase on worker processes) and the ancestor's way, all warmed up."""
    dqn.self_play(16, EPSILON)  # warm-up

    def lockstep() -> int:
        obs, _, _ = dqn.self_play(lockstep_games, EPSILON)
        moves.append(len(obs) / lockstep_games)
        return lockstep_games

    works = {"lockstep": lockstep}
    if sharded is not None:
        sharded_games, phase = sharded
        phase(EPSILON)  # warm-up: starts the worker processes

        def sharded_work() -> int:
            moves.append(phase(EPSILON) / sharded_games)
            return sharded_games

        works["sharded"] = sharded_work

    ancestor.warm_up(dqn.model, dqn.game.new_initial_state(dqn.rng))

    def ancestor_game() -> int:
        ancestor.play_game(dqn.model, dqn.game.new_initial_state(dqn.rng), dqn.rng, EPSILON)
        return 1

    return {**works, "ancestor": ancestor_game}


def train_works(dqn: DQNHarness, phases: int) -> dict:
    """The training loop's phases and as many bare steps, both traced before timing."""
    dqn.fill_replay(4 * dqn.batch_size)
    bare_step = dqn.bare_step()
    bare_step()
    dqn.train_phase()  # warm-up: traces both functions
    samples = phases * dqn.updates * dqn.batch_size

    def loop() -> int:
        for _ in range(phases):
            dqn.train_phase()
        return samples

    def bare() -> int:
        for _ in range(phases * dqn.updates):
            loss = bare_step()
        float(loss)  # wait for the last step
        return samples

    return {"loop": loop, "bare": bare}


def run(
    progress: Callable[[int, int, str], None] | None = None,
    log: Callable[[str], None] | None = None,
    lockstep_games: int = LOCKSTEP_GAMES,
    repeats: int = REPEATS,
    train_phases: int = TRAIN_PHASES_PER_REPEAT,
    dqn_overrides: dict | None = None,
    sharded_games: int = SHARDED_GAMES,
    shards: int = SHARDS,
    jobs: int = JOBS,
) -> dict:

    say = log or (lambda line: None)
    say("building the network (untrained 3 x 200, tanh output)")
    dqn = DQNHarness(GAME, dqn_overrides)
    say(
        f"self-play: {repeats} x ({lockstep_games} lock-step games; {sharded_games} games in {shards} shards on "
        f"{jobs} worker processes; 1 game the ancestor's way: one eager Keras call per move), interleaved"
    )
    moves: list[float] = []
    with Mapper(jobs) as mapper:
        sharded = (sharded_games, dqn.sharded_phase(sharded_games, shards, mapper))
        works = selfplay_works(dqn, lockstep_games, moves, sharded)
        play = interleaved(works, repeats, progress=progress, what="self-play")
    say(f"train steps: batch {dqn.batch_size}, {dqn.updates} updates per phase")
    train = interleaved(train_works(dqn, train_phases), repeats, progress=progress, what="train steps")
    return {
        "bench": "selfplay",
        "results": [
            {"name": "connect_four_selfplay_lockstep_numpy", "value": play["lockstep"].rate(), "unit": "games/s"},
            {"name": "connect_four_selfplay_sharded_numpy", "value": play["sharded"].rate(), "unit": "games/s"},
            {"name": "connect_four_selfplay_ancestor_eager_keras", "value": play["ancestor"].rate(), "unit": "games/s"},
            {"name": "connect_four_selfplay_moves_per_game", "value": float(np.mean(moves)), "unit": "moves/game"},
            {"name": "train_loop", "value": train["loop"].rate(), "unit": "samples/s"},
            {"name": "train_bare_tf_function_step", "value": train["bare"].rate(), "unit": "samples/s"},
        ],
        "ratios": {
            "selfplay_vs_ancestor": ratio_of_rates(play, "lockstep", "ancestor"),
            "sharded_selfplay_vs_ancestor": ratio_of_rates(play, "sharded", "ancestor"),
            "train_loop_vs_bare_step": ratio_of_rates(train, "loop", "bare"),
        },
        "settings": {
            "network": "3 x 200 ReLU, tanh output (untrained)",
            "engine": dqn.engine,
            "lockstep_games": lockstep_games,
            "sharded_games": sharded_games,
            "shards": shards,
            "jobs": jobs,
            "ancestor_games": repeats,
            "epsilon": EPSILON,
            "batch_size": dqn.batch_size,
            "updates_per_phase": dqn.updates,
        },
    }
